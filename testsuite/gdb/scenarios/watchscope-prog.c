/* watchscope-prog: a global written and read in a loop, and a local in a
   frame that returns (accumulate()), for watch / rwatch / awatch /
   watch -l across reverse-continue and continue in replay.  Ends with a
   crash (a store through a null pointer). */
#include <stddef.h>

int g_total;
volatile int g_reads;

static int
accumulate(int n)
{
	int sum = 0;	/* watched: the frame returns */
	int i;

	for (i = 1; i <= n; i++)
		sum += i;	/* L:add */
	return sum;
}

static int
observe(void)
{
	return g_total + 1;	/* reads g_total */
}

int
main(void)
{
	int *volatile nowhere = NULL;
	int k;

	for (k = 0; k < 3; k++) {
		g_total += accumulate(k + 2);
		g_reads += observe();
	}
	*nowhere = g_total;	/* L:crash */
	return 0;
}
