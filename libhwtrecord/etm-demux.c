/* etm-demux.c: one source's bytes out of a CoreSight formatted buffer.
 *
 * A recording's stream may be a formatted trace buffer (ETR/ETF): 16-byte
 * frames mixing several sources by trace ID.  OpenCSD's deformatter
 * demultiplexes it; a custom decoder registered with the library receives
 * this source's bytes into the stream's own copy, and a table of runs maps
 * each raw byte back to its position in the buffer, so that gaps name
 * offsets as OpenCSD's lister prints them (Idx).  A loss restarts the
 * deformatter (frames after it do not continue the ones before) and is
 * placed at the raw size reached; frames that stop parsing keep what came
 * before (deformat_failed); a buffer cut inside a frame ends there
 * (cut_frame).
 */
#include "etm-demux.h"

#include "error.h"
#include "etm-config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DEMUX_NAME "hwtrecord-demux"

/* The stream position of raw offset RAW (the same when not formatted). */
uint64_t etm_stream_offset(const struct etm_stream *s, uint64_t raw)
{
	size_t lo = 0, hi = s->nruns;

	if (!s->runs)
		return raw;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->runs[mid].raw <= raw)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return raw;
	return s->runs[lo - 1].index + (raw - s->runs[lo - 1].raw);
}

/* The custom decoder that only collects a source's deformatted bytes. */
struct demux {
	unsigned char cs_id;
	struct etm_stream *s;
	size_t cap;
	bool nomem;
};

static ocsd_datapath_resp_t demux_data_in(const void *handle,
					  const ocsd_datapath_op_t op,
					  const ocsd_trc_index_t index,
					  const uint32_t size, const uint8_t *data,
					  uint32_t *processed)
{
	struct demux *d = (struct demux *)handle;
	struct etm_stream *s = d->s;

	/* Flush, reset and end of trace come without a count to fill. */
	if (op != OCSD_OP_DATA || !size || !processed)
		return OCSD_RESP_CONT;
	*processed = 0;
	if (d->nomem)
		return OCSD_RESP_FATAL_SYS_ERR;
	if (s->size + size > d->cap) {
		size_t cap = 2 * d->cap + size + 4096;
		uint8_t *p = realloc(s->demuxed, cap);

		if (!p) {
			d->nomem = true;
			return OCSD_RESP_FATAL_SYS_ERR;
		}
		s->demuxed = p;
		d->cap = cap;
	}
	/* A new run unless these bytes follow the last ones in the buffer. */
	if (!s->nruns || s->runs[s->nruns - 1].index +
			 (s->size - s->runs[s->nruns - 1].raw) != index) {
		if ((s->nruns & (s->nruns - 1)) == 0 || !s->nruns) {
			size_t cap = s->nruns ? 2 * s->nruns : 64;
			void *p = realloc(s->runs, cap * sizeof(*s->runs));

			if (!p) {
				d->nomem = true;
				return OCSD_RESP_FATAL_SYS_ERR;
			}
			s->runs = p;
		}
		s->runs[s->nruns++] = (struct demux_run){ s->size, index };
	}
	memcpy(s->demuxed + s->size, data, size);
	s->size += size;
	*processed = size;
	return OCSD_RESP_CONT;
}

static void demux_mon_flags(const void *handle, const int flags)
{
}

static ocsd_err_t demux_create(const int flags, const void *cfg,
			       const ocsd_extern_dcd_cb_fns *callbacks,
			       ocsd_extern_dcd_inst_t *inst)
{
	struct demux *d = (struct demux *)cfg;

	inst->fn_data_in = demux_data_in;
	inst->fn_update_pkt_mon = demux_mon_flags;
	inst->decoder_handle = d;
	inst->p_decoder_name = (char *)DEMUX_NAME;
	inst->cs_id = d->cs_id;
	return OCSD_OK;
}

static ocsd_err_t demux_destroy(const void *handle)
{
	return OCSD_OK;
}

static ocsd_err_t demux_csid(const void *cfg, unsigned char *csid)
{
	*csid = ((const struct demux *)cfg)->cs_id;
	return OCSD_OK;
}

static ocsd_err_t demux_pkt_str(const void *pkt, char *buf, const int len)
{
	if (len > 0)
		buf[0] = 0;
	return OCSD_OK;
}

static ocsd_extern_dcd_fact_t demux_factory = {
	.createDecoder = demux_create,
	.destroyDecoder = demux_destroy,
	.csidFromConfig = demux_csid,
	.pktToString = demux_pkt_str,
};

