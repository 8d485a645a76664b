/* history-walk.h: drive every read-side API over a built history, checking
 * what must hold whatever the trace was (a position is what was asked for,
 * a gap has no bytes, a search finds what a linear walk saw first/last).
 * A broken promise aborts, so the fuzzer records the input. */
#ifndef HISTORY_WALK_H
#define HISTORY_WALK_H

#include "hwtrecord.h"

/* Walk every thread of HISTORY; PROBES are addresses to search for. */
void history_walk(struct hwtr_history *history, const uint64_t *probes,
		  size_t nprobes);

/* A and B (an extended history and a build of the same recording) show
 * the same threads, segments, gaps and instructions (those that decode on
 * demand in both). */
void history_same(struct hwtr_history *a, struct hwtr_history *b);

#endif
