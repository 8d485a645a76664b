/* fault-hlt: dies of SIGSEGV at `hlt`, a privileged instruction (#GP in
 * user mode, no memory access).  Valgrind cannot decode it and would raise
 * SIGILL; the recorder must show what the CPU does. */
#include <stdio.h>

__attribute__((noinline)) static void halt_with(long a, long b)
{
	__asm__ volatile("lea 7(%0), %%rax\n\t"
			 "lea 9(%1), %%rcx\n\t"
			 "hlt"
			 :: "r"(a), "r"(b) : "rax", "rcx");
}

int main(int argc, char **argv)
{
	printf("fault-hlt\n");
	fflush(stdout);
	halt_with(argc, 2 * argc);
	return 0;
}
