/* reuse-prog.c: a value scenario's program (values-reuse.scn): heap blocks
 * freed and allocated again (malloc hands the freed block back), a
 * recursion that keeps a variable-length array and an alloca'd buffer in
 * every frame, a longjmp out of its deepest frame back to main, and a
 * use-after-free crash: a pointer kept to a freed record whose memory now
 * holds another record, whose past values the user prints.  A frame of
 * 1.5 MB runs first, so that the stack far below main's frame is mapped,
 * and the program maps memory below 64 KiB where the kernel allows it
 * (vm.mmap_min_addr): both hold bytes of 9 where GDB must never find a
 * local (values-reuse-nodata.scn).  Static, not
 * PIE, like values-prog.
 */
#include <alloca.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* A deep frame early on: the stack is mapped (and in the core) far below
 * the frames that are left at the crash. */
static long scan_deep(int seed)
{
	char window[1536 * 1024];

	memset(window, seed, sizeof(window));
	return window[seed * 4096] + window[sizeof(window) - 1]; /* L:scan */
}

/* Low memory, where hwtrec's unwinder places frames gone by the end. */
static void map_low(void)
{
	void *low = mmap((void *)0x1000, 0xf000, PROT_READ | PROT_WRITE,
			 MAP_FIXED_NOREPLACE | MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);

	if (low != MAP_FAILED)
		memset(low, 9, 0xf000);
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

static void relabel(struct record *r, int id)
{
	r->link->id = id; /* L:crash */
}

int main(void)
{
	struct record *first, *second, *third;
	int escaped;

	g_sums[5] = scan_deep(9);
	map_low();
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
	third->size += 100;
	first->link = third;
	g_sums[3] = walk(first); /* L:main_rewalk */
	relabel(g_stale, 4); /* L:main_relabel */
	return 0;
}
