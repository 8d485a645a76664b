/* etm-scan.c: the packet scan of one ETMv4/ETE source, before any walk.
 *
 * OpenCSD's packet processor alone goes over the source's raw trace once
 * and notes what the walks need (etm-stream.h): every A-sync, the A-syncs
 * that start a chunk (the first of the stream, the first after a loss or
 * an unusable packet, and one followed by a context and a long address
 * before any packet that could give an instruction; see decode-etm.c),
 * timestamps for the image's time windows, the context IDs that context
 * packets name (importers split a trace unit by them), packets that lose sync,
 * packets never to be fed to the decoder (speculation from a unit that
 * does not speculate, an exception with no address), and a packet cut
 * short by the end of the trace.  A loss resets the processor there.
 * hwtr_etm_decodable asks the same processor whether OpenCSD takes a unit.
 */
#include "etm-scan.h"

#include "error.h"
#include "etm-config.h"

#include <stdlib.h>
#include <string.h>

static int push_u64(uint64_t **array, size_t *count, uint64_t v)
{
	if ((*count & (*count - 1)) == 0) {
		size_t cap = *count ? 2 * *count : 64;
		void *p = realloc(*array, cap * sizeof(**array));

		if (!p)
			return -1;
		*array = p;
	}
	(*array)[(*count)++] = v;
	return 0;
}

struct scan_state {
	struct etm_stream *s;
	bool nomem;
	bool after_loss;	/* reset at a loss, no A-sync since */
	bool fresh;		/* the walk starts afresh at the next A-sync */
	bool pending;		/* an A-sync that may yet start a chunk: */
	uint64_t pending_at;
	bool pending_tinfo;	/* ... its Trace Info seen */
	bool pending_ctxt;	/* ... a context seen since */
	bool pending_addr;	/* ... a long address seen since */
	bool in_exception;	/* an exception packet wants its address: */
	uint64_t exception_at;
	bool exception_ctxt;	/* ... a context came first */
};

/* A context packet P that names a context ID: note it (once, in order of
 * first appearance) where the walks decode it, that is not between a loss
 * or a packet never fed to the decoder and the next A-sync (FRESH).  False
 * when out of memory. */
static bool note_context(struct scan_state *st, const ocsd_etmv4_i_pkt *p)
{
	struct etm_stream *s = st->s;
	size_t i;

	if (!p->context.updated || !p->context.updated_c || st->fresh ||
	    !s->nasyncs)
		return true;
	for (i = 0; i < s->nnamed_contexts; i++)
		if (s->named_contexts[i] == p->context.ctxtID)
			return true;
	if ((s->nnamed_contexts & (s->nnamed_contexts - 1)) == 0) {
		size_t cap = s->nnamed_contexts ? 2 * s->nnamed_contexts : 8;
		void *q = realloc(s->named_contexts,
				  cap * sizeof(*s->named_contexts));

		if (!q)
			return false;
		s->named_contexts = q;
	}
	s->named_contexts[s->nnamed_contexts++] = p->context.ctxtID;
	return true;
}

/* Packet AT is never fed to the decoder: the walk starts afresh at the
 * next A-sync.  False when out of memory. */
static bool not_fed(struct scan_state *st, uint64_t at)
{
	st->fresh = true;
	return push_u64(&st->s->bad_exceptions, &st->s->nbad_exceptions, at) == 0;
}

/* An exception packet is followed by its address (a context may come
 * first); OpenCSD 1.3 can crash on one that is not (found by fuzzing), so
 * such a packet is never fed to the decoder. */
static void check_exception(struct scan_state *st, const ocsd_etmv4_i_pkt *p,
			    uint64_t index)
{
	int type = (int)p->type;

	if (st->in_exception) {
		if (type == ETM4_PKT_I_CTXT && !st->exception_ctxt) {
			st->exception_ctxt = true;
			return;
		}
		st->in_exception = false;
		if (type != ETM4_PKT_I_ADDR_MATCH && type != ETM4_PKT_I_ADDR_S_IS0 &&
		    type != ETM4_PKT_I_ADDR_S_IS1 && type != ETM4_PKT_I_ADDR_L_32IS0 &&
		    type != ETM4_PKT_I_ADDR_L_32IS1 && type != ETM4_PKT_I_ADDR_L_64IS0 &&
		    type != ETM4_PKT_I_ADDR_L_64IS1 &&
		    type != ETM4_PKT_I_ADDR_CTXT_L_32IS0 &&
		    type != ETM4_PKT_I_ADDR_CTXT_L_32IS1 &&
		    type != ETM4_PKT_I_ADDR_CTXT_L_64IS0 &&
		    type != ETM4_PKT_I_ADDR_CTXT_L_64IS1 &&
		    !not_fed(st, st->exception_at))
			st->nomem = true;
	}
	if (type == ETM4_PKT_I_EXCEPT) {
		st->in_exception = true;
		st->exception_at = index;
		st->exception_ctxt = false;
	}
}

