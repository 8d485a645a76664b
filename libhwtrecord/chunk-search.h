/* chunk-search.h: an instruction at one of several addresses in a chunk; internal.
 * (Not search.h: the fuzz targets build with this folder on their include
 * path, and the server includes libc's <search.h>.) */
#ifndef HWTR_CHUNK_SEARCH_H
#define HWTR_CHUNK_SEARCH_H

#include "history.h"

/* Search instructions LO..HI-1 of chunk K for one at an address in ADDRS
 * (sorted ascending): the last (DIRECTION < 0) or the first.  1 and *FOUND,
 * 0, or an error. */
int history_find_in_chunk(struct hwtr_thread *thread, size_t chunk,
			  const uint64_t *addrs, size_t naddrs, uint64_t lo,
			  uint64_t hi, int direction, uint64_t *found);

#endif
