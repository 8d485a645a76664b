/* segments.c: the function segments of a thread, GDB's btrace model.
 *
 * The index pass (history.c) hands each block's first instruction to
 * segment_update_function: a new segment at call, return, tail jump and
 * symbol change, returns with no matching call one level up (GDB's
 * btrace.c, ftrace_update_function and its helpers, whose names the
 * functions here keep).  What a block does is planned first (plan_next)
 * and done after (start_segment), so that the stack of an instruction
 * after the end is the pass's own answer (hwtr_thread_callstack_next).
 * An older segment changed after the last chunk start is logged in the
 * builder's restart state (changing), so that extending the history can
 * put it back (index-builder.h).  Also the lookups of segments by
 * instruction number and their public view.
 */
#include "segments.h"

#include "error.h"
#include "gaps.h"
#include "index-builder.h"

#include <stdlib.h>
#include <string.h>

#define SEG_PUBLIC_FLAGS (HWTR_SEG_UP_LINKS_TO_RET | HWTR_SEG_UP_LINKS_TO_TAILCALL | HWTR_SEG_GAP)

static struct segment *seg(const struct hwtr_thread *t, uint64_t number)
{
	return number ? &t->segments[number - 1] : NULL;
}

static uint64_t seg_number(const struct hwtr_thread *t, const struct segment *s)
{
	return s ? (uint64_t)(s - t->segments) + 1 : 0;
}

int segment_new(struct builder *b, uint32_t function, struct segment **out)
{
	struct hwtr_thread *t = b->thread;
	struct segment *s;
	int err = history_grow((void **)&t->segments, &b->cap_segments, t->nsegments,
		       sizeof(*t->segments));

	if (err)
		return err;
	if (t->nsegments >= UINT32_MAX)
		return hwtr_fail(hwtr_err_nomem, "more than 2^32 function segments");
	s = &t->segments[t->nsegments++];
	memset(s, 0, sizeof(*s));
	s->insn_begin = t->ninsns + 1;
	s->function = function;
	if (t->nsegments > 1)
		s->level = t->segments[t->nsegments - 2].level;
	*out = s;
	return 0;
}

/* Segment NUMBER is about to change: an older one than the last chunk's
 * start is logged, so that the chunk can be decoded again (restore). */
static void changing(struct builder *b, uint64_t number)
{
	struct restart *r = &b->restart;
	struct segment_undo *u;

	if (!r->valid || number >= r->nsegments)
		return;	/* new, or the one the start saved whole */
	if (history_grow((void **)&r->undo, &r->cap_undo, r->nundo, sizeof(*r->undo))) {
		r->undo_failed = true;	/* the thread is built again */
		return;
	}
	u = &r->undo[r->nundo++];
	u->number = number;
	u->was = b->thread->segments[number - 1];
}

static void set_up(struct builder *b, struct segment *s, uint64_t up,
		   uint32_t flags)
{
	changing(b, seg_number(b->thread, s));
	s->up = (uint32_t)up;
	s->flags = (s->flags & ~(HWTR_SEG_UP_LINKS_TO_RET |
				 HWTR_SEG_UP_LINKS_TO_TAILCALL)) | flags;
}

/* GDB's ftrace_fixup_caller: every segment of BFUN's activation gets CALLER
 * as its caller. */
static void fixup_caller(struct builder *b, struct segment *bfun,
			 uint64_t caller, uint32_t flags)
{
	struct hwtr_thread *t = b->thread;
	struct segment *s;

	set_up(b, bfun, caller, flags);
	for (s = seg(t, bfun->prev); s; s = seg(t, s->prev))
		set_up(b, s, caller, flags);
	for (s = seg(t, bfun->next); s; s = seg(t, s->next))
		set_up(b, s, caller, flags);
}

#define LINK_FLAGS (HWTR_SEG_UP_LINKS_TO_RET | HWTR_SEG_UP_LINKS_TO_TAILCALL)

/* What the next block does to the function segments, decided without
 * changing them (plan_next) and then done (start_segment): the index pass
 * does both; hwtr_thread_callstack_next only plans, for an instruction
 * after the end of the history. */
