/* A key-value shell, built with clang -O0 (kvsh*.scn): clang's frame
 * layout and register use at -O0.  A script of commands is split with
 * strtok and strchr; each command's name is found with bsearch in a sorted
 * table and run through a switch on its opcode (a jump table); values are
 * a tagged union (int, double, string) kept in a linked list on the heap,
 * strings grown with realloc, entries freed by `del`, the list sorted with
 * qsort through an array of pointers.  `dup` keeps a pointer to an entry
 * that a later `del` frees, and `show` follows it into a freed block whose
 * first word malloc has overwritten: the crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_ADD, OP_DEL, OP_DUP, OP_GET, OP_INC, OP_SET, OP_SHOW, OP_SORT };
enum kind { K_INT, K_DBL, K_STR };

struct value {
	enum kind kind;
	union {
		long i;
		double d;
		struct {
			char *s;
			size_t len;
			size_t cap;
		} str;
	} u;
};

struct entry {
	struct entry *next;
	char key[16];
	struct value val;
	int hits;
};

struct command {
	const char *name;
	enum op op;
	int nargs;
};

struct shell {
	struct entry *head;
	int count;
	int ops;
	long acc;
	struct entry *dup;
};

static const struct command g_cmds[] = {
	{ "add", OP_ADD, 2 }, { "del", OP_DEL, 1 },  { "dup", OP_DUP, 1 },
	{ "get", OP_GET, 1 }, { "inc", OP_INC, 2 },  { "set", OP_SET, 2 },
	{ "show", OP_SHOW, 0 }, { "sort", OP_SORT, 0 },
};

static const char g_script[] =
	"set alpha 10;set beta 2.5;set name ab;add name cd;inc alpha 5;"
	"get beta;dup name;set gamma 7;add name efgh;sort;inc gamma 30;"
	"del name;set delta 1;get alpha;show";

struct shell g_sh;
int g_line;
char g_last[32];

static int cmd_cmp(const void *k, const void *e)
{
	const struct command *c = e;

	return strcmp(k, c->name);
}

static struct entry *find(struct shell *sh, const char *key)
{
	for (struct entry *e = sh->head; e; e = e->next)
		if (memcmp(e->key, key, strlen(key) + 1) == 0)
			return e;
	return NULL;
}

static void parse_value(struct value *v, const char *text)
{
	char *end;
	long i = strtol(text, &end, 10);

	if (*end == '\0') {
		v->kind = K_INT;
		v->u.i = i;
	} else if (strchr(text, '.')) {
		v->kind = K_DBL;
		v->u.d = strtod(text, NULL);
	} else {
		v->kind = K_STR;
		v->u.str.len = strlen(text);
		v->u.str.cap = v->u.str.len + 1;
		v->u.str.s = malloc(v->u.str.cap);
		memcpy(v->u.str.s, text, v->u.str.cap);
	}
}

static void append(struct value *v, const char *text)
{
	size_t n = strlen(text);

	if (v->u.str.len + n + 1 > v->u.str.cap) {
		v->u.str.cap = (v->u.str.len + n + 1) * 2;
		v->u.str.s = realloc(v->u.str.s, v->u.str.cap); /* L:append_realloc */
	}
	memcpy(v->u.str.s + v->u.str.len, text, n + 1);
	v->u.str.len += n;
}

static struct entry *set(struct shell *sh, const char *key, const char *text)
{
	struct entry *e = find(sh, key);

	if (!e) {
		e = calloc(1, sizeof(*e));
		strncpy(e->key, key, sizeof(e->key) - 1);
		e->next = sh->head;
		sh->head = e;
		sh->count++;
	} else if (e->val.kind == K_STR) {
		free(e->val.u.str.s);
	}
	parse_value(&e->val, text);
	return e;
}

