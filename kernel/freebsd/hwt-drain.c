/* hwt-drain.c: one thread's circular buffer into a stream (hwt-drain.h).
 *
 * Positions: W is the absolute number of bytes the kernel wrote as far as
 * its reports tell (each report moves W forward by the distance from W's
 * place in the buffer, which is right while reports come at least once per
 * lap); R is how far the stream has read.  The writer may be up to MARGIN
 * beyond W, so on copy the bytes older than W + MARGIN - size may already be
 * overwritten: only [max(R, W + MARGIN - size), W) is copied, and after the
 * copy the same bound is taken again with whatever newer positions RECHECK
 * found, trimming the copy's beginning.  Everything between R and the kept
 * part is lost.
 *
 * Packets: the stream is written in whole packets, holding back what
 * follows the newest PSB (a PSB starts a packet, so what comes before it is
 * whole; finding one is a memmem, not a decode).  At a loss, libipt's packet
 * decoder finds where the held-back bytes stop being whole packets; the cut
 * packet goes with what is lost, an OVF packet (the hardware's own "packets
 * were lost here") is written, and the bytes after the loss are dropped up
 * to the next PSB, where decoding can start again; between the OVF and that
 * PSB+ goes a FUP with the IP of the PSB+'s own FUP, which is what the
 * hardware writes after an overflow while tracing (libipt resumes there; an
 * OVF straight before a PSB+ it mis-decodes).  A loss before anything was
 * written needs neither: the stream starts at that PSB.  So the stream never
 * joins two pieces of trace in the middle of a packet.  Bytes before the
 * first PSB (there should be none) are passed on unparsed.
 *
 * Frames (hwt_drain_new_frames: a CoreSight buffer, ETR frames of 16 bytes
 * holding several sources): the stream is written in whole frames, a
 * partial one held back; at a loss the partial frame goes with what is lost,
 * copying resumes at the next frame boundary, and nothing is put in the
 * stream: the sink's loss (the sideband) is what tells the decoder to drop
 * every source's state there and resynchronise each at its next A-sync.
 */
#define _GNU_SOURCE /* memmem */
#include "hwt-drain.h"

#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum carry_state {
	UNSYNCED,	/* no PSB seen yet: bytes pass unparsed */
	SYNCED,		/* at a packet boundary */
	SKIPPING,	/* after a loss: dropping bytes up to a PSB */
};

struct hwt_drain {
	const uint8_t *buffer;
	uint64_t size;
	unsigned frame;		/* frame size, or 0: Intel PT packets */
	struct hwt_drain_sink sink;
	uint64_t written;	/* W */
	uint64_t read;		/* R */
	uint8_t *copy;		/* scratch for one copy */
	size_t copy_cap;
	/* packet carry */
	enum carry_state state;
	uint8_t *pending;
	size_t npending, cap_pending;
	uint64_t out;		/* stream bytes written */
	uint64_t loss_offset, loss_len;
	uint64_t loss_certain;	/* of loss_len: surely overwritten */
	uint64_t loss_margin;	/* ... where the writer may have been */
	bool ovf_written;	/* for the loss being skipped */
	struct hwt_drain_stats stats;
};

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};
/* Longest PSB+ we wait for before giving up on finding its FUP. */
#define MAX_PSB_PLUS 4096
/* Bytes held back after the newest PSB before they are cut at a packet
 * boundary the slow way (FreeBSD's PT writes a PSB every 2 KiB). */
#define MAX_HELD (64u << 10)

int hwt_drain_new(const void *buffer, uint64_t size,
		  const struct hwt_drain_sink *sink, struct hwt_drain **out)
{
	struct hwt_drain *d = calloc(1, sizeof(*d));

	if (!d || !size)
		return free(d), -1;
	d->buffer = buffer;
	d->size = size;
	d->sink = *sink;
	d->state = UNSYNCED;
	*out = d;
	return 0;
}

int hwt_drain_new_frames(const void *buffer, uint64_t size, unsigned frame,
			 const struct hwt_drain_sink *sink,
			 struct hwt_drain **out)
{
	if (!frame || size % frame || hwt_drain_new(buffer, size, sink, out) < 0)
		return -1;
	(*out)->frame = frame;
	(*out)->state = SYNCED;
	return 0;
}