/* Whether the pending A-sync starts a chunk, by the packet after it.  A
 * decoder started there reads nothing before the Trace Info that must come
 * first; after it, a packet that leaves that decoder and one going
 * straight through in the same state (nothing, or a context or an address
 * they both take) keeps the A-sync pending; a context and a long address
 * make it a chunk start; anything else (an atom, an exception,
 * speculation: what a fresh decoder would skip or get wrong) takes it
 * off. */
static void settle_start(struct scan_state *st, const ocsd_etmv4_i_pkt *p)
{
	if (!st->pending_tinfo) {
		st->pending_tinfo = p->type == ETM4_PKT_I_TRACE_INFO;
		st->pending = st->pending_tinfo;
		return;
	}
	switch ((int)p->type) {
	case ETM4_PKT_I_TIMESTAMP:
	case ETM4_PKT_I_TRACE_ON:
	case ETM4_PKT_I_CCNT_F1:
	case ETM4_PKT_I_CCNT_F2:
	case ETM4_PKT_I_CCNT_F3:
	case ETM4_PKT_I_IGNORE:
	case ETM4_PKT_I_EVENT:
	/* Short addresses depend on the packet processor's history. */
	case ETM4_PKT_I_ADDR_MATCH:
	case ETM4_PKT_I_ADDR_S_IS0:
	case ETM4_PKT_I_ADDR_S_IS1:
		return;
	case ETM4_PKT_I_CTXT:
		if (p->context.updated)
			st->pending_ctxt = true;
		break;
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
		if (p->context.updated)
			st->pending_ctxt = true;
		st->pending_addr = true;
		break;
	case ETM4_PKT_I_ADDR_L_32IS0:
	case ETM4_PKT_I_ADDR_L_32IS1:
	case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1:
		st->pending_addr = true;
		break;
	default:
		st->pending = false;
		return;
	}
	if (st->pending_ctxt && st->pending_addr) {
		st->pending = false;
		if (push_u64(&st->s->starts, &st->s->nstarts, st->pending_at) < 0)
			st->nomem = true;
	}
}

static ocsd_datapath_resp_t scan_packet(const void *ctx, const ocsd_datapath_op_t op,
					const ocsd_trc_index_t index,
					const void *packet)
{
	struct scan_state *st = (struct scan_state *)ctx;
	struct etm_stream *s = st->s;
	const ocsd_etmv4_i_pkt *p = packet;

	if (op != OCSD_OP_DATA || !p)
		return OCSD_RESP_CONT;
	check_exception(st, p, index);
	if (st->pending && p->type != ETM4_PKT_I_ASYNC)
		settle_start(st, p);
	switch ((int)p->type) {
	case ETM4_PKT_I_ASYNC:
		if (push_u64(&s->asyncs, &s->nasyncs, index) < 0)
			st->nomem = true;
		st->after_loss = false;
		/* An A-sync with nothing after it before the next one starts
		 * no chunk (it has no items). */
		st->pending = false;
		if (!s->nstarts || st->fresh) {
			if (push_u64(&s->starts, &s->nstarts, index) < 0)
				st->nomem = true;
		} else {
			st->pending = true;
			st->pending_at = index;
			st->pending_tinfo = false;
			st->pending_ctxt = false;
			st->pending_addr = false;
		}
		st->fresh = false;
		break;
	case ETM4_PKT_I_TIMESTAMP:
		if ((s->nstamps & (s->nstamps - 1)) == 0) {
			size_t cap = s->nstamps ? 2 * s->nstamps : 64;
			void *q = realloc(s->stamps, cap * sizeof(*s->stamps));

			if (!q) {
				st->nomem = true;
				break;
			}
			s->stamps = q;
		}
		s->stamps[s->nstamps++] = (struct timestamp_mark){ index,
								  p->ts.timestamp };
		break;
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
	case ETM4_PKT_I_OVERFLOW:
	case ETM4_PKT_I_DISCARD:
		if (push_u64(&s->sync_losses, &s->nsync_losses, index) < 0)
			st->nomem = true;
		break;
	case ETM4_PKT_I_INCOMPLETE_EOT:
		/* Bytes after a loss that never reach an A-sync are the
		 * loss's, not a packet cut short. */
		if (!st->after_loss) {
			s->truncated = true;
			s->truncated_at = index;
		}
		break;
	case ETM4_PKT_I_TRACE_INFO:
		/* A speculation depth past the unit's maximum (TRCIDR8) is
		 * bad data, and a decoder started at a later A-sync would not
		 * carry it (found by fuzzing): like a speculation packet. */
		if (p->curr_spec_depth > s->cfg->trcidr[8]) {
			if (push_u64(&s->unusable, &s->nunusable, index) < 0)
				st->nomem = true;
			st->fresh = true;
		}
		break;
	case ETM4_PKT_I_CTXT:
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
		if (!note_context(st, p))
			st->nomem = true;
		break;
	case ETM4_PKT_I_COMMIT:
	case ETM4_PKT_I_CANCEL_F1:
	case ETM4_PKT_I_CANCEL_F1_MISPRED:
	case ETM4_PKT_I_MISPREDICT:
	case ETM4_PKT_I_CANCEL_F2:
	case ETM4_PKT_I_CANCEL_F3:
		if (s->cfg->trcidr[8] == 0) {
			if (push_u64(&s->unusable, &s->nunusable, index) < 0)
				st->nomem = true;
			st->fresh = true;
		}
		break;
	default:
		break;
	}
	return st->nomem ? OCSD_RESP_FATAL_SYS_ERR : OCSD_RESP_CONT;
}

