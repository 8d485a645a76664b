/* cmds-prog: stops for display, info frame / locals / args after up 2,
   x/s, x/8xg $sp, p arr[1]@3, tbreak, until and advance in replay.
   Ends with a crash (a store through a null pointer). */
#include <stddef.h>
#include <string.h>

char g_name[16];
long g_arr[6];

static long
leaf(long a, long b)
{
	long prod = a * b;

	g_arr[a % 6] = prod;	/* L:store */
	return prod + 1;
}

static long
middle(long x, const char *tag)
{
	long r = leaf(x, x + 1);

	if (tag[0] == 'c')	/* L:tag */
		r += 2;
	return r;
}

static long
outer(int count)
{
	long acc = 0;
	int i;

	for (i = 0; i < count; i++)
		acc += middle(i, g_name);
	return acc;
}

int
main(void)
{
	int *volatile nowhere = NULL;
	long total;

	strcpy(g_name, "cmds-probe");
	total = outer(5);
	total += outer(3);	/* L:second */
	g_arr[5] = total;
	*nowhere = (int)total;	/* L:crash */
	return 0;
}
