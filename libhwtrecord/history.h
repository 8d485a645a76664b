/* history.h: the history of each thread (DESIGN.md section 6), internal.
 *
 * Per thread: the chunk index (one entry per chunk start at which decoding
 * can begin: a PSB, an A-sync), the function segments of the whole trace,
 * and the gaps.  No per-instruction data is kept; a chunk's instructions are
 * decoded again on demand into a bounded cache.  The trace format is the
 * decoder's business (decoder.h).
 */
#ifndef HWTR_HISTORY_H
#define HWTR_HISTORY_H

#include "decoder.h"
#include "hwtrecord.h"
#include "image.h"
#include "isa.h"
#include "code-ranges.h"
#include "line-filter.h"
#include "progress.h"
#include "symbols.h"

/* struct chunk is saved as it is in memory in a recording's history.idx
 * (history-file.c), struct segment in the compact form of segment-store.c:
 * a change of struct chunk's size is another layout there by itself; a
 * change of what a field means (the filter's hashing, a flag) or of the
 * segments' coding needs HISTORY_INDEX_VERSION bumped. */
struct chunk {
	uint64_t offset;	/* trace offset of its start (the PSB, A-sync) */
	uint64_t first_insn;	/* instruction number of its first entry */
	uint64_t tsc_begin;	/* its start's time (0 if none) */
	uint64_t entry_ip;	/* first block's IP, to check re-decoding */
	uint8_t lines[LINE_FILTER_BYTES];	/* Bloom filter of code lines */
	struct code_ranges ranges;	/* the code it ran, when little */
};

struct segment_store;

struct segment {
	uint64_t insn_begin;
	uint32_t up, prev, next;
	int32_t level;
	uint32_t function;	/* symbolizer id */
	uint32_t flags;		/* HWTR_SEG_* */
};

struct gap_entry {
	uint64_t insn;		/* the instruction number it takes */
	uint64_t segment;
	struct hwtr_gap gap;
};

#define INSN_SPECULATIVE 1u
#define INSN_GAP 2u

/* One decoded instruction (or gap) in the on-demand cache. */
struct decoded_insn {
	uint64_t ip;
	uint32_t epoch;		/* image view, for reading the bytes */
	uint8_t size;
	uint8_t iclass;		/* enum hwtr_insn_class */
	uint8_t isa;		/* enum hwtr_isa */
	uint8_t flags;		/* INSN_* */
};

/* From instruction INDEX of a decoded chunk on, the trace's time is TIME
 * (decoder_block.time): when the thread's run holding it began. */
struct insn_stamp {
	size_t index;
	uint64_t time;
};

struct decoded_chunk {
	uint64_t key;		/* thread index << 40 | chunk index */
	uint64_t first_insn;
	size_t count;
	struct decoded_insn *insns;
	struct insn_stamp *stamps;	/* where the time changes, in order;
					 * none when the trace has no time */
	size_t nstamps;
	uint64_t last_use;
	size_t bytes;		/* of insns and stamps, while cached */
};

struct hwtr_thread {
	struct hwtr_history *history;
	size_t index;		/* in the recording's thread list */
	uint32_t tid;
	const struct decoder_ops *ops;
	struct decoder_stream *stream;	/* NULL for an empty trace */
	struct chunk *chunks;
	size_t nchunks;
	/* While the index pass builds them (segments.c): segment N is
	 * segments[N - 1 - segments_sealed], the last ones; those before are
	 * in the growing store SEALED, changed since as PATCHES say. */
	struct segment *segments;
	uint64_t segments_sealed;
	struct segment_store *sealed;
	struct sealing *sealing;	/* sealing in the background, or NULL */
	struct segment_patches *patches;
	struct segment_store *segment_store;	/* else: a finished history's
						 * (segments_compact) */
	size_t nsegments;
	struct gap_entry *gaps;
	size_t ngaps;
	uint64_t ninsns;
	int32_t level_base;	/* added to levels so the minimum is 0 */
	uint64_t trace_bytes;
	/* Where the index pass stands (history_extend) */
	struct builder *builder;	/* NULL for an empty trace */
	size_t stream_size;	/* stream bytes the index has read */
	uint64_t trace_start;	/* the manifest's, when it was read */
	uint64_t decoded;	/* instructions the last build/extend made */
	bool rebuilt;		/* ... from the thread's start */
	unsigned build_threads;	/* ... on this many threads (stats) */
	/* chunks and segments point into the history's index_map (a saved
	 * index, read-only): released with it, never freed or written. */
	bool arrays_mapped;
	uint64_t chunks_searched;	/* by hwtr_cursor_find (cursor.c) */
	/* A tail history's (history-tail.c): the chunk start its trace is
	 * read from; 0 when it is read from the trace's start. */
	uint64_t tail_from;
};

