/* exited-thread-prog: threads that come and go before a crash
 * (test-threads-alive.py).  main calls work(0), runs a short-lived thread
 * (work(1)) and joins it, calls work(3), starts a thread that calls work(2)
 * and then waits in pause() for good, calls work(4) and dies of SIGSEGV:
 * at the crash main and the sleeper are alive, the short-lived thread is
 * long gone. */
/* configure's CFLAGS (-O2) come after the target's: keep lines plain. */
#pragma GCC optimize("O0")
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

static volatile long g_sink;
static int g_ready;

__attribute__((noinline)) static void work(int id)
{
	g_sink += id; /* L:work */
}

static void *short_lived(void *arg)
{
	work(1);
	return arg;
}

static void *sleeper(void *arg)
{
	work(2);
	__atomic_store_n(&g_ready, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	pthread_t a, b;

	work(0);
	pthread_create(&a, NULL, short_lived, NULL);
	pthread_join(a, NULL);
	work(3);
	pthread_create(&b, NULL, sleeper, NULL);
	while (!__atomic_load_n(&g_ready, __ATOMIC_ACQUIRE))
		sched_yield();
	work(4);
	*(volatile int *)0 = 0;
	return 0;
}
