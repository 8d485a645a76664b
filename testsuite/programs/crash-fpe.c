/* crash-fpe: dies of SIGFPE, an integer division by zero. */
#include <stdio.h>

__attribute__((noinline)) static int divide(int a, int b)
{
	return a / b;	/* CRASH-HERE when b is 0 */
}

int main(void)
{
	volatile int zero = 0;

	printf("crash-fpe: %d\n", divide(84, 2));
	fflush(stdout);
	return divide(1, zero);
}
