/* crash-segv: dies of SIGSEGV, a load through a NULL pointer three calls deep
 * below main (main -> outer -> middle -> inner).  The pointer (first.next) is
 * set to NULL on the line marked NULL-SET; the faulting load is on the line
 * marked CRASH-HERE. */
#include <stdio.h>

struct node { int value; struct node *next; };

__attribute__((noinline)) static int inner(struct node *n)
{
	return n->value;	/* CRASH-HERE */
}

__attribute__((noinline)) static int middle(struct node *n)
{
	return inner(n->next) + 1;
}

__attribute__((noinline)) static int outer(struct node *n)
{
	return middle(n) * 2;
}

int main(void)
{
	struct node last = { 3, NULL };
	struct node first = { 1, &last };

	printf("crash-segv: %d\n", outer(&first));
	fflush(stdout);
	first.next = NULL;	/* NULL-SET */
	return outer(&first);
}
