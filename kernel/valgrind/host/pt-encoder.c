/* pt-encoder.c: turn the tool's events into a genuine Intel PT stream.
 *
 * One stream per thread, written with libipt's encoder (pt_enc_next) into a
 * small buffer that is handed to the recording writer when full.  This is
 * what a user-mode-only hardware trace of the thread contains:
 *
 *   - PSB+ about every psb_period bytes, where the tool asks for it (it
 *     knows the next IP there and empties its return-compression stack):
 *     PSB, TSC, MODE.Exec, FUP(ip), PSBEND while tracing is on; PSB, TSC,
 *     PSBEND at the start of a stream, before tracing is on.  The decoder's
 *     last IP is reset at PSB, so the first IP after it is sent in full,
 *     and every chunk decodes on its own.
 *   - TNT-64 for each 47 branch bits, TNT-8 (up to 6) for the rest before
 *     any other packet: a decoder must see all TNT bits of the branches
 *     before an indirect branch ahead of its TIP.
 *   - TIP, TIP.PGE, FUP with IP compression against the last IP, as the
 *     hardware chooses (16, 32 or 48 low bits, else sign-extended 48 or full).
 *   - OVF + FUP where a cycle of direct branches went round more times
 *     than the tool marks (a gap);
 *   - TIP.PGD with the IP suppressed at a system call (the target is in the
 *     kernel); FUP + TIP.PGD for asynchronous disables; TSC + MODE.Exec +
 *     TIP.PGE where tracing resumes.
 *
 * With a size limit the stream goes to a ring of max_size bytes instead; at
 * the end the ring is written oldest byte first and the manifest says where
 * its first PSB is (hwtr_writer_set_trace_start).  A stream made with
 * encoder_stream_new_sink hands its bytes to a function instead (the hwt(4)
 * stand-in of the test suite fills its pretend kernel buffers so), and with
 * no_tsc it has no TSC packet at all, as FreeBSD's PT backend, which clears
 * TSCEn, writes it.
 */
#include "pt-encoder.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENC_BUF_SIZE (1u << 16)
#define TNT64_BITS 47
#define TNT8_BITS 6

struct encoder_stream {
	struct hwtr_writer *writer;
	encoder_sink_fn *sink;
	void *sink_ctx;
	uint32_t tid;
	uint32_t psb_period;
	bool no_tsc;
	struct pt_encoder *enc;
	struct pt_config config;
	uint8_t buf[ENC_BUF_SIZE];
	uint64_t flushed;	/* stream bytes handed on before buf */
	uint64_t last_ip;
	bool have_last_ip;
	bool enabled;
	uint64_t tsc;
	uint64_t tnt_bits;
	unsigned tnt_n;
	/* ring mode */
	uint8_t *ring;
	uint64_t ring_size;
	uint64_t *psbs;		/* stream offsets of PSBs still in the ring */
	size_t npsbs, psb_head, cap_psbs;
};

void record_pt_config(struct hwtr_pt_config *c, bool ret_compression,
		      uint32_t psb_period)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->vendor, sizeof(c->vendor), "intel");
	c->family = HWTREC_CPU_FAMILY;
	c->model = HWTREC_CPU_MODEL;
	c->stepping = HWTREC_CPU_STEPPING;
	/* CPUID.14H of that part: CR3 filter, PSB/CYC config, IP filter, MTC
	 * (EBX); ToPA, multi-entry ToPA, single range (ECX).  We use none of
	 * them, but decoders check the leaf is plausible. */
	c->cpuid_0x14_ebx = 0xf;
	c->cpuid_0x14_ecx = 0x7;
	c->cpuid_0x15_eax = 2;
	c->cpuid_0x15_ebx = 200;
	c->nom_freq = 20;
	c->mtc_freq = 0;
	c->tsc = true;
	c->return_compression = ret_compression;
	c->psb_period = psb_period;
}

static uint64_t stream_offset(const struct encoder_stream *s)
{
	uint64_t off = 0;

	pt_enc_get_offset(s->enc, &off);
	return s->flushed + off;
}

static int ring_append(struct encoder_stream *s, const uint8_t *p, size_t n)
{
	uint64_t at = s->flushed;

	if (n > s->ring_size) {
		p += n - s->ring_size;
		at += n - s->ring_size;
		n = s->ring_size;
	}
	while (n) {
		uint64_t pos = at % s->ring_size;
		size_t k = s->ring_size - pos < n ? s->ring_size - pos : n;

		memcpy(s->ring + pos, p, k);
		p += k;
		at += k;
		n -= k;
	}
	return 0;
}

