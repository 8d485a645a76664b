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
 * put it back (index-builder.h).  Across a gap where tracing was off (the
 * kernel ran) a signal handler gets the interrupted segment as its caller,
 * and the code after its sigreturn goes back into that activation
 * (plan_after_disabled).  Also the lookups of segments by instruction
 * number and their public view.
 */
#include "segments.h"

#include "error.h"
#include "gaps.h"
#include "history-parallel.h"
#include "index-builder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEG_PUBLIC_FLAGS (HWTR_SEG_UP_LINKS_TO_RET | HWTR_SEG_UP_LINKS_TO_TAILCALL | HWTR_SEG_GAP)

/* ------------------------------------------------------------ storage
 *
 * The index pass keeps the last segments whole in an array and compacts
 * the older ones as it goes (segment-store.c), so that a build's memory
 * tracks the compact size (4.5-6.3 bytes a segment), not 32 bytes a
 * segment.  An older segment still changes now and then: a return links
 * its caller's segment (next), one to no traced caller relinks a callee or
 * a whole activation (up and its flags), extending puts segments back.
 * Those changes are kept beside the compacted groups (patches, with a bit
 * a group) and coded into them when the history is finished
 * (segment_store_finish), which then holds what compacting the whole array
 * and packing it would, in the saved form history.idx takes as is: the
 * saved index is the same byte for byte, and a first build writes the
 * segments once more, compressed, not twice.  A group is compacted
 * once SEGMENT_WINDOW segments follow it, and never past the last chunk
 * start (the restart point, which the pass may go back to).  The compact
 * store, growing and finished, lives in an unlinked file in the recording's
 * directory once it is large (spill-buffer.h), so that neither the build
 * nor the server after it keeps a segment resident that it does not read.
 */

/* Segments kept whole: HWTREC_SEGMENT_WINDOW, for tests (64: a group
 * compacted as soon as it can), else 64 K (2 MB). */
static uint64_t segment_window(void)
{
	static uint64_t window;
	const char *env;

	if (!window) {
		uint64_t w = 1u << 16;

		if ((env = getenv("HWTREC_SEGMENT_WINDOW")) && strtoull(env, NULL, 10))
			w = strtoull(env, NULL, 10);
		window = (w + SEGMENT_GROUP - 1) / SEGMENT_GROUP * SEGMENT_GROUP;
	}
	return window;
}

/* Compacted segments as they are now, where they changed since. */
struct patch {
	uint64_t number;	/* 0: empty slot */
	struct segment seg;
};

struct segment_patches {
	struct patch *slots;
	size_t cap, count;	/* cap: a power of 2, at most half full */
	uint64_t *groups;	/* a bit for each group with a patch */
	size_t cap_words;
};

static size_t patch_slot(const struct segment_patches *p, uint64_t number)
{
	size_t i = (size_t)(number * 0x9e3779b97f4a7c15ULL) & (p->cap - 1);

	while (p->slots[i].number && p->slots[i].number != number)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static bool group_patched(const struct segment_patches *p, uint64_t group)
{
	return p && group / 64 < p->cap_words &&
	       (p->groups[group / 64] >> (group % 64) & 1);
}

static const struct segment *patch_find(const struct segment_patches *p,
					uint64_t number)
{
	size_t i;

	if (!group_patched(p, (number - 1) / SEGMENT_GROUP))
		return NULL;
	i = patch_slot(p, number);
	return p->slots[i].number ? &p->slots[i].seg : NULL;
}

/* Room for one more patch and the bit of group GROUP: false when out of
 * memory. */
static bool patches_room(struct segment_patches *p, uint64_t group)
{
	if (group / 64 >= p->cap_words) {
		size_t words = p->cap_words ? p->cap_words : 64;
		uint64_t *grown;

		while (words <= group / 64)
			words *= 2;
		if (!(grown = realloc(p->groups, words * sizeof(*grown))))
			return false;
		memset(grown + p->cap_words, 0,
		       (words - p->cap_words) * sizeof(*grown));
		p->groups = grown;
		p->cap_words = words;
	}
	if (2 * (p->count + 1) > p->cap) {
		struct segment_patches bigger = *p;
		size_t i;

		bigger.cap = p->cap ? 2 * p->cap : 1024;
		if (!(bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots))))
			return false;
		for (i = 0; i < p->cap; i++)
			if (p->slots[i].number)
				bigger.slots[patch_slot(&bigger, p->slots[i].number)] =
					p->slots[i];
		free(p->slots);
		*p = bigger;
	}
	return true;
}

