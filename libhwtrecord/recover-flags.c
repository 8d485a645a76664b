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
	uint16_t mask;

	if (op->base == RECOVER_NOREG)
		return 0;	/* (the flags given: recover_flags_given) */
	mask = (uint16_t)(1u << op->base);

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

	if (op->alu == recover_flags_given) {
		uint32_t f = (uint32_t)op->imm;

		zf = f & RECOVER_ZF;
		sf = f & RECOVER_SF;
		cf = f & RECOVER_CF;
		of = f & RECOVER_OF;
		pf = f & RECOVER_PF;
		goto decide;
	}
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
decide:
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

uint32_t recover_flags_read_by(uint8_t cond)
{
	switch (cond) {
	case recover_cond_o: case recover_cond_no: return RECOVER_OF;
	case recover_cond_b: case recover_cond_ae: return RECOVER_CF;
	case recover_cond_e: case recover_cond_ne: return RECOVER_ZF;
	case recover_cond_be: case recover_cond_a:
		return RECOVER_CF | RECOVER_ZF;
	case recover_cond_s: case recover_cond_ns: return RECOVER_SF;
	case recover_cond_p: case recover_cond_np: return RECOVER_PF;
	case recover_cond_l: case recover_cond_ge:
		return RECOVER_SF | RECOVER_OF;
	case recover_cond_le: case recover_cond_g:
		return RECOVER_ZF | RECOVER_SF | RECOVER_OF;
	default: return RECOVER_FLAGS_ALL;
	}
}

void recover_flags_given_to(struct recover_op *op, uint32_t flags)
{
	op->kind = op->width == 1 ? recover_setcc : recover_cmov;
	op->writes = (uint16_t)(1u << op->dst);
	op->alu = recover_flags_given;
	op->base = op->index = RECOVER_NOREG;
	op->imm = flags;
}

uint32_t recover_flags_writes(const struct recover_op *op)
{
	switch (op->kind) {
	case recover_compare:
	case recover_compare_any:
	case recover_alu_imm:
	case recover_alu:
	case recover_alu_mem:
	case recover_shift_imm:
	case recover_shift_cl:
	case recover_mul_imm:
	case recover_mul_wide:
	case recover_bit_scan:
		break;
	case recover_unary:
		if (op->alu == recover_not)
			return 0;
		break;
	case recover_syscall:
	case recover_clobber:
	case recover_unmodelled:
		return op->fwrites;	/* (what decoding said) */
	default:		/* moves, lea, push, pop, xchg, bswap, ... */
		return 0;
	}
	switch (op->alu) {
	case recover_inc:
	case recover_dec:
		return RECOVER_FLAGS_ARITH & ~RECOVER_CF;
	case recover_rol:
	case recover_ror:
		return RECOVER_CF | RECOVER_OF;
	default:
		return RECOVER_FLAGS_ARITH;
	}
}

/* The flags SF, ZF, PF of result R (BITS wide). */
static uint32_t result_flags(uint64_t r, unsigned bits)
{
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;

	r &= mask;
	return (r == 0 ? RECOVER_ZF : 0) |
	       (r >> (bits - 1) & 1 ? RECOVER_SF : 0) |
	       (parity_even(r) ? RECOVER_PF : 0);
}

/* add (SUB false) or sub of A and B with carry-in C, BITS wide: all six
 * flags. */
static uint32_t add_sub_flags(uint64_t a, uint64_t b, unsigned c, bool sub,
			      unsigned bits)
{
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1, r;
	uint32_t f;
	bool cf;

	a &= mask;
	b &= mask;
	if (sub) {
		r = (a - b - c) & mask;
		cf = a < b || (c && a == b);
	} else {
		r = (a + b + c) & mask;
		cf = r < a || (c && r == a);
	}
	f = result_flags(r, bits);
	if (cf)
		f |= RECOVER_CF;
	if ((sub ? (a ^ b) & (a ^ r) : ~(a ^ b) & (a ^ r)) >> (bits - 1) & 1)
		f |= RECOVER_OF;
	if ((a ^ b ^ r) & 0x10)
		f |= RECOVER_AF;
	return f;
}

/* A shift or rotate of A by C (not 0), BITS wide: *F the flags it
 * defines, their mask returned. */
