/* decode-etm.c: the Arm ETMv4/ETE decoder (decoder.h), with OpenCSD.
 *
 * A source's trace is its raw ETMv4/ETE byte stream.  When the recording's
 * stream is a CoreSight formatted buffer (frames mixing several sources),
 * OpenCSD's deformatter demultiplexes it first: a custom decoder registered
 * with the library receives this source's bytes, and a table of runs maps
 * each of them back to its position in the buffer, so that gaps name
 * offsets as OpenCSD's lister prints them (Idx).
 *
 * Chunk starts are A-sync packets, found by OpenCSD's packet processor
 * alone (it also reports timestamps, for the image's time windows, and a
 * packet cut short by the end of the trace).  Not every A-sync starts a
 * chunk: OpenCSD decoding straight through keeps the address, context and
 * instruction set across a periodic A-sync and Trace Info, so atoms right
 * after them still give instructions, where a decoder started at that
 * A-sync skips every atom until it has both a context and a long address.
 * An A-sync starts a chunk only where the two agree by construction: the
 * first of the stream, the first after a loss or an unusable packet (where
 * the index pass starts afresh too), and one followed by a context and a
 * long address before any packet that could give an instruction (an atom,
 * an exception, a speculation or Q packet).  Its chunk otherwise goes on
 * across it, decoded straight through by both passes.  The walk feeds the raw stream
 * to a full decoder (packet processor and packet decoder, code read from the
 * history's image through a memory callback) and turns its generic elements
 * into items: an instruction range is a block; "address not accessible" is
 * a gap that names the address; a loss of synchronisation is a gap (an
 * overflow, or a bad packet); trace turned on again after blocks in the same
 * chunk is a "disabled" gap at the address it resumed at.  Exceptions,
 * context changes, timestamps and cycle counts carry no instructions.  An
 * element belongs to the chunk of the last A-sync at or before its packet;
 * the index pass decodes straight through, on-demand decoding starts afresh
 * at the chunk's A-sync.
 *
 * Speculation packets (commit, cancel, mispredict) from a trace unit that
 * says it does not trace speculatively (TRCIDR8.MAXSPEC 0) are bad data, and
 * OpenCSD 1.3 can crash on a mispredict with nothing to mispredict (found
 * by fuzzing): the decoder is never fed them; the walk stops before each
 * (a gap) and starts again at the next A-sync.  So with an exception packet
 * that no address follows (a context may come between), on which OpenCSD
 * 1.3.3 and its lister crash: a "bad packet sequence" gap there.
 *
 * Losses (decoder.h): a formatted buffer's deformatter starts afresh at each
 * loss (the frames after it do not continue the ones before), and the loss
 * is placed in the source's raw trace where its bytes after the loss begin.
 * The packet scan resets the packet processor there, and the walk flushes
 * the decoder before it, reports a gap_lost and starts again at the next
 * A-sync, as for an unusable packet.
 *
 * Threads: when context IDs are traced, the index pass lists the ones the
 * source's trace names; a thread that is one context of a source (its
 * configuration has a context ID) keeps only the ranges decoded while that
 * context ID is current, and where it comes back after another ran, a
 * "disabled" gap at the address it resumed at.
 *
 * Files: etm-demux.c (the demultiplexer), etm-scan.c (the packet scan),
 * etm-config.c (OpenCSD trees for a unit), etm-stream.h (what they share);
 * this file holds the walk and the decoder ops.
 *
 * Not done yet: data trace and speculation (ETE's commit/cancel) are
 * OpenCSD's business and not shown.
 */
#include "decoder.h"

#include "error.h"
#include "etm-config.h"
#include "etm-demux.h"
#include "etm-scan.h"
#include "etm-stream.h"

#include <opencsd/c_api/opencsd_c_api.h>
#include <stdlib.h>
#include <string.h>

#define FEED_BYTES 512		/* raw trace fed to OpenCSD at a time */
#define CODE_ADDRESS_END (UINT64_MAX - 0x10000)	/* the last code address */

struct etm_walk {
	struct etm_stream *s;
	dcd_tree_handle_t tree;	/* the stream's */
	decoder_image_fn image_for;
	void *image_ctx;
	unsigned epoch;
	bool on_demand;		/* walk_at: one chunk, from its A-sync */
	uint64_t pos;		/* next raw byte to feed */
	bool eot_sent;
	bool fatal;
	size_t next_start;	/* the next chunk start yet to be reported */
	bool chunk_open;	/* a chunk start was reported */
	size_t next_loss;	/* the first loss after the walk's position */
	bool block_seen;	/* a block since the chunk start or a gap */
	bool resume_pending;	/* trace turned on again after blocks */
	uint64_t resume_offset;
	bool unsynced_reported;
	bool end_reported;
	bool ours;		/* the thread's context ID is current */
	bool left;		/* another context ran after our blocks */
	struct walk_item *queue;
	size_t qhead, qlen, qcap;
	int error;		/* a failure inside a callback */
};

