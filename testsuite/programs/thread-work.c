/* thread-work: 12 short threads, created one after another (each may end
 * before the next starts, or not), thread k looping 40 * k times: every
 * thread's trace differs from the others', so a test can tell from a stream
 * which thread it belongs to (naming threads in hwt recordings). */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 12

static volatile unsigned sink;

__attribute__((noinline)) static unsigned step(unsigned v)
{
	return v & 1 ? 3 * v + 1 : v / 2;
}

static void *work(void *arg)
{
	unsigned k = (unsigned)(unsigned long)arg, v = 27;

	for (unsigned i = 0; i < 40 * k; i++)
		v = step(v) + i;
	sink += v;
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];

	for (unsigned long k = 0; k < NTHREADS; k++)
		if (pthread_create(&t[k], NULL, work, (void *)(k + 1)))
			return 1;
	for (unsigned k = 0; k < NTHREADS; k++)
		pthread_join(t[k], NULL);
	printf("thread-work: %d threads done\n", NTHREADS);
	return 0;
}
