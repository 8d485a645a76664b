/* history-tail.c: a history of the end of each thread's trace only
 * (hwtr_history_build_tail), and where its instructions are in the whole
 * history (hwtr_thread_tail_base).
 *
 * A chunk start resets the decoder (decoder.h), so the trace from one on
 * decodes to the same instructions whatever came before: the whole
 * history's last instructions, in the time the tail's bytes take.  The
 * tail is built as the whole history is (history.c's index pass), over a
 * stream opened at that chunk start (hwtr_thread.tail_from), as a ring's
 * kept part is; loss events before it are left out with the trace they
 * concern.  What only the whole trace knows, the tail does not claim: its
 * numbers start at 1 (the whole history's come with hwtr_thread_tail_base,
 * after its build), and the callers of functions entered before it are
 * missing (levels are relative to the tail).
 */
#include "history.h"

#include "error.h"

#include <stdlib.h>

/* The chunk starts before the end are searched from this many bytes before
 * it (twice the tail, at least), then from 16 times as many: a scan of the
 * whole stream would cost what the tail saves. */
#define TAIL_SCAN_MIN (1u << 20)

int history_tail_find(struct hwtr_thread *t)
{
	uint64_t tail_bytes = t->history->tail_bytes, kept, target, window, start;
	struct decoder_loss *losses = NULL;
	struct decoder_stream_info si;
	struct decoder_stream *stream;
	int err, found;

	t->tail_from = 0;
	err = history_stream_info(t, &si, &losses);
	kept = si.trace_start;
	if (err || si.size <= kept || si.size - kept <= tail_bytes) {
		free(losses);
		return err;	/* no longer than the tail: the whole */
	}
	target = si.size - tail_bytes;
	window = tail_bytes < TAIL_SCAN_MIN / 2 ? TAIL_SCAN_MIN : 2 * tail_bytes;
	for (;; window *= 16) {
		/* Decoding from a later start is decoding a ring's kept part:
		 * what precedes its first chunk start is not read. */
		si.trace_start = si.size - kept > window ? si.size - window : kept;
		if ((err = t->ops->stream_open(t->history->decoder, &si, &stream)))
			break;
		found = t->ops->chunk_start_before(stream, target + 1, &start);
		t->ops->stream_close(stream);
		if (found > 0) {
			if (start > kept)
				t->tail_from = start;
			break;
		}
		if (si.trace_start == kept || window > UINT64_MAX / 16)
			break;	/* no chunk start before it: the whole */
	}
	free(losses);
	return err;
}

int hwtr_history_build_tail(struct hwtr_recording *rec,
			    const struct hwtr_history_options *options,
			    uint64_t tail_bytes, struct hwtr_history **out)
{
	if (!rec || !out || !tail_bytes)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_history_build_tail: bad argument");
	return history_build(rec, options, tail_bytes, out);
}

/* The chunk of T starting at trace OFFSET, or T->nchunks. */
static size_t chunk_at_offset(const struct hwtr_thread *t, uint64_t offset)
{
	size_t lo = 0, hi = t->nchunks;

	/* Offsets grow with the chunks, but for a first chunk of gaps only
	 * (NO_START, the largest offset): it is never a tail's start. */
	if (lo < hi && t->chunks[0].offset == NO_START)
		lo++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->chunks[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nchunks && t->chunks[lo].offset == offset ? lo : t->nchunks;
}

int hwtr_thread_tail_base(const struct hwtr_thread *tail,
			  const struct hwtr_thread *whole, uint64_t *base)
{
	const struct hwtr_recording *rec;
	size_t k;

	if (!tail || !whole || !base || tail->index != whole->index ||
	    tail->history->recording != whole->history->recording)
		return hwtr_fail(hwtr_err_invalid, "hwtr_thread_tail_base: bad argument");
	rec = tail->history->recording;
	*base = 0;
	if (!tail->tail_from) {
		/* The tail is the whole trace. */
		if (tail->ninsns == whole->ninsns)
			return 0;
	} else if (tail->nchunks && tail->chunks[0].offset == tail->tail_from &&
		   tail->chunks[0].first_insn == 1 &&
		   (k = chunk_at_offset(whole, tail->tail_from)) < whole->nchunks &&
		   whole->chunks[k].entry_ip == tail->chunks[0].entry_ip &&
		   whole->ninsns - (whole->chunks[k].first_insn - 1) == tail->ninsns) {
		*base = whole->chunks[k].first_insn - 1;
		return 0;
	}
	return hwtr_fail(hwtr_err_format, "%s/%s: the history of the trace from "
			 "offset %llu on does not line up with the whole history "
			 "(%llu instructions in the tail, %llu in the whole)",
			 hwtr_recording_path(rec),
			 hwtr_recording_info(rec)->threads[tail->index].stream,
			 (unsigned long long)tail->tail_from,
			 (unsigned long long)tail->ninsns,
			 (unsigned long long)whole->ninsns);
}
