/* pt-encoder.h: one Intel PT stream per thread, built with libipt's encoder
 * from the Valgrind tool's events (pt-encoder.c says what the stream holds).
 * Named encoder_stream, not pt_: that prefix is libipt's, and the decoder's
 * per-stream state (libhwtrecord/decode-pt.c) is another thing. */
#ifndef HWTREC_PT_ENCODER_H
#define HWTREC_PT_ENCODER_H

#include "../../source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct encoder_stream;

int encoder_stream_new(struct hwtr_writer *writer, uint32_t tid,
		  const struct record_options *options, uint64_t tsc,
		  struct encoder_stream **stream);
/* The same, handing the encoded bytes to SINK instead of a writer. */
typedef int encoder_sink_fn(void *ctx, const void *bytes, size_t size);
int encoder_stream_new_sink(encoder_sink_fn *sink, void *ctx, uint32_t tid,
		       const struct record_options *options, uint64_t tsc,
		       struct encoder_stream **stream);
void encoder_stream_free(struct encoder_stream *stream);
uint32_t encoder_stream_tid(const struct encoder_stream *stream);
int encoder_stream_tnt(struct encoder_stream *s, unsigned nbits, uint64_t bits);
int encoder_stream_tip(struct encoder_stream *s, uint64_t target);
int encoder_stream_psb(struct encoder_stream *s, uint64_t ip, uint64_t tsc);
int encoder_stream_disable_syscall(struct encoder_stream *s);
int encoder_stream_disable_async(struct encoder_stream *s, uint64_t ip);
int encoder_stream_enable(struct encoder_stream *s, uint64_t ip, uint64_t tsc);
int encoder_stream_overflow(struct encoder_stream *s, uint64_t ip);
/* Encode what is pending and hand the bytes to the writer (or the ring). */
int encoder_stream_flush(struct encoder_stream *s);
/* Encode pending TNT bits too: everything so far is in the stream (live
 * mode, at a debugger stop). */
int encoder_stream_sync(struct encoder_stream *s);
/* Ring mode: write the kept part and mark where it starts. */
int encoder_stream_finish(struct encoder_stream *s);
uint64_t encoder_stream_bytes(const struct encoder_stream *s);

/* Fill the manifest's PT configuration (the CPU of source.h). */
void record_pt_config(struct hwtr_pt_config *config, bool ret_compression,
		      uint32_t psb_period);

#endif
