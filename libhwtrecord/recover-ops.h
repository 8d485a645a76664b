/* recover-ops.h: the distinct operations of a recovery window, each kept
 * once.  A window of a million instructions repeats a few thousand
 * distinct operations (an instruction's, or one with what its execution
 * added: the comparison a setcc or cmov reads, a clobber's pc), so
 * recover.c keeps per instruction only an index into this table (4 bytes,
 * not the 64 of struct recover_op).  Operations are equal when every
 * field is: two executions that differ in any fact get two entries.
 */
#ifndef HWTR_RECOVER_OPS_H
#define HWTR_RECOVER_OPS_H

#include "recover-x86.h"

struct recover_ops {
	struct recover_op *op;	/* the distinct operations */
	size_t n, cap;
	uint32_t *intern;	/* open hash of op (index + 1), until built */
	size_t cap_intern;
};

/* The index in T of an operation equal to OP, added when new; UINT32_MAX
 * when out of memory.  T starts zeroed. */
uint32_t recover_ops_intern(struct recover_ops *t, const struct recover_op *op);

/* No more recover_ops_intern: drop the hash. */
void recover_ops_built(struct recover_ops *t);

void recover_ops_free(struct recover_ops *t);

#endif /* HWTR_RECOVER_OPS_H */
