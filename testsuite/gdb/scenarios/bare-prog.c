/* bare-prog.c: a program without libc, whose first instruction is ours.
 *
 * GDB's `record full` cannot record glibc's start-up (it does not know the
 * prlimit64 and rseq system calls), so the scenario that goes back to the
 * beginning of the history uses this program: both the live `record full`
 * run (from `starti`) and the hwtrec recording then begin at _start.
 */

static volatile int sink;

static int twice(int v)
{
	return v * 2; /* L:twice */
}

void start_c(void)
{
	int a = twice(1); /* L:start_first */
	int b = twice(a); /* L:start_second */

	sink = a + b; /* L:start_sum */
	*(volatile int *)0 = sink; /* L:start_crash */
}

__asm__(".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n");
