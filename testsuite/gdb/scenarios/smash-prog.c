/* smash-prog.c, built with -fstack-protector-all: an expression tree whose
 * nodes hold their operation as a function pointer, evaluated by a
 * recursion through a table of operations, a name table filled with
 * snprintf, and a label copied into a 16-byte stack buffer by a loop that
 * runs past it: the copy overwrites the frame's canary, and at
 * its return __stack_chk_fail ends the program with SIGABRT
 * (values-smash*.scn). */
#include <stdio.h>
#include <string.h>

struct node;
typedef long (*op_fn)(const struct node *);

struct node {
	op_fn op;
	long value;
	const struct node *left, *right;
	const char *label;
};

static long g_evals;
static long g_depth_max;
static char g_names[4][24];

static long eval(const struct node *n, int depth);

static long op_leaf(const struct node *n)
{
	return n->value;
}

static long op_add(const struct node *n)
{
	return eval(n->left, 1) + eval(n->right, 1); /* L:add */
}

static long op_mul(const struct node *n)
{
	return eval(n->left, 1) * eval(n->right, 1);
}

static long op_neg(const struct node *n)
{
	return -eval(n->left, 1);
}

static const op_fn g_ops[] = { op_leaf, op_add, op_mul, op_neg };

static long eval(const struct node *n, int depth)
{
	static int level;
	long result;

	level += depth;
	if (level > g_depth_max)
		g_depth_max = level;
	g_evals++;
	result = n->op(n); /* L:eval_call */
	level -= depth;
	return result;
}

static int label_length(const char *label)
{
	char copy[16];
	int i;

	/* The bug: the bound is the label's length, not the buffer's. */
	for (i = 0; label[i] != '\0'; i++)
		copy[i] = label[i]; /* L:copy */
	copy[i < 16 ? i : 15] = '\0';
	return (int) strlen(copy); /* L:smash */
}

static int name_all(const struct node *const *nodes, int n)
{
	int total = 0;

	for (int i = 0; i < n; i++) {
		snprintf(g_names[i], sizeof g_names[i], "%s=%ld", nodes[i]->label,
			 eval(nodes[i], 0));
		total += label_length(nodes[i]->label); /* L:named */
	}
	return total;
}

int main(void)
{
	struct node two = { g_ops[0], 2, NULL, NULL, "two" };
	struct node five = { g_ops[0], 5, NULL, NULL, "five" };
	struct node sum = { g_ops[1], 0, &two, &five, "sum" };
	struct node neg = { g_ops[3], 0, &sum, NULL, "negated" };
	struct node prod = { g_ops[2], 0, &neg, &sum, "product-of-the-negated-sum" };
	const struct node *roots[] = { &sum, &neg, &prod };
	int total = name_all(roots, 3); /* L:main_name */

	return total;
}