static void patches_free(struct segment_patches *p)
{
	if (!p)
		return;
	free(p->slots);
	free(p->groups);
	free(p);
}

/* Sealing in the background: when the build may use more than one
 * thread, the groups seal() takes from the array are coded into the
 * growing store by a thread of their own (a third of the stitching
 * thread's work on call-heavy code), from the array they were in, while
 * the stitching goes on in a second array (the two change places at every
 * seal).  The job's array answers reads of its segments meanwhile; the
 * store is not touched by the stitching thread (a read of an older
 * segment, the next seal, the finish) before that thread is joined. */
struct sealing {
	pthread_t id;
	bool running;
	struct segment_store *store;
	struct segment *segs;	/* the last job's array: segments FIRST..
				 * FIRST + COUNT - 1 at its start */
	uint64_t first, count;
	size_t cap;		/* of segs */
	int err;		/* of the last job */
	char message[256];	/* its error's */
};

static void *sealing_main(void *arg)
{
	struct sealing *job = arg;

	job->err = segment_store_append(job->store, job->segs, job->count);
	if (job->err)
		snprintf(job->message, sizeof(job->message), "%s", hwtr_last_error());
	return NULL;
}

/* The job done: 0, or its error (said again in this thread).  The error
 * stays until the next job starts, so that a wait whose caller cannot
 * return it (a read, the resident count) does not lose it for the next
 * seal or the finish. */
static int sealing_wait(struct sealing *job)
{
	if (!job)
		return 0;
	if (job->running) {
		pthread_join(job->id, NULL);
		job->running = false;
	}
	if (job->err)
		return hwtr_fail(job->err, "%s", job->message);
	return 0;
}

static void sealing_free(struct sealing *job)
{
	if (!job)
		return;
	sealing_wait(job);
	free(job->segs);
	free(job);
}

/* Sealed segment NUMBER as the store has it, or the last job's copy. */
static void sealed_read(const struct hwtr_thread *t, uint64_t number,
			struct segment *out)
{
	struct sealing *job = t->sealing;

	if (job && number >= job->first && number - job->first < job->count) {
		*out = job->segs[number - job->first];
		return;
	}
	/* A failed job's error comes back from the next seal or the finish;
	 * what it did not store reads as empty until then. */
	sealing_wait(job);
	segment_store_read(t->sealed, number, out);
}

void segment_read_sealed(const struct hwtr_thread *t, uint64_t number,
			 struct segment *out)
{
	const struct segment *patched = patch_find(t->patches, number);

	if (patched)
		*out = *patched;
	else
		sealed_read(t, number, out);
}

struct segment *segment_change(struct hwtr_thread *t, uint64_t number)
{
	struct segment_patches *p = t->patches;
	uint64_t group = (number - 1) / SEGMENT_GROUP;
	size_t i;

	if (number > t->segments_sealed)
		return &t->segments[number - 1 - t->segments_sealed];
	if (!p && !(p = t->patches = calloc(1, sizeof(*p))))
		return NULL;
	if (group_patched(p, group) && p->slots[i = patch_slot(p, number)].number)
		return &p->slots[i].seg;
	if (!patches_room(p, group))
		return NULL;
	i = patch_slot(p, number);
	p->slots[i].number = number;
	sealed_read(t, number, &p->slots[i].seg);
	p->groups[group / 64] |= (uint64_t)1 << (group % 64);
	p->count++;
	return &p->slots[i].seg;
}

