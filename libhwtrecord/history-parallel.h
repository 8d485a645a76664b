/* history-parallel.h: the index pass of one thread on several cores,
 * internal (history-parallel.c). */
#ifndef HWTR_HISTORY_PARALLEL_H
#define HWTR_HISTORY_PARALLEL_H

#include "history.h"

/* Build threads for the index pass: HWTREC_BUILD_THREADS when set (1: the
 * pass runs on the caller's thread alone), else the online CPUs. */
unsigned history_build_threads(void);

/* Thread T's index pass (its stream open, its index empty) with NWORKERS
 * threads decoding its chunks: 0, or PARALLEL_NOT_DONE when it could not
 * be done that way (the decoder has no lanes, one chunk only, a chunk the
 * build threads cut differently from the pass, an error: the sequential
 * pass gives the error then, in its place); T's index is then partly
 * built and must be emptied first (history.c's thread_reset). */
#define PARALLEL_NOT_DONE 1
int history_parallel_pass(struct hwtr_thread *t, unsigned nworkers);

#endif
