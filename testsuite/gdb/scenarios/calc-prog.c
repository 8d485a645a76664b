/* calc-prog.c: where navigation goes in a recursive-descent calculator
 * (calc*.scn): expr -> term -> factor -> expr for each parenthesis, a
 * static skip_blanks() called from every level, strtol() and snprintf()
 * each expression, errors (a division by zero, a missing parenthesis)
 * left through all the parser's frames by longjmp back to evaluate()'s
 * setjmp, then a store through a NULL table pointer.  Lines the
 * scenarios name carry "L:name".
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *pos;
	int depth;
	int max_depth;
	const char *why;
	jmp_buf fail;
};

static volatile long checksum;
static long *volatile table;
static char line[64];

static const char *inputs[] = {
	"1 + 2 * 3",
	"(4 + 5) * (6 - 2)",
	"7 / (3 - 3)",
	"((1 + 2) * (3 + (4 * 5))) - 6",
	"-(8 % 3) + 10",
	"2 * (3 + 4",
	"(((9)))",
};

static void skip_blanks(struct parser *p)
{
	while (*p->pos == ' ')
		p->pos++; /* L:skip */
}

__attribute__((noreturn)) static void fail(struct parser *p, const char *why)
{
	p->why = why; /* L:fail */
	longjmp(p->fail, 1); /* L:fail_jump */
}

static long parse_expr(struct parser *p);

static long parse_factor(struct parser *p)
{
	long v;
	char *end;

	skip_blanks(p); /* L:factor_start */
	if (*p->pos == '(') {
		p->pos++;
		p->depth++;
		v = parse_expr(p); /* L:factor_paren */
		p->depth--;
		skip_blanks(p);
		if (*p->pos != ')')
			fail(p, "missing )"); /* L:factor_fail */
		p->pos++;
		return v; /* L:factor_paren_ret */
	}
	if (*p->pos == '-') {
		p->pos++;
		return -parse_factor(p); /* L:factor_neg */
	}
	v = strtol(p->pos, &end, 10); /* L:factor_num */
	if (end == p->pos)
		fail(p, "number expected");
	p->pos = end;
	return v; /* L:factor_ret */
}

static long parse_term(struct parser *p)
{
	long v = parse_factor(p); /* L:term_first */

	for (;;) {
		long r;
		char op;

		skip_blanks(p); /* L:term_loop */
		op = *p->pos;
		if (op != '*' && op != '/' && op != '%')
			return v; /* L:term_ret */
		p->pos++;
		r = parse_factor(p); /* L:term_next */
		if (op == '*')
			v *= r;
		else if (r == 0)
			fail(p, "division by zero"); /* L:term_div0 */
		else if (op == '/')
			v /= r;
		else
			v %= r; /* L:term_mod */
	}
}

static long parse_expr(struct parser *p)
{
	long v;

	if (p->depth > p->max_depth)
		p->max_depth = p->depth; /* L:expr_deeper */
	v = parse_term(p); /* L:expr_first */
	for (;;) {
		char op;

		skip_blanks(p); /* L:expr_loop */
		op = *p->pos;
		if (op != '+' && op != '-')
			return v; /* L:expr_ret */
		p->pos++;
		if (op == '+')
			v += parse_term(p); /* L:expr_add */
		else
			v -= parse_term(p); /* L:expr_sub */
	}
}

__attribute__((noinline)) static int evaluate(const char *text, long *out)
{
	struct parser p;

	memset(&p, 0, sizeof p);
	p.pos = text;
	if (setjmp(p.fail) != 0) {
		checksum -= (long)strlen(p.why); /* L:eval_failed */
		return -1;
	}
	*out = parse_expr(&p); /* L:eval_parse */
	skip_blanks(&p);
	if (*p.pos != '\0')
		fail(&p, "trailing input");
	return p.max_depth; /* L:eval_ret */
}

__attribute__((noinline)) static void report(int i, long v, int depth)
{
	int n;

	n = snprintf(line, sizeof line, "%d: %ld (depth %d)", i, v, depth); /* L:report */
	checksum += v + n;
}

__attribute__((noinline)) static void publish(long total)
{
	table[0] = total; /* L:crash */
}

int main(void)
{
	int i, depth, failures = 0;
	long v;

	for (i = 0; i < (int)(sizeof inputs / sizeof inputs[0]); i++) {
		v = 0;
		depth = evaluate(inputs[i], &v); /* L:main_eval */
		if (depth < 0) {
			failures++; /* L:main_failed */
			continue;
		}
		report(i, v, depth); /* L:main_report */
	}
	publish(checksum + failures); /* L:main_publish */
	return 0;
}
