/* jit-prog.c, built at -O2: a stack machine dispatched with computed goto
 * (labels as values, one indirect jump per operation), handlers reached
 * by indirect tail calls through a table (jmp *reg, no frame left),
 * overflow-checked arithmetic (__builtin_mul_overflow), a static inline
 * helper inlined into the loop, and the program's own DIV operation
 * dividing by a zero it computed: SIGFPE in the interpreter
 * (nav-jit*.scn). */
#include <stdint.h>

enum op { OP_PUSH, OP_ADD, OP_MUL, OP_DIV, OP_DUP, OP_CALL, OP_HALT };

struct insn {
	enum op op;
	long arg;
};

long g_steps;
long g_overflows;
long g_calls;

typedef long (*helper_fn)(long, long);

__attribute__((noinline)) static long h_square(long a, long depth)
{
	g_calls++;
	return a * a + depth; /* L:square */
}

__attribute__((noinline)) static long h_halve(long a, long depth)
{
	g_calls++;
	return a / 2 - depth; /* L:halve */
}

static helper_fn g_helpers[] = { h_square, h_halve };

/* An indirect tail call: at -O2 a jmp through the table, so the helper
 * returns straight into the interpreter. */
__attribute__((noinline)) static long call_helper(long which, long a, long depth)
{
	return g_helpers[which & 1](a, depth); /* L:tail */
}

static inline long mul_checked(long a, long b)
{
	long r;

	if (__builtin_mul_overflow(a, b, &r)) {
		g_overflows++;
		return INT64_MAX; /* L:overflow */
	}
	return r;
}

__attribute__((noinline)) static long run(const struct insn *code, long *stack)
{
	static const void *labels[] = {
		&&do_push, &&do_add, &&do_mul, &&do_div, &&do_dup, &&do_call, &&do_halt
	};
	long *sp = stack;
	const struct insn *pc = code;

#define NEXT do { g_steps++; goto *labels[(pc++)->op]; } while (0)
	NEXT;
do_push:
	*sp++ = pc[-1].arg; /* L:push */
	NEXT;
do_add:
	sp--;
	sp[-1] += sp[0];
	NEXT;
do_mul:
	sp--;
	sp[-1] = mul_checked(sp[-1], sp[0]); /* L:mul */
	NEXT;
do_div:
	sp--;
	sp[-1] = sp[-1] / sp[0]; /* L:crash */
	NEXT;
do_dup:
	sp[0] = sp[-1];
	sp++;
	NEXT;
do_call:
	sp[-1] = call_helper(pc[-1].arg, sp[-1], sp - stack); /* L:call */
	NEXT;
do_halt:
	return sp[-1];
}

static const struct insn prog_a[] = {
	{ OP_PUSH, 6 }, { OP_DUP, 0 }, { OP_MUL, 0 }, { OP_CALL, 0 },
	{ OP_PUSH, 3 }, { OP_ADD, 0 }, { OP_HALT, 0 },
};

static const struct insn prog_b[] = {
	{ OP_PUSH, 1L << 40 }, { OP_DUP, 0 }, { OP_MUL, 0 }, { OP_CALL, 1 },
	{ OP_PUSH, 2 }, { OP_PUSH, 6 }, { OP_CALL, 1 }, { OP_DIV, 0 },
	{ OP_HALT, 0 },
};

int main(void)
{
	long stack[16] = { 0 };
	long a = run(prog_a, stack); /* L:run_a */
	long b = run(prog_b, stack); /* L:run_b */

	return (int) (a + b);
}
