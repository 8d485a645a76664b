/* recover-flags.c: setcc and cmovcc after a comparison
 * (recover-flags.h says how). */
#include "recover-flags.h"

#include <string.h>

bool recover_flags_wants(const struct recover_op *op)
{
	return op->kind == recover_unmodelled && op->cond &&
	       op->dst != RECOVER_NOREG &&
	       (op->width == 1 ? op->src == RECOVER_NOREG
			       : (op->width == 4 || op->width == 8) &&
				 op->src != RECOVER_NOREG);
}

void recover_flags_attach(struct recover_op *op,
			  const struct recover_op *compare)
{
	op->kind = op->width == 1 ? recover_setcc : recover_cmov;
	op->writes = (uint16_t)(1u << op->dst);
	op->alu = compare->alu;
	op->base = compare->dst;
	op->index = compare->src;
	op->scale = compare->width;
	op->imm = compare->imm;
}

bool recover_flags_from_result(const struct recover_op *op,
			       struct recover_op *compare)
{
	if ((op->kind != recover_alu_imm && op->kind != recover_alu &&
	     op->kind != recover_unary && op->kind != recover_alu_mem) ||
	    (op->width != 4 && op->width != 8))
		return false;
	memset(compare, 0, sizeof(*compare));
	compare->kind = recover_compare;
	compare->dst = compare->src = op->dst;
	compare->width = op->width;
	compare->base = compare->index = RECOVER_NOREG;
	compare->mbase = compare->mindex = RECOVER_NOREG;
	switch (op->alu) {
	case recover_and:
	case recover_or:
	case recover_xor:
		compare->alu = recover_and;
		return true;
	case recover_add:
	case recover_sub:
	case recover_inc:
	case recover_dec:
	case recover_neg:
		compare->alu = recover_result;
		return true;
	default:		/* not, which keeps the flags; shifts, mul */
		return false;
	}
}

uint16_t recover_flags_compared(const struct recover_op *compare)
{
	uint16_t mask = (uint16_t)(1u << compare->dst);

	if (compare->src != RECOVER_NOREG)
		mask |= (uint16_t)(1u << compare->src);
	return mask;
}

uint16_t recover_flags_compared_by(const struct recover_op *op)
{
	uint16_t mask = (uint16_t)(1u << op->base);

	if (op->index != RECOVER_NOREG)
		mask |= (uint16_t)(1u << op->index);
	return mask;
}

bool recover_flags_keeps(const struct recover_op *op, uint16_t compared)
{
	if (op->writes & compared)
		return false;
	switch (op->kind) {
	case recover_mov_imm:
	case recover_mov:
	case recover_lea:
	case recover_load:
	case recover_extend:
	case recover_setcc:
	case recover_cmov:
		return true;
	default:
		return false;
	}
}

static bool parity_even(uint64_t v)
{
	return !__builtin_parity((unsigned)(v & 0xff));
}

bool recover_flags_condition(const struct recover_op *op, const uint64_t *val,
			     uint16_t known, bool *holds)
{
	unsigned bits = op->scale == 4 ? 32 : 64;
	uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull, a, b, r;
	bool zf, sf, cf, of, pf;

	if (!(known >> op->base & 1) ||
	    (op->index != RECOVER_NOREG && !(known >> op->index & 1)))
		return false;
	a = val[op->base] & mask;
	b = (op->index != RECOVER_NOREG ? val[op->index]
					: (uint64_t)op->imm) & mask;
	if (op->alu == recover_and) {
		r = a & b;
		cf = of = false;
	} else if (op->alu == recover_result) {
		r = a;
		switch (op->cond) {
		case recover_cond_e: case recover_cond_ne:
		case recover_cond_s: case recover_cond_ns:
		case recover_cond_p: case recover_cond_np:
			break;
		default:
			return false;	/* CF or OF */
		}
		cf = of = false;	/* (not read) */
	} else {
		r = (a - b) & mask;
		cf = a < b;
		of = ((a ^ b) & (a ^ r)) >> (bits - 1) & 1;
	}
	zf = r == 0;
	sf = r >> (bits - 1) & 1;
	pf = parity_even(r);
	switch (op->cond) {
	case recover_cond_o: *holds = of; break;
	case recover_cond_no: *holds = !of; break;
	case recover_cond_b: *holds = cf; break;
	case recover_cond_ae: *holds = !cf; break;
	case recover_cond_e: *holds = zf; break;
	case recover_cond_ne: *holds = !zf; break;
	case recover_cond_be: *holds = cf || zf; break;
	case recover_cond_a: *holds = !cf && !zf; break;
	case recover_cond_s: *holds = sf; break;
	case recover_cond_ns: *holds = !sf; break;
	case recover_cond_p: *holds = pf; break;
	case recover_cond_np: *holds = !pf; break;
	case recover_cond_l: *holds = sf != of; break;
	case recover_cond_ge: *holds = sf == of; break;
	case recover_cond_le: *holds = zf || sf != of; break;
	case recover_cond_g: *holds = !zf && sf == of; break;
	default: return false;
	}
	return true;
}
