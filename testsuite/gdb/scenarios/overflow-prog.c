/* overflow-prog.c: a runaway recursion overflows its stack (overflow*.scn).
 * descend() calls itself with no base case: its loop is direct calls only,
 * no conditional branch and no return, so the trace has no packet between
 * the passes, and the fault lands in the guard page under the stack.  The
 * stack is one of the program's own (swapcontext), a guard page below it, so
 * that the depth reached is the same natively and under Valgrind (the main
 * stack's size and start differ between them). */
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

#define PAGE 4096
#define STACK_SIZE (64 * 1024)

static ucontext_t main_ctx, deep_ctx;
static volatile int depth_reached;

static int descend(int level)
{
	volatile char frame[1000];

	frame[0] = (char)level;
	depth_reached = level;
	return descend(level + 1) + frame[0];
}

static void run_deep(void)
{
	descend(1);
}

int main(void)
{
	char *area = mmap(NULL, PAGE + STACK_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (area == MAP_FAILED || mprotect(area, PAGE, PROT_NONE) != 0) {
		perror("overflow-prog: stack");
		return 1;
	}
	getcontext(&deep_ctx);
	deep_ctx.uc_stack.ss_sp = area + PAGE;
	deep_ctx.uc_stack.ss_size = STACK_SIZE;
	deep_ctx.uc_link = &main_ctx;
	makecontext(&deep_ctx, run_deep, 0);
	swapcontext(&main_ctx, &deep_ctx);
	return 0;
}
