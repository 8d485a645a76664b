/* recursion: deep and branching recursion (calls and returns nest 20 deep),
 * which exercises return compression and call-stack tracking. */
#include <stdio.h>

static unsigned fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned depth(unsigned n)
{
	if (n == 0)
		return 0;
	return 1 + depth(n - 1);
}

int main(void)
{
	printf("recursion: fib(12) %u depth %u\n", fib(12), depth(20));
	return 0;
}
