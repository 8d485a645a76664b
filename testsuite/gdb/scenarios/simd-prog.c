/* simd-prog.c: a value scenario's program (values-simd.scn): GCC vector
 * types in locals and arguments (a float x4 and an int x4 in xmm
 * registers), an __int128 (rax:rdx), a _Complex double (xmm0:xmm1) and a
 * long double (st0, exact in double) returned by value, strings copied
 * with libc's SSE2 memcpy and measured with strlen; then a crash.
 * Static, not PIE, like values-prog.
 */
#include <string.h>

typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));

v4sf g_scale = { 0.5f, 2.0f, 4.0f, 8.0f };
char g_text[48];
size_t g_len;
__int128 g_wide;

static v4sf blend(v4sf a, v4si mask)
{
	v4sf b = a * g_scale;
	v4si keep = (v4si)b & mask;

	return (v4sf)(keep | ((v4si)a & ~mask)); /* L:blend */
}

static __int128 widen(long hi, unsigned long lo)
{
	return ((__int128)hi << 64) | lo; /* L:widen */
}

static _Complex double turn(_Complex double z)
{
	return z * 1.0i; /* L:turn */
}

static long double third_of(long double x)
{
	long double q = x / 4.0L;

	return q + 0.25L; /* L:third */
}

int main(void)
{
	v4sf v = { 1.0f, -2.0f, 3.5f, 0.25f };
	v4si mask = { -1, 0, -1, 0 };
	v4sf r = { 0 };
	_Complex double z = 3.0 + 4.0i, w = 0;
	long double t;
	int *nowhere = 0;

	r = blend(v, mask); /* L:call_blend */
	g_wide = widen(-3, 0x123456789abcdef0UL);
	w = turn(z);
	t = third_of(9.0L);
	memcpy(g_text, "vectors and wide values, copied", 32);
	g_len = strlen(g_text); /* L:strlen */
	return *nowhere + (int)r[0] + (int)__real__ w + (int)t; /* L:crash */
}
