/*
 * pipeline-prog.c: a live scenario's program (live-pipeline.lscn).  The
 * parent forks a child that writes 48 readings into a pipe and exits; the
 * parent reads them one by one, keeps a running average of the readings
 * seen so far in a window, waits for the child, then scales the average by
 * the 40th reading, which the child sent as zero: SIGFPE.  Recording follows
 * the parent across fork(), read() and waitpid().
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NREADINGS	48
#define WINDOW		5

static int g_window[WINDOW];
static int g_seen;
static long g_average;
static int g_child_status;

static int
reading_for(int n)
{
	if (n == 39)
		return 0;
	return 3 + (n * 7) % 11;
}

static void
produce(int fd)
{
	int n, value;

	for (n = 0; n < NREADINGS; n++) {
		value = reading_for(n);
		if (write(fd, &value, sizeof(value)) != sizeof(value))
			_exit(2);
	}
	_exit(0);
}

static void
remember(int value)
{
	int i;
	long sum;

	g_window[g_seen % WINDOW] = value; /* L:remember */
	g_seen++;
	sum = 0;
	for (i = 0; i < WINDOW && i < g_seen; i++)
		sum += g_window[i];
	g_average = sum / i;
}

static int
consume(int fd, int *readings)
{
	int count, value;

	count = 0;
	while (read(fd, &value, sizeof(value)) == sizeof(value)) {
		readings[count++] = value; /* L:consume_store */
		remember(value);
	}
	return count;
}

static long
scale(long average, int divisor)
{
	return average * 100 / divisor; /* L:scale */
}

int
main(void)
{
	int fds[2], readings[NREADINGS], count;
	pid_t pid;
	long scaled;

	if (pipe(fds) != 0) /* L:main_pipe */
		return 1;
	pid = fork(); /* L:main_fork */
	if (pid == 0) {
		close(fds[0]);
		produce(fds[1]);
	}
	close(fds[1]);
	count = consume(fds[0], readings); /* L:main_consume */
	waitpid(pid, &g_child_status, 0); /* L:main_wait */
	scaled = scale(g_average, readings[39]); /* L:main_scale */
	return (int)(scaled + count);
}
