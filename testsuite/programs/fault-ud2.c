/* fault-ud2: dies of SIGILL at `ud2` (what __builtin_trap emits), right
 * after registers were set from the arguments, with no memory access. */
#include <stdio.h>

__attribute__((noinline)) static void trap_with(long a, long b)
{
	__asm__ volatile("lea 7(%0), %%rax\n\t"
			 "lea 9(%1), %%rcx\n\t"
			 "ud2"
			 :: "r"(a), "r"(b) : "rax", "rcx");
}

int main(int argc, char **argv)
{
	printf("fault-ud2\n");
	fflush(stdout);
	trap_with(argc, 2 * argc);
	return 0;
}