#define LENGTH_CACHE_BITS 16

struct length_slot {
	uint64_t ip;
	uint32_t epoch;
	uint8_t len;
};

struct hwtr_history {
	struct hwtr_recording *recording;
	struct image_set *images;
	struct hwtr_symbolizer *symbols;
	const struct decoder_ops *ops;
	struct decoder_context *decoder;
	struct hwtr_thread **threads;	/* each allocated alone: cursors point
					 * at them while the array grows */
	size_t nthreads, cap_threads;
	char **debug_dirs;		/* the options', copied */
	struct decoded_chunk *cache;
	size_t cache_slots;
	uint64_t cache_clock;
	size_t cache_bytes, cache_limit;	/* held by the cache, and its
						 * bound (chunk-cache.c) */
	struct isa *isa;		/* instruction lengths and classes */
	struct length_slot *lengths;	/* 1 << LENGTH_CACHE_BITS */
	uint64_t failed_key;	/* the last chunk that failed to decode */
	char *failed_message;
	struct progress *progress;	/* hwtr_history_build's, else NULL */
	enum hwtr_index_source index_source;	/* saved (history-file.c) or built */
	void *index_map;		/* the saved index, mapped, or NULL */
	size_t index_map_size;
	/* A group of its segments found damaged when first read (their
	 * checksums good): said once, the file removed. */
	bool index_damage_told;
	/* A tail history (hwtr_history_build_tail): each thread from a chunk
	 * start this many trace bytes or more before its end; 0 for whole. */
	uint64_t tail_bytes;
};

/* A chunk of gaps only (before the first chunk start): its offset. */
#define NO_START UINT64_MAX
/* The image of the chunk of thread CTX starting at OFFSET (a
 * decoder_image_fn): the mappings of its time window. */
int history_chunk_image(void *ctx, uint64_t offset, unsigned *epoch);
/* A new thread for the manifest's thread INDEX, with an empty index. */
int history_add_thread(struct hwtr_history *h, size_t index);
/* Open thread T's stream (the decoder's chunk scan) and its index pass's
 * state: 0, or 1 for an empty trace (no stream, no pass), or an error. */
int history_thread_open(struct hwtr_thread *t);
/* Everything the thread's index holds, but its place in the history. */
void history_thread_release(struct hwtr_thread *t);
/* hwtr_history_build, for the whole trace (TAIL_BYTES 0) or a tail. */
int history_build(struct hwtr_recording *rec,
		  const struct hwtr_history_options *options, uint64_t tail_bytes,
		  struct hwtr_history **out);
/* What a decoder needs to open (or extend) the stream of thread T (from its
 * tail_from when set); *LOSSES is malloc'ed, or NULL. */
int history_stream_info(struct hwtr_thread *t, struct decoder_stream_info *si,
			struct decoder_loss **losses);
/* Set T's tail_from: the last chunk start at least the history's tail_bytes
 * before the end of its trace, or 0 (the whole trace) when there is none or
 * the trace is not longer (history-tail.c). */
int history_tail_find(struct hwtr_thread *t);
/* The chunk holding instruction NUMBER. */
size_t history_chunk_of(const struct hwtr_thread *thread, uint64_t number);
/* Whether the instruction at cursor C is the first of a function by its
 * binary's call frame information (symbolizer_cfi_entry, in the image it
 * was read from): *ENTRY; false at a gap. */
int cursor_cfi_entry(struct hwtr_cursor *c, bool *entry);

#endif
