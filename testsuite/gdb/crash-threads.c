/* crash-threads: dies of SIGSEGV (a NULL load three calls below main) while
 * a second thread waits in the kernel; the core of two threads checks the
 * server's registers, memory, threads and library list. */
/* configure's CFLAGS (-O2) come after the target's: keep lines and frames
 * plain regardless. */
#pragma GCC optimize("O0")
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
struct node { int value; struct node *next; };
static pthread_barrier_t ready;
static void *idle_thread(void *arg) { pthread_barrier_wait(&ready); for (;;) pause(); return arg; }
__attribute__((noinline)) static int inner(struct node *n) { return n->value; }
__attribute__((noinline)) static int middle(struct node *n) { return inner(n->next) + 1; }
__attribute__((noinline)) static int outer(struct node *n) { return middle(n) * 2; }
int main(void)
{
	pthread_t t;
	struct node last = { 3, NULL }, first = { 1, &last };
	pthread_barrier_init(&ready, NULL, 2);
	pthread_create(&t, NULL, idle_thread, NULL);
	pthread_barrier_wait(&ready);
	printf("%d\n", outer(&first));
	first.next = NULL;
	return outer(&first);
}
