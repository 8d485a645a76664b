/* recover-branch.h: register values that a branch's outcome proves, for
 * value recovery (recover.c).
 *
 * The trace says where every branch went, which says something of the
 * registers the branch depended on:
 * - an indirect jump or call through a register (jmp *%r11, call *%rax)
 *   went where the register pointed: the register held the address of the
 *   instruction that came next;
 * - a conditional jump after a comparison tells how it came out.
 *   Only outcomes that prove an exact value are used: equality (je taken,
 *   jne not taken) after cmp r, imm (r == imm) or cmp r1, r2 (r1 == r2),
 *   and zero after test r, r or cmp r, 0, for which jbe and ja test the
 *   same as je and jne (the carry is clear).  An inequality proves no
 *   value.
 * A 32-bit comparison speaks of the low half only: it proves the whole
 * register when its upper half is known to be zero (the last write to it
 * was one of the 32-bit operations that zero-extend, recover.c tracks
 * which).  Comparisons of 8- or 16-bit registers or of memory are not
 * used.
 */
#ifndef HWTR_RECOVER_BRANCH_H
#define HWTR_RECOVER_BRANCH_H

#include "recover-x86.h"

/* Before the branch: register REG equals VALUE, or register REG2 when
 * REG2 is not RECOVER_NOREG. */
struct recover_branch_fact {
	uint8_t reg, reg2;
	uint64_t value;
};

/* What the branch OP proves, given the comparison PREV whose flags it
 * reads (NULL when not known; recover.c gives it when nothing between the
 * two may have changed the flags or the compared registers), whether OP
 * went to its target (TAKEN; for a conditional jump whose target is not
 * its fall-through), the address NEXT of the instruction that ran after
 * it, and UPPER_ZERO (bit per register whose upper 32 bits are known to be
 * zero before OP).
 * Returns how many facts it wrote to OUT (0 or 1). */
size_t recover_branch_facts(const struct recover_op *prev,
			    const struct recover_op *op, bool taken,
			    uint64_t next, uint16_t upper_zero,
			    struct recover_branch_fact *out);

/* Whether OP leaves the upper 32 bits of register R zero: a modelled
 * 32-bit write to it (every such write zero-extends). */
bool recover_branch_zero_extends(const struct recover_op *op, unsigned r);

#endif /* HWTR_RECOVER_BRANCH_H */
