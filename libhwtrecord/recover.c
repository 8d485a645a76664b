/* recover.c: registers at past positions recovered from a control-flow
 * trace and the end state, REPT's way (hwtrecord.h, "recovery";
 * doc/value-recovery.md says what is recovered and how far back).
 *
 * The window is the last WINDOW instructions of a thread before its end
 * state (fewer after a gap: nothing crosses one; a signal handler is only
 * entered at one, see step_explained).  Each instruction becomes an
 * operation (recover-x86.c); between two instructions whose succession the
 * code contradicts, a "clobber" operation makes every register unknown.
 * The value of a register between two operations that write it is one
 * slot: the value the first one left.  Passes alternate to a fixed point: backwards from the
 * end state, filling each slot from the value after it and inverting the
 * operation to get the value before it; forwards from what is known before
 * the window, computing each operation whose inputs are known.  A slot is
 * only ever filled with a proven value; what no pass proves stays unknown.
 * Two proofs that disagree (which would mean a wrong model) are counted
 * (hwtr_recovery_stats) and the first is kept.
 *
 * Memory (when the caller gives the end state's): a load whose address is
 * known gets the end state's bytes when nothing after it may have written
 * them (a store to a known address elsewhere does not count; a store to an
 * unknown address, a system call that may write memory, a signal, a rep
 * string instruction do: after one of those, going backwards, no end
 * state byte is trusted); a store's value is learnt backwards from what is
 * known of the bytes after it, and forwards a load gets what a known store
 * left.  Queries (hwtr_recovery_memory) use the stores and those barriers
 * once the passes are done.
 *
 * A third pass carries registers through stack slots (recover-stack.c).
 * glibc's lazy-binding resolver is one operation whose contract ties the
 * registers after it to those before it (recover-resolver.h).
 * eflags is kept apart from the slots: per operation, the flags before
 * it (bits known, their values), from the end state's backwards through
 * operations that do not write them and forwards through those that
 * define them from known registers (recover-flags.h); setcc, cmovcc, adc,
 * sbb and r11 after a system call read them.  Vector registers are not
 * recovered.
 */
#include "recover-x86.h"
#include "recover-bytes.h"
#include "recover-stack.h"
#include "recover-branch.h"
#include "recover-flags.h"
#include "recover-resolver.h"
#include "recover-calls.h"
#include "recover-ops.h"

#include "error.h"
#include "history.h"

#include <hwtrecord.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PASSES 8

struct slots {
	uint32_t *op;		/* the operation that wrote it, ascending */
	uint64_t *val;
	uint8_t *known;
	size_t n, cap;
};

/* A store after the passes: where, how much, and what when known. */
struct recovered_store {
	uint32_t op;
	uint32_t size;		/* up to MAX_SYSCALL_BUFFER */
	bool value_known;	/* only for stores of up to 8 bytes */
	uint64_t addr;
	uint8_t val[8];
};

/* Which stores touch an 8-byte word: sorted by (word, op). */
struct store_ref {
	uint64_t word;
	uint32_t op;
	uint32_t store;
};

struct hwtr_recovery {
	struct hwtr_thread *thread;
	size_t (*read_memory)(void *ctx, uint64_t addr, void *buf, size_t len);
	size_t (*read_fixed)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *memory_ctx;
	struct recovered_store *stores;
	size_t nstores;
	struct store_ref *refs;
	size_t nrefs;
	uint32_t *barriers;	/* ops after which memory may differ unseen */
	size_t nbarriers;
	struct hwtr_cursor *cursor;	/* for rip */
	struct recover_x86 *x86;	/* for hwtr_recovery_unknown_cause */
	uint64_t first, end;	/* positions first..end; end's is the end state */
	/* Operation k of the window is ops[op_ix[k]]: a window repeats a
	 * few thousand distinct operations (an instruction's, or one with
	 * what its execution added: an attached comparison, a clobber's
	 * pc), so each is kept once (4 bytes an operation, not 64). */
	struct recover_ops ops;
	size_t nops, cap_ops;
	uint32_t *op_ix;
	uint32_t *op_of;	/* op_of[p - first]: position p's operation */
	/* While it is opened: registers known at positions (the end's
	 * anchors), ascending. */
	const struct hwtr_recovery_anchor *anchors;
	size_t nanchors;
	struct slots slots[RECOVER_NREGS];
	/* The memory operand of each operation that reads_operand(), where
	 * a backward pass proved it (the end state's bytes, which the forward
	 * pass cannot tell apart from bytes changed later): operand[i] of
	 * operation operand_op[i], ascending (a few in a hundred read one). */
	uint32_t *operand_op;
	uint64_t *operand;
	uint8_t *operand_known;
	size_t noperands;
	struct recover_equality *equalities;	/* through stack slots */
	size_t nequalities;
	struct recover_equality *facts;	/* what branches proved, and the
					 * resolver's contract */
	size_t nfacts, cap_facts;
	/* The resolver's round trips: their first and their one past the
	 * last operation, in order. */
	struct {
		uint32_t entry, exit;
	} *resolvers;
	size_t nresolvers, cap_resolvers;
	/* The end state's fs base holds for operations fs_from.. (those
	 * after the last that may have changed it). */
	uint64_t fs_base;
	bool fs_base_known;
	uint32_t fs_from;
	/* READ_FIXED's bytes hold for operations maps_from.. (those after
	 * the last that may have changed a mapping). */
	uint32_t maps_from;
	uint64_t init[RECOVER_NREGS], endv[RECOVER_NREGS];
	uint16_t init_known, end_known;
	/* eflags before each operation (fval[nops]: the end state's), the
	 * bits known in fknown. */
	uint32_t *fval, *fknown;
	bool under_valgrind;	/* VEX's syscall keeps r11 */
	struct hwtr_recovery_stats stats;
};

static const struct recover_op *op_at(const struct hwtr_recovery *rec,
				      size_t k)
{
	return &rec->ops.op[rec->op_ix[k]];
}

static int add_op(struct hwtr_recovery *rec, const struct recover_op *op)
{
	unsigned r;
	uint32_t ix;

	if (rec->nops == rec->cap_ops) {
		size_t cap = rec->cap_ops ? 2 * rec->cap_ops : 1024;
		uint32_t *p = realloc(rec->op_ix, cap * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		rec->op_ix = p;
		rec->cap_ops = cap;
	}
	if ((ix = recover_ops_intern(&rec->ops, op)) == UINT32_MAX)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (r = 0; r < RECOVER_NREGS; r++) {
		struct slots *s = &rec->slots[r];

		if (!(op->writes >> r & 1))
			continue;
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 1024;
			uint32_t *o = realloc(s->op, cap * sizeof(*o));
			uint64_t *v = o ? realloc(s->val, cap * sizeof(*v)) : NULL;
			uint8_t *k = v ? realloc(s->known, cap) : NULL;

			if (o)
				s->op = o;
			if (v)
				s->val = v;
			if (!k)
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			s->known = k;
			s->cap = cap;
		}
		s->op[s->n] = (uint32_t)rec->nops;
		s->known[s->n] = 0;
		s->val[s->n++] = 0;
	}
	rec->op_ix[rec->nops++] = ix;
	return 0;
}

/* A step the code does not explain, before the instruction at NEXT: every
 * register unknown, and memory may have changed unseen. */
static int add_clobber(struct hwtr_recovery *rec, uint64_t next)
{
	struct recover_op op;

	memset(&op, 0, sizeof(op));
	op.kind = recover_clobber;
	op.dst = op.src = op.base = op.index = RECOVER_NOREG;
	op.mbase = op.mindex = RECOVER_NOREG;
	op.writes = RECOVER_ALL_REGS;
	op.fwrites = RECOVER_FLAGS_ALL;
	op.vimm = (int64_t)next;
	rec->stats.barriers++;
	return add_op(rec, &op);
}

/* Whether the code explains that the instruction after INSN is at NEXT
 * (TARGET: a direct branch's destination, else 0).  An indirect jump or
 * call and a return may go anywhere without changing a register.  A
 * signal handler cannot start between two traced instructions: its entry
 * passes through the kernel, which a user-mode trace shows as tracing
 * disabled and enabled elsewhere (Intel PT's TIP.PGD / TIP.PGE, and the
 * Valgrind source writes the same at every signal delivery): a gap, where
 * build() starts over.  So only a step that contradicts the code (which a
 * trace that includes the kernel, or a decoder fault, could show) makes
 * every register unknown. */
static bool step_explained(const struct hwtr_insn *insn, uint64_t target,
			   uint64_t next)
{
	uint64_t fall = insn->ip + insn->size;

	switch (insn->iclass) {
	case hwtr_ic_other:
		return next == fall;
	case hwtr_ic_cond_jump:
		return next == fall || (target && next == target);
	case hwtr_ic_call:
	case hwtr_ic_jump:
		return !target || next == target;
	case hwtr_ic_return:
		return true;
	case hwtr_ic_far_call:	/* syscall: its own model; others clobber */
		return insn->size == 2 && insn->raw[0] == 0x0f &&
		       insn->raw[1] == 0x05 && next == fall;
	default:
		return false;
	}
}

/* Direct-mapped cache of decoded instructions: loops run the same code. */
#define DECODE_CACHE 4096
struct decode_entry {
	uint64_t ip;
	uint8_t size, raw[15];
	struct recover_op op;
	uint64_t target;
};

