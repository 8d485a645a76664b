/* signals: asynchronous signals.  SIGALRM from an interval timer arrives
 * while the program waits in sigsuspend (so where it lands in the program's
 * own code does not depend on timing), and raise(SIGUSR1) is delivered on the
 * way out of the tgkill system call. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t alarms, usr1;

static void on_alarm(int sig) { alarms++; }
static void on_usr1(int sig) { usr1 += 10; }

int main(void)
{
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;
	sigset_t block, wait_mask;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	/* Block SIGALRM except inside sigsuspend: it can only land there. */
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGALRM);
	setitimer(ITIMER_REAL, &every_ms, NULL);
	while (alarms < 3)
		sigsuspend(&wait_mask);
	setitimer(ITIMER_REAL, &off, NULL);

	raise(SIGUSR1);
	raise(SIGUSR1);
	printf("signals: alarms %d usr1 %d\n", (int)alarms, (int)usr1);
	return 0;
}
