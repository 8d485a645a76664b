/* signal-values-prog.c: a value scenario's program (values-signal.scn): a
 * SIGUSR1 handler, run three times by raise(), records each delivery in a
 * global array and counts them; the interrupted frames' locals and the
 * globals before and after each delivery.  Crashes through NULL at the end.
 * Static, not PIE, like values-prog.
 */
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t hits;
static int history[8];
static char note[16] = "none";

static void on_signal(int sig)
{
	int slot = hits % 8;

	history[slot] = sig * 10 + slot; /* L:handler */
	hits = hits + 1;
}

static int work(int round)
{
	int local = round * 7;

	raise(SIGUSR1); /* L:raise */
	local += hits; /* L:after_raise */
	return local;
}

int main(void)
{
	struct sigaction sa;
	int sum = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, 0);
	for (int round = 0; round < 3; round++)
		sum += work(round); /* L:main_work */
	note[0] = 'd';
	history[7] = sum;
	*(volatile int *)0 = sum; /* L:crash */
	return 0;
}
