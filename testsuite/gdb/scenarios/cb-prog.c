/* cb-prog.c: where navigation goes in callbacks libc calls (cb-*.scn):
 * qsort and bsearch comparators, a SIGUSR1 handler (run by raise()) that
 * calls a function of the program, and an atexit handler that crashes
 * while exit() runs it.  Built at -O0 and -O2 (cb-prog-o2).  Lines the
 * scenarios name carry an "L:name" marker comment.
 */
#include <signal.h>
#include <stdlib.h>

static volatile int counter;
static int *volatile nowhere;
static int keys[] = { 42, 7, 19, 3, 88, 21, 64, 5 };

__attribute__((noinline)) static int weigh(int v)
{
	counter++;
	return v % 97; /* L:weigh */
}

static int by_weight(const void *a, const void *b)
{
	int x = weigh(*(const int *)a); /* L:cmp_first */
	int y = weigh(*(const int *)b);

	return (x > y) - (x < y); /* L:cmp_ret */
}

static int find_key(const void *key, const void *elem)
{
	int k = *(const int *)key, e = *(const int *)elem; /* L:find */

	return (k > e) - (k < e); /* L:find_ret */
}

__attribute__((noinline)) static void note(int sig)
{
	counter += sig; /* L:note */
}

static void on_usr1(int sig)
{
	note(sig); /* L:handler */
	counter++; /* L:handler_after */
}

__attribute__((noinline)) static void crash(int *where)
{
	*where = counter; /* L:crash */
}

static void last_words(void)
{
	counter += 2; /* L:last_words */
	crash(nowhere); /* L:last_crash */
}

int main(int argc, char **argv)
{
	int want = 21;
	int *found;

	(void)argv;
	qsort(keys, sizeof keys / sizeof keys[0], sizeof keys[0], by_weight); /* L:main_qsort */
	found = bsearch(&want, keys, sizeof keys / sizeof keys[0], sizeof keys[0],
	    find_key); /* L:main_bsearch */
	counter += found != NULL;
	signal(SIGUSR1, on_usr1); /* L:main_signal */
	raise(SIGUSR1); /* L:main_raise */
	counter += argc; /* L:main_after_raise */
	atexit(last_words); /* L:main_atexit */
	return 0; /* L:main_ret */
}
