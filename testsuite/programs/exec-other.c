/* exec-other: runs a function of its own, then execs the program its
 * argument names (another executable, which the loader puts at the same
 * addresses as this one): the history before the exec is this program's
 * code, after it the other's. */
#include <stdio.h>
#include <unistd.h>

static int before_exec(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * 7 % 5;
	return s;
}

int main(int argc, char **argv)
{
	const char *prog = argc > 1 ? argv[1] : "./loops";

	printf("exec-other: %d, now %s\n", before_exec(20), prog);
	fflush(stdout);
	execl(prog, prog, (char *)NULL);
	perror("exec-other: execl");
	return 1;
}
