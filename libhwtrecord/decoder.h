/* decoder.h: trace formats behind one ops table (STYLE.md, DESIGN.md 6).
 *
 * A decoder turns one trace stream into a walk of three kinds of items:
 * blocks of instructions (a first and a last IP, a count, the class of the
 * last instruction and the instruction set), gaps (trace that could not be
 * turned into instructions, with the decoder's error and where it was) and
 * chunk starts (points where decoding can begin on its own: a PSB for Intel
 * PT, an A-sync for ETM).  The index pass walks a whole stream once
 * (walk_begin); on-demand decoding walks one chunk from its start (walk_at)
 * with the same code, which is what makes the two agree instruction for
 * instruction.  A chunk start also resets whatever the index pass carries
 * (PT: libipt's decoder; ETM: OpenCSD's is reset at on-demand starts), so
 * the index pass can go on from the last chunk start of a stream that grew
 * (stream_extend, walk_resume) and give what a pass from the beginning
 * gives.
 *
 * A block's instructions are contiguous: a decoder ends a block at every
 * branch (taken or not) and at every call, so only a block's last
 * instruction can change the function, and the history needs no
 * per-instruction decoding to build function segments.
 *
 * Trace the source knows it lost (a sideband loss event: perf's AUX
 * TRUNCATED, a ring overwritten before it was read) is given to the decoder
 * as stream offsets: the bytes at such an offset do not continue the
 * packets before it.  A decoder never reads a packet across a loss: it
 * stops there with a gap_lost item that carries the loss's reason, and goes
 * on at the next chunk start after it; its chunk-start scan resynchronises
 * at each loss too.  A loss at or before the kept start is the walk's first
 * item, a gap_lost (the history must not start silently mid-program).  Where the stream marks the loss itself (an Intel PT OVF
 * packet at the offset), the decoder's own overflow handling is the gap.
 *
 * Code comes from the history's image: before decoding a chunk the walk asks
 * for the epoch (image view) of that chunk, and every block says which epoch
 * its code was read from.  The history, the cursor and the server never ask
 * which decoder they have.
 */
#ifndef HWTR_DECODER_H
#define HWTR_DECODER_H

#include "hwtrecord.h"
#include "image.h"

struct decoded_block;

enum walk_kind {
	walk_block,
	walk_gap,
	walk_chunk_start,
};

enum gap_kind {
	gap_decode_error,	/* the decoder's error in `error` */
	gap_overflow,		/* the trace source dropped trace */
	gap_disabled,		/* tracing off and on again elsewhere */
	gap_truncated,		/* the stream ends inside a packet */
	gap_unsynced,		/* bytes before the first chunk start */
	gap_no_progress,	/* code that loops without trace (jmp .) */
	gap_lost,		/* the source lost trace here (a loss event) */
};

/* The last instruction's class is left to the history: it reads the
 * instruction and classifies it (libipt does not classify every one). */
#define DECODER_UNCLASSIFIED 0xff

struct decoder_block {
	uint64_t ip;		/* first instruction */
	uint64_t end_ip;	/* last instruction */
	uint32_t ninsn;
	uint32_t epoch;		/* image view the code was read from */
	uint8_t iclass;		/* enum hwtr_insn_class, or UNCLASSIFIED */
	uint8_t isa;		/* enum hwtr_isa */
	bool speculative;
	bool truncated;		/* the last instruction crosses images: its
				 * bytes are in raw */
	uint8_t size;		/* truncated: its length */
	uint8_t raw[15];
	/* The trace's time when the block began (PT: the last TSC, refined
	 * by MTC/CYC, before it), which orders threads on one time axis
	 * (insn-time.c); timed is false before the trace gave one. */
	bool timed;
	uint64_t time;
};

struct walk_item {
	enum walk_kind kind;
	struct decoder_block block;	/* walk_block */
	enum gap_kind gap;		/* walk_gap */
	int error;			/* gap: the decoder's positive code */
	bool no_code;			/* gap: no code is mapped at ip */
	uint64_t offset;		/* gap: trace offset; chunk: its offset */
	uint64_t ip;			/* gap: IP involved; chunk: entry IP */
	const char *reason;		/* gap_lost: the loss event's reason */
};

/* A loss event of the stream's thread: trace is missing between the bytes
 * before OFFSET and those from it. */
struct decoder_loss {
	uint64_t offset;		/* stream offset */
	const char *reason;		/* owned by the recording, or NULL */
};

/* What a decoder gets to open one stream. */
struct decoder_stream_info {
	const struct hwtr_recording_info *info;
	size_t thread;			/* index in info->threads */
	const uint8_t *bytes;		/* the whole stream file */
	size_t size;
	/* BYTES are a read-only file mapping (recording.c): a pass over them
	 * may give back the pages it has read (page-release.h). */
	bool file_mapped;
	uint64_t trace_start;		/* kept trace starts here */
	const struct decoder_loss *losses;	/* sorted by offset; the
						 * decoder copies them */
	size_t nlosses;
};

struct decoder_context;		/* per history: shared by its streams */
struct decoder_stream;		/* per stream: its chunk starts */
struct decoder_walk;

/* The epoch to decode the chunk that starts at OFFSET with.  The walk asks
 * before every synchronisation, because decoders read code while they
 * synchronise. */
