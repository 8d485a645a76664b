/* replay-threads.c: the threads of a replay on one time axis (see
 * replay.h: replay_resume_all, replay_thread_alive).
 *
 * An instruction's time is its stamp (hwtr_thread_insn_stamp: the trace's
 * time before its block); the software source writes one wherever a thread
 * runs again, so no two threads share one and they order the recording.  A
 * continue of every thread puts each where it stands at the time of the
 * last stop, lets each search on its own (replay_cont), and the hit with
 * the nearest stamp wins; a thread is alive at a time between its start
 * (the sideband's thread-start, or its first instruction) and its exit.
 */
#include "replay-private.h"

#include "say.h"

#include <stdlib.h>

/* After every instruction of the history: the end state. */
#define STAMP_END UINT64_MAX

/* The time T stands at (hwtr_thread_insn_stamp of its position, the
 * instruction it runs next): STAMP_END at its end state. */
static int position_stamp(struct replay_thread *t, uint64_t *stamp)
{
	if (at_end_state(t)) {
		*stamp = STAMP_END;
		return 0;
	}
	return hwtr_thread_insn_stamp(t->history, hwtr_cursor_position(t->cursor),
				      stamp);
}

/* Put T where it stands at time STAMP: at its first instruction stamped
 * later (not run yet), or at its end state when it ran them all. */
static int place_at_stamp(struct replay_thread *t, uint64_t stamp)
{
	uint64_t n = t->instructions + 1;
	int rc;

	if (stamp != STAMP_END &&
	    (rc = hwtr_thread_first_after_stamp(t->history, stamp, &n)) < 0)
		return rc;
	t->tail_step = 0;
	if (n > t->instructions) {
		t->tail_step = t->tail_len;
		n = t->instructions;
	}
	return hwtr_cursor_goto(t->cursor, n);
}

/* Can every thread's history be put on one time axis?  Only with a time
 * stamp in each trace, and within one program (a resume that crosses an
 * exec stops at it, thread by thread: stop_at_exec). */
static bool threads_share_time(struct replay *r)
{
	size_t i;
	uint64_t stamp;

	if (r->lifetimes_known)
		return r->share_time;	/* asked of this history before */
	if (replay_nimages(r) > 1)
		return false;
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		if (t->cursor && t->instructions &&
		    hwtr_thread_insn_stamp(t->history, 1, &stamp) < 0)
			return false;
	}
	return true;
}

struct thread_place {
	uint64_t position;
	unsigned tail_step;
	enum replay_event event;	/* a hit's: breakpoint or watchpoint */
	struct replay_watch watch;	/* a watchpoint's */
};

/* Continue every thread, from the time thread REF stands at, to the
 * nearest breakpoint hit of any thread in recording time (the latest
 * before it, or the earliest after it), as record full and rr do: each
 * thread is put where it stands at that time, searches on its own
 * (cont), and the hit with the nearest stamp wins; every other thread
 * then stands where it was at the winner's time. */
static int resume_all(struct replay *r, struct replay_thread *ref, bool reverse,
		      struct replay_thread **stopped, enum replay_event *event)
{
	struct thread_place *was = calloc(r->nthreads, sizeof(*was));
	struct thread_place *hit = calloc(r->nthreads, sizeof(*hit));
	struct replay_thread *best = NULL;
	uint64_t now, best_stamp = 0;
	size_t i;
	int rc;

	if (!was || !hit) {
		free(was);
		free(hit);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		if (t->cursor) {
			was[i].position = hwtr_cursor_position(t->cursor);
			was[i].tail_step = t->tail_step;
		}
	}
	if ((rc = position_stamp(ref, &now)) < 0)
		goto fail;
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];
		enum replay_event ev;
		struct hwtr_insn insn;
		uint64_t stamp;

		if (!t->cursor)
			continue;
		if (t != ref && (rc = place_at_stamp(t, now)) < 0)
			goto fail;
		/* Another thread has not run the instruction it stands at:
		 * going forward, a breakpoint there is its first hit. */
		if (t != ref && !reverse && !at_end_state(t) &&
		    hwtr_cursor_insn(t->cursor, &insn) == 0 && !insn.gap &&
		    replay_is_breakpoint(r, insn.ip))
			ev = replay_breakpoint;
		else if ((rc = replay_cont(r, t, reverse, &ev)) < 0)
			goto fail;
		if (ev != replay_breakpoint && ev != replay_watchpoint)
			continue;
		/* A watchpoint going forward stops after the instruction
		 * that touched the memory: its time is that instruction's,
		 * not the next one's (which may run much later, after other
		 * threads ran). */
		if (ev == replay_watchpoint && !reverse)
			rc = hwtr_thread_insn_stamp(t->history, r->hit.insn, &stamp);
		else
			rc = position_stamp(t, &stamp);
		if (rc < 0)
			goto fail;
		/* Equal stamps (threads running at once, or two at their
		 * end states): the reference thread, then the first. */
		if (!best || (reverse ? stamp > best_stamp : stamp < best_stamp) ||
		    (stamp == best_stamp && t == ref)) {
			best = t;
			best_stamp = stamp;
		}
		hit[i].position = hwtr_cursor_position(t->cursor);
		hit[i].tail_step = t->tail_step;
		hit[i].event = ev;
		hit[i].watch = r->hit;
	}
	if (!best) {
		/* No hit: every thread at the end (or start) of its history,
		 * where cont left it; the stop is the reference thread's. */
		*stopped = ref;
		*event = reverse ? replay_history_begin : replay_history_end;
		goto done;
	}
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		if (!t->cursor)
			continue;
		if (t == best) {
			hwtr_cursor_goto(t->cursor, hit[i].position);
			t->tail_step = hit[i].tail_step;
			*event = hit[i].event;
			r->hit = hit[i].watch;
		} else if ((rc = place_at_stamp(t, best_stamp)) < 0) {
			goto fail;
		}
	}
	*stopped = best;
