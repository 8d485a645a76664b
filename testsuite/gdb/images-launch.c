/* images-launch: runs a function of its own, then execs the program its
 * argument names, for test-server-images.py: GDB must see this program's
 * code in the history before the exec and the other one's after it. */
#include <stdio.h>
#include <unistd.h>

static int launch(const char *prog)
{
	int failed = 1;

	printf("images-launch: %s\n", prog);
	fflush(stdout);
	execl(prog, prog, (char *)NULL);
	return failed;
}

int main(int argc, char **argv)
{
	return launch(argc > 1 ? argv[1] : "./images-prog");
}