typedef int (*decoder_image_fn)(void *ctx, uint64_t offset, unsigned *epoch);

struct decoder_ops {
	const char *name;		/* the manifest's trace_format */
	const char *chunk_start_name;	/* "PSB", "A-sync": for messages */
	bool libipt_errors;		/* gap errors are libipt's (pt_error) */

	int (*context_alloc)(struct image_set *images,
			     struct decoder_context **context);
	void (*context_free)(struct decoder_context *context);

	/* Find the stream's chunk starts (a packet scan). */
	int (*stream_open)(struct decoder_context *context,
			   const struct decoder_stream_info *info,
			   struct decoder_stream **stream);
	void (*stream_close)(struct decoder_stream *stream);
	/* The stream's file grew (INFO: the new bytes, the old ones their
	 * prefix, and all its losses, of which none before KEEP is new).
	 * Keep what the chunk scan found before KEEP, a chunk start the index
	 * pass reported, and scan on from there.  *WINDOWS is set when the
	 * time window of a chunk before KEEP changed (its end came from trace
	 * at or after KEEP).  On failure the stream may only be closed. */
	int (*stream_extend)(struct decoder_stream *stream,
			     const struct decoder_stream_info *info,
			     uint64_t keep, bool *windows);
	/* Memory the stream keeps for the history's life. */
	size_t (*stream_index_bytes)(const struct decoder_stream *stream);
	/* Bytes of this thread's own trace (a formatted buffer's share of
	 * one source), from the kept trace start. */
	uint64_t (*stream_trace_bytes)(const struct decoder_stream *stream);
	/* The distinct context IDs the index pass saw, or none (NULL op). */
	size_t (*stream_context_ids)(const struct decoder_stream *stream,
				     const uint32_t **ids);
	/* The time window of the chunk starting at OFFSET: false (and 0,
	 * UINT64_MAX) when the trace says no time there. */
	bool (*chunk_window)(const struct decoder_stream *stream,
			     uint64_t offset, uint64_t *begin, uint64_t *end);
	/* The stream's last time stamp (of any packet, not only at chunk
	 * starts): false when it has none.  Optional (NULL): the last chunk's
	 * time then holds still (hwtr_thread_insn_time). */
	bool (*stream_last_time)(const struct decoder_stream *stream,
				 uint64_t *tsc);

	/* The last chunk start before stream OFFSET: 1 and *START, or 0 when
	 * there is none.  Walking from the last ones finds where a history
	 * ends without the index pass (hwtr_history_end_ips). */
	int (*chunk_start_before)(const struct decoder_stream *stream,
				  uint64_t offset, uint64_t *start);

	/* Walk from the stream's first chunk start (index pass), or from the
	 * chunk start at OFFSET (on demand). */
	int (*walk_begin)(struct decoder_stream *stream, decoder_image_fn image,
			  void *ctx, struct decoder_walk **walk);
	int (*walk_at)(struct decoder_stream *stream, uint64_t offset,
		       decoder_image_fn image, void *ctx,
		       struct decoder_walk **walk);
	/* The index pass again from the chunk start at OFFSET, which an
	 * earlier index pass reported: the items it gave from there on
	 * (history_extend). */
	int (*walk_resume)(struct decoder_stream *stream, uint64_t offset,
			   decoder_image_fn image, void *ctx,
			   struct decoder_walk **walk);
	/* Walks on several threads at once (history-parallel.c).  Optional
	 * (NULL: a stream's walks run one at a time, as ETM's share the
	 * stream's decode tree).  A lane is a context for the walks of one
	 * more thread, over the streams of CONTEXT; freed with context_free
	 * before CONTEXT.  walk_in_lane is walk_begin (FROM NULL) or
	 * walk_resume at *FROM, decoding with LANE: walks in different lanes
	 * may run at the same time, the streams being only read. */
	int (*lane_alloc)(struct decoder_context *context,
			  struct decoder_context **lane);
	int (*walk_in_lane)(struct decoder_stream *stream,
			    struct decoder_context *lane, const uint64_t *from,
			    decoder_image_fn image, void *ctx,
			    struct decoder_walk **walk);
	/* Next item: 1, or 0 at the end of the trace, or a negative error. */
	int (*walk_next)(struct decoder_walk *walk, struct walk_item *item);
	/* The index pass's shortcut, optional (NULL): the blocks that
	 * walk_next would give next, up to the next item of another kind, at
	 * once and without their times (the pass needs none): their count and
	 * *BLOCKS, or 0; the walk goes on after them.  They are the decoder's
	 * cached blocks (decoded-block.h), which stay where they are while
	 * the walk's context lives; the pass writes their pass_* fields only. */
	size_t (*walk_take_blocks)(struct decoder_walk *walk,
				   struct decoded_block *const **blocks);
	void (*walk_free)(struct decoder_walk *walk);

	/* Words for a gap's error code. */
	const char *(*errstr)(int error);
};

extern const struct decoder_ops decoder_intel_pt;
extern const struct decoder_ops decoder_etm;

/* ITEM: a gap_lost at stream OFFSET for REASON (or NULL). */
void walk_item_lost(struct walk_item *item, uint64_t offset, const char *reason);

/* The decoder for a manifest's trace_format, or NULL. */
const struct decoder_ops *decoder_for_format(const char *trace_format);

#endif