/* A packet processor of the unit E calling FN with CTX for every packet.
 * OpenCSD's C API has no ETE packet callback before 1.7.1 (the ETE decoder
 * is there, but the chunk scan needs the packets). */
static int packet_tree(const struct hwtr_etm_config *e, void *fn, void *ctx,
		       dcd_tree_handle_t *out)
{
	dcd_tree_handle_t tree;
	unsigned char csid = 0;
	ocsd_err_t oerr;
	char words[128];
	int err = etm_create_tree(e, OCSD_CREATE_FLG_PACKET_PROC, &tree, &csid);

	if (err)
		return err;
	oerr = ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK,
					      fn, ctx);
	if (oerr == OCSD_OK) {
		*out = tree;
		return 0;
	}
	ocsd_destroy_dcd_tree(tree);
	if (e->ete)
		return hwtr_fail(hwtr_err_version, "source 0x%x is an ETE trace "
				 "unit: decoding ETE needs OpenCSD 1.7.1 or later "
				 "(its C API gives ETE packets to a callback), this is "
				 "OpenCSD %s", e->trace_id, ocsd_get_version_str());
	return hwtr_fail(hwtr_err_nomem, "OpenCSD: cannot attach to the packet "
			 "processor of source 0x%x: %s", e->trace_id,
			 etm_ocsd_words(oerr, words, sizeof(words)));
}

static ocsd_datapath_resp_t no_packet(const void *ctx, const ocsd_datapath_op_t op,
				      const ocsd_trc_index_t index,
				      const void *packet)
{
	return OCSD_RESP_CONT;
}

int hwtr_etm_decodable(const struct hwtr_etm_config *etm)
{
	dcd_tree_handle_t tree;
	int err;

	if (!etm)
		return hwtr_fail(hwtr_err_invalid, "no trace unit");
	if ((err = packet_tree(etm, (void *)no_packet, NULL, &tree)))
		return err;
	ocsd_destroy_dcd_tree(tree);
	return 0;
}

int etm_scan_packets(struct etm_stream *s)
{
	struct scan_state st = { .s = s };
	dcd_tree_handle_t tree;
	ocsd_datapath_resp_t resp = OCSD_RESP_CONT;
	uint64_t pos = s->start;
	size_t li = 0;
	int err = packet_tree(s->cfg, (void *)scan_packet, &st, &tree);

	if (err)
		return err;
	while (pos < s->size) {
		uint32_t done = 0, n = s->size - pos > (1u << 20)
					       ? 1u << 20 : (uint32_t)(s->size - pos);

		while (li < s->nlosses && s->losses[li].raw <= pos)
			li++;
		if (li < s->nlosses && s->losses[li].raw - pos < n)
			n = (uint32_t)(s->losses[li].raw - pos);
		resp = ocsd_dt_process_data(tree, OCSD_OP_DATA, pos, n, s->bytes + pos,
					    &done);
		if (OCSD_DATA_RESP_IS_FATAL(resp)) {
			/* Start again after the bytes that stopped it. */
			ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
			done = done ? done : 1;
		}
		if (!done)
			break;
		pos += done;
		if (li < s->nlosses && pos == s->losses[li].raw) {
			/* Lost trace: a packet it cut is not a packet; the
			 * processor looks for an A-sync again. */
			ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
			st.after_loss = true;
			st.fresh = true;
			st.pending = false;
			st.in_exception = false;
		}
	}
	ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(tree);
	if (st.nomem)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	return 0;
}
