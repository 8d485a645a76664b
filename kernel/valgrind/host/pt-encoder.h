/* pt-encoder.h: one Intel PT stream per thread, built with libipt's encoder
 * from the Valgrind tool's events (pt-encoder.c says what the stream holds). */
#ifndef HWTREC_PT_ENCODER_H
#define HWTREC_PT_ENCODER_H

#include "../../source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pt_stream;

int pt_stream_new(struct hwtr_writer *writer, uint32_t tid,
		  const struct record_options *options, uint64_t tsc,
		  struct pt_stream **stream);
/* The same, handing the encoded bytes to SINK instead of a writer. */
typedef int pt_sink_fn(void *ctx, const void *bytes, size_t size);
int pt_stream_new_sink(pt_sink_fn *sink, void *ctx, uint32_t tid,
		       const struct record_options *options, uint64_t tsc,
		       struct pt_stream **stream);
void pt_stream_free(struct pt_stream *stream);
uint32_t pt_stream_tid(const struct pt_stream *stream);
int pt_stream_tnt(struct pt_stream *s, unsigned nbits, uint64_t bits);
int pt_stream_tip(struct pt_stream *s, uint64_t target);
int pt_stream_psb(struct pt_stream *s, uint64_t ip, uint64_t tsc);
int pt_stream_disable_syscall(struct pt_stream *s);
int pt_stream_disable_async(struct pt_stream *s, uint64_t ip);
int pt_stream_enable(struct pt_stream *s, uint64_t ip, uint64_t tsc);
/* Encode what is pending and hand the bytes to the writer (or the ring). */
int pt_stream_flush(struct pt_stream *s);
/* Encode pending TNT bits too: everything so far is in the stream (live
 * mode, at a debugger stop). */
int pt_stream_sync(struct pt_stream *s);
/* Ring mode: write the kept part and mark where it starts. */
int pt_stream_finish(struct pt_stream *s);
uint64_t pt_stream_bytes(const struct pt_stream *s);

/* Fill the manifest's PT configuration (the CPU of source.h). */
void record_pt_config(struct hwtr_pt_config *config, bool ret_compression,
		      uint32_t psb_period);

#endif
