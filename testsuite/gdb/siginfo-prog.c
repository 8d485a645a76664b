/* siginfo-prog: dies of the signal its argument names, for test-siginfo.sh
 * (GDB's $_siginfo at the end, natively and from a recording).  Built
 * without PIE, so that the addresses the kernel reports are the same
 * natively and under Valgrind. */
#include <signal.h>
#include <string.h>

struct node {
	long key;
	struct node *next;
};

static const char greeting[64] = "read-only";
volatile int divisor;
void (*volatile handler)(void);

static long second_key(const struct node *n)
{
	return n->next->key;	/* n->next is NULL: a read at 0x0 */
}

int main(int argc, char **argv)
{
	struct node last = { 1, NULL }, first = { 0, &last };
	const char *mode = argc > 1 ? argv[1] : "null";

	if (!strcmp(mode, "null"))		/* SEGV_MAPERR at 0x0 */
		return (int)second_key(&last);
	if (!strcmp(mode, "far"))		/* SEGV_MAPERR at 0x7008 */
		return (int)((struct node *)0x7000)->next->key;
	if (!strcmp(mode, "rodata"))		/* SEGV_ACCERR at greeting+5 */
		((char *)greeting)[5] = '!';
	if (!strcmp(mode, "call"))		/* SEGV_MAPERR at 0x0, a jump */
		handler();
	if (!strcmp(mode, "divide"))		/* FPE_INTDIV at the idiv */
		return 100 / divisor;
	if (!strcmp(mode, "raise"))		/* SI_TKILL: sent, not a fault */
		raise(SIGSEGV);
	return (int)first.key;
}
