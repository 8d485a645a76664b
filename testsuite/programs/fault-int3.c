/* fault-int3: dies of SIGTRAP at `int3`.  int3 is a trap: it has run when
 * the signal comes, and the PC is the instruction after it. */
#include <stdio.h>

__attribute__((noinline)) static void break_with(long a, long b)
{
	__asm__ volatile("lea 7(%0), %%rax\n\t"
			 "lea 9(%1), %%rcx\n\t"
			 "int3\n\t"
			 "nop"
			 :: "r"(a), "r"(b) : "rax", "rcx");
}

int main(int argc, char **argv)
{
	printf("fault-int3\n");
	fflush(stdout);
	break_with(argc, 2 * argc);
	return 0;
}