static void decode(struct recover_x86 *x86, struct decode_entry *cache,
		   const struct hwtr_insn *insn, struct recover_op *op,
		   uint64_t *target)
{
	struct decode_entry *e = &cache[(insn->ip ^ insn->ip >> 12) %
					DECODE_CACHE];

	if (e->size != insn->size || e->ip != insn->ip ||
	    memcmp(e->raw, insn->raw, insn->size)) {
		e->ip = insn->ip;
		e->size = insn->size;
		memcpy(e->raw, insn->raw, insn->size);
		recover_x86_decode(x86, insn->ip, insn->raw, insn->size, &e->op,
				   &e->target);
	}
	*op = e->op;
	*target = e->target;
}

/* Reset REC to an empty window starting at FIRST. */
static void restart(struct hwtr_recovery *rec, uint64_t first)
{
	unsigned r;

	rec->first = first;
	rec->nops = 0;
	rec->nfacts = 0;
	rec->nresolvers = 0;
	for (r = 0; r < RECOVER_NREGS; r++)
		rec->slots[r].n = 0;
	rec->stats.barriers = rec->stats.unmodelled = 0;
}

/* The register R's slot before the next operation is added (UINT32_MAX:
 * its value before the window). */
static uint32_t current_slot(const struct hwtr_recovery *rec, unsigned r)
{
	return rec->slots[r].n ? (uint32_t)(rec->slots[r].n - 1) : UINT32_MAX;
}

static int add_fact(struct hwtr_recovery *rec,
		    const struct recover_equality *e)
{
	int err = hwtr_array_grow((void **)&rec->facts, &rec->cap_facts,
				  rec->nfacts + 1, sizeof(*rec->facts));

	if (!err)
		rec->facts[rec->nfacts++] = *e;
	return err;
}

/* The registers ANCHOR knows, before the next operation is added: facts
 * like what a branch proves. */
static int add_anchor(struct hwtr_recovery *rec,
		      const struct hwtr_recovery_anchor *anchor)
{
	struct recover_equality e;
	unsigned r;
	int err;

	for (r = 0; r < RECOVER_NREGS; r++) {
		if (!(anchor->known >> r & 1))
			continue;
		memset(&e, 0, sizeof(e));
		e.constant = 1;
		e.reg = (uint8_t)r;
		e.slot = current_slot(rec, r);
		e.at = UINT32_MAX;
		e.value = anchor->regs[r];
		if ((err = add_fact(rec, &e)))
			return err;
	}
	return 0;
}

/* What the branch INSN (operation OP, after PREV when that was the
 * instruction just before it) proves by going to NEXT (recover-branch.h),
 * as an equality on the slots before OP is added. */
static int add_branch_fact(struct hwtr_recovery *rec,
			   const struct recover_op *prev,
			   const struct recover_op *op,
			   const struct hwtr_insn *insn, uint64_t target,
			   uint64_t next, uint16_t upper_zero)
{
	struct recover_branch_fact f;
	struct recover_equality e;
	uint64_t fall = insn->ip + insn->size;

	/* A conditional jump to its own fall-through shows no outcome. */
	if (op->cond && (!target || target == fall))
		return 0;
	if (!recover_branch_facts(prev, op, op->cond && next == target, next,
				  upper_zero, &f))
		return 0;
	memset(&e, 0, sizeof(e));
	e.at = UINT32_MAX;
	e.reg = f.reg;
	e.slot = current_slot(rec, f.reg);
	if (f.reg2 == RECOVER_NOREG) {
		e.constant = 1;
		e.value = f.value;
	} else {
		e.src_reg = f.reg2;
		e.src_slot = current_slot(rec, f.reg2);
	}
	return add_fact(rec, &e);
}

/* The resolver invocations entered and not yet left (recover-resolver.h):
 * each register's slot at the entry, the entry's operation and function
 * segment.  Nested ones (an IFUNC resolver that calls through a lazy PLT
 * entry) are few; more than MAX_RESOLVERS deep are not followed. */
#define MAX_RESOLVERS 8
struct resolver_entry {
	uint32_t slot[RECOVER_NREGS];
	uint32_t op;
	uint64_t segment;
};

struct resolver_state {
	struct resolver_entry open[MAX_RESOLVERS];
	unsigned nopen;
	struct hwtr_insn last[3];	/* the instructions before, newest
					 * last; size 0: none */
};

/* Whether INSN at P enters the resolver: PLT0 just before it and the
 * symbol of a resolver starting at it. */
static int resolver_enters(struct hwtr_recovery *rec,
			   const struct resolver_state *rs,
			   const struct hwtr_insn *insn, uint64_t p,
			   uint64_t *segment, bool *enters)
{
	const struct hwtr_insn *push = &rs->last[1], *jmp = &rs->last[2];
	struct hwtr_segment seg;
	int err;

	*enters = false;
	if (!push->size || !jmp->size || jmp->iclass != hwtr_ic_jump ||
	    !recover_resolver_plt0(push->ip, push->raw, push->size, jmp->ip,
				   jmp->raw, jmp->size))
		return 0;
	if ((err = hwtr_cursor_goto(rec->cursor, p)) ||
	    (err = hwtr_cursor_segment(rec->cursor, &seg)))
		return err;
	*enters = recover_resolver_name(seg.function) &&
		  seg.function_start == insn->ip;
	*segment = seg.number;
	return 0;
}

/* The entry of RS that INSN at P leaves the resolver of (its exit
 * sequence ends at P, in the function segment of that entry or the one
 * after its call to _dl_fixup returned), or -1. */
static int resolver_leaves(struct hwtr_recovery *rec,
			   const struct resolver_state *rs,
			   const struct hwtr_insn *insn, uint64_t p, int *which)
{
	const uint8_t *code[4] = { rs->last[0].raw, rs->last[1].raw,
				   rs->last[2].raw, insn->raw };
	size_t size[4] = { rs->last[0].size, rs->last[1].size,
			   rs->last[2].size, insn->size };
	struct hwtr_segment seg;
	unsigned i;
	int err;

	*which = -1;
	if (!rs->nopen || insn->iclass != hwtr_ic_jump ||
	    !recover_resolver_exit(code, size))
		return 0;
	for (i = 0; i < 3; i++)
		if (rs->last[i].ip + rs->last[i].size !=
		    (i < 2 ? rs->last[i + 1].ip : insn->ip))
			return 0;
	if ((err = hwtr_cursor_goto(rec->cursor, p)) ||
	    (err = hwtr_cursor_segment(rec->cursor, &seg)))
		return err;
	for (i = rs->nopen; i-- > 0;)
		if (seg.number == rs->open[i].segment ||
		    seg.prev == rs->open[i].segment) {
			*which = (int)i;
			break;
		}
	return 0;
}

/* The resolver entered at E ends before the operation about to be added:
 * the contract's equalities between each register there and at E, and
 * the round trip noted for hwtr_recovery_unknown_cause. */
static int add_resolver_exit(struct hwtr_recovery *rec,
			     const struct resolver_entry *e)
{
	struct recover_equality eq[RECOVER_NREGS];
	uint32_t exit[RECOVER_NREGS];
	size_t n, i;
	unsigned r;
	int err;

	for (r = 0; r < RECOVER_NREGS; r++)
		exit[r] = current_slot(rec, r);
	n = recover_resolver_facts(e->slot, exit, eq);
	for (i = 0; i < n; i++)
		if ((err = add_fact(rec, &eq[i])))
			return err;
	if ((err = hwtr_array_grow((void **)&rec->resolvers,
				   &rec->cap_resolvers, rec->nresolvers + 1,
				   sizeof(*rec->resolvers))))
		return err;
	rec->resolvers[rec->nresolvers].entry = e->op;
	rec->resolvers[rec->nresolvers++].exit = (uint32_t)rec->nops;
	return 0;
}

/* Before INSN at P is added: the resolver's entry noted, or its exit's
 * equalities added. */
static int resolver_step(struct hwtr_recovery *rec, struct resolver_state *rs,
			 const struct hwtr_insn *insn, uint64_t p)
{
	uint64_t segment;
	bool enters;
	int which, err;
	unsigned r;

	if ((err = resolver_leaves(rec, rs, insn, p, &which)))
		return err;
	if (which >= 0) {
		rs->nopen = (unsigned)which;
		return add_resolver_exit(rec, &rs->open[which]);
	}
	if ((err = resolver_enters(rec, rs, insn, p, &segment, &enters)) ||
	    !enters)
		return err;
	if (rs->nopen == MAX_RESOLVERS) {
		/* (too deep: the outer ones are left to the instructions) */
		memmove(&rs->open[0], &rs->open[1],
			(MAX_RESOLVERS - 1) * sizeof(rs->open[0]));
		rs->nopen--;
	}
	for (r = 0; r < RECOVER_NREGS; r++)
		rs->open[rs->nopen].slot[r] = current_slot(rec, r);
	rs->open[rs->nopen].op = (uint32_t)rec->nops;
	rs->open[rs->nopen++].segment = segment;
	return 0;
}

/* Before the call INSN (at P, its callee's first instruction at NEXT, where
 * the cursor stands) is added: the call noted, each register's slot before
 * it.  The calling convention's contract is taken only for a callee an
 * ELF symbol names from its first byte, or where no symbol does, whose
 * binary's call frame information starts a function there (recover-calls.h). */
static int call_enters(struct hwtr_recovery *rec, struct recover_calls *calls,
		       const struct hwtr_insn *insn, uint64_t next)
{
	uint32_t slot[RECOVER_NREGS];
	struct hwtr_segment seg;
	unsigned r;
	bool abi;
	int err;

	for (r = 0; r < RECOVER_NREGS; r++)
		slot[r] = current_slot(rec, r);
	if ((err = hwtr_cursor_segment(rec->cursor, &seg)))
		return err;
	abi = seg.function && seg.function_start == next;
	if (!seg.function && (err = cursor_cfi_entry(rec->cursor, &abi)))
		return err;
	return recover_calls_enter(calls, slot, insn->ip + insn->size, abi);
}

