/* float-prog.c: a value scenario's program (values-float.scn): double and
 * float locals, a struct of doubles passed and returned by value (in xmm
 * registers and memory), a recursion with a double local in every frame,
 * a long double sum (x87; its terms are powers of two, exact in double too,
 * as Valgrind computes x87 in double precision), and a crash through NULL.
 * Static, not PIE, like values-prog.
 */
struct vec {
	double x, y;
	float w;
	int tag;
};

static double g_scale = 1.5;
static long double g_sum;
static struct vec g_last;

static struct vec scale(struct vec v, double k)
{
	struct vec r = v;

	r.x *= k;
	r.y = r.y * k + g_scale; /* L:scale */
	r.w = v.w / 4.0f;
	r.tag = v.tag + 1;
	return r; /* L:scale_done */
}

static double fact(int n)
{
	double here = n * 0.5;
	double below;

	if (n <= 1)
		return here + g_scale; /* L:fact_base */
	below = fact(n - 1);
	return here * below; /* L:fact_rec */
}

static long double halves(int n)
{
	long double sum = 0;

	for (int i = 1; i <= n; i++)
		sum += 1.0L / (1 << i); /* L:halves */
	return sum; /* L:halves_done */
}

int main(void)
{
	struct vec v = { 1.25, -2.5, 9.0f, 3 };
	float f = 0.5f;
	double d;

	for (int i = 0; i < 4; i++) {
		v = scale(v, 2.0); /* L:main_scale */
		f *= 3.0f;
		g_scale += 0.25;
	}
	g_last = v;
	d = fact(6); /* L:main_fact */
	g_sum = halves(7); /* L:main_halves */
	g_scale = d + (double)g_sum + f;
	*(volatile int *)0 = (int)g_scale; /* L:crash */
	return 0;
}