/* ------------------------------------------------------------ the walk */

static struct walk_item *push_item(struct etm_walk *w)
{
	struct walk_item *item;

	if (w->qhead && w->qhead == w->qlen) {
		w->qhead = 0;
		w->qlen = 0;
	}
	if (w->qlen == w->qcap &&
	    (w->error = hwtr_array_grow((void **)&w->queue, &w->qcap, w->qlen,
					sizeof(*w->queue))))
		return NULL;
	item = &w->queue[w->qlen++];
	memset(item, 0, sizeof(*item));
	return item;
}

/* The number of offsets in the sorted OFFSETS[N] at or before RAW. */
static size_t count_up_to(const uint64_t *offsets, size_t n, uint64_t raw)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (offsets[mid] <= raw)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t async_index_after(const struct etm_stream *s, uint64_t raw)
{
	return count_up_to(s->asyncs, s->nasyncs, raw);
}

static size_t start_index_after(const struct etm_stream *s, uint64_t raw)
{
	return count_up_to(s->starts, s->nstarts, raw);
}

/* The chunk of the element at RAW: start the latest chunk start at or
 * before it that has not started yet (chunks without items are not
 * reported). */
static void start_chunks_up_to(struct etm_walk *w, uint64_t raw)
{
	const struct etm_stream *s = w->s;
	size_t k = start_index_after(s, raw);
	struct walk_item *item;

	if (k == 0 || k <= w->next_start)
		return;
	w->next_start = k;
	w->chunk_open = true;
	item = push_item(w);
	if (!item)
		return;
	item->kind = walk_chunk_start;
	item->offset = s->starts[k - 1];
	w->block_seen = false;
	w->resume_pending = false;
	/* The context is known again from the first one after the A-sync. */
	w->ours = false;
	w->left = false;
	/* The code of a new chunk is that of its time window. */
	if (w->image_for(w->image_ctx, item->offset, &w->epoch) < 0)
		w->error = -hwtr_err_decode;
}

static struct walk_item *gap(struct etm_walk *w, enum gap_kind kind, int error,
			     uint64_t raw, uint64_t ip)
{
	struct walk_item *item = push_item(w);

	if (!item)
		return NULL;
	item->kind = walk_gap;
	item->gap = kind;
	item->error = error;
	item->offset = etm_stream_offset(w->s, raw);
	item->ip = ip;
	w->block_seen = false;
	return item;
}

/* Trace turned on again after blocks: say so at the address it resumed. */
static void resume_gap(struct etm_walk *w, uint64_t ip)
{
	if (!w->resume_pending)
		return;
	w->resume_pending = false;
	gap(w, gap_disabled, 0, w->resume_offset, ip);
}

static uint8_t range_class(const ocsd_generic_trace_elem *e)
{
	/* A branch that was not taken is only a possible one. */
	if (e->last_i_type == OCSD_INSTR_BR || e->last_i_type == OCSD_INSTR_BR_INDIRECT) {
		if (!e->last_instr_exec)
			return hwtr_ic_cond_jump;
		if (e->last_i_subtype == OCSD_S_INSTR_BR_LINK)
			return hwtr_ic_call;
		if (e->last_i_subtype == OCSD_S_INSTR_V8_RET ||
		    e->last_i_subtype == OCSD_S_INSTR_V7_IMPLIED_RET)
			return hwtr_ic_return;
		if (e->last_i_subtype == OCSD_S_INSTR_V8_ERET)
			return hwtr_ic_far_return;
		return e->last_instr_cond ? hwtr_ic_cond_jump : hwtr_ic_jump;
	}
	return hwtr_ic_other;
}

