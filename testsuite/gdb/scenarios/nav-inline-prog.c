/* nav-inline-prog.c: where navigation commands go in optimised code
 * (nav-inline.scn, built at -O2): functions from a header inlined into
 * their callers (GDB shows them as inline frames), a noinline worker
 * called in a loop, a SIGUSR2 handler run by raise() that
 * calls an inlined function too, then a crash.  Lines carry "L:name"
 * markers. */
#include <signal.h>
#include <stdlib.h>

#include "nav-inline.h"

static volatile int cell;
static volatile int seen;

__attribute__((noinline)) static int worker(int v)
{
	int r = mix(&cell, v); /* L:worker */

	return r + mix(&cell, v * 2); /* L:worker_again */
}

static void on_usr2(int sig)
{
	seen = mix(&cell, sig); /* L:handler */
}

__attribute__((noinline)) static void crash(volatile int *where)
{
	*where = cell; /* L:crash */
}

int main(int argc, char **argv)
{
	int acc = 0;

	(void)argv;
	signal(SIGUSR2, on_usr2);
	for (int i = 0; i < 4; i++)
		acc += worker(i + argc); /* L:main_loop */
	acc += mix(&cell, acc); /* L:main_mix */
	raise(SIGUSR2); /* L:main_raise */
	acc += mix(&cell, 3); /* L:main_after */
	crash(acc > 0 ? NULL : &seen); /* L:main_crash */
	return acc;
}
