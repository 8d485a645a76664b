/* vm-prog.c: a value scenario's program (values-vm.scn), written as a
 * user's program that crashes: a small bytecode interpreter whose dispatch
 * is a dense `switch` (a jump table), output devices called through a
 * struct of function pointers, an operand stack grown with realloc, a
 * thread-local (__thread) step counter and errno, a 56-byte struct returned
 * by value (through memory: finish's "Value returned" reads it there), a
 * recursion keeping an array in each frame, and a crash when the program
 * reads through a device pointer it never set.  Dynamically linked, not
 * PIE (GDB finds TLS through libthread_db); built once more at -O2 -fomit-frame-pointer (vm-prog-o2)
 * for nav-vm-o2.scn.
 */
#include <errno.h>
#include <stdlib.h>

enum op { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_SWAP, OP_EMIT, OP_FOLD, OP_HALT };

struct insn {
	enum op op;
	int arg;
};

/* An output device: what the EMIT instruction calls. */
struct device {
	const char *name;
	int (*emit)(struct device *self, long value);
	long last;
	int count;
};

/* What a run leaves: more than two registers hold, so returned through
 * memory the caller passes. */
struct stats {
	long sum;
	long max;
	long min;
	int steps;
	int emits;
	int grows;
	int depth;
	char tag[8];
};

__thread int t_steps;
long *g_stack;
int g_capacity;
int g_grows;
long g_emitted;
struct device *g_sink;

static int emit_sum(struct device *self, long value)
{
	self->last = value;
	self->count++;
	g_emitted += value; /* L:emit_sum */
	return self->count;
}

static int emit_max(struct device *self, long value)
{
	if (value > self->last)
		self->last = value; /* L:emit_max */
	return ++self->count;
}

struct device devices[2] = {
	{ "sum", emit_sum, 0, 0 },
	{ "max", emit_max, 0, 0 },
};

/* Makes room for one more operand: the stack doubles, as users grow
 * theirs. */
static void grow(int need)
{
	if (need <= g_capacity)
		return;
	g_capacity = g_capacity ? g_capacity * 2 : 2;
	g_stack = realloc(g_stack, g_capacity * sizeof *g_stack); /* L:grow */
	g_grows++;
}

/* The sum of ways down a small triangle, each frame keeping its row. */
static long fold(int depth, long seed)
{
	long row[4];
	int i;

	for (i = 0; i < 4; i++)
		row[i] = seed * (i + 1) + depth; /* L:fold_row */
	if (depth == 0)
		return row[0] + row[3]; /* L:fold_leaf */
	return row[depth % 4] + fold(depth - 1, row[1]); /* L:fold_call */
}

static struct stats run(const struct insn *code, struct device *dev)
{
	struct stats st = { 0, -1000, 1000, 0, 0, 0, 0, "vm" };
	int sp = 0;
	int pc = 0;
	long a, b;

	for (;;) {
		const struct insn *in = &code[pc++];

		t_steps++;
		st.steps++;
		switch (in->op) { /* L:dispatch */
		case OP_PUSH:
			grow(sp + 1);
			g_stack[sp++] = in->arg; /* L:op_push */
			break;
		case OP_ADD:
			b = g_stack[--sp];
			a = g_stack[--sp];
			g_stack[sp++] = a + b; /* L:op_add */
			break;
		case OP_MUL:
			b = g_stack[--sp];
			a = g_stack[--sp];
			g_stack[sp++] = a * b; /* L:op_mul */
			break;
		case OP_DUP:
			grow(sp + 1);
			g_stack[sp] = g_stack[sp - 1];
			sp++;
			break;
		case OP_SWAP:
			a = g_stack[sp - 1];
			g_stack[sp - 1] = g_stack[sp - 2];
			g_stack[sp - 2] = a; /* L:op_swap */
			break;
		case OP_EMIT:
			a = g_stack[--sp];
			st.emits = dev->emit(dev, a); /* L:op_emit */
			st.sum += a;
			if (a > st.max)
				st.max = a;
			if (a < st.min)
				st.min = a;
			break;
		case OP_FOLD:
			a = g_stack[--sp];
			g_stack[sp++] = fold(in->arg, a); /* L:op_fold */
			break;
		case OP_HALT:
			st.grows = g_grows;
			st.depth = sp; /* L:op_halt */
			return st;
		}
	}
}

static const struct insn program[] = {
	{ OP_PUSH, 3 }, { OP_PUSH, 4 }, { OP_ADD, 0 }, { OP_DUP, 0 },
	{ OP_EMIT, 0 }, { OP_PUSH, 5 }, { OP_MUL, 0 }, { OP_DUP, 0 },
	{ OP_EMIT, 0 }, { OP_PUSH, 1 }, { OP_PUSH, 2 }, { OP_PUSH, 9 },
	{ OP_SWAP, 0 }, { OP_ADD, 0 }, { OP_FOLD, 3 }, { OP_EMIT, 0 },
	{ OP_PUSH, -6 }, { OP_EMIT, 0 }, { OP_HALT, 0 },
};

int main(void)
{
	struct stats first = { 0 }, second = { 0 };
	int saved_errno;
	char *end;
	long big;

	errno = 0;
	big = strtol("99999999999999999999", &end, 10); /* L:strtol */
	saved_errno = errno;
	first = run(program, &devices[0]); /* L:first_run */
	second = run(program + 9, &devices[1]); /* L:second_run */
	return g_sink->count + first.emits + second.emits + (int)big + saved_errno; /* L:crash */
}
