/* recover-stack.h: values that travel through stack slots, for value
 * recovery (recover.c), proven without knowing any address.
 *
 * A register saved by push (or mov [rsp+d], r) and loaded back by pop (or
 * leave, or mov r, [rsp+d]) holds again what it held at the store, when
 * the load reads the same eight bytes and nothing in between may have
 * written them.  Neither address need be known: both are the same base
 * plus the same offset when the base registers are one value moved by
 * constants (push, pop, call, ret, add/sub imm, lea, mov, leave).  So the
 * rbp and the other callee-saved registers a function restores are the
 * caller's, which links each frame's rsp to its caller's across calls.
 *
 * "Nothing in between may have written them": every store in between is
 * relative to the same base at offsets that do not overlap the slot.  Any
 * other store (an absolute address, another base, an address not
 * relative to a register moved by constants), a system call, a rep string
 * instruction, anything unmodelled that may write memory ends every slot
 * known: no aliasing is assumed away.  Only for one thread (another may
 * store between two of this one's instructions): recover.c asks only then.
 */
#ifndef HWTR_RECOVER_STACK_H
#define HWTR_RECOVER_STACK_H

#include "recover-x86.h"

/* Slot SLOT of register REG (the SLOT-th operation that writes REG, as
 * recover.c numbers them) equals slot SRC_SLOT of SRC_REG (UINT32_MAX: its
 * value before the window) plus OFFSET, or VALUE when CONSTANT.  AT: the
 * operation before which both slots hold (the passes apply it there, on
 * their way), or UINT32_MAX. */
struct recover_equality {	/* (in this order: 32 bytes, not 40) */
	uint64_t value;
	int64_t offset;
	uint32_t slot, src_slot;
	uint32_t at;
	uint8_t reg, src_reg, constant;
};

/* The equalities among the registers of N operations, OPS[IX[k]] (OPS[k]
 * when IX is NULL), in *OUT (to
 * free), *COUNT of them, those with an AT in ascending order of it: a
 * register loaded back from a stack slot, and rsp against rbp before an
 * operation that loses one of them (leave, pop rbp, mov or lea to rsp)
 * when the two are one value moved apart by constants.  0, or
 * -hwtr_err_nomem. */
int recover_stack_equalities(const struct recover_op *ops, const uint32_t *ix,
			     size_t n, struct recover_equality **out,
			     size_t *count);

#endif /* HWTR_RECOVER_STACK_H */
