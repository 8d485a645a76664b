/* coroutines.c: two coroutines on their own stacks (ucontext) that take
 * turns through one function, yield_to(), which calls swapcontext from a
 * single call site.  Then a crash in the first to finish, for a core.
 *
 * For value recovery (recover-vs-vgdb.test): a return from swapcontext
 * goes back to the call site the other coroutine called it from, which
 * is the same return address, on another stack.  The calling convention's
 * contract (recover-calls.h: rsp and the callee-saved registers after a
 * return are those before its call) does not hold across such a switch,
 * and nothing may carry the other coroutine's rsp, rbx or rbp across it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define STACK_SIZE (64 * 1024)
#define ROUNDS 40

static ucontext_t main_ctx, ctx[2];
static volatile uint64_t g_turns[2];

/* The one call site of every switch. */
static __attribute__((noinline)) void yield_to(int from, int to)
{
	if (swapcontext(&ctx[from], &ctx[to]) != 0)
		abort();
}

static void coroutine(int self)
{
	uint64_t local = 0x1111111111111111ull * (uint64_t)(self + 1);
	int i;

	for (i = 0; i < ROUNDS; i++) {
		g_turns[self] += local + (uint64_t)i;
		local = local * 3 + 1;
		yield_to(self, 1 - self);
	}
	/* The first to finish ends it: a store through a null pointer. */
	*(volatile uint64_t *)(uintptr_t)(g_turns[0] & 0) = local;
	setcontext(&main_ctx);
}

int main(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (getcontext(&ctx[i]) != 0)
			return 2;
		ctx[i].uc_stack.ss_sp = malloc(STACK_SIZE);
		ctx[i].uc_stack.ss_size = STACK_SIZE;
		ctx[i].uc_link = &main_ctx;
		if (!ctx[i].uc_stack.ss_sp)
			return 2;
		makecontext(&ctx[i], (void (*)(void))coroutine, 1, i);
	}
	if (swapcontext(&main_ctx, &ctx[0]) != 0)
		return 2;
	printf("%llu %llu\n", (unsigned long long)g_turns[0],
	       (unsigned long long)g_turns[1]);
	return 0;
}
