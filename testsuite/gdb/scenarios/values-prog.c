/* values-prog.c: the program the value scenarios (values-*.scn) replay.
 *
 * Its state changes as it runs, so that the end state (the core) is the
 * wrong answer at earlier positions: a global counter that a loop adds to,
 * a buffer that read() fills from a pipe, locals and arguments of frames
 * that have returned by the end, a recursion.  A constant string is the same
 * at every position.  It ends in a NULL store in main, so that the recording
 * has a core.  Static, not PIE: the same addresses natively and under
 * Valgrind (see Makefile.am's scenario-prog).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int counter = 7;
static char buffer[24] = "not read yet";
static const char greeting[] = "hello, values";

static int accumulate(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++) {
		counter += i; /* L:loop */
		sum += counter;
	}
	return sum; /* L:accumulate_done */
}

static long fill(int fd)
{
	long got = read(fd, buffer, sizeof buffer - 1); /* L:read */

	if (got > 0)
		buffer[got] = 0;
	return got; /* L:fill_done */
}

static int depth(int n, int bias)
{
	int here = n * 10 + bias;

	if (n == 0)
		return here + counter; /* L:depth_base */
	return here + depth(n - 1, bias); /* L:depth_rec */
}

/* A pipe that holds "from the pipe", read end at descriptor 9: the same
 * number natively and under Valgrind, whose recorder holds descriptors of
 * its own (the first free one differs). */
static int open_pipe(void)
{
	int fds[2];

	if (pipe(fds) < 0 || write(fds[1], "from the pipe", 13) != 13)
		return -1;
	close(fds[1]);
	if (dup2(fds[0], 9) < 0)
		return -1;
	close(fds[0]);
	return 9;
}

int main(void)
{
	int fd = open_pipe();
	int total, deep;
	long got;

	if (fd < 0)
		return 1;
	total = accumulate(5); /* L:main_accumulate */
	got = fill(fd); /* L:main_fill */
	deep = depth(3, 2); /* L:main_depth */
	counter = total + deep + (int)got + (int)strlen(greeting); /* L:main_last */
	*(volatile int *)0 = counter; /* L:crash */
	return 0;
}
