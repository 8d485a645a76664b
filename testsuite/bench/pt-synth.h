/* pt-synth.h: a synthetic Intel PT trace written into a recording with
 * libipt's encoder: the packets, the TNT bits gathered 47 to a packet, PSB+
 * (PSB, TSC, MODE.Exec, FUP, PSBEND) and the buffer handed to the writer
 * for thread 1.  What bench-trace.c (the benchmarks' program) and
 * mkrec-long.c (the test suite's long loop) both write. */
#ifndef HWTR_PT_SYNTH_H
#define HWTR_PT_SYNTH_H

#include "hwtrecord.h"

#include <intel-pt.h>
#include <stdint.h>

struct pt_synth {
	const char *who;		/* the program, for messages */
	struct hwtr_writer *writer;	/* set by the caller */
	struct pt_encoder *encoder;
	struct pt_config config;
	uint8_t buf[1 << 16];
	uint64_t flushed;		/* bytes already handed to the writer */
	uint64_t tsc;			/* of the last PSB+ */
	uint64_t tnt_bits;
	unsigned ntnt;
	int failed;			/* a message was printed */
};

/* The encoder; -1 (said) when out of memory. */
int pt_synth_init(struct pt_synth *s, const char *who);
void pt_synth_release(struct pt_synth *s);

void pt_synth_put(struct pt_synth *s, struct pt_packet *p);
/* Bytes in the buffer since the last pt_synth_write_out. */
uint64_t pt_synth_offset(struct pt_synth *s);
/* The buffer to the writer (thread 1). */
void pt_synth_write_out(struct pt_synth *s);
/* The TNT bits gathered, as one TNT packet (TNT-8 when they fit). */
void pt_synth_flush_tnt(struct pt_synth *s);
/* One more conditional branch; 1 when it filled a packet (flushed). */
int pt_synth_tnt(struct pt_synth *s, int taken);
/* PSB+ with NEXT_IP, the instruction about to execute; the buffer goes to
 * the writer first, so that each PSB starts one. */
void pt_synth_psb(struct pt_synth *s, uint64_t next_ip);

#endif