static void range_item(struct etm_walk *w, uint64_t raw,
		       const ocsd_generic_trace_elem *e)
{
	struct walk_item *item;
	enum hwtr_isa isa;

	switch (e->isa) {
	case ocsd_isa_aarch64: isa = hwtr_isa_a64; break;
	case ocsd_isa_arm: isa = hwtr_isa_a32; break;
	case ocsd_isa_thumb2: isa = hwtr_isa_t32; break;
	default:
		gap(w, gap_decode_error, OCSD_ERR_UNSUPPORTED_ISA, raw, e->st_addr);
		return;
	}
	if (!e->num_instr_range || e->en_addr <= e->st_addr ||
	    e->last_instr_sz == 0 || e->en_addr - e->st_addr < e->last_instr_sz) {
		gap(w, gap_decode_error, OCSD_ERR_BAD_DECODE_PKT, raw, e->st_addr);
		return;
	}
	resume_gap(w, e->st_addr);
	item = push_item(w);
	if (!item)
		return;
	item->kind = walk_block;
	item->block.ip = e->st_addr;
	item->block.end_ip = e->en_addr - e->last_instr_sz;
	item->block.ninsn = e->num_instr_range;
	item->block.epoch = w->epoch;
	item->block.iclass = range_class(e);
	item->block.isa = (uint8_t)isa;
	w->block_seen = true;
}

/* The packet that lost sync, which the decoder reports at INDEX (the
 * packet after it): the last such packet before INDEX, or INDEX. */
static uint64_t sync_lost_at(const struct etm_stream *s, uint64_t index)
{
	size_t k = count_up_to(s->sync_losses, s->nsync_losses, index - 1);

	return k && index ? s->sync_losses[k - 1] : index;
}

/* A loss of sync reported at INDEX is the gap of the chunk that is open,
 * or else of the chunk of the packet that lost it; never of none (a walk
 * and the index pass put every item in a chunk the same way). */
static void open_chunk_of_loss(struct etm_walk *w, uint64_t index)
{
	if (!w->chunk_open)
		start_chunks_up_to(w, sync_lost_at(w->s, index));
	if (!w->chunk_open)
		start_chunks_up_to(w, index);
}

/* A context ID is current: note it, and follow whether it is the thread's. */
static void context_in(struct etm_walk *w, uint64_t index, uint32_t id)
{
	struct etm_stream *s = w->s;
	const struct hwtr_etm_config *cfg = s->cfg;
	size_t i;
	bool ours;

	if (!w->on_demand) {
		for (i = 0; i < s->ncontexts && s->contexts[i] != id; i++)
			;
		if (i == s->ncontexts) {
			void *p = realloc(s->contexts, (i + 1) * sizeof(*s->contexts));

			if (!p) {
				w->error = hwtr_fail(hwtr_err_nomem, "out of memory");
				return;
			}
			s->contexts = p;
			s->contexts[s->ncontexts++] = id;
		}
	}
	if (!cfg->has_context_id)
		return;
	ours = id == cfg->context_id;
	if (w->ours && !ours && w->block_seen)
		w->left = true;
	if (!w->ours && ours && w->left) {
		w->resume_pending = true;
		w->resume_offset = index;
		w->left = false;
	}
	w->ours = ours;
}

/* Instructions of another thread's context: not this thread's. */
static bool not_ours(const struct etm_walk *w)
{
	return w->s->cfg->has_context_id && !w->ours;
}

static ocsd_datapath_resp_t element_in(const void *ctx, const ocsd_trc_index_t index,
				       const uint8_t chan, const ocsd_generic_trace_elem *e)
{
	struct etm_walk *w = ((const struct etm_stream *)ctx)->walk;
	struct walk_item *item;

	if (!w)
		return OCSD_RESP_CONT;	/* a walk left early: draining */
	if (w->error)
		return OCSD_RESP_FATAL_SYS_ERR;
	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
		start_chunks_up_to(w, index);
		if (e->context.ctxt_id_valid)
			context_in(w, index, e->context.context_id);
		break;
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		start_chunks_up_to(w, index);
		if (!not_ours(w))
			range_item(w, index, e);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
		start_chunks_up_to(w, index);
		if (not_ours(w))
			break;
		resume_gap(w, e->st_addr);
		item = gap(w, gap_decode_error, OCSD_ERR_MEM_NACC, index, e->st_addr);
		if (item)
			item->no_code = true;
		break;
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
		/* Sync was lost in the chunk that is current; the decoder says
		 * so at the packet it next reads, often the A-sync that starts
		 * the next chunk, which a decoder started there never says.
		 * Before the walk's first chunk it is the chunk of the packet
		 * that lost it. */
		switch (e->unsync_eot_info) {
		case UNSYNC_OVERFLOW:
			open_chunk_of_loss(w, index);
			gap(w, gap_overflow, 0, index, 0);
			break;
		case UNSYNC_BAD_PACKET:
		case UNSYNC_DISCARD:
			open_chunk_of_loss(w, index);
			gap(w, gap_decode_error, OCSD_ERR_BAD_PACKET_SEQ, index, 0);
			break;
		default:
			/* Start of decoding: the unsynced bytes are the scan's
			 * business; end of trace: nothing lost. */
			break;
		}
		break;
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
		start_chunks_up_to(w, index);
		/* After an overflow the overflow is the gap. */
		if (w->block_seen && e->trace_on_reason != TRACE_ON_OVERFLOW) {
			w->resume_pending = true;
			w->resume_offset = index;
		}
		break;
	case OCSD_GEN_TRC_ELEM_I_RANGE_NOPATH:
		start_chunks_up_to(w, index);
		if (!not_ours(w))
			gap(w, gap_decode_error, OCSD_ERR_UNSUPP_DECODE_PKT, index,
			    e->st_addr);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
		start_chunks_up_to(w, index);
		if (!not_ours(w))
			gap(w, gap_decode_error, OCSD_ERR_BAD_DECODE_PKT, index, 0);
		break;
	default:
		/* Exceptions, context, timestamps, cycle counts, events: no
		 * instructions. */
		break;
	}
	return w->error ? OCSD_RESP_FATAL_SYS_ERR : OCSD_RESP_CONT;
}

