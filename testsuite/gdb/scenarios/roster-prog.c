/* roster-prog.c: a program as a newcomer writes it, for roster*.scn and
 * live-roster*.lscn.  Students read from stdin ("name score" lines; with
 * no input, the built-in class below), kept in a linked list and a binary
 * search tree on the heap, names copied with strcpy and formatted with
 * sprintf into char buffers, a struct passed and returned by value, a
 * union, bitfields, an enum, a function pointer, doubles and floats,
 * rand() seeded with a constant, errno after a failed fopen, and a
 * classic bug: the lookup of a name that is not there returns NULL and
 * main reads through it (SIGSEGV). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum grade { FAIL, PASS, MERIT, DISTINCTION };

struct flags {
	unsigned int present : 1;
	unsigned int repeat : 1;
	unsigned int year : 3;
	unsigned int group : 4;
};

union mark {
	int points;
	float ratio;
	unsigned char bytes[4];
};

struct student {
	char name[32];
	int score;
	enum grade grade;
	struct flags flags;
	union mark mark;
	struct student *next;
};

struct node {
	int key;
	struct student *who;
	struct node *left, *right;
};

struct stats {
	int count;
	int best;
	double mean;
	float spread;
};

struct student *roster;
struct node *tree;
int lucky;
int open_errno;
char banner[64];
double (*scale)(double);

static const char *builtin[] = {
	"ada 91", "brian 47", "carol 68", "dennis 75", "edsger 83", "grace 58",
};

static double halve(double x)
{
	return x / 2.0;
}

static enum grade grade_of(int score)
{
	if (score >= 85)
		return DISTINCTION;
	if (score >= 70)
		return MERIT;
	if (score >= 50)
		return PASS;
	return FAIL;
}

struct student *add_student(const char *name, int score)
{
	struct student *s = malloc(sizeof(*s));

	strcpy(s->name, name); /* L:add */
	s->score = score;
	s->grade = grade_of(score);
	s->flags.present = 1;
	s->flags.repeat = score < 50;
	s->flags.year = (unsigned int)strlen(name) % 8;
	s->flags.group = (unsigned int)score % 16;
	s->mark.points = score * 10;
	s->next = roster;
	roster = s;
	return s;
}

struct node *insert(struct node *root, struct student *s)
{
	if (root == NULL) {
		struct node *n = calloc(1, sizeof(*n));
		n->key = s->score; /* L:insert_new */
		n->who = s;
		return n;
	}
	if (s->score < root->key)
		root->left = insert(root->left, s);
	else
		root->right = insert(root->right, s);
	return root;
}

int tree_height(struct node *root)
{
	int l, r;

	if (!root)
		return 0;
	l = tree_height(root->left); /* L:height_left */
	r = tree_height(root->right);
	return 1 + (l > r ? l : r);
}

struct stats compute(struct student *list)
{
	struct stats st = { 0, 0, 0.0, 0.0f };
	double total = 0.0;
	struct student *p;

	for (p = list; p != NULL; p = p->next) {
		st.count++; /* L:compute_loop */
		total += p->score;
		if (p->score > st.best)
			st.best = p->score;
	}
	st.mean = total / st.count; /* L:compute_mean */
	st.spread = (float)(st.best - st.mean);
	return st;
}

double curve(struct stats st, double bonus)
{
	double target = st.mean + bonus;

	return scale(target) + st.spread; /* L:curve */
}

char *describe(struct student *s, char *out)
{
	sprintf(out, "%s scored %d (grade %d)", /* L:describe */
		s->name, s->score, s->grade);
	return out;
}

struct student *find(const char *name)
{
	struct student *p = roster;

	while (p && strcmp(p->name, name) != 0)
		p = p->next; /* L:find_loop */
	return p;
}

static int read_class(FILE *in)
{
	char line[64], name[32];
	int score, n = 0;

	while (fgets(line, sizeof(line), in) != NULL) {
		if (sscanf(line, "%31s %d", name, &score) == 2) {
			tree = insert(tree, add_student(name, score));
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	char line[64] = "";
	struct stats st = { 0 };
	struct student *top = NULL;
	double curved = 0.0;
	int height = 0, i = 0, n;
	FILE *missing;

	scale = halve;
	srand(7);
	lucky = rand() % 100;
	missing = fopen("/nonexistent/roster.txt", "r");
	open_errno = errno;
	n = read_class(stdin);
	if (n == 0) {
		for (i = 0; i < 6; i++) {
			char name[32];
			int score;

			sscanf(builtin[i], "%31s %d", name, &score); /* L:main_builtin */
			tree = insert(tree, add_student(name, score));
		}
	}
	height = tree_height(tree); /* L:main_height */
	st = compute(roster);
	curved = curve(st, 4.5);
	top = roster;
	describe(top, line);
	strcpy(banner, line); /* L:main_banner */
	roster->mark.ratio = (float)curved / 100.0f; /* L:main_ratio */
	printf("%s; mean %.2f, height %d, lucky %d, argc %d%s\n", banner,
	       st.mean, height, lucky, argc, missing ? "" : " (no file)");
	top = find("linus");
	printf("%s has %d\n", "linus", top->score); /* L:crash */
	return 0;
}