static pthread_once_t demux_once = PTHREAD_ONCE_INIT;
static ocsd_err_t demux_registered = OCSD_ERR_NOT_INIT;

static void demux_register(void)
{
	demux_registered = ocsd_register_custom_decoder(DEMUX_NAME, &demux_factory);
}

/* This source's bytes out of a formatted buffer. */
int etm_demultiplex(struct etm_stream *s, const uint8_t *bytes, size_t size,
		    uint64_t start)
{
	struct demux d = { .cs_id = s->cfg->trace_id, .s = s };
	uint32_t flags = 0, done = 0;
	dcd_tree_handle_t tree;
	unsigned char csid = 0;
	ocsd_datapath_resp_t resp = OCSD_RESP_CONT;
	uint64_t pos = start;
	char words[128];
	ocsd_err_t err;
	size_t li;

	/* Losses the frames do not reach are not placed (UINT64_MAX). */
	for (li = 0; li < s->nlosses; li++)
		s->losses[li].raw = UINT64_MAX;
	pthread_once(&demux_once, demux_register);
	if (demux_registered != OCSD_OK)
		return hwtr_fail(hwtr_err_nomem, "OpenCSD: cannot register the "
				 "demultiplexer: %s",
				 etm_ocsd_words(demux_registered, words, sizeof(words)));
	if (s->cfg->frame_flags & HWTR_ETM_FRAME_MEM_ALIGN)
		flags |= OCSD_DFRMTR_FRAME_MEM_ALIGN;
	if (s->cfg->frame_flags & HWTR_ETM_FRAME_FSYNCS)
		flags |= OCSD_DFRMTR_HAS_FSYNCS;
	if (s->cfg->frame_flags & HWTR_ETM_FRAME_HSYNCS)
		flags |= OCSD_DFRMTR_HAS_HSYNCS;
	if (!flags)
		flags = OCSD_DFRMTR_FRAME_MEM_ALIGN;
	/* Frames in memory come whole: the deformatter takes no part of one,
	 * and a buffer cut inside one ends with a gap there. */
	if ((flags & OCSD_DFRMTR_FRAME_MEM_ALIGN) && start <= size &&
	    (size - start) % OCSD_DFRMTR_FRAME_SIZE) {
		s->cut_frame = true;
		s->cut_frame_at = size - (size - start) % OCSD_DFRMTR_FRAME_SIZE;
		size = (size_t)s->cut_frame_at;
	}
	tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED, flags);
	if (tree == C_API_INVALID_TREE_HANDLE)
		return hwtr_fail(hwtr_err_nomem, "OpenCSD: cannot create a "
				 "deformatter");
	err = ocsd_dt_create_decoder(tree, DEMUX_NAME, OCSD_CREATE_FLG_FULL_DECODER,
				     &d, &csid);
	if (err != OCSD_OK) {
		ocsd_destroy_dcd_tree(tree);
		return hwtr_fail(hwtr_err_nomem, "OpenCSD: cannot attach the "
				 "demultiplexer: %s",
				 etm_ocsd_words(err, words, sizeof(words)));
	}
	for (li = 0; li <= s->nlosses && !OCSD_DATA_RESP_IS_FATAL(resp); li++) {
		uint64_t stop = li < s->nlosses && s->losses[li].offset < size
					? s->losses[li].offset : size;

		while (pos < stop && !OCSD_DATA_RESP_IS_FATAL(resp)) {
			uint32_t n = stop - pos > (1u << 20) ? 1u << 20
							     : (uint32_t)(stop - pos);

			done = 0;
			resp = ocsd_dt_process_data(tree, OCSD_OP_DATA, pos, n,
						    bytes + pos, &done);
			pos += done;
			if (!done && !OCSD_DATA_RESP_IS_FATAL(resp))
				break;
		}
		if (stop == size || OCSD_DATA_RESP_IS_FATAL(resp))
			break;
		/* A loss: frames start afresh after it (a frame it cut is
		 * lost with it), and this source's bytes after it begin at
		 * the demultiplexed size. */
		resp = ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
		s->losses[li].raw = s->size;
		if (pos < stop)
			pos = stop;
	}
	if (!OCSD_DATA_RESP_IS_FATAL(resp))
		resp = ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(tree);
	if (d.nomem)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (OCSD_DATA_RESP_IS_FATAL(resp) || pos < size) {
		/* Frames that do not parse (a bad sync): keep what came before. */
		s->deformat_failed = true;
		s->deformat_index = pos;
		s->deformat_error = OCSD_ERR_DFMTR_BAD_FHSYNC;
	}
	s->bytes = s->demuxed;
	return 0;
}
