/* types-prog.c: a value scenario's program (values-types.scn): values of
 * many C types at past positions: an enum, a bitfield struct, short,
 * unsigned char and char arrays on the stack of frames that return, a
 * struct of two integers returned in rax:rdx, a union, a 2-D global array
 * and a function pointer; a checksum loop over a stack buffer; a crash
 * through NULL four calls below main.  Static, not PIE, like values-prog.
 */
#include <string.h>

enum colour { RED = 1, GREEN = 2, BLUE = 4 };

struct flags {
	unsigned ready : 1;
	unsigned level : 3;
	signed delta : 5;
};

struct pair {
	int first;
	long second;
};

union word {
	unsigned int whole;
	unsigned char bytes[4];
};

static short grid[3][4];
static enum colour g_colour = RED;
static struct flags g_flags;
static union word g_word = { .whole = 0x11223344 };
static int (*g_op)(int, int);

static int add(int a, int b)
{
	return a + b; /* L:add */
}

static int mul(int a, int b)
{
	return a * b; /* L:mul */
}

static struct pair make_pair(int seed)
{
	struct pair p = { seed * 3, (long)seed << 33 };

	return p; /* L:make_pair */
}

static unsigned char checksum(const char *text)
{
	char copy[16];
	unsigned char sum = 0;

	strncpy(copy, text, sizeof copy - 1);
	copy[sizeof copy - 1] = 0;
	for (size_t i = 0; copy[i]; i++)
		sum = (unsigned char)(sum * 31 + copy[i]); /* L:checksum */
	return sum; /* L:checksum_done */
}

static void fill_grid(short base)
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 4; c++)
			grid[r][c] = (short)(base * r - c); /* L:grid */
}

static int leaf(const int *p)
{
	return *p; /* L:leaf */
}

static int middle(const int *p, enum colour colour)
{
	g_colour = colour;
	return leaf(p) + 1; /* L:middle */
}

int main(void)
{
	struct pair pair;
	unsigned char sums[3];
	int total = 0;

	g_op = add;
	for (int i = 0; i < 3; i++) {
		pair = make_pair(i + 1); /* L:main_pair */
		total = g_op(total, pair.first);
		g_op = i % 2 ? add : mul;
	}
	g_flags.ready = 1;
	g_flags.level = 5;
	g_flags.delta = -7;
	sums[0] = checksum("reverse"); /* L:main_sum */
	sums[1] = checksum("debugging");
	sums[2] = checksum("values");
	g_word.bytes[1] = sums[1];
	fill_grid((short)-total); /* L:main_grid */
	return middle(total > 0 ? NULL : &total, BLUE); /* L:crash */
}
