/* branch-class.h: what kind of control transfer an x86-64 instruction is. */
#ifndef HWTREC_BRANCH_CLASS_H
#define HWTREC_BRANCH_CLASS_H

#include "pub_tool_basics.h"

enum branch_class {
	bc_other = 0,		/* not a branch (or not one PT reports) */
	bc_cond,		/* jcc, loop*, jrcxz: one TNT bit */
	bc_jump,		/* direct jmp: no packet */
	bc_call,		/* direct call: no packet, pushes a return */
	bc_jump_indirect,	/* TIP */
	bc_call_indirect,	/* TIP, pushes a return */
	bc_return,		/* compressed (TNT) or TIP */
	bc_far,			/* syscall, int, far jumps and returns */
};

/* Classify the instruction at BYTES (LEN bytes, as VEX decoded it) located at
 * ADDR; for direct branches *TARGET gets the destination. */
enum branch_class branch_classify(const UChar *bytes, UInt len, Addr addr,
				  Addr *target);

#endif
