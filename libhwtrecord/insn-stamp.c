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

/* The stamp of chunk K's first instruction, or 0 when it has none. */
static int chunk_start_stamp(struct hwtr_thread *t, size_t k, uint64_t *stamp)
{
	int err = insn_stamp(t, t->chunks[k].first_insn, stamp);

	if (err == -hwtr_err_notfound) {
		*stamp = 0;
		return 0;
	}
	return err;
}

int hwtr_thread_first_after_stamp(struct hwtr_thread *t, uint64_t stamp,
				  uint64_t *number)
{
	const struct decoded_chunk *d;
	size_t lo = 0, hi, k, i;
	uint64_t s;
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
	/* The first chunk whose first instruction is stamped after STAMP. */
	hi = t->nchunks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->chunks[mid].first_insn > t->ninsns) {
			hi = mid;	/* empty: after the last instruction */
			continue;
		}
		if ((err = chunk_start_stamp(t, mid, &s)))
			return err;
		if (s > stamp)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0) {
		*number = 1;
		return 0;
	}
	if (lo < t->nchunks && t->chunks[lo].first_insn <= t->ninsns)
		*number = t->chunks[lo].first_insn;
	/* Within the chunk before it: its first stamp after STAMP. */
	k = lo - 1;
	if ((err = history_decode_chunk(t, k, &d)))
		return err;
	for (i = 0; i < d->nstamps; i++)
		if (d->stamps[i].time > stamp) {
			*number = d->first_insn + d->stamps[i].index;
			break;
		}
	return 0;
}
