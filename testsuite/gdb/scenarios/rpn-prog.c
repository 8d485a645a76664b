/*
 * rpn-prog.c: a live scenario's program (live-rpn.lscn).  An interactive
 * style loop over the commands given as arguments (`run 3 4 + ...`): an
 * RPN calculator with a stack of longs and words looked up by name.  "/"
 * by a zero on the stack raises SIGFPE; "drop" on an empty stack is
 * refused and counted.  The scenario gives the arguments with `run`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX	16

struct machine {
	long	stack[STACK_MAX];
	int	depth;
	int	refused;
	int	executed;
};

static struct machine vm;

static void
push(long value)
{
	if (vm.depth == STACK_MAX) {
		vm.refused++;
		return;
	}
	vm.stack[vm.depth++] = value; /* L:push */
}

static long
pop(void)
{
	if (vm.depth == 0) {
		vm.refused++; /* L:pop_empty */
		return 0;
	}
	return vm.stack[--vm.depth];
}

static void
binary(char op)
{
	long right, left;

	right = pop();
	left = pop();
	switch (op) {
	case '+':
		push(left + right);
		break;
	case '*':
		push(left * right);
		break;
	case '-':
		push(left - right);
		break;
	case '/':
		push(left / right); /* L:divide */
		break;
	}
}

static int
execute(const char *word)
{
	char *end;
	long value;

	vm.executed++;
	if (strcmp(word, "dup") == 0) {
		value = pop();
		push(value);
		push(value);
	} else if (strcmp(word, "drop") == 0) {
		pop();
	} else if (strlen(word) == 1 && strchr("+*-/", word[0]) != NULL) {
		binary(word[0]); /* L:execute_binary */
	} else {
		value = strtol(word, &end, 10);
		if (*end != '\0')
			return -1;
		push(value); /* L:execute_push */
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int i, bad;

	bad = 0;
	for (i = 1; i < argc; i++) {
		if (execute(argv[i]) < 0) /* L:main_execute */
			bad++;
	}
	printf("%d words, %d bad, %d refused, top %ld\n", vm.executed, bad,
	    vm.refused, vm.depth > 0 ? vm.stack[vm.depth - 1] : 0L);
	return bad;
}