done:
	r->image = replay_thread_image(r, *stopped);
	free(was);
	free(hit);
	return 0;
fail:
	say("%s", hwtr_last_error());
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		if (t->cursor) {
			hwtr_cursor_goto(t->cursor, was[i].position);
			t->tail_step = was[i].tail_step;
		}
	}
	free(was);
	free(hit);
	return rc;
}

/* Whether the threads share a time axis, each thread's start and exit
 * times from the sideband, and the time of the last instruction run: once
 * per history (the whole one). */
static int thread_lifetimes(struct replay *r)
{
	size_t i, n = hwtr_recording_nevents(r->recording);
	uint64_t stamp;
	int rc;

	if (r->lifetimes_known)
		return 0;
	r->share_time = threads_share_time(r);
	r->last_run = 0;
	if (!r->share_time) {
		r->lifetimes_known = true;	/* no times to know */
		return 0;
	}
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		t->start_tsc = t->exit_tsc = 0;
		if (!t->cursor || !t->instructions)
			continue;
		if ((rc = hwtr_thread_insn_stamp(t->history, t->instructions,
						 &stamp)) < 0)
			return rc;
		if (stamp > r->last_run)
			r->last_run = stamp;
	}
	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(r->recording, i);
		struct replay_thread *t = find(r, ev->tid);

		if (!t || !ev->tsc)
			continue;
		if (ev->kind == hwtr_ev_thread_start && !t->start_tsc)
			t->start_tsc = ev->tsc;
		else if (ev->kind == hwtr_ev_thread_exit)
			t->exit_tsc = ev->tsc;
	}
	r->lifetimes_known = true;
	return 0;
}

int replay_resume_all(struct replay *r, uint32_t now_tid, uint32_t selected_tid,
		      bool reverse, uint32_t *stopped, enum replay_event *event)
{
	struct replay_thread *ref = find(r, now_tid), *t = ref;
	int rc;

	*stopped = selected_tid;
	if (r->nthreads > 1)
		replay_wait_history(r);	/* times are the whole history's */
	if (r->nthreads < 2 || !ref || !ref->cursor || thread_lifetimes(r) < 0 ||
	    !threads_share_time(r))
		return replay_resume(r, selected_tid, reverse, false, event);
	*stopped = 0;	/* the thread of the last stop */
	if ((rc = replay_watch_pending(r, stopped, reverse)) < 0)
		return rc;
	if (rc) {
		*event = replay_watchpoint;
		t = find(r, *stopped);
	} else if ((rc = resume_all(r, ref, reverse, &t, event)) < 0) {
		return rc;
	}
	*stopped = t->tid;
	replay_watch_note_stop(r, t->tid, reverse, *event);
	return 0;
}

bool replay_thread_alive(struct replay *r, uint32_t now_tid, uint32_t tid)
{
	struct replay_thread *t = find(r, tid), *ref = find(r, now_tid);
	uint64_t now, begin, next;
	bool exited;

	if (!t)
		return false;
	if (!ref || r->nthreads < 2)
		return true;
	/* At the end, with a core: the threads it holds, as GDB on it. */
	if (r->core && at_end_state(ref))
		return t->core != NULL;
	/* Otherwise the history's times say; while it is being built, and
	 * without times, every thread is listed. */
	if (r->building && !atomic_load(&r->built))
		return true;
	replay_wait_history(r);
	if (!ref->cursor || thread_lifetimes(r) < 0 || !threads_share_time(r) ||
	    position_stamp(ref, &now) < 0)
		return true;
	/* Exited before NOW, while other threads ran on (not at the
	 * process's end, after the last instruction run). */
	exited = t->exit_tsc && t->exit_tsc < now && t->exit_tsc < r->last_run;
	if (!t->cursor || !t->instructions)
		return !exited;
	/* Not started yet: created (thread-start) after NOW, and its first
	 * instruction later too (whichever the source wrote first). */
	if (hwtr_thread_insn_stamp(t->history, 1, &begin) < 0)
		return true;
	if (t->start_tsc && t->start_tsc < begin)
		begin = t->start_tsc;
	if (begin > now)
		return false;
	/* An exit counts once the thread ran its last instruction by NOW. */
	return !exited || hwtr_thread_first_after_stamp(t->history, now, &next) < 0 ||
	       next <= t->instructions;
}
