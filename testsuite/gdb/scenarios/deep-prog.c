/* deep-prog.c: optimised C as users ship it (values-deep*.scn,
 * nav-deep-nodata.scn), built with -O2: static functions inlined three
 * levels deep into a noinline caller (GDB's inline frames), a tail call
 * (route() ends in a jump to one of two workers), a switch compiled to a
 * jump table, a struct returned in memory (too big for rax:rdx), a
 * variadic function taking ints and doubles, a VLA, __builtin_expect, a
 * loop of doubles the compiler unrolls, and a store through NULL at the
 * end.  Static, not PIE, like opt-prog.
 */
#include <stdarg.h>

struct stats {
	long count;
	long sum;
	long min;
	long max;
	double mean;
};

long g_trace[8];
double g_scale = 1.5;
volatile long g_sink;
int g_ops;
long *g_null;

static inline long level3(long v, int k)
{
	long r = v * k + 3;

	return r ^ (r >> 3); /* L:level3 */
}

static inline long level2(long v, int k)
{
	long s = level3(v + 1, k); /* L:level2 */

	return s + (v & 7);
}

static inline long level1(long v, int k)
{
	long t = level2(v * 2, k + 1); /* L:level1 */

	return t - k;
}

__attribute__((noinline)) long nest(long v, int k)
{
	long out = level1(v, k); /* L:nest */

	g_sink = out;
	return out + 1;
}

__attribute__((noinline)) long apply(int op, long a, long b)
{
	long r;

	g_ops++;
	switch (op) {
	case 0: r = a + b; break;
	case 1: r = a - b; break;
	case 2: r = a * b; break;
	case 3: r = b ? a / b : 0; break;
	case 4: r = a << (b & 7); break;
	case 5: r = a & b; break;
	case 6: r = a | b; break; /* L:op_or */
	case 7: r = a ^ b; break;
	default: r = -1; break;
	}
	g_trace[op & 7] = r; /* L:apply_store */
	return r;
}

__attribute__((noinline)) long even_work(long x)
{
	long y = x * 3 + 1;

	g_sink = y; /* L:even_work */
	return y;
}

__attribute__((noinline)) long odd_work(long x)
{
	long y = x / 2 + 7;

	g_sink = y; /* L:odd_work */
	return y;
}

__attribute__((noinline)) long route(long x)
{
	if (__builtin_expect(x < 0, 0))
		return 0;
	if (x & 1)
		return odd_work(x + 100); /* L:route_odd */
	return even_work(x - 100); /* L:route_even */
}

__attribute__((noinline)) struct stats summarize(const long *v, int n)
{
	struct stats s = { 0, 0, v[0], v[0], 0.0 };

	for (int i = 0; i < n; i++) {
		s.count++;
		s.sum += v[i]; /* L:summarize_loop */
		if (v[i] < s.min)
			s.min = v[i];
		if (v[i] > s.max)
			s.max = v[i];
	}
	s.mean = (double)s.sum / s.count;
	return s;
}

__attribute__((noinline)) double mix_va(int n, ...)
{
	va_list ap;
	double acc = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int weight = va_arg(ap, int);
		double x = va_arg(ap, double);

		acc += weight * x; /* L:mix_va */
	}
	va_end(ap);
	return acc;
}

__attribute__((noinline)) long window(int n, long seed)
{
	long buf[n];
	long total = 0;

	for (int i = 0; i < n; i++)
		buf[i] = seed + i * i;
	for (int i = n - 1; i >= 0; i--)
		total += buf[i] * (i + 1); /* L:window */
	return total;
}

__attribute__((noinline)) double poly(const double *c, int n, double x)
{
	double r = 0;

	for (int i = 0; i < n; i++)
		r += c[i] * g_scale / (x + i); /* L:poly */
	return r;
}

int main(void)
{
	static const double coeff[8] = { 1.0, -0.5, 0.25, 2.0, 3.5, -1.25,
					 0.125, 4.0 };
	long vals[8];
	long acc = 0;
	struct stats st;
	double d;

	for (int i = 0; i < 8; i++) {
		vals[i] = nest(i, i + 2); /* L:main_nest */
		acc += apply(i, vals[i], i + 1); /* L:main_apply */
	}
	acc += route(acc); /* L:main_route */
	acc += route(acc + 1);
	st = summarize(vals, 8); /* L:main_summarize */
	d = mix_va(3, 2, 0.5, 3, st.mean, 4, -2.25); /* L:main_mix */
	acc += window(5, acc & 15); /* L:main_window */
	d += poly(coeff, 8, d); /* L:main_poly */
	g_sink = acc + (long)d + st.max;
	*g_null = acc; /* L:main_crash */
	return 0;
}
