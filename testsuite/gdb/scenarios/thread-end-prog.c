/* thread-end-prog: two threads run work() and exit before main crashes, so
 * no thread but main is left at the end: at a past position inside a
 * worker, its stack ends at the thread's entry (clone), whose CFI says its
 * return address is undefined (test-thread-outermost.sh). */
#include <pthread.h>
#include <stdio.h>

static int results[2];

__attribute__((noinline)) static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i;		/* L:work */
	return s;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	results[id] = work(100 + id);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d %d\n", results[0], results[1]);
	*(volatile int *)0 = results[0];
	return 0;
}