static void del(struct shell *sh, const char *key)
{
	struct entry **pp = &sh->head;

	while (*pp && strcmp((*pp)->key, key) != 0)
		pp = &(*pp)->next;
	if (*pp) {
		struct entry *gone = *pp;

		*pp = gone->next;
		if (gone->val.kind == K_STR)
			free(gone->val.u.str.s);
		free(gone); /* L:del_free */
		sh->count--;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a;
	const struct entry *y = *(struct entry *const *)b;

	return strcmp(x->key, y->key);
}

static void sort_list(struct shell *sh)
{
	struct entry *v[16];
	int n = 0;

	for (struct entry *e = sh->head; e && n < 16; e = e->next)
		v[n++] = e;
	qsort(v, n, sizeof(v[0]), by_key);
	for (int i = 0; i < n; i++)
		v[i]->next = i + 1 < n ? v[i + 1] : NULL;
	sh->head = n ? v[0] : NULL;
}

static long show(const struct entry *e)
{
	long sum = 0;

	for (; e; e = e->next) {
		sum += e->hits; /* L:crash */
		if (e->val.kind == K_STR)
			sum += (long)e->val.u.str.s[0];
	}
	return sum;
}

static int run(struct shell *sh, const struct command *c, char **args)
{
	struct entry *e;

	sh->ops++;
	switch (c->op) {
	case OP_SET:
		set(sh, args[0], args[1]);
		break;
	case OP_ADD:
		e = find(sh, args[0]);
		if (!e || e->val.kind != K_STR)
			return -1;
		append(&e->val, args[1]);
		break;
	case OP_INC:
		e = find(sh, args[0]);
		if (!e || e->val.kind != K_INT)
			return -1;
		e->val.u.i += strtol(args[1], NULL, 10);
		e->hits++;
		break;
	case OP_GET:
		e = find(sh, args[0]);
		if (!e)
			return -1;
		e->hits++;
		sh->acc += e->val.kind == K_INT ? e->val.u.i : (long)(e->val.u.d * 10);
		break;
	case OP_DUP:
		sh->dup = find(sh, args[0]);
		break;
	case OP_DEL:
		del(sh, args[0]);
		break;
	case OP_SORT:
		sort_list(sh);
		break;
	case OP_SHOW:
		sh->acc += show(sh->dup); /* L:run_show */
		break;
	}
	return 0;
}

static int exec_line(struct shell *sh, char *line)
{
	char *args[2] = { NULL, NULL };
	char *sp = strchr(line, ' ');
	const struct command *c;
	int n = 0;

	if (sp) {
		*sp = '\0';
		args[n++] = sp + 1;
		if ((sp = strchr(sp + 1, ' ')) != NULL) {
			*sp = '\0';
			args[n++] = sp + 1;
		}
	}
	c = bsearch(line, g_cmds, sizeof(g_cmds) / sizeof(g_cmds[0]),
		    sizeof(g_cmds[0]), cmd_cmp);
	if (!c || c->nargs != n)
		return -2;
	snprintf(g_last, sizeof(g_last), "%s/%d", c->name, n);
	return run(sh, c, args); /* L:exec_run */
}

/* Static glibc's start-up leaves other small blocks free under Valgrind
 * (where the recording runs) than natively (record full): taking every
 * free block of the sizes the shell uses first puts its blocks at the same
 * offsets from each other in both runs (#heap-anchor g_sh.dup). */
static void *g_scratch[32];

static void take_free_small_blocks(void)
{
	for (int i = 0; i < 16; i++) {
		g_scratch[i] = malloc(8);
		g_scratch[16 + i] = malloc(sizeof(struct entry));
	}
}

int main(void)
{
	char script[sizeof(g_script)];
	char *line;
	int bad = 0;

	take_free_small_blocks();
	memcpy(script, g_script, sizeof(script));
	for (line = strtok(script, ";"); line; line = strtok(NULL, ";")) {
		g_line++;
		bad += exec_line(&g_sh, line) != 0; /* L:main_exec */
	}
	return bad;
}
