/* insn-time.c: when an instruction ran, in the trace's clock (TSC).
 *
 * The index keeps one time per chunk: the TSC of the PSB+ the chunk starts
 * at (history.h).  An instruction's time is interpolated linearly by
 * instruction count between its chunk's time and the next timed chunk's;
 * the trace's finer TSC packets (at system calls, thread switches) are not
 * read, so the time is exact at chunk starts only.  The last timed chunk
 * runs to the stream's last time stamp (the decoder's stream_last_time), as
 * if that were one past the thread's last instruction; without one, its
 * instructions get its start time.  Instructions before the first timed
 * chunk get that chunk's time.
 */
#include "error.h"
#include "history.h"

int hwtr_thread_insn_time(const struct hwtr_thread *t, uint64_t number,
			  uint64_t *tsc)
{
	size_t k, before, after;
	const struct chunk *a, *b;	/* timed chunks around NUMBER */
	uint64_t t0, t1, span;

	if (!t || !tsc)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_thread_insn_time: bad argument");
	if (number == 0 || number > t->ninsns)
		return hwtr_fail(hwtr_err_range,
				 "thread %u has no instruction %llu (it has "
				 "%llu)", t->tid, (unsigned long long)number,
				 (unsigned long long)t->ninsns);
	k = history_chunk_of(t, number);
	/* The timed chunks around K: BEFORE at or before it, AFTER past it. */
	for (before = k + 1; before > 0 && !t->chunks[before - 1].tsc_begin;)
		before--;
	for (after = k + 1; after < t->nchunks && !t->chunks[after].tsc_begin;)
		after++;
	if (before == 0 && after == t->nchunks)
		return hwtr_fail(hwtr_err_notfound,
				 "thread %u: the trace has no time (no TSC "
				 "packets at its PSBs)", t->tid);
	if (before == 0) {
		*tsc = t->chunks[after].tsc_begin;
		return 0;
	}
	a = &t->chunks[before - 1];
	t0 = a->tsc_begin;
	if (after < t->nchunks) {
		b = &t->chunks[after];
		t1 = b->tsc_begin;
		span = b->first_insn - a->first_insn;
	} else if (t->stream && t->ops->stream_last_time &&
		   t->ops->stream_last_time(t->stream, &t1)) {
		span = t->ninsns + 1 - a->first_insn;
	} else {
		*tsc = t0;
		return 0;
	}
	/* A time that goes back (a bad trace) holds still instead. */
	if (t1 <= t0 || span == 0 || number < a->first_insn) {
		*tsc = t0;
		return 0;
	}
	*tsc = t0 + (uint64_t)((unsigned __int128)(t1 - t0) *
			       (number - a->first_insn) / span);
	return 0;
}
