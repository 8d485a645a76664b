/* atomic-prog.c: a value scenario's program (values-atomic*.scn): the
 * atomic operations lock-free code is made of, in one thread, as a user
 * steps through it before it runs threaded: a Treiber stack pushed and
 * popped with compare-and-swap (lock cmpxchg), reference counts taken with
 * fetch-add (lock xadd), a spinlock taken with exchange (xchg), slots
 * claimed in a bitmap with fetch-or (a lock cmpxchg loop) and released
 * with fetch-and (lock and), and a release that drops a count below
 * zero: the check calls abort() (SIGABRT) two calls below main.  Built
 * with -O1, so that GCC emits the locked forms directly.  Static, not
 * PIE, like values-prog.
 */
#include <stdlib.h>

struct node {
	int value;
	int refs;
	struct node *next;
};

static struct node g_nodes[8];
static struct node *g_top;
static volatile int g_lock;
static unsigned long g_slots;
static unsigned long g_before_claim;
static long g_pushes, g_pops;

static void push(struct node *n)
{
	struct node *old = __atomic_load_n(&g_top, __ATOMIC_RELAXED);

	do
		n->next = old;
	while (!__atomic_compare_exchange_n(&g_top, &old, n, 0, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED)); /* L:cas */
	__atomic_fetch_add(&g_pushes, 1, __ATOMIC_RELAXED);
}

static struct node *pop(void)
{
	struct node *old = __atomic_load_n(&g_top, __ATOMIC_ACQUIRE);

	while (old && !__atomic_compare_exchange_n(&g_top, &old, old->next, 0,
						   __ATOMIC_ACQUIRE,
						   __ATOMIC_RELAXED))
		;
	if (old)
		g_pops++; /* L:popped */
	return old;
}

static int claim_slot(unsigned bit)
{
	unsigned long mask = 1UL << bit;

	/* The whole old word is kept, so GCC makes this a lock cmpxchg loop
	 * (GDB's record full cannot record the lock bts that a bare bit test
	 * of it would be). */
	g_before_claim = __atomic_fetch_or(&g_slots, mask, __ATOMIC_ACQ_REL); /* L:claim */
	return (g_before_claim & mask) != 0;
}

static void release_slot(unsigned bit)
{
	__atomic_fetch_and(&g_slots, ~(1UL << bit), __ATOMIC_RELEASE);
}

static void lock(void)
{
	while (__atomic_exchange_n(&g_lock, 1, __ATOMIC_ACQUIRE)) /* L:lock */
		;
}

static void unlock(void)
{
	__atomic_store_n(&g_lock, 0, __ATOMIC_RELEASE);
}

static int get_ref(struct node *n)
{
	return __atomic_fetch_add(&n->refs, 1, __ATOMIC_ACQ_REL) + 1; /* L:get_ref */
}

static int put_ref(struct node *n)
{
	int left = __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL);

	if (left < 0)
		abort(); /* L:abort */
	return left;
}

int main(void)
{
	struct node *n;
	int i, total = 0, busy = 0;

	for (i = 0; i < 8; i++) {
		g_nodes[i].value = i * 11;
		push(&g_nodes[i]);
	}
	for (i = 0; i < 5; i++) {
		n = pop();
		lock();
		total += n->value + get_ref(n); /* L:got */
		busy += claim_slot((unsigned) (n->value % 7));
		unlock();
	}
	release_slot(3);
	busy += claim_slot(3);
	busy += claim_slot(5);
	push(&g_nodes[7]);
	n = pop();
	put_ref(n); /* L:put1 */
	put_ref(n); /* L:put2 */
	return total + busy + (int) (g_before_claim & 1);
}
