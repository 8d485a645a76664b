/* replay-watch.c: watchpoints in a replay (replay.h: replay_insert_watchpoint,
 * replay_watch_after_move).
 *
 * GDB's hardware watchpoints (Z2 write, Z3 read, Z4 access) are served from
 * the data log, which knows every store and every register at every
 * position: a write is an instruction whose undo records touch the range
 * (hwtr_values_find_change, which reads only the log's chunks that may hold
 * the range); a read is an instruction whose memory operands (Capstone's,
 * access.c), pushes, pops, calls, returns and string instructions read the
 * range, at the addresses the logged registers give there.
 *
 * Each move (a step, or a continue that stopped at a breakpoint or an end
 * of the history) passed over a range of instructions; the first of them
 * in the move's direction that touches a watched range ends the move
 * instead, where GDB's `record full` stops: going forward right after the
 * instruction (x86's watchpoints trap after it), going backward right
 * before it (record full undoes the instruction's changes, then sees the
 * watched memory change).  GDB then compares the value with the one it
 * kept and prints "Old value / New value" (write and access) or "Value"
 * (read), or goes on when a write left the value as it was.  One
 * instruction may touch several watched ranges (a rep movsb writes one and
 * reads another; on hardware two iterations, two stops): the next resume
 * the same way from its stop reports each other one there, one stop each
 * (replay_watch_pending), before moving on.
 *
 * Without a data log the addresses an instruction touches are not all
 * known: watchpoints are refused (GDB then makes software watchpoints,
 * which read the values at each position), never guessed.
 */
#include "replay-private.h"

#include "insn-reads.h"
#include "say.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool replay_watchpoints_supported(const struct replay *r)
{
	/* Live mode forwards watchpoints to its stub (live.c). */
	return r->info->values && r->tdesc == &tdesc_amd64_linux &&
	       !r->opt.nends && !r->opt.read_end_memory;
}

int replay_insert_watchpoint(struct replay *r, int type, uint64_t addr,
			     uint64_t len)
{
	size_t i;

	if (!replay_watchpoints_supported(r))
		return -EOPNOTSUPP;
	if (type < 2 || type > 4 || len == 0 || addr + len < addr)
		return -EINVAL;
	for (i = 0; i < r->nwatches; i++)
		if (r->watches[i].type == type && r->watches[i].addr == addr &&
		    r->watches[i].len == len)
			return 0;	/* GDB inserts again: no error */
	if (hwtr_array_grow((void **)&r->watches, &r->cap_watches, r->nwatches,
			    sizeof(*r->watches)) < 0)
		return -ENOMEM;
	r->watches[r->nwatches++] = (struct replay_watch){ .type = type, .addr = addr, .len = len };
	return 0;
}

int replay_remove_watchpoint(struct replay *r, int type, uint64_t addr,
			     uint64_t len)
{
	size_t i;

	for (i = 0; i < r->nwatches; i++)
		if (r->watches[i].type == type && r->watches[i].addr == addr &&
		    r->watches[i].len == len) {
			r->watches[i] = r->watches[--r->nwatches];
			break;
		}
	return 0;
}

void replay_watch_hit(const struct replay *r, int *type, uint64_t *addr)
{
	*type = r->hit.type;
	*addr = r->hit.addr;
}

/* The data log bound to the whole history, which watchpoints need (every
 * position, every thread): waited for; an error saying why when there is
 * none. */
static int whole_log(struct replay *r)
{
	replay_wait_history(r);
	if (!r->values)
		return hwtr_fail(hwtr_err_notfound, "watchpoints need the "
				 "recording's data log, which cannot be used: %s",
				 r->log_err[0] ? r->log_err
				 : "see the server's messages");
	return 0;
}

/* The write (Z2) and access (Z4) watchpoints: the instruction nearest the
 * move's start in FIRST..LAST that changed a watched range. */
static int find_write(struct replay *r, struct replay_thread *t, bool reverse,
		      uint64_t first, uint64_t last, uint64_t *k,
		      struct replay_watch *hit)
{
	bool found = false;
	size_t i;

