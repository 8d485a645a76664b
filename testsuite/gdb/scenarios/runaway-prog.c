/* runaway-prog.c: a loop with no exit condition clears memory until it
 * faults (runaway*.scn).  At -O0 its loop is a direct jump back, no
 * conditional branch: the trace has no packet between the passes, and the
 * fault lands on the guard page after the program's own two-page area (the
 * same place natively and under Valgrind, where the heap lies elsewhere). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096

static volatile int g_passes;

static void clear(int *p)
{
	for (;;) {
		*p++ = 0;
		g_passes++;
	}
}

int main(void)
{
	char *area = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (area == MAP_FAILED || mprotect(area + 2 * PAGE, PAGE, PROT_NONE)) {
		perror("runaway-prog: area");
		return 1;
	}
	memset(area, 7, 2 * PAGE);
	clear((int *)area);
	return 0;
}
