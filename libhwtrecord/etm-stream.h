/* etm-stream.h: one ETMv4/ETE source's trace as the decoder holds it; internal.
 *
 * Shared by the demultiplexer (etm-demux.c), the packet scan
 * (etm-scan.c) and the walk and ops (decode-etm.c); see decode-etm.c's top
 * comment for how they fit.
 */
#ifndef HWTR_ETM_STREAM_H
#define HWTR_ETM_STREAM_H

#include "decoder.h"

#include <opencsd/c_api/opencsd_c_api.h>

struct etm_walk;

struct decoder_context {
	struct image_set *images;
};

/* A stretch of demultiplexed bytes that lies at one place in the buffer. */
struct demux_run {
	uint64_t raw;		/* offset in the source's raw trace */
	uint64_t index;		/* position in the stream (buffer) */
};

/* A loss event, placed in the source's raw trace. */
struct etm_loss {
	uint64_t raw;		/* the first raw byte after the loss */
	uint64_t offset;	/* the event's stream offset */
	const char *reason;
};

struct timestamp_mark {
	uint64_t raw;		/* packet offset in the raw trace */
	uint64_t value;
};

struct etm_stream {
	struct decoder_context *context;
	const struct hwtr_etm_config *cfg;
	const uint8_t *bytes;	/* the source's raw trace */
	size_t size;
	uint8_t *demuxed;	/* owned copy when the stream is formatted */
	struct demux_run *runs;
	size_t nruns;
	bool deformat_failed;	/* frames stopped making sense here: */
	uint64_t deformat_index;	/* stream position */
	int deformat_error;
	uint64_t *asyncs;	/* raw offsets of the A-sync packets */
	size_t nasyncs;
	uint64_t *starts;	/* the A-syncs that start chunks (a subset) */
	size_t nstarts;
	struct timestamp_mark *stamps;
	size_t nstamps;
	bool truncated;		/* the trace ends inside a packet */
	uint64_t truncated_at;	/* raw offset of that packet */
	uint64_t *unusable;	/* packets never fed to the decoder */
	size_t nunusable;
	uint64_t *bad_exceptions;	/* exception packets with no address */
	size_t nbad_exceptions;
	uint64_t *sync_losses;	/* packets that lose sync (bad, overflow) */
	size_t nsync_losses;
	struct etm_loss *losses;	/* by raw offset; none at 0 or size */
	size_t nlosses;
	bool leading_loss;	/* a loss at or before the kept start */
	uint64_t leading_loss_offset;
	const char *leading_loss_reason;
	uint32_t *contexts;	/* context IDs the index pass saw */
	size_t ncontexts;
	uint32_t *named_contexts;	/* context IDs the packets the walks
					 * decode name (the scan), for
					 * importers before any walk */
	size_t nnamed_contexts;
	bool cut_frame;		/* the buffer ends inside a 16-byte frame */
	uint64_t cut_frame_at;	/* stream position of that frame */
	/* One full decoder, reset for every walk: OpenCSD 1.3's C API does
	 * not free the element callback it allocates for a tree, so trees
	 * are made once per stream, not once per walk. */
	dcd_tree_handle_t tree;
	struct etm_walk *walk;	/* the walk using the tree, or NULL */
	uint64_t start;		/* raw offset where kept trace starts */
};

#endif
