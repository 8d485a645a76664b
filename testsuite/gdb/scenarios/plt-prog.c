/* Calls into libc through the executable's PLT (built with -z now, as
 * Debian builds its programs, and once with IBT's .plt.sec), from code
 * without debug info: reverse-finish out of getppid must come back through
 * the stub as GDB's record full does.  repeat() calls ask() three times
 * from one call site. */
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) int ask(void)
{
	return getppid() + 1;
}

__attribute__((noinline)) int repeat(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += ask();
	return sum;
}

int main(void)
{
	sink = repeat(3);
	*(volatile int *)0 = sink;
	return 0;
}
