/* tally-prog.c: a value scenario's program (values-tally.scn): dynamically
 * linked with a library of its own (tally-lib.c, libtally.so beside it),
 * whose globals and statics the calls change; a heap array filled, then
 * negated after the stops (the past values must show, not the core's);
 * a crash through a NULL pointer in the program after a last library call.
 */
#include <stdlib.h>

int tally_add(const char *tag, int value);
int tally_calls(void);

static const char *const tags[] = { "red", "green", "blue" };
int *g_hist;
int g_last_total;

static void report(const int *hist, int *out)
{
	*out = tally_calls() + hist[3]; /* L:crash */
}

int main(void)
{
	int *hist = malloc(8 * sizeof *hist);
	int *missing = NULL;

	g_hist = hist;
	for (int i = 0; i < 8; i++) {
		hist[i] = (i - 3) * (i - 3);
		g_last_total = tally_add(tags[i % 3], hist[i]); /* L:main_add */
	}
	for (int i = 0; i < 8; i++)
		hist[i] = -hist[i]; /* L:negate */
	report(hist, missing);
	return 0;
}