static uint32_t shift_flags(uint8_t alu, uint64_t a, unsigned c,
			    unsigned bits, uint32_t *f)
{
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1, r;
	unsigned msb = bits - 1;
	bool cf;

	a &= mask;
	/* (a narrow shift by its width or more: CF is not defined) */
	if (c >= bits)
		return 0;
	switch (alu) {
	case recover_shl:
		r = (a << c) & mask;
		cf = a >> (bits - c) & 1;
		break;
	case recover_shr:
		r = a >> c;
		cf = a >> (c - 1) & 1;
		break;
	case recover_sar: {
		uint64_t s = a >> msb & 1 ? a | ~mask : a;

		r = (uint64_t)((int64_t)s >> c) & mask;
		cf = (uint64_t)((int64_t)s >> (c - 1)) & 1;
		break;
	}
	case recover_rol:
		r = (a << c | a >> (bits - c)) & mask;
		*f = (r & 1 ? RECOVER_CF : 0);
		if (c != 1)
			return RECOVER_CF;
		if ((r >> msb ^ r) & 1)
			*f |= RECOVER_OF;
		return RECOVER_CF | RECOVER_OF;
	case recover_ror:
		r = (a >> c | a << (bits - c)) & mask;
		*f = (r >> msb & 1 ? RECOVER_CF : 0);
		if (c != 1)
			return RECOVER_CF;
		if ((r >> msb ^ r >> (msb - 1)) & 1)
			*f |= RECOVER_OF;
		return RECOVER_CF | RECOVER_OF;
	default:
		return 0;
	}
	*f = result_flags(r, bits) | (cf ? RECOVER_CF : 0);
	if (c != 1)		/* OF undefined, AF undefined */
		return RECOVER_CF | RECOVER_ZF | RECOVER_SF | RECOVER_PF;
	if (alu == recover_shl ? (r >> msb & 1) != cf
	    : alu == recover_shr ? a >> msb & 1 : false)
		*f |= RECOVER_OF;
	return RECOVER_CF | RECOVER_ZF | RECOVER_SF | RECOVER_PF | RECOVER_OF;
}

/* imul's CF and OF (both set when the product does not fit): of A and B
 * (signed when SIGNED), BITS wide. */
static uint32_t mul_flags(uint64_t a, uint64_t b, bool is_signed,
			  unsigned bits)
{
	bool over;

	if (bits == 64) {
		if (is_signed) {
			__int128 p = (__int128)(int64_t)a * (int64_t)b;

			over = p != (__int128)(int64_t)(uint64_t)p;
		} else {
			unsigned __int128 p = (unsigned __int128)a * b;

			over = (uint64_t)(p >> 64) != 0;
		}
	} else if (bits == 32) {
		if (is_signed) {
			int64_t p = (int64_t)(int32_t)a * (int32_t)b;

			over = p != (int32_t)p;
		} else {
			over = ((uint64_t)(uint32_t)a * (uint32_t)b) >> 32 != 0;
		}
	} else {
		return 0;
	}
	return over ? RECOVER_CF | RECOVER_OF : 0;
}

