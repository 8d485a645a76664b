/* recover-calls.c: the calling convention's contract across a call
 * (recover-calls.h says what it keeps and where it is not taken). */
#include "recover-calls.h"

#include <hwtrecord.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than this the outermost open calls are dropped (a recursion of a
 * million levels would otherwise hold 80 MB). */
#define MAX_OPEN_CALLS 65536u

void recover_calls_free(struct recover_calls *calls)
{
	free(calls->open);
	memset(calls, 0, sizeof(*calls));
}

void recover_calls_reset(struct recover_calls *calls)
{
	calls->n = 0;
}

bool recover_calls_plain(const uint8_t *raw, size_t size)
{
	size_t i = 0;

	/* bnd (f2), rep (f3), segment and notrack (3e) prefixes and REX
	 * move nothing; 66 makes a call or return 16-bit. */
	while (i < size && (raw[i] == 0xf2 || raw[i] == 0xf3 ||
			    raw[i] == 0x26 || raw[i] == 0x2e ||
			    raw[i] == 0x36 || raw[i] == 0x3e ||
			    raw[i] == 0x64 || raw[i] == 0x65 ||
			    (raw[i] & 0xf0) == 0x40))
		i++;
	if (i >= size)
		return false;
	switch (raw[i]) {
	case 0xc3:		/* ret */
		return i + 1 == size;
	case 0xe8:		/* call rel32 */
		return i + 5 == size;
	case 0xff:		/* call r/m64: ff /2 */
		return i + 1 < size && (raw[i + 1] >> 3 & 7) == 2;
	default:
		return false;
	}
}

int recover_calls_enter(struct recover_calls *calls, const uint32_t *slot,
			uint64_t ret, bool abi)
{
	struct recover_call *c;
	int err;

	if (calls->n == MAX_OPEN_CALLS) {
		memmove(&calls->open[0], &calls->open[MAX_OPEN_CALLS / 2],
			(MAX_OPEN_CALLS / 2) * sizeof(calls->open[0]));
		calls->n = MAX_OPEN_CALLS / 2;
	}
	if ((err = hwtr_array_grow((void **)&calls->open, &calls->cap,
				   calls->n + 1, sizeof(calls->open[0]))))
		return err;
	c = &calls->open[calls->n++];
	memcpy(c->slot, slot, sizeof(c->slot));
	c->ret = ret;
	c->kept = abi;
	c->nsaves = 0;
	return 0;
}

/* Whether OP's memory operand is [rbp + d], flat, and d then. */
static bool rbp_relative(const struct recover_op *op, int64_t *d)
{
	if (op->mbase != hwtr_amd64_rbp || op->mindex != RECOVER_NOREG ||
	    op->mseg != recover_seg_none || op->mdisp < INT32_MIN ||
	    op->mdisp > INT32_MAX)
		return false;
	*d = op->mdisp;
	return true;
}

/* Keeps C's saved-rsp slots up to date with OP, run in its callee's
 * activation (recover-calls.h). */
static void note_rsp_save(struct recover_call *c, const struct recover_op *op)
{
	int64_t d;
	unsigned i, k;

	if (op->writes >> hwtr_amd64_rbp & 1) {
		c->nsaves = 0;		/* another frame base */
		return;
	}
	if (op->mkind != recover_mem_store)
		return;
	if (!rbp_relative(op, &d)) {
		/* Through rsp (push, call) or a pointer: assumed not to be
		 * the saved slot, as for the pushed registers. */
		return;
	}
	for (i = k = 0; i < c->nsaves; i++)
		if (c->rsp_saves[i] + 8 <= d || d + op->msize <= c->rsp_saves[i])
			c->rsp_saves[k++] = c->rsp_saves[i];
	c->nsaves = (uint8_t)k;
	if (op->vkind == recover_value_reg && op->vreg == RECOVER_CALL_RSP_REG &&
	    op->msize == 8) {
		if (c->nsaves == RECOVER_CALL_RSP_SAVES) {
			memmove(&c->rsp_saves[0], &c->rsp_saves[1],
				(RECOVER_CALL_RSP_SAVES - 1) *
					sizeof(c->rsp_saves[0]));
			c->nsaves--;
		}
		c->rsp_saves[c->nsaves++] = (int32_t)d;
	}
}

/* Whether OP loads rsp from a slot C's callee saved it in. */
static bool loads_saved_rsp(const struct recover_call *c,
			    const struct recover_op *op)
{
	int64_t d;
	unsigned i;

	if (op->kind != recover_load || op->dst != RECOVER_CALL_RSP_REG ||
	    op->msize != 8 || !rbp_relative(op, &d))
		return false;
	for (i = 0; i < c->nsaves; i++)
		if (c->rsp_saves[i] == d)
			return true;
	return false;
}

/* Whether OP, writing rsp, moves it as an ordinary frame does. */
static bool frame_move(const struct recover_op *op, bool in_resolver)
{
	switch (op->kind) {
	case recover_rsp_adjust:	/* push, call, ret */
	case recover_leave:
		return true;
	case recover_pop:		/* not pop %rsp */
		return op->dst != RECOVER_CALL_RSP_REG;
	case recover_alu_imm:		/* add, sub, and of a constant */
	case recover_alu:		/* alloca: sub %rax,%rsp */
	case recover_alu_mem:		/* the resolver's sub of its xsave
					 * size, read from memory */
		return op->dst == RECOVER_CALL_RSP_REG &&
		       (op->alu == recover_add || op->alu == recover_sub ||
			op->alu == recover_and);
	case recover_lea:
		/* From the frame, or from a realigned frame's DRAP register
		 * (GCC's r10, r13). */
		return op->dst == RECOVER_CALL_RSP_REG &&
		       (op->base == RECOVER_CALL_RSP_REG ||
			op->base == hwtr_amd64_rbp ||
			op->base == hwtr_amd64_r10 ||
			op->base == hwtr_amd64_r13);
	case recover_mov:
		return op->dst == RECOVER_CALL_RSP_REG &&
		       (op->src == hwtr_amd64_rbp ||
			(in_resolver && op->src == hwtr_amd64_rbx));
	default:
		return false;
	}
}

void recover_calls_note(struct recover_calls *calls,
			const struct recover_op *op, bool in_resolver)
{
	struct recover_call *inner;
	size_t i;

	if (!calls->n)
		return;
	inner = &calls->open[calls->n - 1];
	if (op->writes >> RECOVER_CALL_RSP_REG & 1 &&
	    !frame_move(op, in_resolver) && !loads_saved_rsp(inner, op)) {
		for (i = 0; i < calls->n; i++)
			calls->open[i].kept = false;
	}
	note_rsp_save(inner, op);
}

size_t recover_calls_leave(struct recover_calls *calls, uint64_t next,
			   const uint32_t *exit, struct recover_equality *out)
{
	const struct recover_call *c;
	size_t n = 0;
	unsigned r;

	if (!calls->n)
		return 0;
	c = &calls->open[calls->n - 1];
	if (c->ret != next) {
		recover_calls_reset(calls);
		return 0;
	}
	calls->n--;
	if (!c->kept)
		return 0;
	for (r = 0; r < RECOVER_NREGS; r++) {
		struct recover_equality *e;

		if (!(RECOVER_CALL_KEEPS >> r & 1))
			continue;
		e = &out[n++];
		memset(e, 0, sizeof(*e));
		e->reg = e->src_reg = (uint8_t)r;
		e->slot = exit[r];
		e->src_slot = c->slot[r];
		e->at = UINT32_MAX;
	}
	return n;
}
