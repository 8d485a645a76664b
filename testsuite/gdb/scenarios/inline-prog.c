/* inline-prog (-O2): static functions GCC inlines into a loop, so `bt`
   shows inline frames, reverse-step enters one, finish / reverse-finish
   leave one, and some locals are <optimized out>.  Ends with a crash. */
#include <stddef.h>

volatile int g_seed = 7;
int g_out[8];
int *volatile g_nowhere;	/* null: the crash */

static inline __attribute__((always_inline)) int
mix(int v, int k)
{
	int t = v * 31 + k;	/* L:mix */

	return t ^ (t >> 3);
}

static inline __attribute__((always_inline)) int
stage(int v, int k)
{
	int m = mix(v, k);	/* L:stage */

	g_out[k & 7] = m;
	return m + 1;
}

int
main(void)
{
	int acc = g_seed;
	int k;

	for (k = 0; k < 6; k++)
		acc = stage(acc, k);	/* L:loop */
	g_out[0] = acc;
	*g_nowhere = acc;	/* L:crash */
	return 0;
}