struct next_segment {
	bool same;		/* the block goes on in the last segment */
	/* Else the new segment: */
	uint32_t function;
	int32_t level;
	uint64_t up, prev;
	uint32_t flags;
	/* A return to no caller in the trace: the segment that gets the new
	 * one as its caller (a return link): the last one when the return
	 * starts a separate back trace, the topmost, with every segment of
	 * its activation (WHOLE_ACTIVATION), when the call is not traced. */
	uint64_t callee;
	bool whole_activation;
};

static void plan_call(const struct hwtr_thread *t, uint32_t flags,
		      struct next_segment *n)
{
	struct segment last;

	segment_read(t, t->nsegments, &last);
	n->up = t->nsegments;
	n->level = last.level + 1;
	n->flags = flags;
}

/* GDB's ftrace_new_return, returning to function FID; SKIP_CALLER: not to
 * the frame that called PREV (_Unwind_Resume goes on unwinding from it). */
static void plan_return(const struct hwtr_thread *t, uint32_t fid,
			bool skip_caller, struct next_segment *n)
{
	struct segment prev, c;
	uint64_t caller, top;

	/* The last caller up the stack that is the function we return to.  A
	 * function entered by a tail jump returns to its tail-caller's caller,
	 * so tail-call links are skipped first (GDB's btrace matches by name
	 * only and, with recursion, returns one activation too deep). */
	segment_read(t, t->nsegments, &prev);
	caller = t->nsegments;
	c = prev;
	while (caller && (c.flags & HWTR_SEG_UP_LINKS_TO_TAILCALL))
		segment_load(t, caller = c.up, &c);
	if (caller)
		segment_load(t, caller = c.up, &c);
	if (skip_caller && caller)
		segment_load(t, caller = c.up, &c);
	for (; caller; segment_load(t, caller = c.up, &c))
		if (c.function == fid && !(c.flags & HWTR_SEG_GAP))
			break;
	if (caller && c.next == 0) {
		n->prev = caller;
		n->level = c.level;
		n->up = c.up;
		n->flags = c.flags & LINK_FLAGS;
		return;
	}
	/* Else: is there any call up the stack we should have returned to? */
	for (segment_load(t, caller = prev.up, &c); caller;
	     segment_load(t, caller = c.up, &c))
		if (!(c.flags & HWTR_SEG_GAP) && (c.flags & SEG_ENDS_WITH_CALL))
			break;
	if (caller) {
		/* Start a separate back trace at PREV's level. */
		n->level = prev.level - 1;
		n->callee = t->nsegments;
		return;
	}
	/* The call is not in the trace: add a caller above the topmost
	 * segment (handles a series of initial tail calls too). */
	top = t->nsegments;
	for (c = prev; c.up; segment_read(t, top = c.up, &c))
		;
	n->level = c.level - 1;
	n->callee = top;
	n->whole_activation = true;
}

static bool is_pic_call(const struct hwtr_thread *t,
			const struct last_block *last, uint64_t ip)
{
	uint8_t byte = 0;
	size_t n;

	/* "call next instruction" (e8 00000000) computes the PC, not a call. */
	if (ip != last->last_end_ip + 5)
		return false;
	n = image_epoch_read(t->history->images, last->last_epoch,
			     last->last_end_ip, &byte, 1);
	return isa_is_pic_call(last->last_isa, &byte, n);
}

/* GDB's ftrace_update_function, for a block at IP in function FID after
 * LAST: a new segment at call, return, tail jump and symbol change. */
