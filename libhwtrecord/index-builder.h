/* index-builder.h: the state of a thread's index pass, internal.
 *
 * Shared by the pass itself (history.c) and the function segments it
 * builds (segments.c).  See history.c's top comment for the restart state.
 */
#ifndef HWTR_INDEX_BUILDER_H
#define HWTR_INDEX_BUILDER_H

#include "block-functions.h"
#include "history.h"
#include "page-release.h"

/* What the pass knows of the last block: how the next one changes the
 * function. */
struct last_block {
	bool have_last;		/* a block since the last gap */
	enum hwtr_insn_class last_iclass;
	uint64_t last_end_ip;
	unsigned last_epoch;
	enum hwtr_isa last_isa;
};

/* An older segment as it was before the pass changed it. */
struct segment_undo {
	uint64_t number;
	struct segment was;
};

/* The pass's state at the start of the thread's last chunk (see the top). */
struct restart {
	bool valid;		/* a chunk start with an offset was seen */
	size_t nchunks;		/* chunks before it */
	uint64_t ninsns;
	size_t nsegments, ngaps;
	struct last_block last;
	struct segment last_segment;	/* segment nsegments as it was */
	int32_t min_level;	/* over segments 1..nsegments */
	uint64_t window_end;	/* latest window end of the chunks before */
	struct segment_undo *undo;	/* older segments changed since */
	size_t nundo, cap_undo;
	bool undo_failed;	/* out of memory: build the thread again */
};

/* Instructions in a row that the index pass takes as one: a block, or the
 * part of one in one function (block-functions.h), or several of these
 * (history-parallel.c) of which only the first may change the function
 * segment, the later ones being in the same function after one that does
 * not call, return or jump. */
struct block_run {
	uint64_t ip;		/* the first block's first instruction */
	uint64_t end_ip;	/* the last block's last instruction */
	uint64_t ninsn;
	uint32_t epoch;		/* the first block's image */
	uint32_t last_epoch;	/* the last block's */
	uint32_t function;	/* CHECKED: the function the blocks are in */
	uint8_t iclass;		/* the last instruction's (classified) */
	uint8_t isa;
	bool checked;		/* a build thread's, whose function at the
				 * run's start is to be checked */
	bool looked_up;		/* CHECKED: FUNCTION is what a lookup at IP
				 * found (fn_memo_at's when its memo cannot
				 * tell) */
};

/* The index pass of one thread; it lives with the thread so that the pass
 * can go on when the recording grows. */
struct builder {
	struct hwtr_thread *thread;
	size_t cap_chunks, cap_segments, cap_gaps;
	struct last_block last;
	struct fn_memo fn;	/* the last instruction's function */
	int32_t min_level;	/* over segments 1..min_upto */
	size_t min_upto;
	uint64_t window_end;	/* latest window end of the chunks so far */
	struct restart restart;
	struct line_memo lines_seen;	/* lines in the last chunk's filter */
	struct code_ranges_memo blocks_seen;	/* blocks in its ranges */
	uint64_t chunk_stamp;	/* the last chunk's (builder_chunk_stamp) */
	/* Blocks builder_block took but has not fed yet, as one run: those
	 * that cannot change the function segment go on in it (history.c). */
	struct block_run pending;
	bool have_pending;
	/* The trace before the last chunk start is read (the walk goes in
	 * trace order): its pages are given back (page-release.h). */
	const uint8_t *trace_base;	/* the stream's mapping they are of */
	struct page_release trace_read;
};

/* builder_run: the function at the run's start is another one than the
 * build thread found (it cannot know the one before its first chunk, and
 * with symbols that overlap that can matter): build the thread again on
 * one thread. */
#define RUN_NOT_MERGEABLE 2

/* The index pass's steps, for the walk's items in order: a chunk start, a
 * run of blocks (its lines are the caller's to add to the chunk's filter),
 * a gap; and the end of the walk. */
int builder_chunk_start(struct builder *b, uint64_t offset);
int builder_run(struct builder *b, const struct block_run *run);
/* Feed BLOCK (its class known) as runs split where its function changes,
 * adding its lines to the last chunk's filter.  Blocks that cannot change
 * the segment are held back as one run, fed at the next block that may, a
 * chunk start, a gap or the end. */
int builder_block(struct builder *b, const struct decoder_block *block);
/* builder_block for N of a walk's cached blocks in a row (decoder.h:
 * walk_take_blocks): a block whose pass_chunk is the last chunk's stamp is
 * in its filter and ranges already; the others get the stamp. */
int builder_cached_blocks(struct builder *b,
			  struct decoded_block *const *blocks, size_t n);
/* A number for a new chunk that no other chunk of any pass had. */
uint64_t builder_chunk_stamp(void);
int builder_gap(struct builder *b, const struct walk_item *item);
/* The end of the walk: 0, or an error feeding what builder_block held. */
int builder_finish(struct builder *b);

/* Make room for one more element at COUNT in *ARRAY of *CAP elements of
 * size ELEM (doubling); 0 or hwtr_err_nomem. */
int history_grow(void **array, size_t *cap, size_t count, size_t elem);

#endif