	for (i = 0; i < r->nwatches; i++) {
		const struct replay_watch *w = &r->watches[i];
		uint64_t at, where;
		int rc;

		if (w->type == 3 || first > last)
			continue;
		rc = reverse ? hwtr_values_find_change(r->values, t->history,
						       last + 1, -1, first,
						       w->addr, w->len, &at,
						       &where)
			     : hwtr_values_find_change(r->values, t->history,
						       first, 1, last, w->addr,
						       w->len, &at, &where);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		found = true;
		*k = at;
		*hit = (struct replay_watch){ .type = w->type, .addr = where,
					      .watch_addr = w->addr,
					      .watch_len = w->len };
		/* Any nearer hit must come before this one. */
		if (reverse)
			first = at + 1;
		else
			last = at - 1;
	}
	return found;
}

/* The registers an instruction's addresses are computed from, at
 * position K (before it runs): false when one it needs is not known. */
static bool registers_at(struct replay *r, struct replay_thread *t,
			 uint64_t k, unsigned need, struct insn_regs *regs)
{
	unsigned i;

	for (i = 0; i < INSN_REG_COUNT; i++) {
		static const unsigned regno[INSN_REG_COUNT] = {
			hwtr_amd64_rax, hwtr_amd64_rbx, hwtr_amd64_rcx,
			hwtr_amd64_rdx, hwtr_amd64_rsi, hwtr_amd64_rdi,
			hwtr_amd64_rbp, hwtr_amd64_rsp, hwtr_amd64_r8,
			hwtr_amd64_r9, hwtr_amd64_r10, hwtr_amd64_r11,
			hwtr_amd64_r12, hwtr_amd64_r13, hwtr_amd64_r14,
			hwtr_amd64_r15, hwtr_amd64_fs_base, hwtr_amd64_gs_base,
			hwtr_amd64_eflags,
		};
		uint8_t bytes[16] = { 0 };

		if (!((need >> i) & 1))
			continue;
		if (hwtr_values_register(r->values, t->history, k, regno[i],
					 bytes, sizeof(bytes)) < 0)
			return false;
		memcpy(&regs->value[i], bytes, 8);
	}
	return true;
}

/* Whether watchpoint W was reported at the last watchpoint stop. */
static bool reported(const struct replay *r, const struct replay_watch *w)
{
	const struct replay_watch_stop *s = &r->watch_stop;
	size_t i;

	for (i = 0; i < s->nreported; i++)
		if (s->reported[i].type == w->type &&
		    s->reported[i].watch_addr == w->addr &&
		    s->reported[i].watch_len == w->len)
			return true;
	return false;
}

/* Does instruction K of T read a range of a read (Z3) or access (Z4)
 * watchpoint (but one reported at the last stop, with SKIP_REPORTED)?
 * 1 with *HIT, 0, or an error: an instruction whose
 * addresses are not known (a register the log lacks, a vector index)
 * ends the search with a message, rather than being passed silently. */
static int insn_reads_watched(struct replay *r, struct replay_thread *t,
			      uint64_t k, bool skip_reported,
			      struct replay_watch *hit)
{
	struct insn_read reads[INSN_MAX_READS];
	struct insn_regs regs, after;
	struct hwtr_insn insn;
	uint64_t iterations = 0;
	bool reads_memory, repeats, unknown;
	unsigned need;
	size_t n, i, j;
	int rc;