uint32_t recover_flags_after(const struct recover_op *op, const uint64_t *val,
			     uint16_t known, uint32_t flags, uint32_t fknown,
			     uint32_t *out)
{
	uint32_t w = op->fwrites, def = 0, f = 0, fk = fknown;
	unsigned bits = 8u * op->width, d = op->dst, c;
	uint64_t a, b;

#define KNOWN_REG(r) ((r) != RECOVER_NOREG && (known >> (r) & 1))
	*out = flags & ~w;
	fknown &= ~w;
	if (!w || op->kind == recover_unmodelled || op->kind == recover_syscall ||
	    op->kind == recover_clobber || (bits != 8 && bits != 16 &&
					     bits != 32 && bits != 64))
		return fknown;
	switch (op->kind) {
	case recover_compare_any:
		/* a: dst or the memory; b: src, the memory or imm */
		if ((op->dst == RECOVER_NOREG || op->scale == 2) &&
		    op->vkind != recover_value_imm)
			return fknown;
		if ((op->dst != RECOVER_NOREG && !KNOWN_REG(d)) ||
		    (op->src != RECOVER_NOREG && !KNOWN_REG(op->src)))
			return fknown;
		a = op->dst != RECOVER_NOREG ? val[d] : (uint64_t)op->vimm;
		b = op->src != RECOVER_NOREG ? val[op->src]
		    : op->scale == 2 ? (uint64_t)op->vimm : (uint64_t)op->imm;
		if (op->alu == recover_sub) {
			def = RECOVER_FLAGS_ARITH;
			f = add_sub_flags(a, b, 0, true, bits);
		} else {
			def = RECOVER_FLAGS_ARITH & ~RECOVER_AF;
			f = result_flags(a & b, bits);
		}
		break;
	case recover_compare:
	case recover_alu:
	case recover_alu_imm:
		b = op->kind == recover_alu_imm ||
		    (op->kind == recover_compare && op->src == RECOVER_NOREG)
			? (uint64_t)op->imm : val[op->src];
		if (op->kind == recover_alu && op->src == d &&
		    (op->alu == recover_xor || op->alu == recover_sub)) {
			/* xor r, r and sub r, r: zero, whatever r was */
			def = op->alu == recover_sub ? RECOVER_FLAGS_ARITH
				: RECOVER_FLAGS_ARITH & ~RECOVER_AF;
			f = RECOVER_ZF | RECOVER_PF;
			break;
		}
		if (!KNOWN_REG(d) || (op->kind != recover_alu_imm &&
				      op->src != RECOVER_NOREG &&
				      !KNOWN_REG(op->src)))
			return fknown;
		a = val[d];
		switch (op->alu) {
		case recover_add_carry:
		case recover_sub_borrow:
		case recover_add:
		case recover_sub:
			def = RECOVER_FLAGS_ARITH;
			f = add_sub_flags(a, b, op->alu == recover_add_carry ||
					  op->alu == recover_sub_borrow,
					  op->alu == recover_sub ||
					  op->alu == recover_sub_borrow, bits);
			break;
		case recover_and:
		case recover_or:
		case recover_xor:
			/* CF, OF cleared; AF not defined */
			def = RECOVER_FLAGS_ARITH & ~RECOVER_AF;
			f = result_flags(op->alu == recover_and ? a & b
					 : op->alu == recover_or ? a | b : a ^ b,
					 bits);
			break;
		case recover_mul:
			if (bits < 32)
				return fknown;
			def = RECOVER_CF | RECOVER_OF;
			f = mul_flags(a, b, true, bits);
			break;
		case recover_adc:
		case recover_sbb:	/* (the carry not known) */
		default:
			return fknown;
		}
		break;
	case recover_unary:
		if (!KNOWN_REG(d))
			return fknown;
		a = val[d];
		switch (op->alu) {
		case recover_inc:
		case recover_dec:
			def = RECOVER_FLAGS_ARITH & ~RECOVER_CF;
			f = add_sub_flags(a, 1, 0, op->alu == recover_dec, bits);
			break;
		case recover_neg:
			def = RECOVER_FLAGS_ARITH;
			f = add_sub_flags(0, a, 0, true, bits);
			break;
		default:
			return fknown;
		}
		break;
	case recover_shift_imm:
	case recover_shift_cl:
		if (!KNOWN_REG(d) ||
		    (op->kind == recover_shift_cl && !KNOWN_REG(2)))
			return fknown;
		c = (unsigned)(op->kind == recover_shift_imm ? (uint64_t)op->imm
			       : val[2]) & (bits == 64 ? 63 : 31);
		if (!c) {		/* a shift by 0 keeps them all */
			*out = flags;
			return fk;
		}
		def = shift_flags(op->alu, val[d], c, bits, &f);
		break;
	case recover_mul_imm:
		if (!KNOWN_REG(op->src) || bits < 32)
			return fknown;
		def = RECOVER_CF | RECOVER_OF;
		f = mul_flags(val[op->src], (uint64_t)op->imm, true, bits);
		break;
	case recover_mul_wide:
		if (!KNOWN_REG(0) || !KNOWN_REG(op->src) || bits < 32)
			return fknown;
		def = RECOVER_CF | RECOVER_OF;
		f = mul_flags(val[0], val[op->src], op->alu, bits);
		break;
	case recover_bit_scan:
		if (op->alu != recover_bit_count || !KNOWN_REG(op->src))
			return fknown;
		/* popcnt: ZF when the source is zero, the rest cleared */
		def = RECOVER_FLAGS_ARITH;
		f = (bits == 64 ? val[op->src] : (uint32_t)val[op->src])
			? 0 : RECOVER_ZF;
		break;
	default:
		return fknown;
	}
#undef KNOWN_REG
	def &= w;
	*out |= f & def;
	return fknown | def;
}

bool recover_flags_carry_in(struct recover_op *op, uint32_t flags,
			    uint32_t fknown)
{
	bool carry = flags & RECOVER_CF;

	if ((op->alu != recover_adc && op->alu != recover_sbb) ||
	    (op->kind != recover_alu && op->kind != recover_alu_imm) ||
	    !(fknown & RECOVER_CF))
		return false;
	op->alu = op->alu == recover_adc
		  ? (carry ? recover_add_carry : recover_add)
		  : (carry ? recover_sub_borrow : recover_sub);
	return true;
}