/* Hand trace bytes to the writer, after everything the sideband holds so
 * far: a decoder needs the mappings of the code these bytes ran, and a
 * recorder killed at any moment must not leave trace on the disk whose
 * mappings are still in a buffer (the writer's flush empties the earlier
 * trace and then the sideband, and every earlier trace byte went out after
 * the sideband it needs, so one flush here keeps the order). */
static int write_trace(struct encoder_stream *s, const void *bytes, size_t n)
{
	int err = hwtr_writer_flush(s->writer);

	return err ? err : hwtr_writer_trace(s->writer, s->tid, bytes, n);
}

int encoder_stream_flush(struct encoder_stream *s)
{
	uint64_t off = 0;
	int err = 0;

	pt_enc_get_offset(s->enc, &off);
	if (!off)
		return 0;
	if (s->ring)
		err = ring_append(s, s->buf, off);
	else if (s->sink)
		err = s->sink(s->sink_ctx, s->buf, off);
	else
		err = write_trace(s, s->buf, off);
	s->flushed += off;
	pt_enc_sync_set(s->enc, 0);
	return err;
}

static int emit(struct encoder_stream *s, const struct pt_packet *p)
{
	int n = pt_enc_next(s->enc, p);

	if (n == -pte_eos) {
		int err = encoder_stream_flush(s);

		if (err)
			return err;
		n = pt_enc_next(s->enc, p);
	}
	if (n < 0) {
		fprintf(stderr, "hwtrec record: thread %u: libipt cannot encode "
			"packet type %d at stream offset %llu: %s\n", s->tid,
			(int)p->type, (unsigned long long)stream_offset(s),
			pt_errstr(pt_errcode(n)));
		return -hwtr_err_invalid;
	}
	return 0;
}

static int emit_tnt(struct encoder_stream *s, enum pt_packet_type type,
		    unsigned nbits, uint64_t bits)
{
	struct pt_packet p = { .type = type };

	p.payload.tnt.bit_size = (uint8_t)nbits;
	p.payload.tnt.payload = bits;
	return emit(s, &p);
}

static int flush_tnt(struct encoder_stream *s)
{
	int err;

	while (s->tnt_n) {
		unsigned k = s->tnt_n > TNT8_BITS ? TNT8_BITS : s->tnt_n;
		uint64_t top = s->tnt_bits >> (s->tnt_n - k);

		if ((err = emit_tnt(s, ppt_tnt_8, k, top)))
			return err;
		s->tnt_n -= k;
		s->tnt_bits &= s->tnt_n ? (~0ull >> (64 - s->tnt_n)) : 0;
	}
	return 0;
}

int encoder_stream_tnt(struct encoder_stream *s, unsigned nbits, uint64_t bits)
{
	int err;

	while (nbits) {
		unsigned room = TNT64_BITS - s->tnt_n;
		unsigned k = nbits < room ? nbits : room;
		uint64_t chunk = (bits >> (nbits - k)) &
				 (k == 64 ? ~0ull : ((1ull << k) - 1));

		s->tnt_bits = (s->tnt_bits << k) | chunk;
		s->tnt_n += k;
		nbits -= k;
		if (s->tnt_n == TNT64_BITS) {
			if ((err = emit_tnt(s, ppt_tnt_64, TNT64_BITS,
					    s->tnt_bits)))
				return err;
			s->tnt_n = 0;
			s->tnt_bits = 0;
		}
	}
	return 0;
}

static enum pt_ip_compression ip_compression(const struct encoder_stream *s,
					     uint64_t ip)
{
	uint64_t sext = (uint64_t)(((int64_t)(ip << 16)) >> 16);

	if (s->have_last_ip) {
		if ((s->last_ip >> 16) == (ip >> 16))
			return pt_ipc_update_16;
		if ((s->last_ip >> 32) == (ip >> 32))
			return pt_ipc_update_32;
		if ((s->last_ip >> 48) == (ip >> 48))
			return pt_ipc_update_48;
	}
	return sext == ip ? pt_ipc_sext_48 : pt_ipc_full;
}

