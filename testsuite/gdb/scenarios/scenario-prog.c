/* scenario-prog.c: the program the GDB scenario tests replay.
 *
 * Each scenario (*.scn) starts where the recording ends, at the crash in
 * store(), and moves back and forth through main's earlier work.  Built
 * static and without PIE so that the live run under GDB and the run under
 * Valgrind (hwtrec record) execute the same code at the same addresses.
 * Lines the scenarios name carry a "L:name" marker comment; the runner turns
 * "break @name" into "break scenario-prog.c:LINE".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
	int key;
	const char *name;
};

static volatile int counter;

static int compare_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return x->key - y->key; /* L:compare */
}

static int square(int x)
{
	return x * x; /* L:square */
}

static int sum_of_squares(int n)
{
	int total = 0;

	for (int i = 1; i <= n; i++)
		total += square(i); /* L:loop */
	return total; /* L:loop_done */
}

static int factorial(int n)
{
	if (n <= 1)
		return 1; /* L:fact_base */
	return n * factorial(n - 1); /* L:fact_rec */
}

static int leaf(int v)
{
	int w = v + 1; /* L:leaf */

	return w * 2;
}

static int middle(int v)
{
	int r = leaf(v); /* L:middle_first */

	r += leaf(r); /* L:middle_second */
	return r;
}

static int outer(int v)
{
	int r = middle(v); /* L:outer */

	return r + 1;
}

static size_t name_lengths(const struct item *items, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++)
		total += strlen(items[i].name); /* L:strlen */
	return total;
}

/* Two statements that are one instruction each: consecutive addresses. */
static void consecutive(void)
{
	counter = 1; /* L:first_insn */
	counter = 2; /* L:second_insn */
}

/* The crash: store() writes through the NULL that choose_slot() returns for
 * the fourth slot, three frames below main (main, run_crash, fill, store). */
static int *choose_slot(int *slots, int index)
{
	if (index > 2)
		return NULL; /* L:null */
	return &slots[index];
}

static void store(int *slots, int index, int value)
{
	int *slot = choose_slot(slots, index); /* L:set_pointer */

	*slot = value; /* L:crash */
}

static void fill(int *slots, int count)
{
	for (int i = 0; i < count; i++)
		store(slots, i, i * 10); /* L:fill */
}

static void run_crash(void)
{
	int slots[3];

	fill(slots, 4); /* L:run_crash */
}

int main(void)
{
	struct item items[] = { { 3, "three" }, { 1, "one" }, { 2, "two" } }; /* L:main_start */
	int squares = sum_of_squares(4); /* L:main_squares */
	int fact = factorial(5); /* L:main_fact */
	int nested = outer(2); /* L:main_outer */
	size_t lengths;

	qsort(items, 3, sizeof items[0], compare_items); /* L:main_qsort */
	lengths = name_lengths(items, 3); /* L:main_lengths */
	printf("%d %d %d %zu %s\n", squares, fact, nested, lengths, /* L:main_printf */
	       items[0].name);
	consecutive(); /* L:main_consecutive */
	run_crash(); /* L:main_crash */
	return 0;
}
