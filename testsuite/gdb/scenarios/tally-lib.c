/* tally-lib.c: the shared library of tally-prog (values-tally.scn): a
 * global, a global struct, a file-static counter and a function-static
 * maximum that the program's calls change, so that their values at past
 * positions are the library's data as it was then.
 */
#include <string.h>

struct tally_stats {
	int count;
	long sum;
	char last[16];
};

int lib_total;
struct tally_stats lib_stats;
static int lib_calls;

int tally_add(const char *tag, int value)
{
	static int biggest;

	lib_calls++;
	if (value > biggest)
		biggest = value;
	lib_total += value;
	lib_stats.count++;
	lib_stats.sum += value;
	strncpy(lib_stats.last, tag, sizeof lib_stats.last - 1);
	return lib_total;
}

int tally_calls(void)
{
	return lib_calls;
}
