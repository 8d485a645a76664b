/* probe-prog.c: memory probed for readability the old way, a SIGSEGV
 * handler (SA_SIGINFO) that notes the fault address and siglongjmps back
 * to the probe's sigsetjmp, five probes of which three fault (NULL, a
 * PROT_NONE page mapped at a fixed address, a low page), a volatile local
 * changed between sigsetjmp and the jump back, then a summary check that
 * fails and calls abort() two calls below main: SIGABRT
 * (values-probe*.scn). */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define GUARD_ADDR ((char *) 0x50000000)
#define OPEN_ADDR ((char *) 0x50010000)

static sigjmp_buf g_env;
static volatile sig_atomic_t g_faults;
static void *g_fault_addr[8];
static int g_readable;

static void on_segv(int sig, siginfo_t *info, void *context)
{
	(void) sig;
	(void) context;
	g_fault_addr[g_faults & 7] = info->si_addr; /* L:handler */
	g_faults++;
	siglongjmp(g_env, 1);
}

static int probe(const char *addr, volatile int *attempts)
{
	char value;

	if (sigsetjmp(g_env, 1) != 0)
		return 0; /* L:landed */
	(*attempts)++;
	value = *(volatile const char *) addr; /* L:load */
	return value >= 0 ? 1 : 2;
}

static void validate(int readable, int faults)
{
	/* The program's own mistake: it expected two faults. */
	if (readable + faults != 5 || faults != 2)
		abort(); /* L:abort */
}

static int run_probes(void)
{
	volatile int attempts = 0;
	char local = 7;
	const char *targets[5];
	int i;

	targets[0] = &local;
	targets[1] = NULL;
	targets[2] = GUARD_ADDR;
	targets[3] = OPEN_ADDR;
	targets[4] = (const char *) 0x1000;
	for (i = 0; i < 5; i++)
		g_readable += probe(targets[i], &attempts) != 0; /* L:each */
	validate(g_readable, g_faults); /* L:validate */
	return attempts;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (mmap(GUARD_ADDR, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_FIXED, -1, 0) == MAP_FAILED ||
	    mmap(OPEN_ADDR, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return 1;
	OPEN_ADDR[0] = 'x';
	return run_probes(); /* L:main_run */
}
