/* fault-div: dies of SIGFPE from an unsigned 64-bit `div` on registers
 * (built -O2: `div %rcx`-like, no memory access before the fault). */
#include <stdio.h>

__attribute__((noinline)) static unsigned long remainder_of(unsigned long y,
							   unsigned long d)
{
	return y % d;	/* CRASH-HERE when d is 0 */
}

int main(int argc, char **argv)
{
	unsigned long d = (unsigned long)argc - 1, r;

	printf("fault-div: %lu\n", remainder_of(85, 4));
	fflush(stdout);
	r = remainder_of(0x123456789UL * (unsigned long)argc, d);
	printf("fault-div: %lu\n", r);	/* main stays a frame: no tail call */
	return 0;
}