	if ((rc = hwtr_cursor_goto(t->scratch, k)) < 0 ||
	    (rc = hwtr_cursor_insn(t->scratch, &insn)) < 0)
		return rc;
	if (insn.gap || !insn.size)
		return 0;
	if (!r->reads_cache && insn_reads_cache_new(&r->reads_cache) < 0)
		return hwtr_fail(hwtr_err_nomem, "read watchpoints: Capstone "
				 "cannot be opened");
	reads_memory = insn_reads_needs(r->reads_cache, insn.raw, insn.size,
					insn.ip, &need, &repeats, &unknown);
	if (unknown)
		return hwtr_fail(hwtr_err_notfound, "read watchpoints: which "
				 "memory instruction %llu (at 0x%llx) reads is "
				 "not known", (unsigned long long)k,
				 (unsigned long long)insn.ip);
	if (!reads_memory)
		return 0;
	if (!registers_at(r, t, k, need, &regs))
		return hwtr_fail(hwtr_err_notfound, "read watchpoints: the "
				 "registers of instruction %llu (at 0x%llx) are "
				 "not in the data log",
				 (unsigned long long)k,
				 (unsigned long long)insn.ip);
	if (repeats) {
		/* repe/repne stop early: the iterations run are rcx's
		 * decrease (all of them when nothing follows). */
		iterations = regs.value[2];
		if (k < t->instructions &&
		    registers_at(r, t, k + 1, 1u << 2, &after) &&
		    after.value[2] <= regs.value[2])
			iterations = regs.value[2] - after.value[2];
	}
	n = insn_reads(r->reads_cache, insn.raw, insn.size, insn.ip, &regs,
		       iterations, reads);
	for (i = 0; i < n; i++)
		for (j = 0; j < r->nwatches; j++) {
			const struct replay_watch *w = &r->watches[j];

			if (w->type == 2 || reads[i].addr >= w->addr + w->len ||
			    w->addr >= reads[i].addr + reads[i].len ||
			    (skip_reported && reported(r, w)))
				continue;
			*hit = (struct replay_watch){
				.type = w->type,
				.addr = reads[i].addr > w->addr ? reads[i].addr
								 : w->addr,
				.watch_addr = w->addr, .watch_len = w->len };
			return 1;
		}
	return 0;
}

/* The read and access watchpoints: the instruction nearest the move's
 * start in FIRST..LAST that read a watched range, one at a time. */
static int find_read(struct replay *r, struct replay_thread *t, bool reverse,
		     uint64_t first, uint64_t last, uint64_t *k,
		     struct replay_watch *hit)
{
	/* Going back, blocks of instructions are read forward, so that the
	 * log's registers come from one scan per block. */
	const uint64_t block = 4096;
	uint64_t lo, hi, i;
	int rc;

	if (first > last)
		return 0;
	if (!reverse) {
		for (i = first; i <= last; i++)
			if ((rc = insn_reads_watched(r, t, i, false, hit)) != 0) {
				*k = i;
				return rc;
			}
		return 0;
	}
	for (hi = last;; hi = lo - 1) {
		bool found = false;
		struct replay_watch h;

		lo = hi - first + 1 > block ? hi - block + 1 : first;
		for (i = lo; i <= hi; i++) {
			if ((rc = insn_reads_watched(r, t, i, false, &h)) < 0)
				return rc;
			if (rc) {
				found = true;
				*k = i;
				*hit = h;
			}
		}
		if (found)
			return 1;
		if (lo == first)
			return 0;
	}
}

/* The x86-64 red zone: a leaf function's locals may lie this far below
 * the stack pointer. */
#define RED_ZONE 128

/* Where the frame holding stack address W at position FROM began: the
 * call that made it (*CALL), its first instruction being the callee's.
 * 1, or 0 when W is in no frame of the call stack there (not on the
 * stack, or in a frame the history does not see begin, or one entered by
 * a jump), or an error.  The frame of a call at C holds the addresses
 * below the return address it pushed, rsp at C minus 8. */
static int frame_begin(struct replay *r, struct replay_thread *t,
		       uint64_t from, uint64_t w, uint64_t *call)
{
	struct hwtr_segment frames[REPLAY_MAX_FRAMES];
	struct hwtr_insn insn;
	uint64_t rsp;
	int n, i, rc;

	if (hwtr_values_register(r->values, t->history, from, hwtr_amd64_rsp,
				 &rsp, sizeof(rsp)) < 0 || w + RED_ZONE < rsp)
		return 0;	/* below the stack, or not a stack address */
	if ((rc = hwtr_cursor_goto(t->scratch, from)) < 0)
		return rc;
	n = hwtr_cursor_callstack(t->scratch, frames, REPLAY_MAX_FRAMES);
	/* Frame I's caller segment (its up link) ends with the call that made
	 * it, unless the link is where a return went (the history began
	 * inside it) or a tail jump. */
	for (i = 0; i + 1 < n; i++) {
		uint64_t sp;

		if (frames[i].flags & (HWTR_SEG_UP_LINKS_TO_RET |
				       HWTR_SEG_UP_LINKS_TO_TAILCALL) ||
		    frames[i + 1].insn_end < 2)
			return 0;
		*call = frames[i + 1].insn_end - 1;
		if ((rc = hwtr_cursor_goto(t->scratch, *call)) < 0 ||
		    (rc = hwtr_cursor_insn(t->scratch, &insn)) < 0)
			return rc;
		if (insn.gap || insn.iclass != hwtr_ic_call ||
		    hwtr_values_register(r->values, t->history, *call,
					 hwtr_amd64_rsp, &sp, sizeof(sp)) < 0)
			return 0;
		if (w < sp - 8)
			return 1;
	}
	return 0;
}