static int emit_ip(struct encoder_stream *s, enum pt_packet_type type,
		   uint64_t ip, bool suppressed)
{
	struct pt_packet p = { .type = type };

	if (suppressed) {
		p.payload.ip.ipc = pt_ipc_suppressed;
	} else {
		p.payload.ip.ipc = ip_compression(s, ip);
		p.payload.ip.ip = ip;
		s->last_ip = ip;
		s->have_last_ip = true;
	}
	return emit(s, &p);
}

static int emit_tsc(struct encoder_stream *s, uint64_t tsc)
{
	struct pt_packet p = { .type = ppt_tsc };

	if (s->no_tsc)
		return 0;
	if (tsc > s->tsc)
		s->tsc = tsc;
	p.payload.tsc.tsc = s->tsc & ((1ull << 56) - 1);
	return emit(s, &p);
}

static int emit_mode_exec(struct encoder_stream *s)
{
	struct pt_packet p = { .type = ppt_mode };

	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;	/* 64-bit code */
	p.payload.mode.bits.exec.csd = 0;
	return emit(s, &p);
}

static int note_psb(struct encoder_stream *s, uint64_t offset)
{
	if (!s->ring)
		return 0;
	if (s->npsbs == s->cap_psbs) {
		size_t cap = s->cap_psbs ? 2 * s->cap_psbs : 256;
		uint64_t *p;
		size_t i;

		/* Drop PSBs that fell out of the ring before growing. */
		while (s->npsbs > 1 &&
		       s->psbs[s->psb_head] + s->ring_size < offset) {
			s->psb_head = (s->psb_head + 1) % s->cap_psbs;
			s->npsbs--;
		}
		if (s->npsbs == s->cap_psbs) {
			p = malloc(cap * sizeof(*p));
			if (!p)
				return -hwtr_err_nomem;
			for (i = 0; i < s->npsbs; i++)
				p[i] = s->psbs[(s->psb_head + i) % s->cap_psbs];
			free(s->psbs);
			s->psbs = p;
			s->psb_head = 0;
			s->cap_psbs = cap;
		}
	}
	s->psbs[(s->psb_head + s->npsbs) % s->cap_psbs] = offset;
	s->npsbs++;
	return 0;
}

static int psb_plus(struct encoder_stream *s, uint64_t ip, uint64_t tsc)
{
	struct pt_packet psb = { .type = ppt_psb }, end = { .type = ppt_psbend };
	int err;

	if ((err = flush_tnt(s)))
		return err;
	if ((err = note_psb(s, stream_offset(s))))
		return err;
	if ((err = emit(s, &psb)))
		return err;
	s->have_last_ip = false;
	if ((err = emit_tsc(s, tsc)))
		return err;
	if (s->enabled) {
		if ((err = emit_mode_exec(s)) ||
		    (err = emit_ip(s, ppt_fup, ip, false)))
			return err;
	}
	return emit(s, &end);
}

