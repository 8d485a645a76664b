/* chunk-cache.h: a chunk's instructions decoded on demand, cached; internal. */
#ifndef HWTR_CHUNK_CACHE_H
#define HWTR_CHUNK_CACHE_H

#include "history.h"

/* The decoded instructions of chunk K (cached). */
int history_decode_chunk(struct hwtr_thread *thread, size_t chunk,
			 const struct decoded_chunk **decoded);
/* The image epoch instruction NUMBER was decoded in: its bytes and its
 * symbols are that image's. */
int history_insn_epoch(struct hwtr_thread *thread, uint64_t number,
		       unsigned *epoch);
/* The cache's key of THREAD's chunk K. */
uint64_t chunk_cache_key(const struct hwtr_thread *thread, size_t chunk);
/* Drop THREAD's chunks from K on from the cache (and the last failure):
 * the index changed there. */
void chunk_cache_forget(struct hwtr_thread *thread, size_t chunk);

#endif