/* Going back, a write watchpoint on a local stops where the local's frame
 * began (the call), as GDB's software watchpoint does under record full:
 * GDB checks its frame at every step and, gone, deletes it there ("left
 * the block").  For a hardware watchpoint GDB only checks that at a stop
 * (its scope breakpoint, at the caller's return address, serves going
 * forward), so the server stops there: GDB then finds the frame gone, or,
 * for a watchpoint without a scope (watch -l), the value unchanged, and
 * goes on.  The nearest such call in FIRST..LAST beyond *K (found: 1). */
static int find_frame_begin(struct replay *r, struct replay_thread *t,
			    uint64_t from, uint64_t first, uint64_t last,
			    bool found, uint64_t *k, struct replay_watch *hit)
{
	size_t i;
	int rc, any = 0;

	for (i = 0; i < r->nwatches; i++) {
		const struct replay_watch *w = &r->watches[i];
		uint64_t call;

		if (w->type != 2)
			continue;	/* GDB reports reads without a change */
		rc = frame_begin(r, t, from, w->addr, &call);
		if (rc < 0)
			return rc;
		if (!rc || call < first || call > last || (found && call <= *k))
			continue;
		*k = call;
		*hit = (struct replay_watch){ .type = 2, .addr = w->addr,
					      .watch_addr = w->addr,
					      .watch_len = w->len };
		found = true;
		any = 1;
	}
	return any;
}

static bool any_read_watch(const struct replay *r)
{
	size_t i;

	for (i = 0; i < r->nwatches; i++)
		if (r->watches[i].type != 2)
			return true;
	return false;
}

/* The position where T's history resumes after instruction K: K + 1, past
 * gaps (no PC to stop at), or the tail. */
static int goto_after(struct replay_thread *t, uint64_t k)
{
	struct hwtr_insn insn;
	uint64_t n = k + 1;
	int rc;

	t->tail_step = 0;
	if (n > t->instructions) {
		t->tail_step = t->tail_len ? 1 : 0;
		return hwtr_cursor_goto(t->cursor, t->instructions);
	}
	for (; n < t->instructions; n++) {
		if ((rc = hwtr_cursor_goto(t->cursor, n)) < 0 ||
		    (rc = hwtr_cursor_insn(t->cursor, &insn)) < 0)
			return rc;
		if (!insn.gap)
			return 0;
	}
	return hwtr_cursor_goto(t->cursor, n);
}

int replay_watch_after_move(struct replay *r, struct replay_thread *t,
			    bool reverse, uint64_t from_pos, unsigned from_tail,
			    enum replay_event *event)
{
	uint64_t to_pos = hwtr_cursor_position(t->cursor), first, last, k = 0;
	uint64_t kr = 0;
	struct replay_watch hit = { 0 }, read_hit = { 0 };
	int found, rc;

