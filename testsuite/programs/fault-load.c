/* fault-load: dies of SIGSEGV at a load from address 0, right after a
 * register was set that a later instruction of the same block sets again.
 * Valgrind's default register updates keep only the stack and frame
 * pointers and the PC exact at a memory access, so the first value never
 * reached the guest state and the core showed the register's older one. */
#include <stdio.h>

__attribute__((noinline)) static long load_with(long a, long *p)
{
	long r;

	__asm__ volatile("lea 7(%1), %%rax\n\t"
			 "mov (%2), %0\n\t"
			 "lea 9(%1), %%rax"
			 : "=&r"(r) : "r"(a), "r"(p) : "rax");
	return r;
}

int main(int argc, char **argv)
{
	printf("fault-load\n");
	fflush(stdout);
	/* a null pointer when run without arguments */
	return (int)load_with(argc, (long *)(long)(argc - 1));
}
