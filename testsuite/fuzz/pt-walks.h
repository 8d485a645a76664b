/* pt-walks.h: the query walk of Intel PT against libipt's block decoder,
 * item by item (pt-walks.c). */
#ifndef PT_WALKS_H
#define PT_WALKS_H

#include "decode-pt-fast.h"

#include <stdbool.h>

/* Build REC's history twice, walk each WARM_WALKS times with the block
 * decoder (libipt's blocks before an error depend on what its block cache
 * has seen), then walk every thread with the block decoder in one and with
 * queries in the other, whole and, if EACH_CHUNK, from every chunk start:
 * abort at the first item that differs.  0 and *STATS (what the query walks
 * did), or -1 when the recording's history does not build (the error is
 * hwtr_last_error()'s). */
int pt_walks_same(struct hwtr_recording *rec, bool each_chunk, int warm_walks,
		  struct fast_stats *stats);

/* The CPU seconds of walking every thread of REC's history (built, or read
 * from its history.idx) once with queries (QUERY) or with libipt's block
 * decoder alone, nothing else of the index pass taking part; -1 when the
 * history does not build. */
double pt_walk_seconds(struct hwtr_recording *rec, bool query);

#endif