	if (!r->nwatches)
		return 0;
	/* The instructions the move passed over: going back, those it undid
	 * (from the end state, the last one too); going forward, those it
	 * ran (to the end state, the last one too). */
	if (reverse) {
		if (t->tail_step)
			return 0;	/* still in the tail: nothing undone */
		first = to_pos;
		last = (from_tail ? t->instructions + 1 : from_pos) - 1;
	} else {
		if (from_tail)
			return 0;
		first = from_pos;
		last = (t->tail_step ? t->instructions + 1 : to_pos) - 1;
	}
	if (first > last || !first)
		return 0;
	if ((rc = whole_log(r)) < 0)
		return rc;
	found = find_write(r, t, reverse, first, last, &k, &hit);
	if (found < 0)
		return found;
	if (any_read_watch(r)) {
		/* Only reads nearer than the write found can win. */
		uint64_t rfirst = found && reverse ? k : first;
		uint64_t rlast = found && !reverse ? k : last;
		int rd = find_read(r, t, reverse, rfirst, rlast, &kr, &read_hit);

		if (rd < 0)
			return rd;
		if (rd && (!found || (reverse ? kr > k : kr < k) ||
			   (kr == k && read_hit.type == 4))) {
			found = 1;
			k = kr;
			hit = read_hit;
		}
	}
	if (reverse) {
		int fb = find_frame_begin(r, t, last + 1 > t->instructions
					  ? t->instructions : last + 1,
					  first, last, found, &k, &hit);

		if (fb < 0)
			return fb;
		found |= fb;
	}
	if (!found)
		return 0;
	if (reverse) {
		t->tail_step = 0;
		rc = hwtr_cursor_goto(t->cursor, k);
	} else {
		rc = goto_after(t, k);
	}
	if (rc < 0)
		return rc;
	hit.insn = k;
	r->hit = hit;
	*event = replay_watchpoint;
	return 0;
}

/* Another watchpoint than those reported that instruction K of T
 * touched: access (Z4) and write (Z2) first, as replay_watch_after_move
 * prefers them, then reads.  1 with *HIT, 0, or an error. */
static int other_hit(struct replay *r, struct replay_thread *t, uint64_t k,
		     struct replay_watch *hit)
{
	size_t i;
	int rc;

	for (i = 0; i < r->nwatches; i++) {
		const struct replay_watch *w = &r->watches[i];
		uint64_t at, where;

		if (w->type == 3 || reported(r, w))
			continue;
		rc = hwtr_values_find_change(r->values, t->history, k, 1, k,
					     w->addr, w->len, &at, &where);
		if (rc < 0)
			return rc;
		if (rc && at == k) {
			*hit = (struct replay_watch){ .type = w->type,
						      .addr = where,
						      .watch_addr = w->addr,
						      .watch_len = w->len };
			return 1;
		}
	}
	return any_read_watch(r) ? insn_reads_watched(r, t, k, true, hit) : 0;
}

int replay_watch_pending(struct replay *r, uint32_t *tid, bool reverse)
{
	struct replay_watch_stop *s = &r->watch_stop;
	struct replay_thread *t;
	struct replay_watch hit;
	int rc;

	if (!s->valid || s->reverse != reverse || !r->nwatches ||
	    (*tid && *tid != s->tid))
		return 0;
	t = find(r, s->tid);
	if (!t || !t->cursor || hwtr_cursor_position(t->cursor) != s->position ||
	    t->tail_step != s->tail_step || s->nreported == REPLAY_WATCH_REPORTED)
		return 0;
	if ((rc = whole_log(r)) < 0 ||
	    (rc = other_hit(r, t, s->insn, &hit)) <= 0)
		return rc;
	hit.insn = s->insn;
	r->hit = hit;
	*tid = s->tid;
	return 1;
}

void replay_watch_note_stop(struct replay *r, uint32_t tid, bool reverse,
			    enum replay_event event)
{
	struct replay_watch_stop *s = &r->watch_stop;
	struct replay_thread *t = find(r, tid);
	uint64_t position;

	if (event != replay_watchpoint || !t || !t->cursor) {
		s->valid = false;
		return;
	}
	position = hwtr_cursor_position(t->cursor);
	if (!s->valid || s->tid != tid || s->reverse != reverse ||
	    s->insn != r->hit.insn || s->position != position ||
	    s->tail_step != t->tail_step)
		*s = (struct replay_watch_stop){ .valid = true,
						 .reverse = reverse,
						 .tid = tid,
						 .insn = r->hit.insn,
						 .position = position,
						 .tail_step = t->tail_step };
	if (s->nreported < REPLAY_WATCH_REPORTED &&
	    !reported(r, &(struct replay_watch){ .type = r->hit.type,
						  .addr = r->hit.watch_addr,
						  .len = r->hit.watch_len }))
		s->reported[s->nreported++] = r->hit;
}
