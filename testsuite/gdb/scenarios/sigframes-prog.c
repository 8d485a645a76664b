/* sigframes-prog.c: signal handlers that return, for stepping through
 * their frames without the data log (sigframes-nodata.scn): poke()
 * raises SIGUSR1, whose handler counts and raises SIGUSR2 from a helper;
 * SIGUSR2's handler runs nested inside it, on an alternate signal stack
 * (sigaltstack, SA_ONSTACK), and both return normally; then main stores
 * through NULL.  Nothing runs deeper on the stack after the handlers, so
 * that record full, whose log misses the signal frames the kernel writes,
 * still finds them in memory at the end.  Static, not PIE, like
 * values-prog.
 */
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t g_usr1;
static volatile sig_atomic_t g_usr2;
static char g_altstack[64 * 1024];

static void on_usr2(int sig)
{
	g_usr2 = g_usr2 + sig; /* L:usr2 */
}

static int nested(int how)
{
	raise(SIGUSR2); /* L:raise2 */
	return how + 1; /* L:after2 */
}

static void on_usr1(int sig)
{
	g_usr1 = g_usr1 + sig; /* L:usr1 */
	g_usr1 = nested(g_usr1); /* L:nested */
}

static int poke(int value)
{
	raise(SIGUSR1); /* L:raise1 */
	return value + g_usr1 + g_usr2; /* L:after1 */
}

int main(void)
{
	struct sigaction sa;
	stack_t ss;
	int *nowhere = 0;
	int total;

	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = g_altstack;
	ss.ss_size = sizeof(g_altstack);
	sigaltstack(&ss, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, 0);
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, 0);
	total = poke(5); /* L:main_poke */
	*nowhere = total; /* L:crash */
	return 0;
}