/* After the return INSN to NEXT was added: the contract's equalities when
 * it leaves the innermost open call. */
static int call_leaves(struct hwtr_recovery *rec, struct recover_calls *calls,
		       const struct hwtr_insn *insn, uint64_t next)
{
	struct recover_equality eq[RECOVER_NREGS];
	uint32_t exit[RECOVER_NREGS];
	size_t n, i;
	unsigned r;
	int err;

	if (!recover_calls_plain(insn->raw, insn->size)) {
		recover_calls_reset(calls);
		return 0;
	}
	for (r = 0; r < RECOVER_NREGS; r++)
		exit[r] = current_slot(rec, r);
	n = recover_calls_leave(calls, next, exit, eq);
	for (i = 0; i < n; i++)
		if ((err = add_fact(rec, &eq[i])))
			return err;
	return 0;
}

/* The operations of positions first..end-1 of a thread of INSTRUCTIONS,
 * with NEXT_AT_END the pc of the end state when it is after the last. */
static int build(struct hwtr_recovery *rec, uint64_t window,
		 uint64_t instructions, uint64_t next_at_end)
{
	struct recover_x86 *x86 = NULL;
	struct decode_entry *cache = NULL;
	struct hwtr_insn insn, next;
	struct recover_op op, compare;
	uint64_t p, target;
	/* Registers whose upper 32 bits are zero before OP; whether the
	 * flags before OP are COMPARE's, with its registers as they were. */
	uint16_t upper_zero = 0;
	bool flags_known = false;
	struct resolver_state rs;
	struct recover_calls calls;
	const struct hwtr_recovery_anchor *anchors = rec->anchors;
	size_t nanchors = rec->nanchors, anchor = 0;
	unsigned r;
	int err;

	memset(&rs, 0, sizeof(rs));
	memset(&calls, 0, sizeof(calls));
	rec->first = rec->end > window ? rec->end - window : 1;
	rec->op_of = malloc((rec->end - rec->first + 1) * sizeof(*rec->op_of));
	cache = calloc(DECODE_CACHE, sizeof(*cache));
	if (!rec->op_of || !cache) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	if ((err = recover_x86_open(&x86)) ||
	    (err = hwtr_cursor_goto(rec->cursor, rec->first)) ||
	    (err = hwtr_cursor_insn(rec->cursor, &next)))
		goto out;
	restart(rec, rec->first);
	for (p = rec->first; p < rec->end; p++) {
		insn = next;
		if (p + 1 <= instructions) {
			if ((err = hwtr_cursor_goto(rec->cursor, p + 1)) ||
			    (err = hwtr_cursor_insn(rec->cursor, &next)))
				goto out;
		} else {
			memset(&next, 0, sizeof(next));
			next.ip = next_at_end;
		}
		if (insn.gap || !insn.size) {
			/* Nothing is known across a gap: start after it. */
			restart(rec, p + 1);
			flags_known = false;
			upper_zero = 0;
			memset(&rs, 0, sizeof(rs));
			recover_calls_reset(&calls);
			continue;
		}
		if ((err = resolver_step(rec, &rs, &insn, p)))
			goto out;
		decode(x86, cache, &insn, &op, &target);
		/* Under Valgrind a system call leaves r11 alone: VEX does not
		 * put rflags there as the kernel does. */
		if (op.kind == recover_syscall && rec->under_valgrind)
			op.alu = 1;
		if (flags_known && recover_flags_wants(&op))
			recover_flags_attach(&op, &compare);
		if (op.kind == recover_unmodelled)
			rec->stats.unmodelled++;
		if (!next.gap && (op.cond || op.target_reg) &&
		    (err = add_branch_fact(rec, flags_known ? &compare : NULL,
					   &op, &insn, target, next.ip,
					   upper_zero)))
			goto out;
		/* A system call returns with the rsp it was entered with,
		 * whatever its number: rt_sigreturn, and a signal delivered
		 * on the way out, go on elsewhere (a gap or a step not
		 * explained, which forgets every open call below). */
		if (op.kind != recover_syscall ||
		    !step_explained(&insn, target, next.ip))
			recover_calls_note(&calls, &op, rs.nopen > 0);
		if (insn.iclass == hwtr_ic_call && !next.gap &&
		    p + 1 <= instructions &&
		    recover_calls_plain(insn.raw, insn.size) &&
		    (err = call_enters(rec, &calls, &insn, next.ip)))
			goto out;
		while (anchor < nanchors && anchors[anchor].position < p)
			anchor++;
		for (; anchor < nanchors && anchors[anchor].position == p;
		     anchor++)
			if ((err = add_anchor(rec, &anchors[anchor])))
				goto out;
		rec->op_of[p - rec->first] = (uint32_t)rec->nops;
		if ((err = add_op(rec, &op)))
			goto out;
		if (insn.iclass == hwtr_ic_return && !next.gap &&
		    (err = call_leaves(rec, &calls, &insn, next.ip)))
			goto out;
		for (r = 0; r < RECOVER_NREGS; r++)
			if (op.writes >> r & 1) {
				upper_zero &= (uint16_t)~(1u << r);
				if (recover_branch_zero_extends(&op, r))
					upper_zero |= (uint16_t)(1u << r);
			}
		if (op.kind == recover_compare) {
			compare = op;
			flags_known = true;
		} else if (recover_flags_from_result(&op, &compare)) {
			flags_known = true;
		} else if (flags_known) {
			flags_known = recover_flags_keeps(
				&op, recover_flags_compared(&compare));
		}
		if (!next.gap && !step_explained(&insn, target, next.ip)) {
			if ((err = add_clobber(rec, next.ip)))
				goto out;
			flags_known = false;
			upper_zero = 0;
			rs.nopen = 0;
			recover_calls_reset(&calls);
		}
		memmove(&rs.last[0], &rs.last[1], 2 * sizeof(rs.last[0]));
		rs.last[2] = insn;
	}
	rec->op_of[rec->end - rec->first] = (uint32_t)rec->nops;
out:
	recover_calls_free(&calls);
	free(cache);
	recover_x86_close(x86);
	return err;
}

/* Fill slot I of register R with V: true when that taught something. */
static bool learn(struct hwtr_recovery *rec, unsigned r, size_t i, uint64_t v)
{
	struct slots *s = &rec->slots[r];

	if (s->known[i]) {
		if (s->val[i] != v)
			rec->stats.conflicts++;
		return false;
	}
	s->known[i] = 1;
	s->val[i] = v;
	return true;
}

static bool learn_init(struct hwtr_recovery *rec, unsigned r, uint64_t v)
{
	if (rec->init_known >> r & 1) {
		if (rec->init[r] != v)
			rec->stats.conflicts++;
		return false;
	}
	rec->init_known |= (uint16_t)(1u << r);
	rec->init[r] = v;
	return true;
}

/* Register R before operation K: its slot (index in *I, or SIZE_MAX for
 * the value before the window); false when not known. */
static bool value_before(const struct hwtr_recovery *rec, unsigned r,
			 uint32_t k, uint64_t *v)
{
	const struct slots *s = &rec->slots[r];
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->op[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		*v = rec->init[r];
		return rec->init_known >> r & 1;
	}
	*v = s->val[lo - 1];
	return s->known[lo - 1];
}

/* Register R's value before operation K, where VAL/KNOWN hold the values
 * after it (the backward pass) or before it (BEFORE: the forward pass). */
static bool reg_before(const struct hwtr_recovery *rec, uint32_t k, unsigned r,
		       const uint64_t *val, uint16_t known, bool before,
		       uint64_t *v)
{
	const struct recover_op *op = op_at(rec, k);

	if (!val)
		return value_before(rec, r, k, v);
	if (before || !(op->writes >> r & 1)) {
		*v = val[r];
		return known >> r & 1;
	}
	/* rsp before a push, call or pop: from rsp after it. */
	if (r == hwtr_amd64_rsp && (known >> r & 1) &&
	    (op->kind == recover_rsp_adjust || op->kind == recover_pop)) {
		*v = val[r] - (uint64_t)op->imm;
		return true;
	}
	if (r == hwtr_amd64_rbp && op->kind == recover_leave &&
	    (known >> hwtr_amd64_rsp & 1)) {
		*v = val[hwtr_amd64_rsp] - 8;
		return true;
	}
	return value_before(rec, r, k, v);
}

/* The address OP k reads or writes, from the registers before it. */
static bool mem_address(const struct hwtr_recovery *rec, uint32_t k,
			const uint64_t *val, uint16_t known, bool before,
			uint64_t *addr)
{
	const struct recover_op *op = op_at(rec, k);
	uint64_t a = (uint64_t)op->mdisp, v;

	if (op->mseg == recover_seg_fs) {
		if (!rec->fs_base_known || k < rec->fs_from)
			return false;
		a += rec->fs_base;
	}
	if (op->mbase != RECOVER_NOREG) {
		if (!reg_before(rec, k, op->mbase, val, known, before, &v))
			return false;
		a += v;
	}
	if (op->mindex != RECOVER_NOREG) {
		if (!reg_before(rec, k, op->mindex, val, known, before, &v))
			return false;
		a += v * op->mscale;
	}
	*addr = a;
	return true;
}

/* Whether operation K may change the fs base: an instruction that loads
 * fs or writes its base, a system call that may set it (arch_prctl, or a
 * number not known), a step the code does not explain. */
