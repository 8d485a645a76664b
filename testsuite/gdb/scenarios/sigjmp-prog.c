/* sigjmp-prog.c: signal handlers a scenario steps through (sigjmp.scn):
 * an integer division by zero whose SIGFPE handler (SA_SIGINFO, reading
 * si_code and si_addr) records the fault through a helper and siglongjmps
 * out of the handler, back to the sigsetjmp in try_divide, three times;
 * then a division that works, and a store through NULL.  Static, not PIE,
 * like values-prog (si_addr, the faulting instruction, is the same
 * natively and under Valgrind).  (No timer: GDB's record full through
 * gdbserver, this host's oracle, waits for ever in a pause() that a
 * setitimer SIGALRM should end.)
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static volatile int g_faults;
static int g_codes[4];
static unsigned long g_fault_pc;
static sigjmp_buf g_recover;
static volatile int g_divisor;

/* What the handler keeps of each fault. */
static int note_fault(int sig, int code)
{
	int slot = g_faults & 3;

	g_codes[slot] = sig * 100 + code; /* L:note */
	g_faults = g_faults + 1;
	return slot;
}

static void on_fpe(int sig, siginfo_t *info, void *context)
{
	int code = info->si_code;
	int slot = -1;

	(void)context;
	g_fault_pc = (unsigned long)info->si_addr; /* L:on_fpe */
	slot = note_fault(sig, code);
	siglongjmp(g_recover, slot + 1); /* L:jump */
}

static int divide(int value)
{
	return value / g_divisor; /* L:divide */
}

static int try_divide(int value)
{
	int landed = sigsetjmp(g_recover, 1); /* L:setjmp */

	if (landed)
		return -landed; /* L:landed */
	return divide(value); /* L:try */
}

int main(void)
{
	struct sigaction sa;
	int total = 0;
	int *nowhere = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fpe;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGFPE, &sa, 0);
	for (int round = 0; round < 3; round++)
		total += try_divide(10 * (round + 1)); /* L:main_divide */
	g_divisor = 5;
	total += try_divide(100); /* L:main_last */
	*nowhere = total + g_faults; /* L:crash */
	return 0;
}
