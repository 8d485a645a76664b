/* reuse-prog.c: a value scenario's program (values-reuse.scn): heap blocks
 * freed and allocated again (malloc hands the freed block back), a
 * recursion that keeps a variable-length array and an alloca'd buffer in
 * every frame, a longjmp out of its deepest frame back to main, and a
 * use-after-free crash: a pointer kept to a freed record whose memory now
 * holds another record, whose past values the user prints.  Static, not
 * PIE, like values-prog.
 */
#include <alloca.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct record {
	int id;
	int size;
	char label[16];
	struct record *link;
};

static jmp_buf g_escape;
static int g_depth_reached;
static long g_sums[8];
static struct record *g_stale;

static struct record *make_record(int id, const char *label)
{
	struct record *r = malloc(sizeof(*r));

	r->id = id;
	r->size = (int)strlen(label);
	strcpy(r->label, label);
	r->link = 0;
	return r; /* L:make_done */
}

static long descend(int depth, int width)
{
	int row[width];
	char *scratch = alloca(depth * 8 + 8);
	long sum = 0;

	for (int i = 0; i < width; i++)
		row[i] = depth * 100 + i;
	memset(scratch, 'a' + depth, depth * 8 + 8);
	g_depth_reached = depth;
	if (depth == 5)
		longjmp(g_escape, depth * 10 + width); /* L:escape */
	sum = descend(depth + 1, width + 1);
	for (int i = 0; i < width; i++)
		sum += row[i] + scratch[i]; /* L:descend_sum */
	return sum;
}

static long walk(struct record *r)
{
	long total = 0;

	while (r) {
		total += r->id * r->size; /* L:walk */
		r = r->link;
	}
	return total;
}

int main(void)
{
	struct record *first, *second, *third;
	int escaped;

	first = make_record(1, "alpha");
	second = make_record(2, "bravo-two");
	first->link = second;
	g_sums[0] = walk(first); /* L:main_walk */
	escaped = setjmp(g_escape);
	if (escaped == 0)
		g_sums[1] = descend(1, 3); /* L:main_descend */
	g_sums[2] = escaped; /* L:main_escaped */
	g_stale = second;
	free(second); /* L:main_free */
	third = make_record(3, "charlie");
	first->link = third;
	g_sums[3] = walk(first); /* L:main_rewalk */
	third->link = (struct record *)(long)third->size;
	g_sums[4] = g_stale->link->id; /* L:crash */
	return 0;
}
