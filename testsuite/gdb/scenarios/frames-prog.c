/* frames-prog.c: the program of frames-cfi-nodata.scn, built with -O2: no
 * frame pointer, so the binaries' CFI gives each function's CFA as rsp
 * plus a constant at every instruction.  sum_window() and fill() have
 * returned by the crash; their frames at past positions lie where outer()
 * called them, which the CFI at outer's call gives from outer's CFA, and
 * outer's from main's.  Static, not PIE, like values-prog.
 */
volatile int g_sink;
int g_total;

__attribute__((noinline)) static void fill(int *buf, int n, int seed)
{
	for (int i = 0; i < n; i++)
		buf[i] = seed * 7 + i; /* L:fill */
}

__attribute__((noinline)) static int sum_window(int seed)
{
	int buf[8];	/* its address is taken: it lives in memory */
	int s = 0;

	fill(buf, 8, seed); /* L:window_fill */
	for (int i = 0; i < 8; i++)
		s += buf[i];
	g_sink = s; /* L:window_sum */
	return s;
}

__attribute__((noinline)) static int outer(int rounds)
{
	int t = 0;

	for (int r = 1; r <= rounds; r++)
		t += sum_window(r); /* L:outer_call */
	return t;
}

int main(void)
{
	g_total = outer(3); /* L:main_outer */
	*(volatile int *)0 = g_total; /* L:crash */
	return 0;
}
