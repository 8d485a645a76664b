/* self-sigsys: sends itself SIGSYS.  Natively it dies of SIGSYS; Valgrind
 * 3.19 asserts in its signal handler instead (the signal arrives while the
 * thread is in the kill system call) and exits with status 1. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("self-sigsys\n");
	fflush(stdout);
	kill(getpid(), SIGSYS);
	return 0;
}