static bool changes_fs(const struct hwtr_recovery *rec, uint32_t k)
{
	const struct recover_op *op = op_at(rec, k);
	uint64_t nr;

	if (op->kind == recover_clobber || op->sets_fs)
		return true;
	if (op->kind != recover_syscall)
		return false;
	return !value_before(rec, hwtr_amd64_rax, k, &nr) ||
	       !recover_x86_syscall_keeps_fs(nr);
}

/* The operation after the last one for which CHANGES holds, going
 * backwards from the end (0: none).  Called before each pass: a system
 * call's number learnt since can only move it earlier. */
static uint32_t after_last(const struct hwtr_recovery *rec,
			   bool (*changes)(const struct hwtr_recovery *,
					   uint32_t))
{
	uint32_t k = (uint32_t)rec->nops;

	while (k > 0 && !changes(rec, k - 1))
		k--;
	return k;
}

/* Where the end state's fs base starts to hold. */
static void find_fs_from(struct hwtr_recovery *rec)
{
	rec->fs_from = after_last(rec, changes_fs);
}

/* Whether operation K may change a mapping (map, unmap, protect, drop
 * pages): a system call but those known to leave them alone, a step the
 * code does not explain (int 0x80 is one). */
static bool changes_mappings(const struct hwtr_recovery *rec, uint32_t k)
{
	const struct recover_op *op = op_at(rec, k);
	uint64_t nr;

	if (op->kind == recover_clobber)
		return true;
	if (op->kind != recover_syscall)
		return false;
	return !value_before(rec, hwtr_amd64_rax, k, &nr) ||
	       !recover_x86_syscall_keeps_mappings(nr);
}

/* What system call K (known number NR) does to mappings, beyond
 * changes_mappings: only adds some (mmap without MAP_FIXED, its flags
 * proven), or may remove some (munmap, brk). */
static bool only_adds_mappings(const struct hwtr_recovery *rec, uint32_t k)
{
	uint64_t nr, flags;

	return op_at(rec, k)->kind == recover_syscall &&
	       value_before(rec, hwtr_amd64_rax, k, &nr) &&
	       value_before(rec, hwtr_amd64_r10, k, &flags) &&
	       recover_x86_syscall_only_adds_mappings(nr, flags);
}

static bool removes_mappings(const struct hwtr_recovery *rec, uint32_t k)
{
	uint64_t nr;

	return op_at(rec, k)->kind == recover_syscall &&
	       value_before(rec, hwtr_amd64_rax, k, &nr) &&
	       recover_x86_syscall_removes_mappings(nr);
}

/* Where the end state's read-only bytes start to hold: after the last
 * operation that may have changed a mapping, an mmap that only adds one
 * excepted, unless pages were removed before it (a munmap or brk, going
 * backwards, after an mmap: the page removed may have come back from the
 * mmap with other bytes). */
static void find_maps_from(struct hwtr_recovery *rec)
{
	uint32_t k = (uint32_t)rec->nops;
	bool added = false;

	for (; k > 0; k--) {
		if (only_adds_mappings(rec, k - 1)) {
			added = true;
			continue;
		}
		if (changes_mappings(rec, k - 1) ||
		    (added && removes_mappings(rec, k - 1)))
			break;
	}
	rec->maps_from = k;
}

/* The longest buffer a system call is taken to write as a store (longer:
 * a barrier). */
#define MAX_SYSCALL_BUFFER (1u << 20)

/* Whether OP k is a system call that writes only one buffer, whose place
 * is proven: [*ADDR, *ADDR + *LEN), with bytes not known. */
static bool syscall_buffer(const struct hwtr_recovery *rec, uint32_t k,
			   uint64_t *addr, uint64_t *len)
{
	const struct recover_op *op = op_at(rec, k);
	unsigned addr_reg, len_reg;
	uint64_t nr;

	if (op->mkind != recover_mem_syscall ||
	    !value_before(rec, hwtr_amd64_rax, k, &nr) ||
	    !recover_x86_syscall_buffer(nr, &addr_reg, &len_reg, len) ||
	    !value_before(rec, addr_reg, k, addr) ||
	    (len_reg != RECOVER_NOREG && !value_before(rec, len_reg, k, len)))
		return false;
	return *len <= MAX_SYSCALL_BUFFER && *addr + *len >= *addr;
}

/* Whether OP k may write memory at places not known: a barrier. */
static bool mem_barrier(const struct hwtr_recovery *rec, uint32_t k)
{
	const struct recover_op *op = op_at(rec, k);
	uint64_t nr, addr, len;

	if (op->kind == recover_clobber)
		return true;
	if (op->mkind == recover_mem_any)
		return true;
	if (op->mkind == recover_mem_syscall)
		return !value_before(rec, hwtr_amd64_rax, k, &nr) ||
		       (!recover_x86_syscall_keeps_memory(nr) &&
			!syscall_buffer(rec, k, &addr, &len));
	return false;
}

/* The register an operation loads from memory, or RECOVER_NOREG. */
static unsigned loaded_register(const struct recover_op *op)
{
	if (op->mkind != recover_mem_load)
		return RECOVER_NOREG;
	if (op->kind == recover_load || op->kind == recover_pop)
		return op->dst;
	if (op->kind == recover_leave)
		return hwtr_amd64_rbp;
	return RECOVER_NOREG;
}

/* What the backward pass knows of memory at its point: KNOWN bytes, and
 * the end state's bytes except those WRITTEN after the point (all of them
 * after a barrier); its read-only bytes while FIXED (no mapping
 * changed after the point: no store can have reached them). */
struct backward_memory {
	struct recover_bytes known, written;
	bool all_written, fixed;
};

static bool backward_read(struct hwtr_recovery *rec, struct backward_memory *m,
			  uint64_t addr, size_t size, uint8_t *buf)
{
	if (recover_bytes_get(&m->known, addr, size, buf))
		return true;
	if (!m->all_written && !recover_bytes_any(&m->written, addr, size) &&
	    rec->read_memory(rec->memory_ctx, addr, buf, size) == size)
		return true;
	return m->fixed && rec->read_fixed &&
	       rec->read_fixed(rec->memory_ctx, addr, buf, size) == size;
}

static uint64_t little_endian(const uint8_t *b, size_t size)
{
	uint64_t v = 0;

	while (size--)
		v = v << 8 | b[size];
	return v;
}

static void to_bytes(uint64_t v, uint8_t *b, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++)
		b[i] = (uint8_t)(v >> 8 * i);
}

/* Whether OP computes from its memory operand's value (an ALU operation
 * with memory, a comparison with memory: rec->operand). */
static bool reads_operand(const struct recover_op *op)
{
	return op->kind == recover_alu_mem ||
	       (op->kind == recover_compare_any &&
		(op->dst == RECOVER_NOREG || op->scale == 2));
}

