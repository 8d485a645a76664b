/* exit-status: main returns 6, computed (into a global) by a function it
 * calls: at the end of the run `bt` and `print result` have something to
 * show. */
#include <stdio.h>

static volatile int result;

__attribute__((noinline)) static int triangle(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;
	return s;
}

int main(void)
{
	result = triangle(4);
	printf("exit-status: %d\n", result);
	return result;
}
