/* recover-stack.c: values that travel through stack slots (see
 * recover-stack.h).
 *
 * One pass over the operations keeps, for each register, a symbolic value:
 * a base (a number standing for a value not known here) plus a constant.
 * A register written by anything but a move by constants gets a new base;
 * an immediate is the base "absolute" (0) plus itself.  Memory is a short
 * list of the 8-byte slots stored since the last barrier, each at a
 * symbolic address, holding the slot of the register (or the constant)
 * stored there.
 */
#include "recover-stack.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

#define ABSOLUTE 1u		/* the base of constants: 0 */
#define NO_SLOT UINT32_MAX	/* the value before the window */
#define MAX_CELLS 1024		/* more are forgotten: never wrong, less known */

struct sym {
	uint32_t base;		/* 0: none (an address not symbolic) */
	int64_t off;
};

struct cell {
	struct sym addr;
	uint8_t size;
	bool constant;
	uint8_t reg;		/* the stored register's slot ... */
	uint32_t slot;
	uint64_t value;		/* ... or the constant */
	struct sym val;		/* what the stored register was */
};

struct stack_state {
	struct sym reg[RECOVER_NREGS];
	uint32_t slot[RECOVER_NREGS];	/* the register's current slot */
	uint32_t nslots[RECOVER_NREGS];
	uint32_t next_base;
	struct cell *cells;
	size_t ncells, cap_cells;
	struct recover_equality *eq;
	size_t neq, cap_eq;
};

static struct sym fresh(struct stack_state *s)
{
	struct sym v = { s->next_base++, 0 };

	return v;
}

static struct sym plus(struct sym v, int64_t d)
{
	v.off = (int64_t)((uint64_t)v.off + (uint64_t)d);
	return v;
}

/* OP's memory address, symbolically: base 0 when it is not. */
static struct sym address(const struct stack_state *s,
			  const struct recover_op *op)
{
	struct sym none = { 0, 0 }, a = { ABSOLUTE, op->mdisp };

	/* (fs: the thread's TLS block, which no symbolic base reaches) */
	if (op->mindex != RECOVER_NOREG || op->mseg != recover_seg_none)
		return none;
	if (op->mbase == RECOVER_NOREG)
		return a;
	return plus(s->reg[op->mbase], op->mdisp);
}

/* A store of SIZE bytes at A (base 0: anywhere) may have changed these. */
static void forget(struct stack_state *s, struct sym a, uint8_t size)
{
	size_t i = 0;

	while (i < s->ncells) {
		const struct cell *c = &s->cells[i];
		bool apart = a.base && c->addr.base == a.base &&
			     (c->addr.off >= a.off + size ||
			      a.off >= c->addr.off + c->size);

		if (apart) {
			i++;
			continue;
		}
		s->cells[i] = s->cells[--s->ncells];
	}
}

static const struct cell *find(const struct stack_state *s, struct sym a)
{
	size_t i;

	if (!a.base)
		return NULL;
	for (i = 0; i < s->ncells; i++)
		if (s->cells[i].addr.base == a.base &&
		    s->cells[i].addr.off == a.off && s->cells[i].size == 8)
			return &s->cells[i];
	return NULL;
}

static int remember(struct stack_state *s, const struct recover_op *op,
		    struct sym a)
{
	struct cell *c;

