/* motion-prog: counted and repeated motion (step 3, reverse-next 5,
   stepi 40, next 4 across a recursion), frames (up 2 + finish, frame 2 +
   info frame, bt full), breakpoints with state (ignore, condition, tbreak
   if, break *ADDR, break malloc / strlen), skip, catch syscall write and
   record goto in replay.  Ends with a crash (a store through a null
   pointer). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long g_sum;
int g_calls;
char *g_buf;

static int
helper(int v)
{
	g_calls++;	/* L:helper */
	return v * 3;
}

static long
fact(int n)
{
	long below = -1;	/* set: bt full prints it */

	if (n <= 1)
		return 1;	/* L:base */
	below = fact(n - 1);	/* L:recurse */
	return n * below;
}

static long
loop(int count)
{
	long acc = 0;
	int i;

	for (i = 0; i < count; i++) {
		int x = helper(i);	/* L:loopcall */

		acc += x;	/* L:accumulate */
	}
	return acc;
}

static size_t
announce(const char *word)
{
	size_t len = strlen(word);	/* L:strlen */

	g_buf = malloc(len + 2);
	memcpy(g_buf, word, len);
	g_buf[len] = '\n';
	g_buf[len + 1] = '\0';
	write(1, g_buf, len + 1);	/* L:write */
	return len;
}

int
main(void)
{
	int *volatile nowhere = NULL;
	long f;

	f = fact(5);	/* L:fact */
	g_sum = loop(10);	/* L:loop */
	g_sum += f + (long)announce("motion");	/* L:announce */
	g_sum += helper((int)g_sum);	/* L:lasthelper */
	*nowhere = (int)g_sum;	/* L:crash */
	return 0;
}
