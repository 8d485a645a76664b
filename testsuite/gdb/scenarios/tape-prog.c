/* tape-prog.c: a long-running interactive-style loop (live-tape.lscn): a
 * state machine over a command tape read byte by byte with read() from a
 * file, rewound with lseek() to play it several times, a nanosleep() and a
 * write() of each result between commands.  Digits build a number, `+` and
 * `*` apply it to the accumulator, `p` prints it, `r` rewinds the tape
 * (three times); at the end of the fourth round, a store through a pointer
 * left NULL: the crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum state { IDLE, NUMBER, APPLY };

static enum state g_state;
static long g_acc;
static int g_prints;
static int g_rewinds;
static char g_out[32];
static FILE *g_tape;

static const char tape[] = "12+3*p7+p40+pr";

static long apply(char op, long acc, long num)
{
	long next = op == '*' ? acc * num : acc + num;

	return next % 100003;
}

static void report(int out, long acc)
{
	int len = snprintf(g_out, sizeof g_out, "acc=%ld\n", acc);

	g_prints++;
	write(out, g_out, len); /* L:report */
}

static void pause_briefly(void)
{
	struct timespec ts = {0, 1000};

	nanosleep(&ts, NULL);
}

int main(void)
{
	int fd;
	int out = fileno(stdout);
	long num = 0;
	char op = '+';
	char c;
	int *slot = NULL;
	int steps = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	g_tape = tmpfile();
	fd = fileno(g_tape);
	write(fd, tape, strlen(tape));
	lseek(fd, 0, SEEK_SET);
	while (read(fd, &c, 1) == 1) {
		steps++; /* L:loop */
		if (c >= '0' && c <= '9') {
			g_state = NUMBER;
			num = num * 10 + (c - '0');
			continue;
		}
		if (g_state == NUMBER) {
			g_state = APPLY;
			g_acc = apply(op, g_acc, num); /* L:applied */
			num = 0;
		}
		if (c == '+' || c == '*') {
			op = c;
		} else if (c == 'p') {
			report(out, g_acc);
			pause_briefly();
		} else if (c == 'r' && ++g_rewinds < 4) {
			lseek(fd, 0, SEEK_SET);
		}
		g_state = IDLE;
	}
	*slot = steps; /* L:crash */
	return 0;
}