static void plan_next(const struct hwtr_thread *t, const struct last_block *last,
		      uint64_t ip, uint32_t fid, struct next_segment *n)
{
	struct segment last_seg;
	const struct segment *bfun = &last_seg;

	memset(n, 0, sizeof(*n));
	n->function = fid;
	if (t->nsegments == 0)
		return;
	segment_read(t, t->nsegments, &last_seg);
	n->level = bfun->level;
	if (bfun->flags & HWTR_SEG_GAP || !last->have_last)
		return;		/* after a gap: no caller known */
	switch (last->last_iclass) {
	case hwtr_ic_return:
		/* _dl_runtime_resolve may "return" into the resolved function. */
		if (symbolizer_function_traits(t->history->symbols, bfun->function) &
		    SYMBOL_RETURNS_TO_CALLEE)
			plan_call(t, HWTR_SEG_UP_LINKS_TO_TAILCALL, n);
		else
			plan_return(t, fid, false, n);
		return;
	case hwtr_ic_call:
		if (is_pic_call(t, last, ip))
			break;
		plan_call(t, 0, n);
		return;
	case hwtr_ic_jump: {
		uint64_t start = symbolizer_function_start(t->history->symbols, fid);
		unsigned traits;

		/* A jump to the start of a function is a tail call. */
		if (start == ip) {
			plan_call(t, HWTR_SEG_UP_LINKS_TO_TAILCALL, n);
			return;
		}
		/* _Unwind_* "return" to a handler with an indirect jump, and
		 * longjmp to the function that called setjmp (the nearest
		 * activation of it up the stack).  The traits are part of the
		 * symbols' digest: a saved index of other rules is stale. */
		traits = symbolizer_function_traits(t->history->symbols,
						    bfun->function);
		if (traits & (SYMBOL_UNWINDER | SYMBOL_LONGJMP)) {
			bool skip = (traits & SYMBOL_RESUMES_UNWINDING) != 0;
			struct segment c;
			uint64_t up;

			segment_load(t, up = bfun->up, &c);
			if (skip && up)
				segment_load(t, up = c.up, &c);
			for (; up; segment_load(t, up = c.up, &c))
				if (c.function == fid) {
					plan_return(t, fid, skip, n);
					return;
				}
		}
		if (start == 0 && fid != bfun->function) {
			plan_call(t, HWTR_SEG_UP_LINKS_TO_TAILCALL, n);
			return;
		}
		break;
	}
	default:
		break;
	}
	/* Any other change of function: longjmp, odd calling conventions. */
	if (fid != bfun->function) {
		n->up = bfun->up;
		n->flags = bfun->flags & LINK_FLAGS;
		return;
	}
	n->same = true;
}

static int start_segment(struct builder *b, const struct next_segment *n)
{
	struct hwtr_thread *t = b->thread;
	struct segment *s;
	int err;

	if (n->same)
		return 0;
	/* Segments are found by number: segment_new() may move the array. */
	if ((err = segment_new(b, n->function, &s)))
		return err;
	s->level = n->level;
	s->up = (uint32_t)n->up;
	s->prev = (uint32_t)n->prev;
	s->flags = n->flags;
	if (n->prev) {
		changing(b, n->prev);
		seg(t, n->prev)->next = (uint32_t)t->nsegments;
	}
	if (n->callee && n->whole_activation)
		fixup_caller(b, seg(t, n->callee), t->nsegments,
			     HWTR_SEG_UP_LINKS_TO_RET);
	else if (n->callee)
		set_up(b, seg(t, n->callee), t->nsegments,
		       HWTR_SEG_UP_LINKS_TO_RET);
	return 0;
}

/* The function at IP in the image of EPOCH: the program running then (an
 * exec puts another one at the same addresses). */
static uint32_t cached_lookup(void *ctx, unsigned epoch, uint64_t ip)
{
	return symbolizer_function(ctx, epoch, ip);
}

uint32_t segment_function_at(struct builder *b, uint64_t ip, unsigned epoch)
{
	struct hwtr_symbolizer *s = b->thread->history->symbols;

	return fn_memo_at(&b->fn, s, cached_lookup, s, ip, epoch);
}

/* The first instruction of a block, at IP in the image of EPOCH. */
int segment_update_function(struct builder *b, uint64_t ip, unsigned epoch)
{
	struct next_segment n;

	plan_next(b->thread, &b->last, ip, segment_function_at(b, ip, epoch), &n);
	return start_segment(b, &n);
}

