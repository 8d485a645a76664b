/* recur-prog.c: where navigation goes in recursions (recur-*.scn): a mutual
 * recursion 20 calls deep, a recursion with a loop in each level left
 * through all its frames at once by longjmp, then a crash.  Built at -O0
 * and -O2 (recur-prog-o2).  Lines the scenarios name carry "L:name".
 */
#include <setjmp.h>

static volatile int counter;
static int *volatile nowhere;
static jmp_buf out;

__attribute__((noinline)) static int is_odd(int n);

__attribute__((noinline)) static int is_even(int n)
{
	int r;

	if (n == 0)
		return 1; /* L:even_base */
	r = is_odd(n - 1); /* L:even_rec */
	counter += r;
	return r; /* L:even_ret */
}

__attribute__((noinline)) static int is_odd(int n)
{
	int r;

	if (n == 0)
		return 0; /* L:odd_base */
	r = is_even(n - 1); /* L:odd_rec */
	counter += r;
	return r; /* L:odd_ret */
}

/* Each level sums in a loop; the deepest jumps back to run's setjmp. */
__attribute__((noinline)) static void dive(int n)
{
	int i, s = 0;

	for (i = 0; i < 3; i++) /* L:dive_loop */
		s += i * n + counter; /* L:dive_body */
	counter += s; /* L:dive_after */
	if (n == 0)
		longjmp(out, 7); /* L:dive_jump */
	dive(n - 1); /* L:dive_rec */
	counter--;
}

__attribute__((noinline)) static int run(int depth)
{
	int r;

	r = is_even(depth); /* L:run_even */
	if (setjmp(out) == 0) /* L:run_setjmp */
		dive(depth / 4); /* L:run_dive */
	else
		r += 100; /* L:run_landed */
	return r; /* L:run_ret */
}

__attribute__((noinline)) static void crash(int *where)
{
	*where = counter; /* L:crash */
}

int main(int argc, char **argv)
{
	int r;

	(void)argv;
	r = run(19 + argc); /* L:main_run */
	counter += r;
	crash(nowhere); /* L:main_crash */
	return 0;
}
