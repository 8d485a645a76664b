/* pt-encode.h: Intel PT traces written packet by packet with libipt's
 * encoder (pt_enc_next), for the unit tests' fixtures (fixture.c) and the
 * fuzzers' seeds (../fuzz/make-seeds.c).  A packet the encoder refuses
 * aborts with libipt's message: the test or the generator is wrong. */
#ifndef PT_ENCODE_H
#define PT_ENCODE_H

#include <intel-pt.h>
#include <stddef.h>
#include <stdint.h>

/* A trace being written. */
struct trace {
	uint8_t buf[1 << 16];
	struct pt_encoder *encoder;
	struct pt_config config;
};
void trace_begin(struct trace *t);
size_t trace_size(struct trace *t);
void trace_end(struct trace *t);

/* PSB+ with TSC and MODE.Exec (64-bit), and FUP_IP unless it is 0 (tracing
 * off at the PSB). */
void enc_psb(struct trace *t, uint64_t fup_ip, uint64_t tsc);
/* PSB+ with only a TSC: tracing disabled there. */
void enc_psb_disabled(struct trace *t, uint64_t tsc);
void enc_tnt(struct trace *t, const char *bits);	/* "1011": taken first */
void enc_tip(struct trace *t, uint64_t ip);
void enc_tip_pgd(struct trace *t);
/* MODE.Exec, then TIP.PGE to IP. */
void enc_tip_pge(struct trace *t, uint64_t ip);
void enc_ovf(struct trace *t);
void enc_fup(struct trace *t, uint64_t ip);
/* A packet without payload (PAD, OVF, PSBEND, ...). */
void enc_simple(struct trace *t, enum pt_packet_type type);
/* N bytes that are not packets, copied in; the encoder goes on after them. */
void enc_raw(struct trace *t, const void *bytes, size_t n);

#endif
