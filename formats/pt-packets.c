/* pt-packets.c: packet walk and packet output (pt-packets.h).
 *
 * The last IP follows the rules of the Intel SDM (IP compression): PSB
 * resets it to 0; each IP packet replaces its low 16, 32 or 48 bits, or
 * gives it sign-extended from 48 bits or in full.  An update before the
 * first PSB has nothing to update, so such packets have no IP.
 */
#include "pt-packets.h"
#include "hwtrecord.h"


#include <stdlib.h>
#include <string.h>

static bool is_ip_packet(enum pt_packet_type t)
{
	return t == ppt_tip || t == ppt_tip_pge || t == ppt_tip_pgd ||
	       t == ppt_fup;
}

static bool update_last_ip(uint64_t *last, bool *valid,
			   const struct pt_packet_ip *p, uint64_t *ip)
{
	uint64_t v = p->ip;

	switch (p->ipc) {
	case pt_ipc_suppressed:
		return false;
	case pt_ipc_update_16:
		v = (*last & ~UINT64_C(0xffff)) | (v & 0xffff);
		break;
	case pt_ipc_update_32:
		v = (*last & ~UINT64_C(0xffffffff)) | (v & 0xffffffff);
		break;
	case pt_ipc_update_48:
		v = (*last & ~UINT64_C(0xffffffffffff)) |
		    (v & UINT64_C(0xffffffffffff));
		break;
	case pt_ipc_sext_48:
		v = (uint64_t)((int64_t)(v << 16) >> 16);
		break;
	case pt_ipc_full:
		break;
	default:
		return false;
	}
	if (p->ipc != pt_ipc_sext_48 && p->ipc != pt_ipc_full && !*valid)
		return false;
	*last = v;
	*valid = true;
	*ip = v;
	return true;
}

int pt_packets_walk(const uint8_t *bytes, size_t size,
		    int (*fn)(void *ctx, const struct pt_pkt_view *v), void *ctx)
{
	static const uint8_t nothing[1];
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	uint64_t last_ip = 0, pos = 0, tsc = 0;
	bool ip_valid = false, has_tsc = false, in_psb = false;
	int status, ret = 0;

	if (!size)
		return 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)(bytes ? bytes : nothing);
	cfg.end = cfg.begin + size;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	status = pt_pkt_sync_forward(dec);
	for (;;) {
		struct pt_pkt_view v;
		uint64_t off = size;

		if (status >= 0)
			pt_pkt_get_offset(dec, &off);
		if (off > pos) {
			/* Bytes we could not read as packets, up to the PSB
			 * found next (or the end). */
			memset(&v, 0, sizeof(v));
			v.offset = pos;
			v.raw = bytes + pos;
			v.size = off - pos;
			v.garbage = true;
			v.has_tsc = has_tsc;
			v.tsc = tsc;
			if ((ret = fn(ctx, &v)))
				break;
			ip_valid = false;
			in_psb = false;
			pos = off;
		}
		if (status < 0)
			break;
		memset(&v, 0, sizeof(v));
		status = pt_pkt_next(dec, &v.packet, sizeof(v.packet));
		if (status < 0) {
			/* Skip to the next PSB: what lies between is garbage. */
			status = pt_pkt_sync_forward(dec);
			if (status < 0 && status != -pte_eos)
				status = -pte_eos;
			if (status < 0)
				continue;
			/* Resync: the PSB found may be behind the bad packet
			 * (libipt searches from it): garbage up to there. */
			continue;
		}
		v.offset = off;
		v.raw = bytes + off;
		v.size = v.packet.size;
		switch (v.packet.type) {
		case ppt_psb:
			last_ip = 0;
			ip_valid = true;
			in_psb = true;
			break;
		case ppt_psbend:
			in_psb = false;
			break;
		case ppt_tsc:
			tsc = v.packet.payload.tsc.tsc;
			has_tsc = true;
			break;
		case ppt_ovf:
			in_psb = false;
			break;
		default:
			break;
		}
		if (is_ip_packet(v.packet.type))
			v.has_ip = update_last_ip(&last_ip, &ip_valid,
						  &v.packet.payload.ip, &v.ip);
		v.has_tsc = has_tsc;
		v.tsc = tsc;
		v.in_psb = in_psb && v.packet.type != ppt_psb;
		pos = off + v.size;
		if ((ret = fn(ctx, &v)))
			break;
	}
	pt_pkt_free_decoder(dec);
	return ret;
}

void pt_out_init(struct pt_out *o)
{
	memset(o, 0, sizeof(*o));
}

void pt_out_release(struct pt_out *o)
{
	free(o->buf);
	if (o->enc)
		pt_free_encoder(o->enc);
	memset(o, 0, sizeof(*o));
}

int pt_out_bytes(struct pt_out *o, const void *p, size_t n)
{
	if (o->cap - o->len < n) {
		size_t cap = o->cap ? o->cap : 4096;
		uint8_t *b;

		while (cap - o->len < n)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (!b)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
	return 0;
}

int pt_out_packet(struct pt_out *o, const struct pt_packet *pkt)
{
	uint64_t end = 0;
	int status;

	/* The encoder writes into scratch, which moves with a moved pt_out. */
	if (o->enc && o->enc_scratch != o->scratch) {
		pt_free_encoder(o->enc);
		o->enc = NULL;
	}
	if (!o->enc) {
		struct pt_config cfg;

		pt_config_init(&cfg);
		cfg.begin = o->scratch;
		cfg.end = o->scratch + sizeof(o->scratch);
		o->enc = pt_alloc_encoder(&cfg);
		o->enc_scratch = o->scratch;
		if (!o->enc)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	pt_enc_sync_set(o->enc, 0);
	status = pt_enc_next(o->enc, pkt);
	if (status < 0)
		return hwtr_fail(hwtr_err_invalid, "cannot encode a PT packet: %s",
				 pt_errstr(pt_errcode(status)));
	pt_enc_get_offset(o->enc, &end);
	return pt_out_bytes(o, o->scratch, (size_t)end);
}

int pt_out_view(struct pt_out *o, const struct pt_pkt_view *v, bool full_ip)
{
	struct pt_packet pkt;
	uint64_t ip;

	if (!full_ip || v->garbage || !is_ip_packet(v->packet.type) ||
	    v->packet.payload.ip.ipc == pt_ipc_suppressed ||
	    v->packet.payload.ip.ipc == pt_ipc_sext_48 ||
	    v->packet.payload.ip.ipc == pt_ipc_full)
		return pt_out_bytes(o, v->raw, v->size);
	if (!v->has_ip)		/* an update of an unknown last IP */
		return pt_out_bytes(o, v->raw, v->size);
	pkt = v->packet;
	ip = v->ip;
	if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip) {
		pkt.payload.ip.ipc = pt_ipc_sext_48;
		pkt.payload.ip.ip = ip & UINT64_C(0xffffffffffff);
	} else {
		pkt.payload.ip.ipc = pt_ipc_full;
		pkt.payload.ip.ip = ip;
	}
	return pt_out_packet(o, &pkt);
}
