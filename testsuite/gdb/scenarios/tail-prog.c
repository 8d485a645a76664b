/* Tail calls in code with debug info: middle() ends in a jump to leaf(), so
 * on the real stack leaf's caller is main; GDB's DWARF unwinder shows middle
 * between them as a tail-call frame, from the call sites' debug info
 * (DW_TAG_call_site).  Built with -O2 so that the compiler makes the jump;
 * store() is a normal call below the tail call. */
static volatile int sink;

__attribute__((noinline)) void store(int x)
{
	sink = x;		/* L:store */
	sink += 1;
}

__attribute__((noinline)) int leaf(int x)
{
	store(x);		/* L:leaf */
	return sink * 2;
}

__attribute__((noinline)) int middle(int x)
{
	return leaf(x + 1);	/* L:middle */
}

int main(void)
{
	sink = 1;			/* L:start */
	int first = middle(sink);	/* L:first */
	int second = middle(first);	/* L:second */

	sink = second;
	*(volatile int *)0 = sink;	/* L:crash */
	return 0;
}
