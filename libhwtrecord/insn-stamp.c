/* insn-stamp.c: one time axis for every thread of a recording.
 *
 * An instruction's stamp is the trace's time when the block holding it
 * began (decoder_block.time: for Intel PT the last TSC, refined by MTC and
 * CYC when the trace has them), kept per decoded chunk where it changes
 * (chunk-cache.c).  The software source writes a TSC wherever a thread runs
 * again, strictly increasing across threads, and Valgrind runs one thread
 * at a time: two threads' runs never share a stamp, and an instruction with
 * a smaller stamp ran before one with a larger stamp, whichever threads
 * they are in.  Within a thread, instruction numbers order instructions of
 * equal stamp.  A hardware trace of threads running at once orders them as
 * finely as its timing packets do.  Unlike hwtr_thread_insn_time (per
 * chunk, interpolated), this decodes the chunk it looks at.
 */
#include "chunk-cache.h"
#include "error.h"
#include "history.h"

#include <stdint.h>

/* The stamp in force at index I of decoded chunk D: 1 and *TIME, or 0 when
 * the chunk had none yet. */
static int stamp_in_chunk(const struct decoded_chunk *d, size_t i,
			  uint64_t *time)
{
	size_t lo = 0, hi = d->nstamps;

	while (lo < hi) {		/* the first stamp past I */
		size_t mid = lo + (hi - lo) / 2;

		if (d->stamps[mid].index <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	*time = d->stamps[lo - 1].time;
	return 1;
}

/* Has the thread's trace any time at all?  (Its chunk starts say: a PSB+
 * carries the TSC when the trace has one.) */
static bool thread_timed(const struct hwtr_thread *t)
{
	size_t k;

	for (k = 0; k < t->nchunks; k++)
		if (t->chunks[k].tsc_begin)
			return true;
	return false;
}

/* NUMBER's stamp, in a thread whose trace has time (thread_timed). */
static int insn_stamp(struct hwtr_thread *t, uint64_t number, uint64_t *stamp)
{
	const struct decoded_chunk *d;
	size_t k = history_chunk_of(t, number);
	size_t i = (size_t)(number - t->chunks[k].first_insn);
	int err;

	/* Before its chunk's first stamp (gaps, a chunk of gaps only): the
	 * last stamp of the chunks before, back to one whose start has a
	 * time. */
	for (;;) {
		if ((err = history_decode_chunk(t, k, &d)))
			return err;
		if (d->count && stamp_in_chunk(d, i, stamp))
			return 0;
		if (k == 0 || t->chunks[k].tsc_begin)
			break;
		k--;
		i = SIZE_MAX;	/* its last instruction */
	}
	return hwtr_fail(hwtr_err_notfound,
			 "thread %u: the trace has no time before instruction "
			 "%llu", t->tid, (unsigned long long)number);
}

int hwtr_thread_insn_stamp(struct hwtr_thread *t, uint64_t number,
			   uint64_t *stamp)
{
	if (!t || !stamp)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_thread_insn_stamp: bad argument");
	if (number == 0 || number > t->ninsns)
		return hwtr_fail(hwtr_err_range,
				 "thread %u has no instruction %llu (it has "
				 "%llu)", t->tid, (unsigned long long)number,
				 (unsigned long long)t->ninsns);
	if (!thread_timed(t))
		return hwtr_fail(hwtr_err_notfound,
				 "thread %u: the trace has no time (no TSC "
				 "packets at its PSBs)", t->tid);
	return insn_stamp(t, number, stamp);
}

/* The TSC of the last timed chunk start at or before chunk K (0: none):
 * a lower bound of every stamp from chunk K on, and never going back. */
static uint64_t chunk_time_key(const struct hwtr_thread *t, size_t k)
{
	for (k++; k > 0; k--)
		if (t->chunks[k - 1].tsc_begin)
			return t->chunks[k - 1].tsc_begin;
	return 0;
}

int hwtr_thread_first_after_stamp(struct hwtr_thread *t, uint64_t stamp,
				  uint64_t *number)
{
	const struct decoded_chunk *d;
	size_t lo = 0, hi, k, i;
	int err;

	if (!t || !number)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_thread_first_after_stamp: bad argument");
	*number = t->ninsns + 1;
	if (!t->ninsns || !t->nchunks)
		return 0;
	if (!thread_timed(t))
		return hwtr_fail(hwtr_err_notfound,
				 "thread %u: the trace has no time (no TSC "
				 "packets at its PSBs)", t->tid);
	/* The first chunk whose start is timed after STAMP: every stamp from
	 * there on is later (a stamp is never before its chunk's PSB TSC),
	 * and every stamp of the chunks before the last one started by then
	 * is not (nor after the next PSB's TSC).  So the chunk starts find
	 * the place without decoding, and only the chunks from that last
	 * timed start on are decoded. */
	hi = t->nchunks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->chunks[mid].first_insn > t->ninsns ||
		    chunk_time_key(t, mid) > stamp)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < t->nchunks && t->chunks[lo].first_insn <= t->ninsns)
		*number = t->chunks[lo].first_insn;
	if (lo == 0) {
		*number = 1;
		return 0;
	}
	for (k = lo; k > 0 && !t->chunks[k - 1].tsc_begin;)
		k--;	/* back over untimed chunk starts */
	if (k > 0)
		k--;	/* the last timed start by STAMP */
	for (; k < lo; k++) {
		if ((err = history_decode_chunk(t, k, &d)))
			return err;
		for (i = 0; i < d->nstamps; i++)
			if (d->stamps[i].time > stamp) {
				*number = d->first_insn + d->stamps[i].index;
				return 0;
			}
	}
	return 0;
}
