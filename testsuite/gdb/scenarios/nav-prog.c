/* nav-prog.c: where navigation commands go (nav-*.scn): deep and mutual
 * recursion, a longjmp across frames, swapcontext between two stacks, a
 * signal handler run by raise() and by a kill() at a loop, then a crash.
 * Lines the scenarios name carry an "L:name" marker comment.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int counter;
static volatile sig_atomic_t handled;
static jmp_buf escape;
static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];

static int is_odd(int n);

static int is_even(int n)
{
	if (n == 0)
		return 1; /* L:even_base */
	return is_odd(n - 1); /* L:even_rec */
}

static int is_odd(int n)
{
	if (n == 0)
		return 0; /* L:odd_base */
	return is_even(n - 1); /* L:odd_rec */
}

static int depth_sum(int n)
{
	int here = n * 3; /* L:depth_entry */

	if (n == 0)
		return counter; /* L:depth_base */
	here += depth_sum(n - 1); /* L:depth_rec */
	return here; /* L:depth_ret */
}

static void bail(int level)
{
	counter += level; /* L:bail */
	if (level == 0)
		longjmp(escape, 7); /* L:longjmp */
	bail(level - 1); /* L:bail_rec */
	counter = -1; /* never reached */
}

static int try_bail(void)
{
	int got = setjmp(escape); /* L:setjmp */

	if (got == 0) {
		bail(3); /* L:call_bail */
		return -1;
	}
	return got; /* L:after_jump */
}

static void coroutine(void)
{
	counter += 100; /* L:co_first */
	swapcontext(&co_ctx, &main_ctx); /* L:co_yield */
	counter += 200; /* L:co_second */
}

static void run_coroutine(void)
{
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof co_stack;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, coroutine, 0);
	swapcontext(&main_ctx, &co_ctx); /* L:co_start */
	counter += 10; /* L:co_between */
	swapcontext(&main_ctx, &co_ctx); /* L:co_resume */
	counter += 20; /* L:co_done */
}

static void on_usr1(int sig)
{
	handled += sig; /* L:handler */
	counter++; /* L:handler_end */
}

static int spin_until_handled(void)
{
	int turns = 0;

	kill(getpid(), SIGUSR1); /* L:kill */
	while (!handled) /* L:spin */
		turns++;
	return turns;
}

static void crash(int *where)
{
	*where = counter; /* L:crash */
}

int main(void)
{
	int r;

	signal(SIGUSR1, on_usr1);
	r = is_even(9); /* L:main_mutual */
	counter += r;
	r = depth_sum(6); /* L:main_depth */
	counter += r;
	r = try_bail(); /* L:main_bail */
	counter += r;
	run_coroutine(); /* L:main_co */
	raise(SIGUSR1); /* L:main_raise */
	handled = 0; /* L:main_after_raise */
	r = spin_until_handled(); /* L:main_spin */
	counter += r > 0;
	r = is_odd(4); /* L:main_last */
	crash(NULL); /* L:main_crash */
	return r;
}
