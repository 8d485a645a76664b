/* crash-abort: dies of SIGABRT from a failed consistency check (abort). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void check(int value)
{
	if (value != 42) {
		fprintf(stderr, "crash-abort: value %d, expected 42\n", value);
		abort();
	}
}

int main(void)
{
	check(42);
	check(41);
	return 0;
}
