/* x87-prog.c: test-values-x87.sh's program: long double arithmetic on the x87
 * stack (several values pushed at once, a long double returned in st0, a
 * zero and empty registers for ftag), the rounding mode changed with
 * fesetround (fctrl's and mxcsr's rounding bits), then a crash through
 * NULL.  Every x87 result is exact in double precision, so that the
 * program computes the same natively (record full) and under Valgrind,
 * whose x87 is 64-bit doubles, and raises no exception flag, which
 * Valgrind does not keep.  No difference comes out exactly zero while
 * rounding downward (natively -0; VEX rounds x87 arithmetic to nearest
 * whatever the mode, +0).  Static, not PIE, like values-prog.
 */
#include <fenv.h>

static long double g_acc;
static double g_scale = 0.75;

static long double poly(long double x)
{
	/* Horner's rule: at -O0 the terms wait on the x87 stack */
	return ((x * 0.5L + 1.25L) * x - 2.0L) * x + 0.125L; /* L:poly */
}

static long double mix(long double a, long double b, int n)
{
	long double s = 0;

	for (int i = 0; i < n; i++)
		s += a * i - b * g_scale; /* L:mix */
	return s; /* L:mix_done */
}

int main(void)
{
	long double x = 1.5L;
	double d = 0.25;

	g_acc = poly(x); /* L:main_poly */
	fesetround(FE_DOWNWARD); /* L:main_down */
	g_acc += mix(x, 2.5L, 5); /* L:main_mix */
	d += g_acc * g_scale; /* L:main_scale */
	fesetround(FE_UPWARD); /* L:main_up */
	g_acc = poly(g_acc - 10.0L); /* L:main_poly2 */
	d += (double)g_acc; /* L:main_d */
	*(volatile int *)0 = (int)d; /* L:crash */
	return 0;
}