void hwt_drain_free(struct hwt_drain *d)
{
	if (!d)
		return;
	free(d->copy);
	free(d->pending);
	free(d);
}

void hwt_drain_observe(struct hwt_drain *d, uint64_t position)
{
	uint64_t at = d->written % d->size;

	position %= d->size;
	d->written += (position + d->size - at) % d->size;
}

void hwt_drain_observe_written(struct hwt_drain *d, uint64_t written)
{
	if (written > d->written)
		d->written = written;
}

uint64_t hwt_drain_pending(const struct hwt_drain *d)
{
	return d->written - d->read;
}

void hwt_drain_stats(const struct hwt_drain *d, struct hwt_drain_stats *st)
{
	*st = d->stats;
	st->written = d->written;
}

static int emit(struct hwt_drain *d, const uint8_t *p, size_t n, bool trace)
{
	int err;

	if (!n)
		return 0;
	if ((err = d->sink.bytes(d->sink.ctx, p, n)))
		return err;
	d->out += n;
	if (trace)
		d->stats.kept += n;
	return 0;
}

static void consume(struct hwt_drain *d, size_t n)
{
	if (!n)
		return;
	memmove(d->pending, d->pending + n, d->npending - n);
	d->npending -= n;
}

static long find_psb(const uint8_t *p, size_t n)
{
	const uint8_t *hit = memmem(p, n, psb, sizeof(psb));

	return hit ? hit - p : -1;
}

/* The last PSB in P, or -1. */
static long find_last_psb(const uint8_t *p, size_t n)
{
	long last = -1, at;
	size_t from = 0;

	while (from < n && (at = find_psb(p + from, n - from)) >= 0) {
		last = (long)from + at;
		from = (size_t)last + sizeof(psb);
	}
	return last;
}

/* libipt's packet decoder over P, at its first byte; NULL if it cannot be. */
static struct pt_packet_decoder *packet_decoder(const uint8_t *p, size_t n)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;

	if (!n)
		return NULL;
	pt_config_init(&config);
	config.begin = (uint8_t *)p;
	config.end = (uint8_t *)p + n;
	dec = pt_pkt_alloc_decoder(&config);
	if (dec && pt_pkt_sync_set(dec, 0) < 0) {
		pt_pkt_free_decoder(dec);
		dec = NULL;
	}
	return dec;
}

/* Bytes up to the first packet that is incomplete (or not a packet). */
static size_t whole_packets(const uint8_t *p, size_t n, bool *bad)
{
	struct pt_packet_decoder *dec = packet_decoder(p, n);
	uint64_t off = 0;

	*bad = !dec;
	if (!dec)
		return 0;
	for (;;) {
		struct pt_packet pkt;
		int status;

		pt_pkt_get_offset(dec, &off);
		status = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (status < 0) {
			*bad = status != -pte_eos;
			break;
		}
	}
	pt_pkt_free_decoder(dec);
	return (size_t)off;
}

/* One packet, with libipt's encoder. */
static int emit_packet(struct hwt_drain *d, const struct pt_packet *pkt)
{
	uint8_t buf[32];
	struct pt_config config;
	struct pt_encoder *enc;
	int n;

	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + sizeof(buf);
	enc = pt_alloc_encoder(&config);
	if (!enc)
		return -1;
	n = pt_enc_next(enc, pkt);
	pt_free_encoder(enc);
	return n < 0 ? -1 : emit(d, buf, (size_t)n, false);
}

/* The PSB+ at the start of P: is it all there, and where does its FUP say
 * execution is?  (Inside PSB+ the last IP is 0, so every form is whole.) */
static bool psb_plus_fup(const uint8_t *p, size_t n, uint64_t *ip,
			 bool *has_fup)
{
	struct pt_packet_decoder *dec = packet_decoder(p, n);
	bool complete = false;

	*has_fup = false;
	if (!dec)
		return n > MAX_PSB_PLUS;
	for (;;) {
		struct pt_packet pkt;
		int status = pt_pkt_next(dec, &pkt, sizeof(pkt));

		if (status < 0) {
			/* Incomplete: wait for more, unless it is too long or
			 * not packets at all. */
			complete = status != -pte_eos || n > MAX_PSB_PLUS;
			break;
		}
		if (pkt.type == ppt_psbend) {
			complete = true;
			break;
		}
		if (pkt.type == ppt_fup && pkt.payload.ip.ipc != pt_ipc_suppressed) {
			*ip = pkt.payload.ip.ipc == pt_ipc_sext_48
				      ? (uint64_t)((int64_t)(pkt.payload.ip.ip << 16) >> 16)
				      : pkt.payload.ip.ip;
			*has_fup = true;
		}
	}
	pt_pkt_free_decoder(dec);
	return complete;
}