/* Compact the array's groups that SEGMENT_WINDOW segments follow, up to
 * the restart point: 0, or an error (out of memory). */
static int seal(struct builder *b)
{
	struct hwtr_thread *t = b->thread;
	uint64_t upto = t->nsegments - segment_window(), count, keep;
	int err;

	if (b->restart.valid && upto > b->restart.nsegments)
		upto = b->restart.nsegments;
	upto -= upto % SEGMENT_GROUP;
	if (upto <= t->segments_sealed)
		return 0;
	if (!t->sealed &&
	    (err = segment_store_begin(hwtr_recording_path(t->history->recording),
				       &t->sealed)))
		return err;
	count = upto - t->segments_sealed;
	keep = t->nsegments - upto;
	if ((err = sealing_wait(t->sealing)))
		return err;
	if (!t->sealing && history_build_threads() > 1)
		t->sealing = calloc(1, sizeof(*t->sealing));
	if (t->sealing && t->sealing->cap < b->cap_segments) {
		struct segment *grown = realloc(t->sealing->segs,
						b->cap_segments * sizeof(*grown));

		if (grown) {
			t->sealing->segs = grown;
			t->sealing->cap = b->cap_segments;
		}
	}
	if (t->sealing && t->sealing->cap >= b->cap_segments) {
		struct sealing *job = t->sealing;
		struct segment *array = t->segments;
		size_t cap = b->cap_segments;

		/* The job takes the array, the sealed segments at its start;
		 * the stitching goes on in the last job's, the window copied
		 * there (what the memmove below does without a job). */
		memcpy(job->segs, array + count, keep * sizeof(*array));
		t->segments = job->segs;
		b->cap_segments = job->cap;
		job->segs = array;
		job->cap = cap;
		job->store = t->sealed;
		job->first = t->segments_sealed + 1;
		job->count = count;
		job->err = 0;
		t->segments_sealed = upto;
		job->running = !pthread_create(&job->id, NULL, sealing_main, job);
		if (job->running)
			return 0;
		job->count = 0;	/* coded here, as without a thread */
		return segment_store_append(t->sealed, array, count);
	}
	if ((err = segment_store_append(t->sealed, t->segments, count)))
		return err;
	memmove(t->segments, t->segments + count, keep * sizeof(*t->segments));
	t->segments_sealed = upto;
	return 0;
}

int segment_new(struct builder *b, uint32_t function, struct segment **out)
{
	struct hwtr_thread *t = b->thread;
	struct segment *s;
	int err;

	if (t->nsegments >= UINT32_MAX)
		return hwtr_fail(hwtr_err_nomem, "more than 2^32 function segments");
	if (t->nsegments - t->segments_sealed >= 2 * segment_window() &&
	    (err = seal(b)))
		return err;
	if (t->nsegments - t->segments_sealed >= b->cap_segments &&
	    (err = history_grow((void **)&t->segments, &b->cap_segments,
				t->nsegments - t->segments_sealed,
				sizeof(*t->segments))))
		return err;
	s = &t->segments[t->nsegments - t->segments_sealed];
	memset(s, 0, sizeof(*s));
	if (t->nsegments > t->segments_sealed)
		s->level = s[-1].level;	/* the last one, in the array */
	else if (t->nsegments) {
		struct segment last;

		segment_read(t, t->nsegments, &last);
		s->level = last.level;
	}
	t->nsegments++;
	s->insn_begin = t->ninsns + 1;
	s->function = function;
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
	segment_read(b->thread, number, &u->was);
}

/* Segment NUMBER gets UP as its caller, with link FLAGS: 0, or an error
 * (out of memory). */
