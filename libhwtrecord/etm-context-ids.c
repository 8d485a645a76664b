/* etm-context-ids.c: the context IDs an ETM source's trace names, from its
 * packets alone (hwtrecord.h).
 *
 * An importer that splits a trace unit into a thread per context ID must
 * know the IDs before it writes the recording.  The stream is opened as the
 * ETM decoder opens it for a history (demultiplexed from its CoreSight
 * frames, losses placed, scanned by OpenCSD's packet processor, etm-scan.c)
 * but never walked: the scan notes each context packet's ID where a walk
 * would decode it, so the IDs are the ones the history's index pass finds
 * (hwtr_thread_context_ids), in the same order, at the cost of one pass.
 */
#include "decoder.h"
#include "error.h"
#include "etm-stream.h"

#include <stdlib.h>
#include <string.h>

int hwtr_etm_context_ids(const struct hwtr_etm_config *etm,
			 const uint8_t *stream, size_t size, uint64_t trace_start,
			 const uint64_t *loss_offsets, size_t nlosses,
			 uint32_t **ids, size_t *count)
{
	struct hwtr_thread_info thread = { .stream = "trace", .etm = etm };
	struct hwtr_recording_info info = {
		.trace_format = "etm4", .nthreads = 1, .threads = &thread,
	};
	struct decoder_stream_info si = {
		.info = &info, .bytes = stream, .size = size,
		.trace_start = trace_start,
	};
	struct decoder_context context = { .images = NULL };
	struct decoder_loss *losses = NULL;
	struct decoder_stream *opened = NULL;
	const struct etm_stream *s;
	size_t i;
	int err;

	if (!etm || (!stream && size) || (!loss_offsets && nlosses) || !ids ||
	    !count)
		return hwtr_fail(hwtr_err_invalid, "hwtr_etm_context_ids: bad argument");
	*ids = NULL;
	*count = 0;
	if (nlosses) {
		losses = calloc(nlosses, sizeof(*losses));
		if (!losses)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		for (i = 0; i < nlosses; i++) {
			if (i && loss_offsets[i] < loss_offsets[i - 1]) {
				free(losses);
				return hwtr_fail(hwtr_err_invalid,
						 "hwtr_etm_context_ids: loss offsets "
						 "out of order");
			}
			losses[i].offset = loss_offsets[i];
		}
	}
	si.losses = losses;
	si.nlosses = nlosses;
	err = decoder_etm.stream_open(&context, &si, &opened);
	free(losses);
	if (err)
		return err;
	s = (const struct etm_stream *)opened;
	if (s->nnamed_contexts) {
		*ids = malloc(s->nnamed_contexts * sizeof(**ids));
		if (!*ids) {
			decoder_etm.stream_close(opened);
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		}
		memcpy(*ids, s->named_contexts, s->nnamed_contexts * sizeof(**ids));
		*count = s->nnamed_contexts;
	}
	decoder_etm.stream_close(opened);
	return 0;
}
