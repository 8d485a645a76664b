/* threads-prog.c: two worker threads, one after the other, each calling
 * step_of() five times; the live thread tests (test-live-threads.py) stop
 * in the second worker and go back through its calls. */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void step_of(long id, int i)
{
	sink += id * 10 + i; /* L:work */
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 5; i++)
		step_of(id, i); /* L:worker_loop */
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, (void *)1);
	pthread_join(a, NULL);
	pthread_create(&b, NULL, worker, (void *)2);
	pthread_join(b, NULL);
	printf("%ld\n", sink); /* L:main_done */
	return 0;
}