/* The index in rec->operand of operation K, which reads_operand(). */
static size_t operand_index(const struct hwtr_recovery *rec, size_t k)
{
	size_t lo = 0, hi = rec->noperands;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rec->operand_op[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The operations that read_operand(), in rec->operand_op. */
static int index_operands(struct hwtr_recovery *rec)
{
	size_t k, n = 0;

	for (k = 0; k < rec->nops; k++)
		n += reads_operand(op_at(rec, k));
	rec->operand_op = malloc((n + 1) * sizeof(*rec->operand_op));
	rec->operand = calloc(n + 1, sizeof(*rec->operand));
	rec->operand_known = calloc(n + 1, 1);
	if (!rec->operand_op || !rec->operand || !rec->operand_known)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (k = 0; k < rec->nops; k++)
		if (reads_operand(op_at(rec, k)))
			rec->operand_op[rec->noperands++] = (uint32_t)k;
	return 0;
}

/* OP k as the operation to run on registers: a recover_alu_mem whose
 * memory operand is known becomes the same operation on an immediate. */
static const struct recover_op *with_operand(const struct hwtr_recovery *rec,
					     size_t k, struct recover_op *tmp)
{
	const struct recover_op *op = op_at(rec, k);
	size_t i;

	if (!reads_operand(op) ||
	    !rec->operand_known[i = operand_index(rec, k)])
		return op;
	*tmp = *op;
	if (op->kind == recover_compare_any) {
		tmp->vkind = recover_value_imm;
		tmp->vimm = (int64_t)rec->operand[i];
		return tmp;
	}
	tmp->kind = recover_alu_imm;
	tmp->imm = (int64_t)rec->operand[i];
	return tmp;
}

/* Record V as the memory operand of OP k: true when that taught
 * something. */
static bool learn_operand(struct hwtr_recovery *rec, size_t k, uint64_t v)
{
	size_t i = operand_index(rec, k);

	if (rec->operand_known[i]) {
		if (rec->operand[i] != v)
			rec->stats.conflicts++;
		return false;
	}
	rec->operand_known[i] = 1;
	rec->operand[i] = v;
	return true;
}

/* The equalities EQ[*NEXT..] (ascending AT) that hold before operation K,
 * applied to the registers VAL, KNOWN there; *NEXT moved past them (DIR:
 * +1 forwards, -1 backwards, from the end). */
static void apply_at(struct hwtr_recovery *rec, size_t k, uint64_t *val,
		     uint16_t *known, ptrdiff_t *next, int dir)
{
	const struct recover_equality *eq = rec->equalities;
	ptrdiff_t n = (ptrdiff_t)rec->nequalities;

	for (; *next >= 0 && *next < n; *next += dir) {
		const struct recover_equality *e = &eq[*next];
		uint64_t v;

		if (e->at == UINT32_MAX)
			continue;
		if (dir > 0 ? e->at > k : e->at < k)
			break;
		if (e->at != k)
			continue;
		if (*known >> e->reg & 1) {
			v = val[e->reg] - (uint64_t)e->offset;
			if (!(*known >> e->src_reg & 1)) {
				val[e->src_reg] = v;
				*known |= (uint16_t)(1u << e->src_reg);
			} else if (val[e->src_reg] != v) {
				rec->stats.conflicts++;
			}
		} else if (*known >> e->src_reg & 1) {
			val[e->reg] = val[e->src_reg] + (uint64_t)e->offset;
			*known |= (uint16_t)(1u << e->reg);
		}
	}
}

/* The eflags bits operation K may change: a system call keeps them all
 * (the kernel's sysret, and VEX, give them back) unless its number is not
 * known or it is rt_sigreturn or an exec; a clobber changes them all. */
static uint32_t flags_written(const struct hwtr_recovery *rec, uint32_t k)
{
	const struct recover_op *op = op_at(rec, k);
	uint64_t nr;

	if (op->kind == recover_clobber)
		return RECOVER_FLAGS_ALL;
	if (op->kind == recover_syscall)
		return value_before(rec, hwtr_amd64_rax, k, &nr) &&
		       recover_x86_syscall_keeps_registers(nr)
		       ? 0 : RECOVER_FLAGS_ALL;
	return op->fwrites;
}

/* Learn that the flags before operation K hold V in the bits MASK: true
 * when that taught something. */
static bool learn_flags(struct hwtr_recovery *rec, size_t k, uint32_t v,
			uint32_t mask)
{
	uint32_t add = mask & ~rec->fknown[k];

	if ((rec->fval[k] ^ v) & mask & rec->fknown[k])
		rec->stats.conflicts++;
	if (!add)
		return false;
	rec->fval[k] = (rec->fval[k] & ~add) | (v & add);
	rec->fknown[k] |= add;
	return true;
}

/* OP (operation K, or what with_operand made of it) as the operation to
 * run with the flags before it known: a setcc or cmovcc whose condition's
 * flags are known reads them; an adc or sbb whose carry is known becomes
 * an add or sub (with the carry). */
static const struct recover_op *with_flags(const struct hwtr_recovery *rec,
					   size_t k,
					   const struct recover_op *op,
					   struct recover_op *tmp)
{
	uint32_t f = rec->fval[k], fk = rec->fknown[k];

	if ((recover_flags_wants(op) || op->kind == recover_setcc ||
	     op->kind == recover_cmov) &&
	    (recover_flags_read_by(op->cond) & ~fk) == 0) {
		*tmp = *op;
		recover_flags_given_to(tmp, f);
		return tmp;
	}
	*tmp = *op;
	return recover_flags_carry_in(tmp, f, fk) ? tmp : op;
}

/* The flags after operation K (OP: what with_flags made of it), from the
 * registers and flags before it: the bits known returned, their values
 * in *OUT. */
static uint32_t flags_after(const struct hwtr_recovery *rec, uint32_t k,
			    const struct recover_op *op, const uint64_t *val,
			    uint16_t known, uint32_t *out)
{
	if (flags_written(rec, k) == RECOVER_FLAGS_ALL &&
	    (op->kind == recover_syscall || op->kind == recover_clobber)) {
		*out = 0;
		return 0;
	}
	return recover_flags_after(op, val, known, rec->fval[k],
				   rec->fknown[k], out);
}

/* Whether operation K is a system call that puts rflags into r11 (the
 * kernel's, not VEX's) and returns. */
static bool syscall_flags_in_r11(const struct hwtr_recovery *rec, uint32_t k)
{
	const struct recover_op *op = op_at(rec, k);

	return op->kind == recover_syscall && !op->alu &&
	       flags_written(rec, k) == 0;
}

/* A cmov (operation K) whose condition is not known, backwards: what its
 * destination after it shows (recover_x86_cmov_outcome). */
static uint16_t cmov_outcome(const struct hwtr_recovery *rec, uint32_t k,
			     const uint64_t *val, uint16_t known,
			     uint64_t *out)
{
	const struct recover_op *op = op_at(rec, k);
	uint64_t old = 0;
	bool old_known;

	if (!(recover_flags_wants(op) || op->kind == recover_cmov) ||
	    op->width != 8 || !(known >> op->dst & 1))
		return 0;	/* (what recover_x86_cmov_outcome asks first) */
	old_known = value_before(rec, op->dst, k, &old);
	return recover_x86_cmov_outcome(op, val, known, old, old_known, out);
}

static bool backward_pass(struct hwtr_recovery *rec)
{
	uint64_t val[RECOVER_NREGS], out[RECOVER_NREGS], rax, addr, len;
	struct recover_op tmp, tmp2;
	size_t idx[RECOVER_NREGS];
	uint16_t known = rec->end_known;
	struct backward_memory mem;
	ptrdiff_t next_eq = (ptrdiff_t)rec->nequalities - 1;
	bool changed = false;
	uint8_t bytes[8];
	size_t k;
	unsigned r;

	memset(&mem, 0, sizeof(mem));
	mem.all_written = !rec->read_memory;
	memcpy(val, rec->endv, sizeof(val));
	for (r = 0; r < RECOVER_NREGS; r++)
		idx[r] = rec->slots[r].n;
	for (k = rec->nops; k-- > 0;) {
		const struct recover_op *op = op_at(rec, k);
		unsigned loaded = loaded_register(op);
		uint16_t proven;

		/* The flags before it: those after that it does not write;
		 * all of them from r11 after the kernel's system call. */
		changed |= learn_flags(rec, k, rec->fval[k + 1],
				       rec->fknown[k + 1] &
				       ~flags_written(rec, (uint32_t)k));
		if (syscall_flags_in_r11(rec, (uint32_t)k) &&
		    (known >> hwtr_amd64_r11 & 1) &&
		    !(val[hwtr_amd64_r11] >> 32))
			changed |= learn_flags(rec, k,
					       (uint32_t)val[hwtr_amd64_r11],
					       RECOVER_FLAGS_ALL);
		mem.fixed = k >= rec->maps_from;
		for (r = 0; r < RECOVER_NREGS; r++) {
			size_t i;

			if (!(op->writes >> r & 1))
				continue;
			i = --idx[r];
			if (known >> r & 1)
				changed |= learn(rec, r, i, val[r]);
			/* A load: the value is the memory's before it. */
			if (r == loaded && rec->read_memory &&
			    mem_address(rec, (uint32_t)k, val, known, false, &addr)) {
				if (rec->slots[r].known[i] &&
				    (op->msize == 8 || op->kind == recover_load)) {
					to_bytes(rec->slots[r].val[i], bytes, op->msize);
					if (recover_bytes_set(&mem.known, addr,
							      op->msize, bytes))
						mem.all_written = true;
				} else if (backward_read(rec, &mem, addr, op->msize,
							 bytes)) {
					changed |= learn(rec, r, i,
						recover_x86_loaded(op, bytes));
				}
			}
			if (rec->slots[r].known[i]) {
				val[r] = rec->slots[r].val[i];
				known |= (uint16_t)(1u << r);
			} else {
				known &= (uint16_t)~(1u << r);
			}
		}
		/* A store: its value is what the bytes hold after it. */
		if (op->mkind == recover_mem_store && rec->read_memory) {
			if (!mem_address(rec, (uint32_t)k, val, known, false, &addr)) {
				recover_bytes_clear(&mem.known);
				mem.all_written = true;
			} else {
				if (op->vkind == recover_value_reg && op->msize == 8 &&
				    !(op->writes >> op->vreg & 1) &&
				    !(known >> op->vreg & 1) &&
				    backward_read(rec, &mem, addr, 8, bytes)) {
					val[op->vreg] = little_endian(bytes, 8);
					known |= (uint16_t)(1u << op->vreg);
				}
				recover_bytes_forget(&mem.known, addr, op->msize);
				if (!mem.all_written &&
				    recover_bytes_set(&mem.written, addr,
						      op->msize, NULL))
					mem.all_written = true;
			}
		} else if (mem_barrier(rec, (uint32_t)k)) {
			recover_bytes_clear(&mem.known);
			mem.all_written = true;
		} else if (rec->read_memory &&
			   syscall_buffer(rec, (uint32_t)k, &addr, &len)) {
			/* Bytes the kernel wrote: not known before it. */
			recover_bytes_forget(&mem.known, addr, len);
			if (!mem.all_written &&
			    recover_bytes_set(&mem.written, addr, len, NULL))
				mem.all_written = true;
		}
		if (reads_operand(op) && rec->read_memory &&
		    mem_address(rec, (uint32_t)k, val, known, false, &addr) &&
		    backward_read(rec, &mem, addr, op->msize, bytes))
			changed |= learn_operand(rec, k,
						 little_endian(bytes, op->msize));
		proven = recover_x86_backward(with_flags(rec, k,
						with_operand(rec, k, &tmp), &tmp2),
					      val, known, out);
		if (op->cond && (op->kind == recover_cmov ||
				 op->kind == recover_unmodelled))
			proven |= cmov_outcome(rec, (uint32_t)k, val, known,
					       out);
		if (op->kind == recover_syscall &&
		    value_before(rec, hwtr_amd64_rax, (uint32_t)k, &rax) &&
		    recover_x86_syscall_keeps_registers(rax)) {
			for (r = 0; r < RECOVER_NREGS; r++)
				if (r != hwtr_amd64_rax && r != hwtr_amd64_rcx &&
				    (r != hwtr_amd64_r11 || op->alu) &&
				    (known >> r & 1)) {
					out[r] = val[r];
					proven |= (uint16_t)(1u << r);
				}
		}
		for (r = 0; r < RECOVER_NREGS; r++) {
			bool writes = op->writes >> r & 1;

			if (proven >> r & 1) {
				if (!writes && (known >> r & 1)) {
					if (val[r] != out[r])
						rec->stats.conflicts++;
					continue;
				}
				val[r] = out[r];
				known |= (uint16_t)(1u << r);
			} else if (writes) {
				known &= (uint16_t)~(1u << r);
			}
		}
		apply_at(rec, k, val, &known, &next_eq, -1);
	}
	for (r = 0; r < RECOVER_NREGS; r++)
		if (known >> r & 1)
			changed |= learn_init(rec, r, val[r]);
	recover_bytes_free(&mem.known);
	recover_bytes_free(&mem.written);
	return changed;
}

/* Forwards, operation K's memory: a load from bytes a known store left
 * (the loaded register in OUT, its bit returned), a store's bytes into MEM
 * (or out of it), a barrier clearing it. */
static uint16_t forward_memory(struct hwtr_recovery *rec, uint32_t k,
			       const uint64_t *val, uint16_t known,
			       struct recover_bytes *mem, uint64_t *out)
{
	const struct recover_op *op = op_at(rec, k);
	unsigned loaded = loaded_register(op);
	uint16_t proven = 0;
	uint64_t addr, len;
	uint8_t bytes[8];

	if (loaded != RECOVER_NOREG && mem->n &&
	    mem_address(rec, k, val, known, true, &addr) &&
	    recover_bytes_get(mem, addr, op->msize, bytes)) {
		out[loaded] = recover_x86_loaded(op, bytes);
		proven = (uint16_t)(1u << loaded);
	}
	if (op->mkind == recover_mem_store) {
		if (!mem_address(rec, k, val, known, true, &addr)) {
			recover_bytes_clear(mem);
		} else if (op->vkind == recover_value_imm ||
			   (op->vkind == recover_value_reg &&
			    (known >> op->vreg & 1))) {
			to_bytes(op->vkind == recover_value_imm
				 ? (uint64_t)op->vimm : val[op->vreg],
				 bytes, op->msize);
			if (recover_bytes_set(mem, addr, op->msize, bytes))
				recover_bytes_clear(mem);
		} else {
			recover_bytes_forget(mem, addr, op->msize);
		}
	} else if (mem_barrier(rec, k)) {
		recover_bytes_clear(mem);
	} else if (syscall_buffer(rec, k, &addr, &len)) {
		recover_bytes_forget(mem, addr, len);
	}
	return proven;
}

static bool forward_pass(struct hwtr_recovery *rec)
{
	uint64_t val[RECOVER_NREGS], out[RECOVER_NREGS];
	size_t idx[RECOVER_NREGS] = { 0 };
	uint16_t known = rec->init_known;
	struct recover_bytes mem = { NULL, 0, 0 };	/* left by known stores */
	struct recover_op tmp, tmp2;
	const struct recover_op *run;
	uint32_t flags = 0, fknown = 0;	/* after the last operation */
	ptrdiff_t next_eq = 0;
	uint64_t addr;
	uint8_t bytes[8];
	bool changed = false;
	size_t k;
	unsigned r;

	memcpy(val, rec->init, sizeof(val));
	for (k = 0; k < rec->nops; k++) {
		const struct recover_op *op = op_at(rec, k);
		uint16_t proven;

		apply_at(rec, k, val, &known, &next_eq, 1);

		if (reads_operand(op) && rec->read_memory &&
		    mem.n && mem_address(rec, (uint32_t)k, val, known, true,
					 &addr) &&
		    recover_bytes_get(&mem, addr, op->msize, bytes))
			changed |= learn_operand(rec, k,
						 little_endian(bytes, op->msize));
		changed |= learn_flags(rec, k, flags, fknown);
		run = with_flags(rec, k, with_operand(rec, k, &tmp), &tmp2);
		proven = recover_x86_forward(run, val, known, out);
		/* r11 after the kernel's system call: rflags before it. */
		if (syscall_flags_in_r11(rec, (uint32_t)k) &&
		    rec->fknown[k] == RECOVER_FLAGS_ALL) {
			out[hwtr_amd64_r11] = rec->fval[k];
			proven |= 1u << hwtr_amd64_r11;
		}
		fknown = flags_after(rec, (uint32_t)k, run, val, known, &flags);

		/* Memory only when the caller says nothing else wrote it (one
		 * thread): another thread may store between two of this
		 * one's instructions. */
		if (rec->read_memory)
			proven |= forward_memory(rec, (uint32_t)k, val, known,
						 &mem, out);
		for (r = 0; r < RECOVER_NREGS; r++) {
			size_t i;

			if (!(op->writes >> r & 1))
				continue;
			i = idx[r]++;
			if (proven >> r & 1)
				changed |= learn(rec, r, i, out[r]);
			if (rec->slots[r].known[i]) {
				val[r] = rec->slots[r].val[i];
				known |= (uint16_t)(1u << r);
			} else {
				known &= (uint16_t)~(1u << r);
			}
		}
	}
	changed |= learn_flags(rec, rec->nops, flags, fknown);
	recover_bytes_free(&mem);
	return changed;
}

/* A slot (or the value before the window, SLOT UINT32_MAX) of R. */
static bool slot_value(const struct hwtr_recovery *rec, unsigned r,
		       uint32_t slot, uint64_t *v)
{
	if (slot == UINT32_MAX) {
		*v = rec->init[r];
		return rec->init_known >> r & 1;
	}
	*v = rec->slots[r].val[slot];
	return rec->slots[r].known[slot];
}

static bool learn_slot(struct hwtr_recovery *rec, unsigned r, uint32_t slot,
		       uint64_t v)
{
	return slot == UINT32_MAX ? learn_init(rec, r, v)
				  : learn(rec, r, slot, v);
}

static bool apply_equalities(struct hwtr_recovery *rec,
			     const struct recover_equality *eq, size_t n)
{
	bool changed = false;
	uint64_t v;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct recover_equality *e = &eq[i];

		if (e->constant) {
			changed |= learn_slot(rec, e->reg, e->slot, e->value);
		} else if (slot_value(rec, e->reg, e->slot, &v)) {
			changed |= learn_slot(rec, e->src_reg, e->src_slot,
					      v - (uint64_t)e->offset);
		} else if (slot_value(rec, e->src_reg, e->src_slot, &v)) {
			changed |= learn_slot(rec, e->reg, e->slot,
					      v + (uint64_t)e->offset);
		}
	}
	return changed;
}

/* What the stack slots carry (recover-stack.h) and what the branches
 * proved (recover-branch.h): a register loaded back is what was stored,
 * whichever of the two is known; a register compared equal is the other
 * or the constant. */
static bool equality_pass(struct hwtr_recovery *rec)
{
	bool stack = apply_equalities(rec, rec->equalities, rec->nequalities);

	return apply_equalities(rec, rec->facts, rec->nfacts) || stack;
}

static int compare_refs(const void *a, const void *b)
{
	const struct store_ref *x = a, *y = b;

	if (x->word != y->word)
		return x->word < y->word ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static int push_barrier(struct hwtr_recovery *rec, uint32_t k, size_t *cap)
{
	if (rec->nbarriers == *cap) {
		size_t n = *cap ? 2 * *cap : 256;
		uint32_t *p = realloc(rec->barriers, n * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		rec->barriers = p;
		*cap = n;
	}
	rec->barriers[rec->nbarriers++] = k;
	return 0;
}

/* After the passes: every store with its address and value where known,
 * indexed by the words it touches, and the barriers, for
 * hwtr_recovery_memory. */
static int index_stores(struct hwtr_recovery *rec)
{
	size_t cap_stores = 0, cap_refs = 0, cap_barriers = 0;
	uint64_t addr, v, w, size;
	size_t k;
	int err;

	for (k = 0; k < rec->nops; k++) {
		const struct recover_op *op = op_at(rec, k);
		struct recovered_store *st;

		/* A system call's buffer: a store of bytes not known. */
		if (op->mkind != recover_mem_store &&
		    !syscall_buffer(rec, (uint32_t)k, &addr, &size)) {
			if (mem_barrier(rec, (uint32_t)k) &&
			    (err = push_barrier(rec, (uint32_t)k, &cap_barriers)))
				return err;
			continue;
		}
		if (op->mkind == recover_mem_store)
			size = op->msize;
		if (op->mkind == recover_mem_store &&
		    !mem_address(rec, (uint32_t)k, NULL, 0, false, &addr)) {
			if ((err = push_barrier(rec, (uint32_t)k, &cap_barriers)))
				return err;
			continue;
		}
		if (rec->nstores == cap_stores) {
			size_t n = cap_stores ? 2 * cap_stores : 1024;
			struct recovered_store *p = realloc(rec->stores,
							    n * sizeof(*p));

			if (!p)
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			rec->stores = p;
			cap_stores = n;
		}
		st = &rec->stores[rec->nstores];
		memset(st, 0, sizeof(*st));
		st->op = (uint32_t)k;
		st->addr = addr;
		st->size = (uint32_t)size;
		if (op->mkind != recover_mem_store) {
			/* (the kernel's bytes: not known) */
		} else if (op->msize <= 8 && op->vkind == recover_value_imm) {
			to_bytes((uint64_t)op->vimm, st->val, op->msize);
			st->value_known = true;
		} else if (op->msize <= 8 && op->vkind == recover_value_reg &&
			   value_before(rec, op->vreg, (uint32_t)k, &v)) {
			to_bytes(v, st->val, op->msize);
			st->value_known = true;
		}
		for (w = addr & ~7ull; w < addr + size; w += 8) {
			if (rec->nrefs == cap_refs) {
				size_t n = cap_refs ? 2 * cap_refs : 1024;
				struct store_ref *p = realloc(rec->refs,
							      n * sizeof(*p));

				if (!p)
					return hwtr_fail(hwtr_err_nomem,
							 "out of memory");
				rec->refs = p;
				cap_refs = n;
			}
			rec->refs[rec->nrefs].word = w;
			rec->refs[rec->nrefs].op = (uint32_t)k;
			rec->refs[rec->nrefs++].store = (uint32_t)rec->nstores;
		}
		rec->nstores++;
	}
	if (rec->nrefs)
		qsort(rec->refs, rec->nrefs, sizeof(*rec->refs), compare_refs);
	return 0;
}

int hwtr_recovery_open(struct hwtr_thread *thread,
		       const struct hwtr_recovery_end *end, uint64_t window,
		       struct hwtr_recovery **out)
{
	struct hwtr_thread_stats ts;
	struct hwtr_recovery *rec;
	struct hwtr_insn last;
	unsigned pass;
	int err;

	if (!thread || !end || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recovery_open: NULL");
	*out = NULL;
	if ((err = hwtr_thread_stats(thread, &ts)))
		return err;
	if (!window)
		window = HWTR_RECOVERY_WINDOW;
	if (end->position < 1 || end->position > ts.instructions + 1 ||
	    !ts.instructions)
		return hwtr_fail(hwtr_err_range, "recovery: thread %u: end "
				 "position %llu is outside the history "
				 "(1..%llu and the one after it)", ts.tid,
				 (unsigned long long)end->position,
				 (unsigned long long)ts.instructions);
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	rec->thread = thread;
	rec->end = end->position;
	rec->read_memory = end->read_memory;
	/* (only with the rest of memory: one thread) */
	rec->read_fixed = end->read_memory ? end->read_fixed_memory : NULL;
	rec->memory_ctx = end->memory_ctx;
	memcpy(rec->endv, end->regs, sizeof(rec->endv));
	rec->end_known = end->known;
	rec->fs_base = end->fs_base;
	rec->fs_base_known = end->fs_base_known;
	rec->under_valgrind = end->under_valgrind;
	if ((err = hwtr_cursor_alloc(thread, &rec->cursor)))
		goto fail;
	/* The end state at the last instruction: that instruction has not
	 * run; after it, its successor is the end state's pc. */
	if (rec->end <= ts.instructions) {
		if ((err = hwtr_cursor_goto(rec->cursor, rec->end)) ||
		    (err = hwtr_cursor_insn(rec->cursor, &last)))
			goto fail;
	} else {
		last.ip = end->pc;
	}
	rec->anchors = end->anchors;
	rec->nanchors = end->anchors ? end->nanchors : 0;
	err = build(rec, window, ts.instructions, last.ip);
	rec->anchors = NULL;	/* the caller's */
	rec->nanchors = 0;
	if (err)
		goto fail;
	recover_ops_built(&rec->ops);
	if ((err = index_operands(rec)))
		goto fail;
	rec->fval = calloc(rec->nops + 1, sizeof(*rec->fval));
	rec->fknown = calloc(rec->nops + 1, sizeof(*rec->fknown));
	if (!rec->fval || !rec->fknown) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto fail;
	}
	if (end->eflags_known) {
		rec->fval[rec->nops] = end->eflags;
		rec->fknown[rec->nops] = RECOVER_FLAGS_ALL;
	}
	/* Through memory only when nothing else writes it (one thread). */
	if (rec->read_memory &&
	    (err = recover_stack_equalities(rec->ops.op, rec->op_ix,
					    rec->nops,
					    &rec->equalities,
					    &rec->nequalities)))
		goto fail;
	for (pass = 0; pass < MAX_PASSES; pass++) {
		bool b, f, e;

		find_fs_from(rec);
		find_maps_from(rec);
		b = backward_pass(rec);
		f = forward_pass(rec);
		e = equality_pass(rec);
		rec->stats.passes = pass + 1;
		if (!b && !f && !e)
			break;
	}
	find_fs_from(rec);
	if (rec->read_memory && (err = index_stores(rec)))
		goto fail;
	rec->stats.first = rec->first;
	rec->stats.end = rec->end;
	rec->stats.operations = rec->nops;
	*out = rec;
	return 0;
fail:
	hwtr_recovery_free(rec);
	return err;
}

void hwtr_recovery_free(struct hwtr_recovery *rec)
{
	unsigned r;

	if (!rec)
		return;
	for (r = 0; r < RECOVER_NREGS; r++) {
		free(rec->slots[r].op);
		free(rec->slots[r].val);
		free(rec->slots[r].known);
	}
	recover_ops_free(&rec->ops);
	free(rec->op_ix);
	free(rec->equalities);
	free(rec->facts);
	free(rec->resolvers);
	free(rec->operand_op);
	free(rec->operand);
	free(rec->operand_known);
	free(rec->fval);
	free(rec->fknown);
	free(rec->op_of);
	free(rec->stores);
	free(rec->refs);
	free(rec->barriers);
	hwtr_cursor_free(rec->cursor);
	recover_x86_close(rec->x86);
	free(rec);
}

int hwtr_recovery_register(struct hwtr_recovery *rec, uint64_t number,
			   unsigned regno, void *buf, size_t size)
{
	struct hwtr_insn insn;
	uint64_t v;
	int err;

	if (!rec || !buf)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recovery_register: NULL");
	if (size < 8)
		return hwtr_fail(hwtr_err_invalid, "recovery: register %u needs "
				 "8 bytes, not %zu", regno, size);
	if (number < rec->first || number > rec->end)
		return -hwtr_err_notfound;
	if (regno == hwtr_amd64_rip) {
		if (number == rec->end)
			return -hwtr_err_notfound;
		if ((err = hwtr_cursor_goto(rec->cursor, number)) ||
		    (err = hwtr_cursor_insn(rec->cursor, &insn)))
			return err;
		memcpy(buf, &insn.ip, 8);
		return 8;
	}
	if (regno == hwtr_amd64_eflags) {
		uint32_t k = rec->op_of[number - rec->first];

		if (rec->fknown[k] != RECOVER_FLAGS_ALL)
			return -hwtr_err_notfound;
		v = rec->fval[k];
		memcpy(buf, &v, 8);
		return 8;
	}
	if (regno >= RECOVER_NREGS)
		return -hwtr_err_notfound;
	if (!value_before(rec, regno, rec->op_of[number - rec->first], &v))
		return -hwtr_err_notfound;
	memcpy(buf, &v, 8);
	return 8;
}

/* The position of operation K (a clobber: the instruction before it). */
static uint64_t position_of(const struct hwtr_recovery *rec, uint32_t k)
{
	uint64_t lo = rec->first, hi = rec->end;

	/* The last position whose operation is at or before K. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (rec->op_of[mid - rec->first] <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The first index of SORTED (N values) at or after K. */
static size_t lower_bound(const uint32_t *sorted, size_t n, uint32_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sorted[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The slot of register R that holds its value before operation K, plus
 * one (0: the value before the window). */
static size_t slot_before(const struct hwtr_recovery *rec, unsigned r,
			  uint32_t k)
{
	return lower_bound(rec->slots[r].op, rec->slots[r].n, k);
}

/* An input register of operation K that is not known before it, or
 * RECOVER_NOREG (for the operations that compute their result from
 * registers). */
static unsigned unknown_input(const struct hwtr_recovery *rec, uint32_t k,
			      unsigned written)
{
	const struct recover_op *op = op_at(rec, k);
	unsigned in[2] = { RECOVER_NOREG, RECOVER_NOREG }, i;
	uint64_t v;

	switch (op->kind) {
	case recover_pop:
		if (written == hwtr_amd64_rsp)
			in[0] = hwtr_amd64_rsp;
		break;
	case recover_leave:
		if (written == hwtr_amd64_rsp)
			in[0] = hwtr_amd64_rbp;
		break;
	case recover_syscall:
		/* (a register the call keeps) */
		if (written != hwtr_amd64_rax && written != hwtr_amd64_rcx &&
		    written != hwtr_amd64_r11 &&
		    value_before(rec, hwtr_amd64_rax, k, &v) &&
		    recover_x86_syscall_keeps_registers(v))
			in[0] = written;
		break;
	case recover_mov:
	case recover_extend:
	case recover_mul_imm:
	case recover_sign_fill:
	case recover_bit_scan:
		in[0] = op->src;
		break;
	case recover_mul_wide:
		in[0] = hwtr_amd64_rax;
		in[1] = op->src;
		break;
	case recover_lea:
		in[0] = op->base;
		in[1] = op->index;
		break;
	case recover_alu_imm:
	case recover_unary:
	case recover_shift_imm:
	case recover_bswap:
	case recover_alu_mem:
		in[0] = op->dst;
		break;
	case recover_alu:
	case recover_xchg:
		in[0] = op->dst;
		in[1] = op->src;
		break;
	case recover_shift_cl:
		in[0] = op->dst;
		in[1] = hwtr_amd64_rcx;
		break;
	case recover_rsp_adjust:
		in[0] = hwtr_amd64_rsp;
		break;
	case recover_setcc:
	case recover_cmov:
		/* (the compared registers; what it moves is not followed) */
		in[0] = op->base;
		in[1] = op->index;
		break;
	default:
		break;
	}
	/* A load from an address not known: the register that made it so. */
	if (loaded_register(op) == written) {
		in[0] = op->mbase;
		in[1] = op->mindex;
	}
	for (i = 0; i < 2; i++)
		if (in[i] != RECOVER_NOREG && !value_before(rec, in[i], k, &v))
			return in[i];
	return RECOVER_NOREG;
}

static const char *const reg_names[RECOVER_NREGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* The cause of register R unknown from the window's start: where going
 * backwards its value stops being known (the first known slot: the
 * operation that wrote it could not be inverted). */
static int window_start_cause(struct hwtr_recovery *rec, unsigned r,
			      char *buf, size_t size)
{
	const struct slots *s = &rec->slots[r];
	struct hwtr_insn insn;
	char mnemonic[32];
	size_t j;
	int err;

	for (j = 0; j < s->n && !s->known[j]; j++)
		;
	if (j == s->n) {
		snprintf(buf, size, "window start, %s never known", reg_names[r]);
		return 0;
	}
	if (op_at(rec, s->op[j])->kind == recover_clobber) {
		snprintf(buf, size, "window start, %s known after an "
			 "unexplained step", reg_names[r]);
		return 0;
	}
	if ((err = hwtr_cursor_goto(rec->cursor, position_of(rec, s->op[j]))) ||
	    (err = hwtr_cursor_insn(rec->cursor, &insn)) ||
	    (!rec->x86 && (err = recover_x86_open(&rec->x86))))
		return err;
	recover_x86_mnemonic(rec->x86, insn.ip, insn.raw, insn.size, mnemonic,
			     sizeof(mnemonic));
	snprintf(buf, size, "window start, %s known only after %s",
		 reg_names[r], mnemonic);
	return 0;
}

/* When R, written by operation K inside a resolver round trip and read
 * at operation AT after it, is the register the contract says is as it
 * was at the entry: the entry's operation; else UINT32_MAX. */
static uint32_t resolver_entered(const struct hwtr_recovery *rec, uint32_t k,
				 uint32_t at, unsigned r)
{
	size_t i;

	if (r == hwtr_amd64_r10 || r == hwtr_amd64_r11)
		return UINT32_MAX;
	for (i = rec->nresolvers; i-- > 0;)
		if (rec->resolvers[i].entry <= k &&
		    k < rec->resolvers[i].exit && rec->resolvers[i].exit <= at)
			return rec->resolvers[i].entry;
	return UINT32_MAX;
}

/* Why eflags is not known before operation K: the nearest operation
 * before it that writes a flag not known there (which flag, and the
 * mnemonic), or the window's start. */
static int flags_unknown_cause(struct hwtr_recovery *rec, uint32_t k,
			       char *buf, size_t size)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ RECOVER_CF, "CF" }, { RECOVER_PF, "PF" }, { RECOVER_AF, "AF" },
		{ RECOVER_ZF, "ZF" }, { RECOVER_SF, "SF" }, { RECOVER_OF, "OF" },
	};
	uint32_t missing = ~rec->fknown[k], w = 0;
	const char *flag = "a system flag";
	struct hwtr_insn insn;
	char mnemonic[32];
	size_t i;
	int err;

	if (!missing)
		return -hwtr_err_notfound;
	while (k > 0 && !((w = flags_written(rec, k - 1)) & missing))
		k--;
	if (!k) {
		snprintf(buf, size, "eflags, window start");
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (w & missing & names[i].bit) {
			flag = names[i].name;
			break;
		}
	if (op_at(rec, k - 1)->kind == recover_clobber) {
		snprintf(buf, size, "eflags, unexplained step");
		return 0;
	}
	if (op_at(rec, k - 1)->kind == recover_syscall) {
		snprintf(buf, size, "eflags, syscall number unknown");
		return 0;
	}
	if ((err = hwtr_cursor_goto(rec->cursor, position_of(rec, k - 1))) ||
	    (err = hwtr_cursor_insn(rec->cursor, &insn)) ||
	    (!rec->x86 && (err = recover_x86_open(&rec->x86))))
		return err;
	recover_x86_mnemonic(rec->x86, insn.ip, insn.raw, insn.size, mnemonic,
			     sizeof(mnemonic));
	snprintf(buf, size, "eflags, %s not known after %s", flag, mnemonic);
	return 0;
}

int hwtr_recovery_unknown_cause(struct hwtr_recovery *rec, uint64_t number,
				unsigned regno, char *buf, size_t size)
{
	const struct recover_op *op;
	struct hwtr_insn insn;
	char mnemonic[32];
	const char *kind;
	unsigned r = regno, input, hops;
	uint64_t addr;
	uint32_t k, at, entry;
	size_t i;
	int err;

	if (!rec || !buf || !size)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_recovery_unknown_cause: NULL");
	if (number < rec->first && number <= rec->end &&
	    (regno < RECOVER_NREGS || regno == hwtr_amd64_eflags)) {
		snprintf(buf, size, "before the window");
		return 0;
	}
	if (number <= rec->end && regno == hwtr_amd64_eflags)
		return flags_unknown_cause(rec, rec->op_of[number - rec->first],
					   buf, size);
	if (number > rec->end || regno >= RECOVER_NREGS)
		return -hwtr_err_notfound;
	k = rec->op_of[number - rec->first];
	/* Back along the operations that passed an unknown value on, to the
	 * one that made it unknown. */
	for (hops = 0;; hops++) {
		i = slot_before(rec, r, k);
		if (!i) {
			if (rec->init_known >> r & 1)
				return -hwtr_err_notfound;
			return window_start_cause(rec, r, buf, size);
		}
		if (rec->slots[r].known[i - 1])
			return -hwtr_err_notfound;
		at = k;
		k = rec->slots[r].op[i - 1];
		op = op_at(rec, k);
		if (hops == 100000 || op->kind == recover_unmodelled)
			break;
		if ((entry = resolver_entered(rec, k, at, r)) != UINT32_MAX) {
			/* A register the contract keeps: as at the entry. */
			k = entry;
			continue;
		}
		if ((input = unknown_input(rec, k, r)) == RECOVER_NOREG)
			break;
		r = input;
	}
	if (op->kind == recover_clobber) {
		snprintf(buf, size, "unexplained step");
		return 0;
	}
	if (op->kind == recover_syscall) {
		snprintf(buf, size, "syscall %s", r == hwtr_amd64_rax ? "rax"
			 : r == hwtr_amd64_rcx ? "rcx" : r == hwtr_amd64_r11
			 ? "r11" : "number unknown");
		return 0;
	}
	if ((err = hwtr_cursor_goto(rec->cursor, position_of(rec, k))) ||
	    (err = hwtr_cursor_insn(rec->cursor, &insn)) ||
	    (!rec->x86 && (err = recover_x86_open(&rec->x86))))
		return err;
	recover_x86_mnemonic(rec->x86, insn.ip, insn.raw, insn.size, mnemonic,
			     sizeof(mnemonic));
	if (op->kind == recover_unmodelled)
		kind = "unmodelled";
	else if (loaded_register(op) == r)
		kind = mem_address(rec, k, NULL, 0, false, &addr)
		       ? "load, memory not proven," : "load, address unknown,";
	else
		kind = "input not known:";
	snprintf(buf, size, "%s %s", kind, mnemonic);
	return 0;
}

int hwtr_recovery_stats(const struct hwtr_recovery *rec,
			struct hwtr_recovery_stats *stats)
{
	if (!rec || !stats)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recovery_stats: NULL");
	*stats = rec->stats;
	return 0;
}


/* The first store ref of WORD at or after operation K. */
static size_t first_ref(const struct hwtr_recovery *rec, uint64_t word,
			uint32_t k)
{
	size_t lo = 0, hi = rec->nrefs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct store_ref *r = &rec->refs[mid];

		if (r->word < word || (r->word == word && r->op < k))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool covers(const struct recovered_store *st, uint64_t addr)
{
	return addr >= st->addr && addr - st->addr < st->size;
}

/* Byte ADDR before operation K. */
static uint8_t memory_byte(const struct hwtr_recovery *rec, uint32_t k,
			   uint64_t addr, uint8_t *value)
{
	size_t b = lower_bound(rec->barriers, rec->nbarriers, k), i;
	uint32_t next_barrier = b < rec->nbarriers ? rec->barriers[b] : UINT32_MAX;
	uint32_t prev_barrier = b ? rec->barriers[b - 1] : 0;
	bool barrier_before = b > 0;
	uint64_t word = addr & ~7ull;
	size_t first = first_ref(rec, word, k);
	bool written_later = false;

	for (i = first; i < rec->nrefs && rec->refs[i].word == word; i++)
		if (covers(&rec->stores[rec->refs[i].store], addr)) {
			written_later = true;
			break;
		}
	if (!written_later && next_barrier == UINT32_MAX)
		return hwtr_value_same;
	/* Changed later: known only if a recovered store set it, after the
	 * last barrier before K. */
	for (i = first; i-- > 0 && rec->refs[i].word == word;) {
		const struct recovered_store *st = &rec->stores[rec->refs[i].store];

		if (barrier_before && st->op <= prev_barrier)
			break;
		if (!covers(st, addr))
			continue;
		if (!st->value_known)
			break;
		*value = st->val[addr - st->addr];
		return hwtr_value_old;
	}
	return hwtr_value_unknown;
}

int hwtr_recovery_memory(struct hwtr_recovery *rec, uint64_t number,
			 uint64_t addr, void *buf, uint8_t *state, size_t size)
{
	uint8_t *out = buf;
	size_t i;

	if (!rec || (size && (!buf || !state)))
		return hwtr_fail(hwtr_err_invalid, "hwtr_recovery_memory: NULL");
	if (number < rec->first || number > rec->end || !rec->read_memory) {
		memset(state, hwtr_value_unknown, size);
		return 0;
	}
	for (i = 0; i < size; i++)
		state[i] = memory_byte(rec, rec->op_of[number - rec->first],
				       addr + i, &out[i]);
	return 0;
}