static int set_up(struct builder *b, uint64_t number, uint64_t up,
		  uint32_t flags)
{
	struct segment *s;

	changing(b, number);
	if (!(s = segment_change(b->thread, number)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->up = (uint32_t)up;
	s->flags = (s->flags & ~(HWTR_SEG_UP_LINKS_TO_RET |
				 HWTR_SEG_UP_LINKS_TO_TAILCALL)) | flags;
	return 0;
}

/* GDB's ftrace_fixup_caller: every segment of BFUN's activation gets CALLER
 * as its caller. */
static int fixup_caller(struct builder *b, uint64_t bfun, uint64_t caller,
			uint32_t flags)
{
	struct hwtr_thread *t = b->thread;
	struct segment first, s;
	uint64_t number;
	int err = set_up(b, bfun, caller, flags);

	segment_read(t, bfun, &first);
	for (number = first.prev; !err && segment_load(t, number, &s); number = s.prev)
		err = set_up(b, number, caller, flags);
	for (number = first.next; !err && segment_load(t, number, &s); number = s.next)
		err = set_up(b, number, caller, flags);
	return err;
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
	/* A signal handler returns to the signal return trampoline, which
	 * runs above the frame the signal interrupted (GDB's <signal handler
	 * called> frame), and its rt_sigreturn goes back into that frame. */
	if (segment_signal_link(t, prev.up, t->nsegments)) {
		n->level = prev.level;
		n->up = prev.up;
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
			const struct last_block *last, uint64_t ip,
			uint32_t fid)
{
	uint8_t byte = 0;
	size_t n;

	/* "call next instruction" (e8 00000000) computes the PC, not a call:
	 * unless a function starts there.  A call that is a function's last
	 * instruction, to a function placed right after it (static glibc's
	 * __stack_chk_fail calls the noreturn __fortify_fail so), is a call:
	 * GDB's unwinder shows the caller's frame, record full's too. */
	if (ip != last->last_end_ip + 5 ||
	    symbolizer_function_start(t->history->symbols, fid) == ip)
		return false;
	n = image_epoch_read(t->history->images, last->last_epoch,
			     last->last_end_ip, &byte, 1);
	return isa_is_pic_call(last->last_isa, &byte, n);
}

bool segment_signal_link(const struct hwtr_thread *t, uint64_t up,
			 uint64_t number)
{
	struct segment gap;
	const struct gap_entry *g;

	if (!up || up + 1 >= number || up + 1 > t->nsegments)
		return false;
	segment_read(t, up + 1, &gap);
	return (gap.flags & HWTR_SEG_GAP) &&
	       (g = history_gap_at(t, gap.insn_begin)) && g->gap.kind &&
	       strcmp(g->gap.kind, "disabled") == 0;
}

/* Whether LAST, the last block before a gap, ended in the rt_sigreturn
 * system call of the signal return trampoline. */
static bool ends_in_sigreturn(const struct hwtr_thread *t,
			      const struct last_block *last)
{
	const uint8_t *code;
	size_t len, lead;
	uint8_t bytes[16];

	if (!last->last_end_ip ||
	    !isa_sigreturn_code(last->last_isa, &code, &len, &lead) ||
	    len > sizeof(bytes) || last->last_end_ip < lead)
		return false;
	return image_epoch_read(t->history->images, last->last_epoch,
				last->last_end_ip - lead, bytes, len) == len &&
	       memcmp(bytes, code, len) == 0;
}

/* The next block after a gap in which tracing was disabled (the program
 * left for the kernel: a signal's delivery, its return, a system call
 * where only user space is traced): its callers are those of the segment
 * before the gap (PRE), so that a stop in a signal handler has the frames
 * it interrupted.  A block at the start of a function entered so is a
 * signal handler, called, as GDB sees it, from the interrupted frame; else
 * the program goes on where it was, or after a sigreturn where the
 * trampoline's segment runs above (its caller): the activation of FID
 * nearest up from PRE.  False when neither applies: no caller is known. */
static bool plan_after_disabled(const struct hwtr_thread *t,
				const struct last_block *last, uint64_t ip,
				uint32_t fid, struct next_segment *n)
{
	uint64_t pre = t->nsegments - 1, number;
	bool sigreturn = ends_in_sigreturn(t, last);
	bool entry = symbolizer_function_start(t->history->symbols, fid) == ip;
	struct segment c;

	/* A handler: after a sigreturn, another signal pending is delivered
	 * to the frame the first one interrupted, the trampoline's caller. */
	if (entry && !sigreturn)
		goto handler;
	for (segment_load(t, number = pre, &c); number && !(c.flags & HWTR_SEG_GAP);
	     segment_load(t, number = c.up, &c)) {
		if (sigreturn && number == pre)
			continue;	/* the trampoline itself */
		if (c.function == fid && c.next == 0) {
			n->prev = number;
			n->level = c.level;
			n->up = c.up;
			n->flags = c.flags & LINK_FLAGS;
			return true;
		}
	}
	if (!entry)
		return false;
handler:
	segment_load(t, pre, &c);
	if (sigreturn) {
		if (!c.up)
			return false;
		segment_load(t, pre = c.up, &c);
	}
	n->up = pre;
	n->level = c.level + 1;
	return true;
}

/* Whether function PART is function FID's cold part: GCC moves a
 * function's unlikely code to a symbol of its own, NAME.cold (NAME.cold.N),
 * and jumps there and back inside one activation, one frame.  So a jump to
 * its start is no tail call (a deeper level would make the return from
 * NAME look like a return past its caller). */
static bool is_cold_part(const struct hwtr_symbolizer *symbols, uint32_t fid,
			 uint32_t part)
{
	const char *name = symbolizer_function_name(symbols, fid);
	const char *cold = symbolizer_function_name(symbols, part);
	size_t len;

	if (!name || !cold || fid == part)
		return false;
	len = strcspn(name, "@");	/* a version: memcpy@@GLIBC_2.14 */
	if (strncmp(cold, name, len) != 0 || strncmp(cold + len, ".cold", 5) != 0)
		return false;
	cold += len + 5;
	if (*cold == '.' && cold[1] >= '0' && cold[1] <= '9')
		for (cold++; *cold >= '0' && *cold <= '9'; cold++)
			;
	return *cold == '\0';
}

/* GDB's ftrace_update_function, for a block at IP in function FID after
 * LAST: a new segment at call, return, tail jump and symbol change. */
static void plan_next(const struct hwtr_thread *t, const struct last_block *last,
		      uint64_t ip, unsigned epoch, uint32_t fid,
		      struct next_segment *n)
{
	struct segment last_seg;
	const struct segment *bfun = &last_seg;

	memset(n, 0, sizeof(*n));
	n->function = fid;
	if (t->nsegments == 0)
		return;
	segment_read(t, t->nsegments, &last_seg);
	n->level = bfun->level;
	if (bfun->flags & HWTR_SEG_GAP) {
		const struct gap_entry *g = history_gap_at(t, bfun->insn_begin);
		struct segment pre;

		if (t->nsegments < 2 || !g || !g->gap.kind ||
		    strcmp(g->gap.kind, "disabled") != 0)
			return;		/* after a gap: no caller known */
		segment_read(t, t->nsegments - 1, &pre);
		/* Not across an exec (execve's gap: the code before is
		 * another program's) or a change of mappings, nor where
		 * tracing came back with a new chunk (a PSB+ while it was
		 * off: another tracing session, not a trip through the
		 * kernel). */
		if (!(pre.flags & HWTR_SEG_GAP) && epoch == last->last_epoch &&
		    !(t->nchunks && t->chunks[t->nchunks - 1].first_insn > bfun->insn_begin) &&
		    !(symbolizer_function_traits(t->history->symbols, pre.function) &
		      SYMBOL_EXECS))
			plan_after_disabled(t, last, ip, fid, n);
		return;
	}
	if (!last->have_last)
		return;
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
		if (is_pic_call(t, last, ip, fid))
			break;
		plan_call(t, 0, n);
		return;
	case hwtr_ic_jump: {
		uint64_t start = symbolizer_function_start(t->history->symbols, fid);
		unsigned traits;

		/* A jump to the start of a function is a tail call, but for
		 * one to the function's own cold part. */
		if (start == ip &&
		    !is_cold_part(t->history->symbols, bfun->function, fid)) {
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
	/* Levels are set here only: the lowest one follows as segments come
	 * (history.c's fold_levels then has none left to read). */
	if (b->min_upto + 1 == t->nsegments) {
		if (n->level < b->min_level)
			b->min_level = n->level;
		b->min_upto = t->nsegments;
	}
	s->up = (uint32_t)n->up;
	s->prev = (uint32_t)n->prev;
	s->flags = n->flags;
	if (n->prev) {
		struct segment *prev;

		changing(b, n->prev);
		if (!(prev = segment_change(t, n->prev)))
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		prev->next = (uint32_t)t->nsegments;
	}
	if (n->callee && n->whole_activation)
		return fixup_caller(b, n->callee, t->nsegments,
				    HWTR_SEG_UP_LINKS_TO_RET);
	if (n->callee)
		return set_up(b, n->callee, t->nsegments, HWTR_SEG_UP_LINKS_TO_RET);
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

	plan_next(b->thread, &b->last, ip, epoch, segment_function_at(b, ip, epoch), &n);
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

/* segment_store_finish's view of the patches: whether the group from
 * NUMBER has any, and applied to SEGS. */
static bool patched_group(void *ctx, uint64_t number, struct segment *segs,
			  uint64_t count)
{
	const struct segment_patches *p = ctx;
	uint64_t k;

	if (!group_patched(p, (number - 1) / SEGMENT_GROUP))
		return false;
	for (k = 0; segs && k < count; k++) {
		const struct segment *now = patch_find(p, number + k);

		if (now)
			segs[k] = *now;
	}
	return true;
}

int segments_compact(struct hwtr_thread *t)
{
	struct segment_store *store;
	int err;

	if (t->segment_store)
		return 0;	/* a saved index's, or compact already */
	if ((err = sealing_wait(t->sealing))) {
		segments_release(t);
		t->nsegments = 0;
		return err;
	}
	if (t->sealed)
		err = segment_store_finish(t->sealed, patched_group, t->patches,
					   t->segments,
					   t->nsegments - t->segments_sealed, &store);
	else
		/* The array's pages go as they are read: a 2.7 GB array
		 * then needs no 600 MB more beside it. */
		err = segment_store_compact_consuming(t->segments, t->nsegments,
						      &store);
	segments_release(t);
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

void segments_release(struct hwtr_thread *t)
{
	sealing_free(t->sealing);	/* before the store it writes */
	t->sealing = NULL;
	free(t->segments);
	segment_store_free(t->sealed);
	patches_free(t->patches);
	t->segments = NULL;
	t->sealed = NULL;
	t->patches = NULL;
	t->segments_sealed = 0;
	if (t->builder)
		t->builder->cap_segments = 0;
}

size_t segments_resident(const struct hwtr_thread *t)
{
	const struct segment_patches *p = t->patches;

	if (t->segment_store)
		return segment_store_resident(t->segment_store);
	sealing_wait(t->sealing);	/* its error comes back from the build */
	return (t->nsegments - t->segments_sealed) * sizeof(struct segment) +
	       (t->sealing ? t->sealing->cap * sizeof(struct segment) : 0) +
	       (t->sealed ? segment_store_resident(t->sealed) : 0) +
	       (p ? p->cap * sizeof(*p->slots) + p->cap_words * 8 : 0);
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
	if (segment_signal_link(t, s->up, number ? number : t->nsegments + 1))
		out->flags |= HWTR_SEG_UP_LINKS_TO_SIGNAL;
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
		unsigned epoch = ~0u;
		uint32_t fid = 0;

		if (symbolizer_end_epoch(t->history->symbols, &epoch) == 0)
			fid = symbolizer_function(t->history->symbols, epoch, ip);
		plan_next(t, &t->builder->last, ip, epoch, fid, &n);
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
