/* conf-prog.c: where navigation goes in an -O2 configuration scanner
 * (conf*.scn): a state machine (a switch in a loop over the text) that
 * calls a cold error path and a field adder using strtol and memcpy, a
 * SIGALRM raise()d from the adder in the middle of the scan, qsort and
 * bsearch comparators, a tail call to diff_of, a small static function
 * called (or inlined) from everywhere, then an assert() that fails in
 * main: SIGABRT in libc.  Built -O2.  Lines the scenarios name carry
 * "L:name".
 */
#include <assert.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum state { S_START, S_KEY, S_VALUE, S_QUOTED, S_SKIP };

struct field {
	char key[12];
	long value;
	int line;
};

static struct field fields[16];
static int nfields;
static volatile sig_atomic_t ticks;
static volatile int noise;

static const char input[] =
    "alpha=12\n"
    "# a comment\n"
    "beta=7\n"
    "gamma=\"x y\"\n"
    "delta=40\n"
    "bad line\n"
    "eps=3\n"
    "zeta=19\n";

static void bump(int how)
{
	noise += how; /* L:bump */
}

__attribute__((cold, noinline)) static void complain(int line, int state)
{
	bump(100 * line + state); /* L:complain */
}

static void on_alarm(int sig)
{
	ticks++; /* L:on_alarm */
	bump(sig);
}

__attribute__((noinline)) static void add_field(const char *key, size_t klen,
    const char *val, int line)
{
	struct field *f = &fields[nfields++];

	memcpy(f->key, key, klen); /* L:add_copy */
	f->key[klen] = '\0';
	f->value = strtol(val, NULL, 10); /* L:add_strtol */
	f->line = line;
	bump(1);
	if (nfields == 4)
		raise(SIGALRM); /* L:add_raise */
}

__attribute__((noinline)) static int scan(const char *s)
{
	enum state st = S_START;
	const char *key = NULL, *val = NULL;
	size_t klen = 0;
	int line = 1;

	for (; *s; s++) {
		char c = *s; /* L:scan_loop */

		switch (st) {
		case S_START:
			if (c == '#')
				st = S_SKIP;
			else if (c != '\n') {
				key = s; /* L:scan_key_start */
				st = S_KEY;
			} else
				line++;
			break;
		case S_KEY:
			if (c == '=') {
				klen = s - key; /* L:scan_equals */
				val = s + 1;
				st = S_VALUE;
			} else if (c == ' ' || c == '\n') {
				complain(line, st); /* L:scan_bad */
				st = c == '\n' ? S_START : S_SKIP;
				line += c == '\n';
			}
			break;
		case S_VALUE:
			if (c == '"') {
				bump(2); /* L:scan_quote */
				st = S_QUOTED;
			} else if (c == '\n') {
				add_field(key, klen, val, line); /* L:scan_add */
				line++;
				st = S_START;
			}
			break;
		case S_QUOTED:
			if (c == '"')
				st = S_VALUE; /* L:scan_unquote */
			break;
		case S_SKIP:
			if (c == '\n') {
				line++; /* L:scan_skip_end */
				st = S_START;
			}
			break;
		}
	}
	return line; /* L:scan_ret */
}

static int order_by_key(const void *a, const void *b)
{
	const struct field *x = a, *y = b;

	return strcmp(x->key, y->key); /* L:order */
}

static int find_key(const void *key, const void *elem)
{
	const struct field *f = elem;

	bump(4);
	return strcmp(key, f->key); /* L:find */
}

__attribute__((noinline)) static long lookup(const char *key)
{
	struct field *f;

	f = bsearch(key, fields, nfields, sizeof fields[0], find_key); /* L:lookup */
	return f != NULL ? f->value : -1; /* L:lookup_ret */
}

__attribute__((noinline)) static long diff_of(const char *key, long got,
    long want)
{
	bump(key[0]); /* L:diff_of */
	return got - want;
}

/* At -O2 the call to diff_of is a tail call (a jump). */
__attribute__((noinline)) static long check(const char *key, long want)
{
	return diff_of(key, lookup(key), want); /* L:check */
}

int main(void)
{
	long total = 0;
	int lines;

	signal(SIGALRM, on_alarm);
	lines = scan(input); /* L:main_scan */
	qsort(fields, nfields, sizeof fields[0], order_by_key); /* L:main_qsort */
	total += check("beta", 7); /* L:main_check_beta */
	total += check("delta", 40);
	total += check("zeta", 19);
	total += check("gamma", 0); /* L:main_check_gamma */
	assert(total == 0 && ticks == 1 && lookup("omega") > 0); /* L:assert */
	return lines;
}
