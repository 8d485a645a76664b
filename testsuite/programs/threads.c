/* threads: 8 pthreads pass a value (the baton) through a mutex.  Each worker
 * takes the mutex, reads the baton, writes down that it held it in that
 * turn, and passes baton + 1.  The program prints which worker (in creation
 * order, 1..8) held the mutex in each turn: "threads: order W W W ...".  That
 * order is a happens-before chain the recording's timestamps must respect.
 * A worker's own code takes the same path whatever the order. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define NWORKERS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int baton;
static int holder[NWORKERS];	/* holder[turn] = worker number */

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;

	pthread_mutex_lock(&lock);
	holder[baton] = me;
	baton = baton + 1;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t[NWORKERS];

	/* Bind the PLT slots now: otherwise whichever worker calls first goes
	 * through the lazy-binding stub and the workers' own code differs by
	 * scheduling. */
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < NWORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	printf("threads: order");
	for (int i = 0; i < NWORKERS; i++)
		printf(" %d", holder[i]);
	printf("\nthreads: baton %d\n", baton);
	return baton == NWORKERS ? 0 : 1;
}
