/* exit-prog.c: a scenario's program (values-exit.scn) that ends normally:
 * main registers atexit handlers and a destructor runs at exit, a nested
 * function calls exit(3), and the handlers (in the reverse order of their
 * registration) change globals and a static local on the way out.  The
 * recording ends at exit_group without a core: reverse execution starts
 * in _exit.  Static, not PIE, like values-prog.
 */
#include <stdlib.h>

int g_order[4];
int g_calls;
long g_total;
static long ledger[3] = { 5, 7, 11 };

static void record(int id)
{
	static int seen;

	seen++;
	g_order[g_calls++] = id * 10 + seen; /* L:record */
}

static void flush_ledger(void)
{
	int i;

	for (i = 0; i < 3; i++)
		g_total += ledger[i] * (i + 1); /* L:flush */
	record(1);
}

static void close_log(void)
{
	ledger[1] = -1;
	record(2); /* L:close_log */
}

__attribute__((destructor)) static void last_word(void)
{
	record(3); /* L:last_word */
}

static void finish_up(int code)
{
	g_total += code;
	exit(code); /* L:exit_call */
}

int main(void)
{
	atexit(flush_ledger);
	atexit(close_log);
	g_total = 100;
	finish_up(3); /* L:main_exit */
	return 0;
}