static int report_loss(struct hwt_drain *d)
{
	char reason[256];

	snprintf(reason, sizeof(reason), "the circular trace buffer was "
		 "overwritten before it was read: %llu bytes are missing: %llu "
		 "surely overwritten, %llu where the writer may have been, %llu "
		 "more up to the next %s", (unsigned long long)d->loss_len,
		 (unsigned long long)d->loss_certain,
		 (unsigned long long)d->loss_margin,
		 (unsigned long long)(d->loss_len - d->loss_certain -
				      d->loss_margin),
		 d->frame ? "frame" : "PSB");
	d->stats.lost += d->loss_len;
	return d->sink.loss(d->sink.ctx, d->loss_offset, d->loss_len, reason);
}

/* Frames: every whole frame goes, a partial one waits for its end. */
static int settle_frames(struct hwt_drain *d)
{
	size_t n = d->npending - d->npending % d->frame;
	int err;

	if (!n)
		return 0;
	if (d->state == SKIPPING) {
		if ((err = report_loss(d)))
			return err;
		d->state = SYNCED;
	}
	if ((err = emit(d, d->pending, n, true)))
		return err;
	consume(d, n);
	return 0;
}

/* Move what the pending bytes allow into the stream. */
static int settle(struct hwt_drain *d)
{
	int err;

	if (d->frame)
		return settle_frames(d);
	for (;;) {
		long at;
		size_t n;
		bool bad;

		switch (d->state) {
		case UNSYNCED:
			at = find_psb(d->pending, d->npending);
			if (at < 0) {
				/* Keep what could be the start of a PSB. */
				n = d->npending > sizeof(psb) - 1
					    ? d->npending - (sizeof(psb) - 1) : 0;
				if ((err = emit(d, d->pending, n, true)))
					return err;
				consume(d, n);
				return 0;
			}
			if ((err = emit(d, d->pending, (size_t)at, true)))
				return err;
			consume(d, (size_t)at);
			d->state = SYNCED;
			break;
		case SKIPPING:
			at = find_psb(d->pending, d->npending);
			if (at < 0) {
				n = d->npending > sizeof(psb) - 1
					    ? d->npending - (sizeof(psb) - 1) : 0;
				d->loss_len += n;
				consume(d, n);
				return 0;
			}
			d->loss_len += (uint64_t)at;
			consume(d, (size_t)at);
			{
				uint64_t ip = 0;
				bool has_fup;

				if (!psb_plus_fup(d->pending, d->npending, &ip,
						  &has_fup))
					return 0;	/* the rest comes later */
				if (d->ovf_written && has_fup) {
					struct pt_packet fup = { .type = ppt_fup };

					fup.payload.ip.ipc = pt_ipc_full;
					fup.payload.ip.ip = ip;
					if ((err = emit_packet(d, &fup)))
						return err;
				}
			}
			if ((err = report_loss(d)))
				return err;
			d->state = SYNCED;
			break;
		case SYNCED:
			/* Everything before the newest PSB is whole packets:
			 * pass it on, hold back from there. */
			at = find_last_psb(d->pending, d->npending);
			if (at > 0) {
				if ((err = emit(d, d->pending, (size_t)at, true)))
					return err;
				consume(d, (size_t)at);
				return 0;
			}
			if (d->npending <= MAX_HELD)
				return 0;
			/* No PSB for long: cut at a packet boundary. */
			n = whole_packets(d->pending, d->npending, &bad);
			if ((err = emit(d, d->pending, n, true)))
				return err;
			consume(d, n);
			if (!bad)
				return 0;
			/* Not a packet: pass the bytes on, the decoder will
			 * say where it is lost; look for a PSB again. */
			d->state = UNSYNCED;
			if ((err = emit(d, d->pending, 1, true)))
				return err;
			consume(d, 1);
			break;
		}
	}
}

