/* restart-prog.c: a blocking read(2) interrupted by a signal whose handler
 * was installed with SA_RESTART, and one without it (EINTR), for the frame
 * a handler interrupted without the data log (restart-nodata.scn): the
 * kernel restarts the first read at its `syscall` instruction, so the
 * interrupted frame's PC in the signal frame is the syscall's own address,
 * not the instruction after it.  The handler writes a byte into the pipe,
 * so the restarted read returns it.  Then main stores through NULL.
 * Static, not PIE, like values-prog. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int g_pipe[2];
static volatile sig_atomic_t g_alarms;

static void on_alarm(int sig)
{
	char byte = 'x';

	g_alarms = g_alarms + sig; /* L:handler */
	write(g_pipe[1], &byte, 1); /* L:handler_write */
}

static void arm(void)
{
	struct itimerval it;

	/* Long enough that the read is blocking when it fires, however slowly
	 * the program runs (record full through gdbserver at load 8 took more
	 * than 20 ms from setitimer to its return). */
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = 1;
	setitimer(ITIMER_REAL, &it, 0);
}

static long wait_byte(void)
{
	char byte = 0;
	long got = read(g_pipe[0], &byte, 1); /* L:read */

	return got > 0 ? byte : -errno; /* L:after_read */
}

static void install(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = flags;
	sigaction(SIGALRM, &sa, 0);
}

int main(void)
{
	int *nowhere = 0;
	long first, second;
	char drain;

	pipe(g_pipe);
	install(SA_RESTART);
	arm();
	first = wait_byte(); /* L:main_first */
	install(0);
	arm();
	second = wait_byte(); /* L:main_second */
	read(g_pipe[0], &drain, 1);
	*nowhere = (int)(first + second); /* L:crash */
	return 0;
}
