/* cold-prog.c, built at -O2: functions GCC splits into a hot part and a
 * .cold part placed elsewhere in .text (the unlikely error paths, marked
 * with __builtin_expect and a cold function they call), a switch whose
 * cases fall through, a static function inlined twice into its caller,
 * and a crash in a .cold part: the error path of a record without a name
 * reads through the NULL (nav-cold*.scn). */
#include <stddef.h>
#include <stdio.h>

struct record {
	const char *name;
	int kind;
	int weight;
};

int g_flags;
int g_errors;
long g_weight;

__attribute__((noinline, cold)) static void report(const char *what, int code)
{
	g_errors += code; /* L:report */
	if (g_errors > 100)
		fputs(what, stderr);
}

static inline int flags_for(int kind)
{
	int f = 0;

	switch (kind) {
	case 3:
		f |= 8;
		/* fall through */
	case 2:
		f |= 4; /* L:case2 */
		/* fall through */
	case 1:
		f |= 2;
		break;
	default:
		f = -1;
	}
	return f;
}

__attribute__((noinline)) static int check(const struct record *r)
{
	int f = flags_for(r->kind);

	if (__builtin_expect(f < 0, 0)) {
		report("bad kind", 1);
		/* The bug: a record without a name has no first letter. */
		return r->name[0] + f; /* L:crash */
	}
	g_flags |= f;
	return f + flags_for(r->weight & 3); /* L:check_ret */
}

__attribute__((noinline)) static long total(const struct record *rs, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		int c = check(&rs[i]);
		if (__builtin_expect(c > 12, 0))
			report("heavy", 2);
		sum += (long) c * rs[i].weight; /* L:sum */
	}
	g_weight = sum;
	return sum;
}

int main(void)
{
	static const struct record rs[] = {
		{ "anvil", 3, 40 }, { "bolt", 1, 2 }, { "cog", 2, 7 },
		{ "die", 3, 11 }, { NULL, 9, 0 },
	};

	return (int) total(rs, 5); /* L:main_total */
}
