/* index-builder.h: the state of a thread's index pass, internal.
 *
 * Shared by the pass itself (history.c) and the function segments it
 * builds (segments.c).  See history.c's top comment for the restart state.
 */
#ifndef HWTR_INDEX_BUILDER_H
#define HWTR_INDEX_BUILDER_H

#include "history.h"

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

/* The index pass of one thread; it lives with the thread so that the pass
 * can go on when the recording grows. */
struct builder {
	struct hwtr_thread *thread;
	size_t cap_chunks, cap_segments, cap_gaps;
	struct last_block last;
	uint64_t fn_start, fn_end;	/* range of the current function id */
	uint32_t fn_id;
	unsigned fn_epoch;	/* the image it was found in */
	int32_t min_level;	/* over segments 1..min_upto */
	size_t min_upto;
	uint64_t window_end;	/* latest window end of the chunks so far */
	struct restart restart;
	struct line_memo lines_seen;	/* lines in the last chunk's filter */
};

/* Make room for one more element at COUNT in *ARRAY of *CAP elements of
 * size ELEM (doubling); 0 or hwtr_err_nomem. */
int history_grow(void **array, size_t *cap, size_t count, size_t elem);

#endif
