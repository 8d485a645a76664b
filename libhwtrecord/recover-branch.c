/* recover-branch.c: register values that a branch's outcome proves
 * (recover-branch.h says which). */
#include "recover-branch.h"

#include <string.h>

/* Whether the flags of COMPARE, read by a jump of condition COND that
 * went to its target when TAKEN, say its operands were equal. */
static bool proves_equal(const struct recover_op *compare, uint8_t cond,
			 bool taken)
{
	/* test r, r and cmp r, 0 clear the carry: below-or-equal is
	 * equal. */
	bool carry_clear = compare->alu == recover_and ||
			   (compare->src == RECOVER_NOREG && compare->imm == 0);

	switch (cond) {
	case recover_cond_e: return taken;
	case recover_cond_ne: return !taken;
	case recover_cond_be: return carry_clear && taken;
	case recover_cond_a: return carry_clear && !taken;
	default: return false;
	}
}

size_t recover_branch_facts(const struct recover_op *prev,
			    const struct recover_op *op, bool taken,
			    uint64_t next, uint16_t upper_zero,
			    struct recover_branch_fact *out)
{
	unsigned a, b;

	memset(out, 0, sizeof(*out));
	out->reg2 = RECOVER_NOREG;
	if (op->target_reg) {
		out->reg = (uint8_t)(op->target_reg - 1);
		out->value = next;
		return 1;
	}
	if (!op->cond || !prev || prev->kind != recover_compare ||
	    !proves_equal(prev, op->cond, taken))
		return 0;
	a = prev->dst;
	b = prev->src;
	if (prev->width == 4 &&
	    (!(upper_zero >> a & 1) ||
	     (b != RECOVER_NOREG && !(upper_zero >> b & 1))))
		return 0;
	out->reg = (uint8_t)a;
	if (prev->alu == recover_and || prev->alu == recover_result) {
		/* test r, r: r & r is r (and ZF of an arithmetic result
		 * is that of the result).  test r, s proves nothing
		 * exact. */
		if (b != a)
			return 0;
		out->value = 0;
		return 1;
	}
	if (b == a)
		return 0;	/* (cmp r, r: nothing learnt) */
	if (b != RECOVER_NOREG) {
		out->reg2 = (uint8_t)b;
		return 1;
	}
	out->value = prev->width == 4 ? (uint32_t)prev->imm
				      : (uint64_t)prev->imm;
	return 1;
}

bool recover_branch_zero_extends(const struct recover_op *op, unsigned r)
{
	if (op->width != 4 || op->dst != r || !(op->writes >> r & 1))
		return false;
	switch (op->kind) {
	case recover_mov_imm:
	case recover_mov:
	case recover_lea:
	case recover_alu_imm:
	case recover_alu:
	case recover_alu_mem:
	case recover_load:
	case recover_extend:
		return true;
	default:
		return false;
	}
}
