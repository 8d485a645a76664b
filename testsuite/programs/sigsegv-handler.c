/* sigsegv-handler: a synchronous SIGSEGV (a store through NULL) caught by a
 * handler that siglongjmps back; the faulting instruction does not complete,
 * the handler's first instruction is the next one executed. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf recover;
static volatile sig_atomic_t faults;

static void on_segv(int sig)
{
	faults++;
	siglongjmp(recover, 1);
}

__attribute__((noinline)) static void poke(int *volatile p)
{
	*p = 42;	/* faults when p is NULL */
}

int main(void)
{
	struct sigaction sa;
	int x = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < 3; i++) {
		if (sigsetjmp(recover, 1) == 0)
			poke(i == 1 ? &x : NULL);
	}
	printf("sigsegv-handler: faults %d x %d\n", (int)faults, x);
	return faults == 2 ? 0 : 1;
}
