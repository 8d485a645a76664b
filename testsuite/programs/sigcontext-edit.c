/* sigcontext-edit: a signal handler that changes the registers it returns
 * to, for recovery without data (recover-vs-vgdb.test).  main sends itself
 * SIGUSR1 with kill's `syscall` (delivered as that call returns) while r12
 * holds 0x1234; the handler flips bits of the r12 saved in its ucontext and
 * moves the saved rip past a store, so after rt_sigreturn r12 and rip are
 * not the interrupted ones.  Recovery that carried registers across the
 * handler without proving its frame untouched would show r12 before the
 * signal as the value after it: wrong. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

volatile long g_r12;		/* r12 after the handler */
volatile long g_skipped;	/* 1 if the store the handler skips ran */
extern char skip_to[];

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_R12] ^= 0x5a5a;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)skip_to;
}

__attribute__((noinline)) static long signal_self(long pid)
{
	long r12;

	__asm__ volatile("mov %[pid], %%rdi\n\t"
			 "mov $10, %%esi\n\t"		/* SIGUSR1 */
			 "mov $62, %%eax\n\t"		/* kill */
			 "mov $0x1234, %%r12\n\t"
			 "syscall\n\t"
			 "movq $1, g_skipped(%%rip)\n\t"
			 ".globl skip_to\n"
			 "skip_to:\n\t"
			 "mov %%r12, %[r12]"
			 : [r12] "=r"(r12)
			 : [pid] "r"(pid)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "r12",
			   "memory", "cc");
	return r12;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	g_r12 = signal_self(getpid());
	return g_r12 == (0x1234 ^ 0x5a5a) && !g_skipped ? 0 : 1;
}
