/* fault-prog.c: a program that ends on the signal KIND names (set when it
 * is built, -DKIND=...): an instruction that faults (a division by zero,
 * ud2, a load from NULL, a call through a NULL pointer, a store to a member
 * of a NULL struct pointer) or a signal the program sends itself (raise,
 * abort).
 * signal-end-*.scn step back and forth across the end. */
#include <signal.h>
#include <stdlib.h>

#define FPE 1
#define ILL 2
#define SEGV 3
#define CALL_NULL 4
#define RAISE 5
#define ABORT 6
#define STORE_FIELD 7

volatile int zero;
int *volatile nowhere;
void (*volatile no_function)(void);
struct pair { long first, second; } *volatile no_pair;


static int last_act(int n)
{
	int v = n * 3;

	v += 1;
#if KIND == FPE
	v = v / zero;	/* L:end */
#elif KIND == ILL
	if (v > 0)
		__builtin_trap();	/* L:end */
#elif KIND == SEGV
	v += *nowhere;	/* L:end */
#elif KIND == CALL_NULL
	no_function();	/* L:end */
#elif KIND == RAISE
	raise(SIGSEGV);	/* L:end */
#elif KIND == ABORT
	abort();	/* L:end */
#elif KIND == STORE_FIELD
	no_pair->second = v;	/* L:end */
#endif
	return v;
}

int main(void)
{
	int total = 0;
	int i;

	for (i = 0; i < 3; i++)
		total += i;	/* L:loop */
	return last_act(total);	/* L:call */
}
