/* nav-inline.h: small functions GCC inlines into nav-inline-prog's
 * callers at -O2 (nav-inline.scn). */
static inline int clamp_add(int a, int b, int limit)
{
	int s = a + b; /* L:clamp_sum */

	if (s > limit)
		s = limit; /* L:clamp_limit */
	return s;
}

static inline int mix(volatile int *cell, int v)
{
	*cell = clamp_add(*cell, v, 1000); /* L:mix */
	return *cell ^ v;
}