static int append(struct hwt_drain *d, const uint8_t *p, size_t n)
{
	if (!n)
		return 0;
	if (d->npending + n > d->cap_pending) {
		size_t cap = d->cap_pending ? d->cap_pending : 4096;
		uint8_t *v;

		while (cap < d->npending + n)
			cap *= 2;
		v = realloc(d->pending, cap);
		if (!v)
			return -1;
		d->pending = v;
		d->cap_pending = cap;
	}
	memcpy(d->pending + d->npending, p, n);
	d->npending += n;
	return settle(d);
}

/* N bytes of the buffer are gone (CERTAIN of them surely overwritten, the
 * rest possibly): an OVF stands for them in the stream. */
static int lose(struct hwt_drain *d, uint64_t n, uint64_t certain)
{
	int err;

	/* Of the held-back bytes, whole packets stay; the last, cut one
	 * belongs to what is lost.  (Held-back frame bytes are a partial
	 * frame: all of it is lost.) */
	if (d->state == SYNCED && !d->frame) {
		bool bad;
		size_t whole = whole_packets(d->pending, d->npending, &bad);

		if ((err = emit(d, d->pending, whole, true)))
			return err;
		consume(d, whole);
	}
	if (d->state != SKIPPING) {
		struct pt_packet ovf = { .type = ppt_ovf };

		d->loss_offset = d->out;
		d->loss_len = d->loss_certain = d->loss_margin = 0;
		d->stats.losses++;
		d->state = SKIPPING;
		/* Lost before anything was kept: the stream simply starts at
		 * the next PSB.  Frames get no marker in the stream. */
		d->ovf_written = d->out > 0 && !d->frame;
		if (d->ovf_written && (err = emit_packet(d, &ovf)))
			return err;
	}
	d->loss_certain += certain;
	d->loss_margin += n - certain;
	d->loss_len += n + d->npending;
	d->npending = 0;
	return 0;
}

static void copy_out(const struct hwt_drain *d, uint64_t from, uint64_t to,
		     uint8_t *dst)
{
	while (from < to) {
		uint64_t at = from % d->size;
		uint64_t k = d->size - at < to - from ? d->size - at : to - from;

		memcpy(dst, d->buffer + at, (size_t)k);
		dst += k;
		from += k;
	}
}

static uint64_t oldest_intact(const struct hwt_drain *d, uint64_t margin)
{
	uint64_t reach = d->written + margin;

	return reach > d->size ? reach - d->size : 0;
}

/* Frames: a loss ends at a frame boundary, where copying can resume. */
static uint64_t frame_up(const struct hwt_drain *d, uint64_t at)
{
	if (!d->frame || !(at % d->frame))
		return at;
	return at + d->frame - at % d->frame;
}

int hwt_drain_copy(struct hwt_drain *d, uint64_t margin,
		   void (*recheck)(void *ctx), void *ctx)
{
	uint64_t end = d->written, from = d->read, oldest, copied;
	int err;

	if (end == from)
		return 0;
	oldest = frame_up(d, oldest_intact(d, margin));
	if (oldest > from)
		from = oldest < end ? oldest : end;
	if (end - from > d->copy_cap) {
		uint8_t *v = realloc(d->copy, (size_t)(end - from));

		if (!v)
			return -1;
		d->copy = v;
		d->copy_cap = (size_t)(end - from);
	}
	copy_out(d, from, end, d->copy);
	copied = from;
	if (recheck) {
		/* Where may the writer have been while we copied? */
		recheck(ctx);
		oldest = frame_up(d, oldest_intact(d, margin));
		if (oldest > from)
			from = oldest < end ? oldest : end;
	}
	if (from > d->read) {
		/* What the newest known position alone proves overwritten. */
		uint64_t sure = oldest_intact(d, 0);

		sure = sure > d->read ? sure - d->read : 0;
		if (sure > from - d->read)
			sure = from - d->read;
		if ((err = lose(d, from - d->read, sure)))
			return err;
	}
	d->read = end;
	return append(d, d->copy + (from - copied), (size_t)(end - from));
}

int hwt_drain_finish(struct hwt_drain *d)
{
	int err;

	if (d->state == SKIPPING) {
		d->loss_len += d->npending;
		d->npending = 0;
		return report_loss(d);
	}
	err = emit(d, d->pending, d->npending, true);
	d->npending = 0;
	return err;
}
