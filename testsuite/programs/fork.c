/* fork: the parent forks a child that computes and exits; the parent waits
 * and goes on.  Only the parent is traced (the stepper does not follow the
 * child; see testsuite/record/README.md for the recorder).  The child's pid
 * goes to stderr, for checking what `hwtrec record` says about it. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}

int main(void)
{
	int status = 0;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(work(10) % 256 == 29 ? 7 : 8);
	/* stderr: the pid differs from run to run (stdout is compared) */
	fprintf(stderr, "fork: child pid %d\n", (int)child);
	waitpid(child, &status, 0);
	printf("fork: child exit %d parent work %d\n", WEXITSTATUS(status),
	       work(20));
	return 0;
}
