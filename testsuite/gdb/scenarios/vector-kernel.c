/* vector-kernel.c: vector-prog's loops, built with -O2 -ftree-vectorize so
 * that they run as packed SSE (mulps, addps, mulpd, addpd) with values in
 * xmm registers and locals in location lists. */
#include "vector-kernel.h"

__attribute__((noinline)) void scale_add(float *out, const float *in,
					 float gain, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = out[i] + in[i] * gain;
}

__attribute__((noinline)) double dot_product(const double *a,
					     const double *b, int n)
{
	double sum = 0.0;

	for (int i = 0; i < n; i++)
		sum += a[i] * b[i];
	return sum;
}