static uint32_t read_code(const void *ctx, const ocsd_vaddr_t address,
			  const ocsd_mem_space_acc_t space, const uint32_t size,
			  uint8_t *buf)
{
	const struct etm_stream *s = ctx;

	if (!s->walk)
		return 0;
	return (uint32_t)image_epoch_read(s->context->images, s->walk->epoch, address,
					  buf, size);
}

static void etm_walk_free(struct etm_walk *w)
{
	if (!w)
		return;
	if (w->s->walk == w) {
		w->s->walk = NULL;
		/* A walk left before the end (a chunk is complete) leaves
		 * elements pending in OpenCSD's ETMv4 decoder, which a reset
		 * drops without freeing them (OpenCSD 1.3): the end of the
		 * trace flushes them out first. */
		if (!w->eot_sent)
			ocsd_dt_process_data(w->tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
		ocsd_dt_process_data(w->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	}
	free(w->queue);
	free(w);
}

/* The stream's full decoder, made on first use. */
static int stream_tree(struct etm_stream *s)
{
	unsigned char csid = 0;
	int err;

	if (s->tree)
		return 0;
	if ((err = etm_create_tree(s->cfg, OCSD_CREATE_FLG_FULL_DECODER, &s->tree, &csid)))
		return err;
	/* Not the last 64 KiB of the address space: OpenCSD 1.3.3's memory
	 * cache overruns its page there (found by fuzzing: an address packet
	 * of 0xfffffffffffffffc); no code lives there, and an address
	 * outside every accessor is "not accessible", as for no image. */
	if (ocsd_dt_set_gen_elem_outfn(s->tree, element_in, s) != OCSD_OK ||
	    ocsd_dt_add_callback_mem_acc(s->tree, 0, CODE_ADDRESS_END,
					 OCSD_MEM_SPACE_ANY, read_code, s) != OCSD_OK) {
		ocsd_destroy_dcd_tree(s->tree);
		s->tree = NULL;
		return hwtr_fail(hwtr_err_nomem, "OpenCSD: cannot set up the decoder");
	}
	return 0;
}

/* A walk from FROM: the index pass (from the first A-sync, or RESUME: from
 * a chunk's A-sync on), or ON_DEMAND one chunk. */
static int walk_start(struct etm_stream *s, uint64_t from, bool on_demand,
		      bool resume, decoder_image_fn image_for, void *ctx,
		      struct etm_walk **out)
{
	struct etm_walk *w;
	int err;

	if (s->walk)
		return hwtr_fail(hwtr_err_invalid, "source 0x%x is being decoded "
				 "already", s->cfg->trace_id);
	if ((err = stream_tree(s)))
		return err;
	w = calloc(1, sizeof(*w));
	if (!w)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->s = s;
	w->tree = s->tree;
	w->image_for = image_for;
	w->image_ctx = ctx;
	w->on_demand = on_demand;
	w->pos = from;
	/* The chunk that starts at FROM (or before the first A-sync). */
	w->next_start = on_demand || resume ? start_index_after(s, from) - 1 : 0;
	w->unsynced_reported = resume;	/* that was the first chunk's */
	while (w->next_loss < s->nlosses && s->losses[w->next_loss].raw <= from)
		w->next_loss++;
	if ((err = image_for(ctx, from, &w->epoch)) < 0) {
		etm_walk_free(w);
		return err;
	}
	/* Every walk starts unsynchronised, as a new decoder would. */
	ocsd_dt_process_data(w->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	s->walk = w;
	*out = w;
	return 0;
}

/* The first offset in the sorted OFFSETS[N] at or after RAW, or
 * UINT64_MAX. */
static uint64_t first_from(const uint64_t *offsets, size_t n, uint64_t raw)
{
	size_t k = raw ? count_up_to(offsets, n, raw - 1) : 0;

	return k < n ? offsets[k] : UINT64_MAX;
}

/* The first packet at or after RAW that is never fed to the decoder, or
 * UINT64_MAX; *ERROR: why (the gap's OpenCSD error). */
static uint64_t next_unusable(const struct etm_stream *s, uint64_t raw, int *error)
{
	uint64_t spec = first_from(s->unusable, s->nunusable, raw);
	uint64_t exc = first_from(s->bad_exceptions, s->nbad_exceptions, raw);

	*error = exc < spec ? OCSD_ERR_BAD_PACKET_SEQ : OCSD_ERR_HW_CFG_UNSUPP;
	return exc < spec ? exc : spec;
}

/* The decoder, reset, starts afresh at the A-sync at RAW: a loss of sync
 * it reports before its first instruction belongs to the chunk of the
 * packet that lost it (element_in), as when a walk starts there. */
static void restart_at(struct etm_walk *w, uint64_t raw)
{
	w->pos = raw;
	w->chunk_open = false;
}

/* The walk reached a loss: what came before is flushed out, a gap, and
 * decoding starts again at the first A-sync after it. */
static void lost(struct etm_walk *w)
{
	const struct etm_stream *s = w->s;
	const struct etm_loss *l = &s->losses[w->next_loss];
	size_t k = async_index_after(s, l->raw - 1);
	struct walk_item *item;

	ocsd_dt_process_data(w->tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_dt_process_data(w->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	item = gap(w, gap_lost, 0, l->raw, 0);
	if (item) {
		item->offset = l->offset;
		item->reason = l->reason;
	}
	if (k >= s->nasyncs) {
		w->fatal = true;
		w->next_loss = s->nlosses;
		return;
	}
	restart_at(w, s->asyncs[k]);
	while (w->next_loss < s->nlosses && s->losses[w->next_loss].raw <= w->pos)
		w->next_loss++;
}

/* Feed the decoder until it has said something or the trace is done. */
static void feed(struct etm_walk *w)
{
	const struct etm_stream *s = w->s;

	while (w->qhead == w->qlen && !w->error) {
		ocsd_datapath_resp_t resp;
		uint32_t done = 0, n;
		uint64_t bad;
		int bad_error;

		if (w->pos >= s->size || w->fatal) {
			if (!w->eot_sent) {
				w->eot_sent = true;
				ocsd_dt_process_data(w->tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
				continue;
			}
			return;
		}
		n = s->size - w->pos > FEED_BYTES ? FEED_BYTES
						  : (uint32_t)(s->size - w->pos);
		if (w->next_loss < s->nlosses &&
		    s->losses[w->next_loss].raw <= w->pos) {
			lost(w);
			continue;
		}
		if (w->next_loss < s->nlosses &&
		    s->losses[w->next_loss].raw - w->pos < n)
			n = (uint32_t)(s->losses[w->next_loss].raw - w->pos);
		bad = next_unusable(s, w->pos, &bad_error);
		if (bad == w->pos) {
			/* Not for the decoder: what came before is flushed out, a
			 * gap here, and decoding starts again at the next A-sync. */
			size_t k = async_index_after(s, w->pos);

			ocsd_dt_process_data(w->tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
			ocsd_dt_process_data(w->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
			gap(w, gap_decode_error, bad_error, w->pos, 0);
			if (k >= s->nasyncs)
				w->fatal = true;
			else
				restart_at(w, s->asyncs[k]);
			continue;
		}
		if (bad - w->pos < n)
			n = (uint32_t)(bad - w->pos);
		resp = ocsd_dt_process_data(w->tree, OCSD_OP_DATA, w->pos, n,
					    s->bytes + w->pos, &done);
		if (OCSD_DATA_RESP_IS_FATAL(resp) && !w->error) {
			/* The decoder gave up on these bytes: a gap, then
			 * decoding starts afresh at the next A-sync. */
			size_t k = async_index_after(s, w->pos);

			gap(w, gap_decode_error, OCSD_ERR_DATA_DECODE_FATAL,
			    w->pos + done, 0);
			ocsd_dt_process_data(w->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
			if (k >= s->nasyncs) {
				w->fatal = true;
				continue;
			}
			restart_at(w, s->asyncs[k]);
			continue;
		}
		if (!done && OCSD_DATA_RESP_IS_WAIT(resp)) {
			ocsd_dt_process_data(w->tree, OCSD_OP_FLUSH, 0, 0, NULL, NULL);
			continue;
		}
		w->pos += done ? done : n;
	}
}

static int etm_walk_next(struct etm_walk *w, struct walk_item *item)
{
	const struct etm_stream *s = w->s;

	if (!w->unsynced_reported) {
		uint64_t first = s->nasyncs ? s->asyncs[0] : s->size;

		w->unsynced_reported = true;
		/* A loss before the kept start is the history's first gap; it
		 * also stands for any bytes before the first A-sync. */
		if (!w->on_demand && s->leading_loss) {
			walk_item_lost(item, s->leading_loss_offset,
				       s->leading_loss_reason);
			return 1;
		}
		/* Bytes before the first A-sync cannot be decoded. */
		if (!w->on_demand && first > s->start) {
			memset(item, 0, sizeof(*item));
			item->kind = walk_gap;
			item->gap = gap_unsynced;
			item->offset = etm_stream_offset(s, s->start);
			item->ip = first - s->start;
			return 1;
		}
	}
	feed(w);
	if (w->error)
		return w->error < 0 ? w->error : -hwtr_err_decode;
	if (w->qhead < w->qlen) {
		*item = w->queue[w->qhead++];
		return 1;
	}
	/* The last chunk ends there too when decoded on demand. */
	if (w->end_reported)
		return 0;
	w->end_reported = true;
	/* The end of the trace: frames that stopped making sense, a last
	 * frame or packet cut short. */
	if (s->truncated || s->deformat_failed || s->cut_frame) {
		memset(item, 0, sizeof(*item));
		item->kind = walk_gap;
		if (s->deformat_failed) {
			item->gap = gap_decode_error;
			item->error = s->deformat_error;
			item->offset = s->deformat_index;
		} else if (s->cut_frame) {
			item->gap = gap_truncated;
			item->offset = s->cut_frame_at;
		} else {
			item->gap = gap_truncated;
			item->offset = etm_stream_offset(s, s->truncated_at);
		}
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ the ops */

static int context_alloc(struct image_set *images, struct decoder_context **out)
{
	struct decoder_context *c = calloc(1, sizeof(*c));

	if (!c)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	c->images = images;
	*out = c;
	return 0;
}

static void context_free(struct decoder_context *c)
{
	free(c);
}

static void stream_fini(struct etm_stream *s)
{
	if (s->tree)
		ocsd_destroy_dcd_tree(s->tree);
	free(s->demuxed);
	free(s->runs);
	free(s->asyncs);
	free(s->starts);
	free(s->stamps);
	free(s->unusable);
	free(s->sync_losses);
	free(s->bad_exceptions);
	free(s->losses);
	free(s->contexts);
	free(s->named_contexts);
}

static void stream_close(struct decoder_stream *stream)
{
	struct etm_stream *s = (struct etm_stream *)stream;

	if (!s)
		return;
	stream_fini(s);
	free(s);
}

/* The stream's losses after its kept start (their raw offsets are set by
 * the demultiplexer, or are the stream offsets). */
static int copy_losses(struct etm_stream *s, const struct decoder_stream_info *si)
{
	size_t i;

	if (!si->nlosses)
		return 0;
	s->losses = calloc(si->nlosses, sizeof(*s->losses));
	if (!s->losses)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < si->nlosses; i++) {
		if (si->losses[i].offset <= si->trace_start &&
		    si->losses[i].offset < si->size && !s->leading_loss) {
			/* Lost before the kept start: the history begins
			 * with that gap (if the source has trace after it:
			 * place_losses). */
			s->leading_loss = true;
			s->leading_loss_offset = si->losses[i].offset;
			s->leading_loss_reason = si->losses[i].reason;
		}
		if (si->losses[i].offset <= si->trace_start ||
		    si->losses[i].offset >= si->size)
			continue;
		s->losses[s->nlosses].offset = si->losses[i].offset;
		s->losses[s->nlosses].raw = si->losses[i].offset;
		s->losses[s->nlosses].reason = si->losses[i].reason;
		s->nlosses++;
	}
	return 0;
}

/* Keep one loss per place in the raw trace, and none where the source's
 * trace has no bytes before or after it; a loss before the kept start only
 * where the source has trace after it (in a shared buffer, a source with no
 * bytes gets no history for another's loss). */
static void place_losses(struct etm_stream *s)
{
	size_t i, k = 0;

	if (s->size <= s->start)
		s->leading_loss = false;

	for (i = 0; i < s->nlosses; i++) {
		const struct etm_loss *l = &s->losses[i];

		if (l->raw <= s->start || l->raw >= s->size ||
		    (k && s->losses[k - 1].raw == l->raw))
			continue;
		s->losses[k++] = *l;
	}
	s->nlosses = k;
}

static int stream_open(struct decoder_context *context,
		       const struct decoder_stream_info *si,
		       struct decoder_stream **out)
{
	const struct hwtr_etm_config *cfg = si->info->threads[si->thread].etm;
	struct etm_stream *s;
	int err;

	if (!cfg)
		return hwtr_fail(hwtr_err_format, "thread %zu has no ETM trace unit "
				 "in the manifest", si->thread);
	s = calloc(1, sizeof(*s));
	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->context = context;
	s->cfg = cfg;
	err = copy_losses(s, si);
	if (!err && cfg->formatted) {
		err = etm_demultiplex(s, si->bytes, si->size, si->trace_start);
	} else if (!err) {
		s->bytes = si->bytes;
		s->size = si->size;
		s->start = si->trace_start;
	}
	if (!err) {
		place_losses(s);
		err = etm_scan_packets(s);
	}
	if (err) {
		stream_close((struct decoder_stream *)s);
		return err;
	}
	*out = (struct decoder_stream *)s;
	return 0;
}

static size_t stream_index_bytes(const struct decoder_stream *stream)
{
	const struct etm_stream *s = (const struct etm_stream *)stream;

	return s->nasyncs * sizeof(*s->asyncs) + s->nstarts * sizeof(*s->starts) +
	       s->nstamps * sizeof(*s->stamps) +
	       s->nruns * sizeof(*s->runs) + (s->demuxed ? s->size : 0);
}

static uint64_t stream_trace_bytes(const struct decoder_stream *stream)
{
	const struct etm_stream *s = (const struct etm_stream *)stream;

	return s->size - s->start;
}

static size_t stream_context_ids(const struct decoder_stream *stream,
				 const uint32_t **ids)
{
	const struct etm_stream *s = (const struct etm_stream *)stream;

	*ids = s->contexts;
	return s->ncontexts;
}

/* A chunk's window runs from the last timestamp before its A-sync to the
 * first after the next chunk's (ETM timestamps follow what they time). */
static bool chunk_window(const struct decoder_stream *stream, uint64_t offset,
			 uint64_t *begin, uint64_t *end)
{
	const struct etm_stream *s = (const struct etm_stream *)stream;
	size_t lo = 0, hi = s->nstamps, k = start_index_after(s, offset);
	uint64_t next = k < s->nstarts ? s->starts[k] : UINT64_MAX;

	*begin = 0;
	*end = UINT64_MAX;
	if (!s->nstamps)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->stamps[mid].raw <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		*begin = s->stamps[lo - 1].value;
	for (; lo < s->nstamps; lo++)
		if (s->stamps[lo].raw > next) {
			*end = s->stamps[lo].value;
			break;
		}
	return true;
}

/* The deformatter and the packet scan have no place to start again in the
 * middle (a formatted buffer's frames, OpenCSD's packet processor state):
 * the stream is opened again, as a scan, and keeps the context IDs the index
 * pass saw.  It costs a packet scan of the whole stream, not a decode. */
static int stream_extend(struct decoder_stream *stream,
			 const struct decoder_stream_info *si, uint64_t keep,
			 bool *windows)
{
	struct etm_stream *s = (struct etm_stream *)stream, *n = NULL;
	size_t i;
	int err;

	if (s->walk)
		return hwtr_fail(hwtr_err_invalid, "source 0x%x is being decoded",
				 s->cfg->trace_id);
	if ((err = stream_open(s->context, si, (struct decoder_stream **)&n)))
		return err;
	*windows = false;
	for (i = 0; i < s->nstarts && s->starts[i] < keep; i++) {
		uint64_t b0, e0, b1, e1;
		bool t0 = chunk_window(stream, s->starts[i], &b0, &e0);
		bool t1 = chunk_window((struct decoder_stream *)n, s->starts[i],
				       &b1, &e1);

		if (i >= n->nstarts || n->starts[i] != s->starts[i] || t0 != t1 ||
		    b0 != b1 || e0 != e1) {
			*windows = true;
			break;
		}
	}
	n->contexts = s->contexts;
	n->ncontexts = s->ncontexts;
	s->contexts = NULL;
	stream_fini(s);
	*s = *n;
	free(n);
	return 0;
}

static int walk_begin(struct decoder_stream *stream, decoder_image_fn image,
		      void *ctx, struct decoder_walk **out)
{
	struct etm_stream *s = (struct etm_stream *)stream;

	return walk_start(s, s->nstarts ? s->starts[0] : s->size, false, false,
			  image, ctx, (struct etm_walk **)out);
}

/* A walk from the chunk start at OFFSET: one chunk (ON_DEMAND), or the
 * index pass from there on. */
static int walk_from_async(struct decoder_stream *stream, uint64_t offset,
			   bool on_demand, decoder_image_fn image, void *ctx,
			   struct decoder_walk **out)
{
	struct etm_stream *s = (struct etm_stream *)stream;
	size_t k = start_index_after(s, offset);

	if (k == 0 || s->starts[k - 1] != offset)
		return hwtr_fail(hwtr_err_decode, "no chunk start (A-sync) at "
				 "offset %llu of source 0x%x",
				 (unsigned long long)offset,
				 s->cfg->trace_id);
	return walk_start(s, offset, on_demand, !on_demand, image, ctx,
			  (struct etm_walk **)out);
}

static int chunk_start_before(const struct decoder_stream *stream,
			      uint64_t offset, uint64_t *start)
{
	const struct etm_stream *s = (const struct etm_stream *)stream;
	size_t k = offset ? async_index_after(s, offset - 1) : 0;

	if (k == 0)
		return 0;
	*start = s->asyncs[k - 1];
	return 1;
}

static int walk_at(struct decoder_stream *stream, uint64_t offset,
		   decoder_image_fn image, void *ctx, struct decoder_walk **out)
{
	return walk_from_async(stream, offset, true, image, ctx, out);
}

static int walk_resume(struct decoder_stream *stream, uint64_t offset,
		       decoder_image_fn image, void *ctx, struct decoder_walk **out)
{
	return walk_from_async(stream, offset, false, image, ctx, out);
}

static int walk_next(struct decoder_walk *walk, struct walk_item *item)
{
	return etm_walk_next((struct etm_walk *)walk, item);
}

static void walk_free(struct decoder_walk *walk)
{
	etm_walk_free((struct etm_walk *)walk);
}

/* Static words: a gap keeps the pointer as its kind. */
static const char *errstr(int error)
{
	switch (error) {
	case 0:
		return "no sync";
	case OCSD_ERR_MEM_NACC:
		/* OpenCSD's lister says ADDR_NACC. */
		return "address not accessible";
	case OCSD_ERR_BAD_PACKET_SEQ:
		return "bad packet sequence";
	case OCSD_ERR_DATA_DECODE_FATAL:
		return "OpenCSD could not decode the trace";
	case OCSD_ERR_UNSUPPORTED_ISA:
		return "instruction set not supported";
	case OCSD_ERR_UNSUPP_DECODE_PKT:
		return "execution path not traced";
	case OCSD_ERR_BAD_DECODE_PKT:
		return "address unknown";
	case OCSD_ERR_DFMTR_BAD_FHSYNC:
		return "CoreSight frames do not deformat";
	case OCSD_ERR_HW_CFG_UNSUPP:
		return "speculation packet from a trace unit that does not "
		       "trace speculation";
	default:
		return "OpenCSD error";
	}
}

const struct decoder_ops decoder_etm = {
	.name = "etm4",
	.chunk_start_name = "A-sync",
	.libipt_errors = false,
	.context_alloc = context_alloc,
	.context_free = context_free,
	.stream_open = stream_open,
	.stream_close = stream_close,
	.stream_extend = stream_extend,
	.stream_index_bytes = stream_index_bytes,
	.stream_trace_bytes = stream_trace_bytes,
	.stream_context_ids = stream_context_ids,
	.chunk_window = chunk_window,
	.chunk_start_before = chunk_start_before,
	.walk_begin = walk_begin,
	.walk_at = walk_at,
	.walk_resume = walk_resume,
	.walk_next = walk_next,
	.walk_free = walk_free,
	.errstr = errstr,
};
