/* vector-prog.c: a value scenario's program (values-vector.scn): double
 * and float arguments and locals, a function returning a double (in xmm0)
 * and one returning a struct of two doubles (in xmm0 and xmm1), and SSE
 * vector loops in vector-kernel.c, built with -O2 -ftree-vectorize (packed
 * mulps/addpd over xmm registers).  Static, not PIE, like values-prog.
 */
#include "vector-kernel.h"

struct span {
	double lo, hi;
};

float g_weights[12];
float g_out[12];
double g_samples[10];
double g_mean;
struct span g_span;

static double mean_of(const double *v, int n)
{
	double total = 0.0;

	for (int i = 0; i < n; i++)
		total += v[i]; /* L:mean_loop */
	return total / n; /* L:mean_done */
}

static struct span span_of(const double *v, int n, double pad)
{
	struct span s = { v[0], v[0] };

	for (int i = 1; i < n; i++) {
		if (v[i] < s.lo)
			s.lo = v[i];
		if (v[i] > s.hi)
			s.hi = v[i]; /* L:span_hi */
	}
	s.lo -= pad;
	s.hi += pad;
	return s; /* L:span_done */
}

static float blend(float a, float b, float t)
{
	float r = a + (b - a) * t;

	return r; /* L:blend */
}

int main(void)
{
	float gain = 0.75f;
	double dot;
	int bad;

	for (int i = 0; i < 12; i++)
		g_weights[i] = (float)(i + 1) * 0.5f;
	for (int i = 0; i < 10; i++)
		g_samples[i] = (i % 3) * 1.25 - (i % 4) * 0.5; /* L:fill */
	scale_add(g_out, g_weights, gain, 12); /* L:main_scale */
	dot = dot_product(g_samples, g_samples, 10); /* L:main_dot */
	g_mean = mean_of(g_samples, 10); /* L:main_mean */
	g_span = span_of(g_samples, 10, 0.125); /* L:main_span */
	gain = blend(gain, (float)g_span.hi, 0.5f); /* L:main_blend */
	bad = (int)(dot * gain + g_mean);
	*(volatile int *)(long)(bad - bad) = bad; /* L:crash */
	return 0;
}
