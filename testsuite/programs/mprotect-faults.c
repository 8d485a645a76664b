/* mprotect-faults: a program that faults often and recovers, as a GC write
 * barrier or a JIT does: each round stores into a read-only page, the
 * SIGSEGV handler makes the page writable and returns, the store runs
 * again and succeeds, and the page is made read-only again.  Then, the
 * handler gone, one more store kills it (a core).  The values a round
 * leaves in registers differ from round to round.  For the data log's
 * faults on a register snapshot (../record/values-fault-snapshot.test).
 * Deterministic. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 26

long g_faults;
long g_sum;
long *g_page;

static void on_segv(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)context;
	g_faults += (long *)info->si_addr - g_page;
	mprotect(g_page, 4096, PROT_READ | PROT_WRITE);
}

__attribute__((noinline)) static void poke(long *p, long v)
{
	*p = v;		/* faults while the page is read-only */
}

int main(void)
{
	struct sigaction sa;

	g_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g_page == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	for (long i = 0; i < ROUNDS; i++) {
		poke(&g_page[i * 7 % 512], i * 3 + g_sum);
		g_sum += g_page[i * 7 % 512];
		mprotect(g_page, 4096, PROT_READ);
	}
	signal(SIGSEGV, SIG_DFL);
	poke(&g_page[1], g_sum);	/* the end: a crash */
	return 0;
}
