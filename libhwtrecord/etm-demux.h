/* etm-demux.h: a source's bytes out of a formatted buffer; internal. */
#ifndef HWTR_ETM_DEMUX_H
#define HWTR_ETM_DEMUX_H

#include "etm-stream.h"

/* Demultiplex S's source (its configuration's trace ID) from the formatted
 * buffer BYTES (SIZE bytes, frames from START on) into S's raw trace
 * (s->bytes, s->size, s->runs), placing S's losses in it.  0, or an error;
 * frames that do not parse are not an error (s->deformat_failed). */
int etm_demultiplex(struct etm_stream *s, const uint8_t *bytes, size_t size,
		    uint64_t start);
/* The buffer position of raw offset RAW (RAW itself when not formatted). */
uint64_t etm_stream_offset(const struct etm_stream *s, uint64_t raw);

#endif
