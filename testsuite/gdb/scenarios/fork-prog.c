/* fork-prog.c: a scenario's program (values-fork.scn): the parent forks
 * twice, each child changes its copy of a global and exits with a code
 * computed from it, the parent waits for both and keeps their statuses,
 * then crashes.  The recording and record full both follow the parent:
 * its history runs across fork() and waitpid(), and the children's
 * changes must not show in it.  Static, not PIE, like values-prog.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int g_shared = 40;
int g_codes[2];
int *g_nowhere;

static int child_work(int n)
{
	g_shared += n; /* L:child_work */
	return g_shared % 7;
}

static pid_t spawn(int n)
{
	pid_t pid = fork(); /* L:fork */

	if (pid == 0)
		_exit(child_work(n));
	return pid;
}

static int reap(pid_t pid)
{
	int status = 0;

	waitpid(pid, &status, 0); /* L:waitpid */
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	pid_t first = spawn(3);
	pid_t second = spawn(5);

	g_codes[0] = reap(first); /* L:reap_first */
	g_codes[1] = reap(second);
	g_shared += g_codes[0] + g_codes[1]; /* L:sum */
	return *g_nowhere + (first != second); /* L:crash */
}