uint64_t history_segment_of(const struct hwtr_thread *t, uint64_t number)
{
	size_t lo = 0, hi = t->nsegments;

	if (t->segment_store)
		return segment_store_find(t->segment_store, number);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		struct segment s;

		segment_read(t, mid + 1, &s);
		if (s.insn_begin <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;	/* segment numbers are 1-based */
}

int segments_compact(struct hwtr_thread *t)
{
	struct segment_store *store;
	int err;

	if (t->segment_store)
		return 0;	/* a saved index's, or compact already */
	/* The array's pages go as they are read: a 2.7 GB array then
	 * needs no 600 MB more beside it. */
	err = segment_store_compact_consuming(t->segments, t->nsegments, &store);
	free(t->segments);
	t->segments = NULL;
	if (err) {
		t->nsegments = 0;	/* the array is gone: no history */
		return err;
	}
	if (t->builder) {
		/* Nothing to put back from: an extension builds it again. */
		free(t->builder->restart.undo);
		memset(&t->builder->restart, 0, sizeof(t->builder->restart));
		t->builder->cap_segments = 0;
	}
	t->segment_store = store;
	return 0;
}

size_t segments_resident(const struct hwtr_thread *t)
{
	return t->segment_store ? segment_store_resident(t->segment_store)
				: t->nsegments * sizeof(struct segment);
}

/* Segment S as the public struct; NUMBER 0 for one the history does not
 * hold (hwtr_thread_callstack_next), which holds no instruction. */
static void segment_view(const struct hwtr_thread *t, const struct segment *s,
			 uint64_t number, struct hwtr_segment *out)
{
	memset(out, 0, sizeof(*out));
	out->number = number;
	out->up = s->up;
	out->prev = s->prev;
	out->next = s->next;
	out->level = s->level + t->level_base;
	out->flags = s->flags & SEG_PUBLIC_FLAGS;
	out->insn_begin = s->insn_begin;
	if (number == 0)
		out->insn_end = s->insn_begin;
	else if (number < t->nsegments) {
		struct segment next;

		segment_read(t, number + 1, &next);
		out->insn_end = next.insn_begin;
	} else
		out->insn_end = t->ninsns + 1;
	out->function = symbolizer_function_name(t->history->symbols, s->function);
	out->function_start =
		symbolizer_function_start(t->history->symbols, s->function);
	if (s->flags & HWTR_SEG_GAP) {
		const struct gap_entry *g = history_gap_at(t, s->insn_begin);

		out->gap = g ? &g->gap : NULL;
	}
}

void history_segment_view(const struct hwtr_thread *t, uint64_t number,
			  struct hwtr_segment *out)
{
	struct segment s;

	segment_read(t, number, &s);
	segment_view(t, &s, number, out);
}

int hwtr_thread_segment(const struct hwtr_thread *t, uint64_t number,
			struct hwtr_segment *segment)
{
	if (!t || !segment)
		return hwtr_fail(hwtr_err_invalid, "hwtr_thread_segment: bad argument");
	if (number == 0 || number > t->nsegments)
		return hwtr_fail(hwtr_err_range,
				 "thread %u has no function segment %llu (it has "
				 "%zu)", t->tid, (unsigned long long)number,
				 t->nsegments);
	history_segment_view(t, number, segment);
	return 0;
}

/* The index pass's own decision for a block at IP after the last one
 * (plan_next), without making the segment: the tail is not in the trace,
 * and the next extension decodes what really follows. */
int hwtr_thread_callstack_next(const struct hwtr_thread *t, uint64_t ip,
			       struct hwtr_segment *segments, size_t max)
{
	struct next_segment n = { .same = true };
	struct segment planned;
	uint64_t number;
	size_t k = 0;

	if (!t || (!segments && max))
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_thread_callstack_next: bad argument");
	if (t->nsegments == 0)
		return 0;
	if (t->builder) {
		/* IP is where the thread stands at the end: the image alive
		 * then names its function. */
		unsigned epoch;
		uint32_t fid = 0;

		if (symbolizer_end_epoch(t->history->symbols, &epoch) == 0)
			fid = symbolizer_function(t->history->symbols, epoch, ip);
		plan_next(t, &t->builder->last, ip, fid, &n);
	}
	number = n.same ? t->nsegments : n.up;
	if (!n.same && max) {
		memset(&planned, 0, sizeof(planned));
		planned.insn_begin = t->ninsns + 1;
		planned.up = (uint32_t)n.up;
		planned.prev = (uint32_t)n.prev;
		planned.level = n.level;
		planned.function = n.function;
		planned.flags = n.flags;
		segment_view(t, &planned, 0, &segments[k++]);
	}
	while (number && k < max) {
		history_segment_view(t, number, &segments[k]);
		number = segments[k].up;
		k++;
	}
	return (int)k;
}
