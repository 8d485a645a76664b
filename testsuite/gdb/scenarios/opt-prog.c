/* opt-prog.c: a value scenario's program (values-opt.scn), built with -O2:
 * arguments and locals live in registers and location lists (and are
 * <optimized out> where the compiler dropped them), a static function
 * inlined into its caller, a tail call (checksum() ends in a jump to
 * mix()), and a crash through a NULL pointer from a table lookup (a store
 * to address 0: GDB 13's record full cannot record a store to another
 * unmapped address, and records a faulting load as if it had run).  Static, not
 * PIE, like values-prog.
 */
struct entry {
	int key;
	int weight;
	struct entry *next;
};

struct entry g_table[6];
struct entry *g_found;
volatile int g_sink;
int g_rounds;

static inline int squash(int v)
{
	int r = v * 3 + 1;

	return r ^ (r >> 2); /* L:squash */
}

__attribute__((noinline)) int mix(int a, int b)
{
	int m = a * 31 + b;

	g_sink = m; /* L:mix */
	return m & 0xffff;
}

__attribute__((noinline)) int checksum(const struct entry *e, int seed)
{
	int acc = seed;

	for (; e; e = e->next)
		acc += squash(e->key) * e->weight; /* L:checksum_loop */
	return mix(acc, seed); /* L:checksum_tail */
}

__attribute__((noinline)) struct entry *lookup(int key)
{
	for (int i = 0; i < 6; i++)
		if (g_table[i].key == key)
			return &g_table[i]; /* L:lookup_hit */
	return 0; /* L:lookup_miss */
}

__attribute__((noinline)) int weigh(int key, int scale)
{
	struct entry *e = lookup(key);

	g_found = e;
	e->key = -key; /* L:weigh */
	return key * scale;
}

int main(void)
{
	int total = 0;

	for (int i = 0; i < 6; i++) {
		g_table[i].key = i * 7 + 2;
		g_table[i].weight = i + 1;
		g_table[i].next = i < 5 ? &g_table[i + 1] : 0;
	}
	for (int round = 0; round < 3; round++) {
		total += checksum(&g_table[round], round + 5); /* L:main_sum */
		g_rounds = round + 1;
	}
	total += weigh(16, 2); /* L:main_weigh */
	total += weigh(total & 1 ? 40 : 41, 3); /* L:main_miss */
	g_sink = total;
	return 0;
}
