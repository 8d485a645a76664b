/* signal-prog.c: handles SIGUSR1, raised twice.  test-live.py runs it twice
 * under `handle SIGUSR1 nostop noprint pass`: the stub of the second run
 * must pass the signal without stopping, as GDB told the first.  Static, so
 * that no shared-library event makes GDB send its signal settings again. */
#include <signal.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
	write(1, "caught\n", 7);
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	write(1, "over\n", 5);
	return 0;
}
