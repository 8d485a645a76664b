/* undecodable: runs an instruction Valgrind 3.19 cannot decode, AMD's
 * clzero (0f 01 fc: zero the cache line at rax), at the label
 * undecodable_here.  Natively it runs on CPUs that have it (and raises
 * SIGILL on the others); under Valgrind it always raises SIGILL. */
#include <stdio.h>

static char line[128] __attribute__((aligned(64)));

int main(void)
{
	printf("undecodable\n");
	fflush(stdout);
	__asm__ volatile(".globl undecodable_here\n"
			 "undecodable_here: .byte 0x0f, 0x01, 0xfc"
			 :: "a"(line) : "memory");
	return 0;
}