static int stream_new(struct hwtr_writer *writer, encoder_sink_fn *sink,
		      void *sink_ctx, uint32_t tid,
		      const struct record_options *options, uint64_t tsc,
		      struct encoder_stream **out)
{
	struct encoder_stream *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -hwtr_err_nomem;
	s->writer = writer;
	s->sink = sink;
	s->sink_ctx = sink_ctx;
	s->tid = tid;
	s->psb_period = options->psb_period;
	s->no_tsc = options->no_tsc;
	pt_config_init(&s->config);
	s->config.begin = s->buf;
	s->config.end = s->buf + sizeof(s->buf);
	s->config.cpu.vendor = pcv_intel;
	s->config.cpu.family = HWTREC_CPU_FAMILY;
	s->config.cpu.model = HWTREC_CPU_MODEL;
	s->config.cpu.stepping = HWTREC_CPU_STEPPING;
	pt_cpu_errata(&s->config.errata, &s->config.cpu);
	s->enc = pt_alloc_encoder(&s->config);
	if (!s->enc) {
		free(s);
		return -hwtr_err_nomem;
	}
	if (options->max_size) {
		s->ring_size = options->max_size;
		s->ring = malloc(s->ring_size);
		if (!s->ring) {
			pt_free_encoder(s->enc);
			free(s);
			return -hwtr_err_nomem;
		}
	}
	s->tsc = tsc;
	/* Every stream starts with a PSB+, tracing off until the first PGE. */
	if ((err = psb_plus(s, 0, tsc))) {
		encoder_stream_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int encoder_stream_new(struct hwtr_writer *writer, uint32_t tid,
		  const struct record_options *options, uint64_t tsc,
		  struct encoder_stream **out)
{
	return stream_new(writer, NULL, NULL, tid, options, tsc, out);
}

int encoder_stream_new_sink(encoder_sink_fn *sink, void *ctx, uint32_t tid,
		       const struct record_options *options, uint64_t tsc,
		       struct encoder_stream **out)
{
	return stream_new(NULL, sink, ctx, tid, options, tsc, out);
}

void encoder_stream_free(struct encoder_stream *s)
{
	if (!s)
		return;
	pt_free_encoder(s->enc);
	free(s->ring);
	free(s->psbs);
	free(s);
}

uint32_t encoder_stream_tid(const struct encoder_stream *s)
{
	return s->tid;
}

uint64_t encoder_stream_bytes(const struct encoder_stream *s)
{
	return stream_offset(s);
}

int encoder_stream_tip(struct encoder_stream *s, uint64_t target)
{
	int err;

	if ((err = flush_tnt(s)))
		return err;
	return emit_ip(s, ppt_tip, target, false);
}

int encoder_stream_psb(struct encoder_stream *s, uint64_t ip, uint64_t tsc)
{
	if (!s->enabled)
		return 0;
	return psb_plus(s, ip, tsc);
}

int encoder_stream_disable_syscall(struct encoder_stream *s)
{
	int err;

	if (!s->enabled)
		return 0;
	if ((err = flush_tnt(s)) || (err = emit_ip(s, ppt_tip_pgd, 0, true)))
		return err;
	s->enabled = false;
	return 0;
}

int encoder_stream_disable_async(struct encoder_stream *s, uint64_t ip)
{
	int err;

	if (!s->enabled)
		return 0;
	if ((err = flush_tnt(s)) || (err = emit_ip(s, ppt_fup, ip, false)) ||
	    (err = emit_ip(s, ppt_tip_pgd, 0, true)))
		return err;
	s->enabled = false;
	return 0;
}

int encoder_stream_enable(struct encoder_stream *s, uint64_t ip, uint64_t tsc)
{
	int err;

	if (s->enabled)
		return 0;
	if ((err = flush_tnt(s)) || (err = emit_tsc(s, tsc)) ||
	    (err = emit_mode_exec(s)) ||
	    (err = emit_ip(s, ppt_tip_pge, ip, false)))
		return err;
	s->enabled = true;
	return 0;
}

/* Instructions went by that the trace cannot count: OVF, then FUP where it
 * resumes (a decoder's gap), as the hardware writes them. */
int encoder_stream_overflow(struct encoder_stream *s, uint64_t ip)
{
	struct pt_packet ovf = { .type = ppt_ovf };
	int err;

	if (!s->enabled)
		return 0;
	if ((err = flush_tnt(s)) || (err = emit(s, &ovf)))
		return err;
	/* A decoder forgets the last IP at OVF: the FUP's is not compressed. */
	s->have_last_ip = false;
	return emit_ip(s, ppt_fup, ip, false);
}

int encoder_stream_sync(struct encoder_stream *s)
{
	return flush_tnt(s) ?: encoder_stream_flush(s);
}

int encoder_stream_finish(struct encoder_stream *s)
{
	uint64_t total, oldest, start = 0, pos;
	size_t i;
	int err;

	if ((err = flush_tnt(s)) || (err = encoder_stream_flush(s)))
		return err;
	if (!s->ring)
		return 0;
	total = s->flushed;
	if (total <= s->ring_size)
		return write_trace(s, s->ring, total);
	oldest = total - s->ring_size;
	for (i = 0; i < s->npsbs; i++) {
		uint64_t psb = s->psbs[(s->psb_head + i) % s->cap_psbs];

		if (psb >= oldest) {
			start = psb - oldest;
			break;
		}
	}
	/* No PSB kept (a ring smaller than the PSB period): nothing decodes,
	 * and the reader shows the kept bytes as one gap. */
	if (i == s->npsbs)
		start = 0;
	pos = total % s->ring_size;
	if ((err = write_trace(s, s->ring + pos, s->ring_size - pos)) ||
	    (err = hwtr_writer_trace(s->writer, s->tid, s->ring, pos)))
		return err;
	return hwtr_writer_set_trace_start(s->writer, s->tid, start);
}
