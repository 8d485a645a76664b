/* fault-idiv: dies of SIGFPE in `y / d` with d == 0, built -O2 so that the
 * division is `cltd; idiv %esi` on registers: no memory access between the
 * call and the fault (Valgrind's default register updates would report the
 * PC and registers of the last instruction that accessed memory). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int divide(int y, int d)
{
	return y / d;	/* CRASH-HERE when d is 0 */
}

int main(int argc, char **argv)
{
	int d = argc - 1;	/* 0 when run without arguments */
	int q;

	printf("fault-idiv: %d\n", divide(84, 2));
	fflush(stdout);
	q = divide(argc + 6, d);
	printf("fault-idiv: %d\n", q);	/* main stays a frame: no tail call */
	return 0;
}
