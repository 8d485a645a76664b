/* setjmp: longjmp out of nested calls (several frames are left without their
 * returns), then normal calls again. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

__attribute__((noinline)) static void level3(int n)
{
	if (n % 2)
		longjmp(env, n);
}

__attribute__((noinline)) static void level2(int n) { level3(n); }
__attribute__((noinline)) static void level1(int n) { level2(n + 1); }

int main(void)
{
	int jumps = 0, returns = 0;

	for (int i = 0; i < 6; i++) {
		int r = setjmp(env);

		if (r) {
			jumps += r;
			continue;
		}
		level1(i);
		returns++;
	}
	printf("setjmp: jumps %d returns %d\n", jumps, returns);
	return 0;
}
