/* coresight-frames.h: what an importer needs to know of CoreSight formatted
 * trace buffers without decoding them (OpenCSD deformats them when the
 * recording is decoded).
 *
 * A buffer in memory (ETB, ETR) is 16-byte frames (IHI0029, D4): even bytes
 * 0-14 hold a new trace ID (bit 0 set) or a data byte (its bit 0 is in byte
 * 15), odd bytes 1-13 data bytes.  Counting the data bytes each trace ID
 * carries tells whether the frames are the sources the snapshot says.
 *
 * A TPIU sends them as a stream with frame syncs (FF FF FF 7F) between
 * frames.  A DSTREAM capture stores the same frames in 512-byte blocks whose last 8
 * bytes are the probe's footer (OpenCSD's trc_pkt_lister -dstream_format
 * reads 504 bytes of frames, then skips 8): left in, they shift every frame
 * after the first block, and the trace IDs those frames carry are noise.
 */
#ifndef HWTREC_CORESIGHT_FRAMES_H
#define HWTREC_CORESIGHT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DSTREAM_BLOCK 512u
#define DSTREAM_FOOTER 8u

/* The data bytes in the whole frames of BYTES (FSYNCS: a TPIU's stream,
 * frames from the first frame sync on, syncs between them) of trace IDs
 * for which KNOWN[id] is 0 (bytes before the first ID and of the null ID 0
 * count for none).  *FIRST_UNKNOWN: the offset of the first frame that
 * carries such bytes, or SIZE. */
uint64_t cs_frames_unknown_bytes(const uint8_t *bytes, size_t size, bool fsyncs,
				 const uint8_t known[128], size_t *first_unknown);

/* BYTES without the DSTREAM footers, in place; returns the new size. */
size_t dstream_strip_footers(uint8_t *bytes, size_t size);

#endif
