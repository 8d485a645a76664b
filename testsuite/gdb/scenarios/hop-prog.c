/* hop-prog.c: where navigation goes through tail calls and chains of
 * leaves (hop-*.scn), built at -O2 so that the compiler makes the jumps:
 * hop1 and hop2 end in tail calls (hop1 -> hop2 -> leaf1), leaf1 -> leaf2
 * -> leaf3 are normal calls kept out of line, then a crash.  Lines the
 * scenarios name carry an "L:name" marker comment.
 */
static volatile int sink;
static int *volatile nowhere;

__attribute__((noinline)) int leaf3(int x)
{
	sink = x; /* L:leaf3 */
	return x * 3 + sink; /* L:leaf3_ret */
}

__attribute__((noinline)) int leaf2(int x)
{
	return leaf3(x + 1) + 1; /* L:leaf2 */
}

__attribute__((noinline)) int leaf1(int x)
{
	return leaf2(x * 2) + 2; /* L:leaf1 */
}

/* Ends in a jump to leaf1: its frame is gone while leaf1 runs. */
__attribute__((noinline)) int hop2(int x)
{
	sink += x; /* L:hop2 */
	return leaf1(x); /* L:hop2_tail */
}

/* Ends in a jump to hop2 (a tail call to a tail call). */
__attribute__((noinline)) int hop1(int x)
{
	if (x > 1000)
		return 0;
	sink -= 1; /* L:hop1 */
	return hop2(x + 1); /* L:hop1_tail */
}

__attribute__((noinline)) static void crash(int *where)
{
	*where = sink; /* L:crash */
}

int main(int argc, char **argv)
{
	int r;

	(void)argv;
	r = hop1(argc); /* L:main_hop */
	r += leaf1(argc + 3); /* L:main_leaf */
	r += hop2(r); /* L:main_hop2 */
	sink = r;
	crash(nowhere); /* L:main_crash */
	return 0;
}
