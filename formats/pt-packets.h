/* pt-packets.h: walking an Intel PT stream packet by packet, and writing
 * packets into a new stream.
 *
 * Export and import move pieces of trace between streams: a thread's time
 * slices onto a CPU's stream (export --layout=per-cpu), a CPU's stream back
 * into threads (import), TSC packets out (export --no-tsc).  Most packets
 * move as they are; IP packets (TIP, TIP.PGE, TIP.PGD, FUP) are compressed
 * against the last IP of the stream they were written in, so a piece that
 * lands in another stream gets its IPs re-encoded in full (sign-extended
 * 48 bits), which any decoder reads without history.  Packets are parsed
 * with libipt's packet decoder and written with its encoder.
 */
#ifndef HWTREC_PT_PACKETS_H
#define HWTREC_PT_PACKETS_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One packet (or a run of bytes that are not packets) as the walk sees it. */
struct pt_pkt_view {
	uint64_t offset;
	const uint8_t *raw;
	size_t size;
	bool garbage;		/* bytes before a PSB that did not decode */
	struct pt_packet packet;	/* unless garbage */
	bool has_ip;		/* an IP packet with an IP: the full IP */
	uint64_t ip;
	bool has_tsc;		/* a TSC packet was seen: the last one */
	uint64_t tsc;
	bool in_psb;		/* between PSB and PSBEND */
};

/* Walk BYTES: FN is called for every packet in order, and for the bytes
 * before the first PSB or after a decode error up to the next PSB (as one
 * garbage view).  Stops early when FN returns non-zero (that value is
 * returned). */
int pt_packets_walk(const uint8_t *bytes, size_t size,
		    int (*fn)(void *ctx, const struct pt_pkt_view *v),
		    void *ctx);

/* A growing output stream. */
struct pt_out {
	uint8_t *buf;
	size_t len, cap;
	struct pt_encoder *enc;	/* for packets we re-encode */
	uint8_t *enc_scratch;	/* the scratch ENC was made for */
	uint8_t scratch[32];
};

void pt_out_init(struct pt_out *out);
void pt_out_release(struct pt_out *out);
int pt_out_bytes(struct pt_out *out, const void *bytes, size_t size);
/* Encode PACKET with libipt's encoder. */
int pt_out_packet(struct pt_out *out, const struct pt_packet *packet);
/* The packet of V: raw, or for an IP packet with FULL_IP its IP in full. */
int pt_out_view(struct pt_out *out, const struct pt_pkt_view *v, bool full_ip);

#endif