	if (s->ncells == MAX_CELLS)
		s->ncells = 0;
	if (s->ncells == s->cap_cells) {
		size_t cap = s->cap_cells ? 2 * s->cap_cells : 64;
		struct cell *p = realloc(s->cells, cap * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->cells = p;
		s->cap_cells = cap;
	}
	c = &s->cells[s->ncells++];
	memset(c, 0, sizeof(*c));
	c->addr = a;
	c->size = 8;
	if (op->vkind == recover_value_imm) {
		c->constant = true;
		c->value = (uint64_t)op->vimm;
		c->val.base = ABSOLUTE;
		c->val.off = op->vimm;
	} else {
		c->reg = op->vreg;
		c->slot = s->slot[op->vreg];
		c->val = s->reg[op->vreg];
	}
	return 0;
}

static int equal(struct stack_state *s, unsigned reg, const struct cell *c)
{
	struct recover_equality *e;

	if (s->neq == s->cap_eq) {
		size_t cap = s->cap_eq ? 2 * s->cap_eq : 256;
		struct recover_equality *p = realloc(s->eq, cap * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->eq = p;
		s->cap_eq = cap;
	}
	e = &s->eq[s->neq++];
	e->reg = (uint8_t)reg;
	e->slot = s->nslots[reg];	/* the slot the load starts */
	e->constant = c->constant;
	e->value = c->value;
	e->src_reg = c->reg;
	e->src_slot = c->slot;
	e->offset = 0;
	e->at = UINT32_MAX;
	return 0;
}

/* rsp and rbp are one base apart by a constant: an equality between their
 * slots (rsp's = rbp's + the difference). */
static int frame_equal(struct stack_state *s, size_t k)
{
	struct recover_equality *e;
	int err = hwtr_array_grow((void **)&s->eq, &s->cap_eq, s->neq + 1,
				  sizeof(*s->eq));

	if (err)
		return err;
	e = &s->eq[s->neq++];
	memset(e, 0, sizeof(*e));
	e->reg = 7;
	e->slot = s->slot[7];
	e->src_reg = 6;
	e->src_slot = s->slot[6];
	e->offset = (int64_t)((uint64_t)s->reg[7].off - (uint64_t)s->reg[6].off);
	e->at = (uint32_t)k;
	return 0;
}

/* Whether OP loses what rsp or rbp held before it (leave, mov or lea to
 * rsp, pop rbp, ...): not push, pop, call, ret or add/sub imm on rsp,
 * which the operation itself inverts. */
static bool ends_frame_register(const struct recover_op *op)
{
	if (op->writes >> 6 & 1)
		return true;
	return (op->writes >> 7 & 1) && op->kind != recover_rsp_adjust &&
	       op->kind != recover_pop;
}

/* The register a plain 8-byte load of OP fills, or RECOVER_NOREG. */
static unsigned loaded(const struct recover_op *op)
{
	if (op->mkind != recover_mem_load || op->msize != 8)
		return RECOVER_NOREG;
	if (op->kind == recover_pop)
		return op->dst;
	if (op->kind == recover_leave)
		return 6;	/* rbp */
	if (op->kind == recover_load && op->width == 8)
		return op->dst;
	return RECOVER_NOREG;
}

/* The symbolic value of register R after OP (which writes it). */
static struct sym after(struct stack_state *s, const struct recover_op *op,
			unsigned r, const struct cell *load)
{
	const struct sym *v = s->reg;
	bool wide = op->width == 8;

	if (load && r == loaded(op))
		return load->val;
	switch (op->kind) {
	case recover_mov_imm: {
		struct sym a = { ABSOLUTE, wide ? op->imm
					   : (int64_t)(uint32_t)op->imm };

		return a;
	}
	case recover_mov:
		return wide ? v[op->src] : fresh(s);
	case recover_xchg:
		return !wide ? fresh(s) : r == op->dst ? v[op->src] : v[op->dst];
	case recover_lea:
		if (!wide || op->index != RECOVER_NOREG)
			return fresh(s);
		if (op->base == RECOVER_NOREG) {
			struct sym a = { ABSOLUTE, op->imm };

			return a;
		}
		return plus(v[op->base], op->imm);
	case recover_alu_imm:
		if (wide && op->alu == recover_add)
			return plus(v[r], op->imm);
		if (wide && op->alu == recover_sub)
			return plus(v[r], -op->imm);
		return fresh(s);
	case recover_unary:
		if (wide && op->alu == recover_inc)
			return plus(v[r], 1);
		if (wide && op->alu == recover_dec)
			return plus(v[r], -1);
		return fresh(s);
	case recover_rsp_adjust:
	case recover_pop:
		return r == 7 ? plus(v[7], op->imm) : fresh(s);
	case recover_leave:
		return r == 7 ? plus(v[6], 8) : fresh(s);
	default:
		return fresh(s);
	}
}

int recover_stack_equalities(const struct recover_op *ops, const uint32_t *ix,
			     size_t n, struct recover_equality **out,
			     size_t *count)
{
	struct stack_state s;
	struct sym next[RECOVER_NREGS];
	size_t k;
	unsigned r;
	int err = 0;

	memset(&s, 0, sizeof(s));
	s.next_base = ABSOLUTE + 1;
	for (r = 0; r < RECOVER_NREGS; r++) {
		s.reg[r] = fresh(&s);
		s.slot[r] = NO_SLOT;
	}
	for (k = 0; k < n && !err; k++) {
		const struct recover_op *op = &ops[ix ? ix[k] : k];
		const struct cell *load = NULL;
		struct cell match;
		struct sym a = { 0, 0 };

		/* rsp and rbp moved apart only by constants since they had one
		 * value: the one known gives the other (a frame's rsp before
		 * its leave from its rbp, rbp before a pop from rsp). */
		if (ends_frame_register(op) && s.reg[7].base == s.reg[6].base &&
		    (err = frame_equal(&s, k)))
			break;
		if (op->mkind == recover_mem_load || op->mkind == recover_mem_store)
			a = address(&s, op);
		if (loaded(op) != RECOVER_NOREG && (load = find(&s, a))) {
			match = *load;	/* the list may change below */
			load = &match;
		}
		if (op->mkind == recover_mem_store) {
			forget(&s, a, op->msize);
			if (a.base && op->msize == 8 &&
			    (op->vkind == recover_value_imm ||
			     op->vkind == recover_value_reg))
				err = remember(&s, op, a);
		} else if (op->mkind == recover_mem_any ||
			   op->mkind == recover_mem_syscall ||
			   op->kind == recover_clobber) {
			s.ncells = 0;
		}
		for (r = 0; r < RECOVER_NREGS; r++)
			if (op->writes >> r & 1)
				next[r] = after(&s, op, r, load);
		if (load && !err)
			err = equal(&s, loaded(op), load);
		for (r = 0; r < RECOVER_NREGS; r++)
			if (op->writes >> r & 1) {
				s.reg[r] = next[r];
				s.slot[r] = s.nslots[r]++;
			}
	}
	free(s.cells);
	if (err) {
		free(s.eq);
		return err;
	}
	*out = s.eq;
	*count = s.neq;
	return 0;
}
