/* fib.c: recursion with a known number of calls: fib(N) enters fib
 * 2*fib(N+1)-1 times (21891 for N=20), an oracle independent of any trace.
 * The recursion goes through a volatile pointer, so no optimisation level
 * can merge or remove calls (and every call is an indirect one: TIP). */
#include <stdio.h>
#include <stdlib.h>
int fib(int n);
static int (*volatile self)(int) = fib;
int fib(int n) { return n < 2 ? n : self(n - 1) + self(n - 2); }
int main(int argc, char **argv)
{
	printf("%d\n", self(argc > 1 ? atoi(argv[1]) : 20));
	return 3;
}
