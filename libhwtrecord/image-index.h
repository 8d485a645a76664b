/* image-index.h: which mapping holds an address at a time, in O(log^2 n).
 *
 * Mappings alive at one time never overlap (each mmap ends the ones it
 * overlaps, image.c), so the mappings that ever hold one address have
 * disjoint lifetimes.  A segment tree over the mappings' address bounds
 * keeps each mapping at the O(log n) nodes whose address range it covers,
 * each node's mappings sorted by birth: a lookup walks from the root to the
 * address's leaf and binary-searches each node's list by time.  The index
 * is rebuilt whole when the sideband grows (a later event ends earlier
 * mappings); building costs O(n log^2 n).
 */
#ifndef HWTR_IMAGE_INDEX_H
#define HWTR_IMAGE_INDEX_H

#include "image.h"

#include <stddef.h>

struct image_index;

int image_index_build(const struct image_mapping *maps, size_t n,
		      struct image_index **out);
void image_index_free(struct image_index *index);

/* The index of the mapping of MAPS (those it was built from) that holds IP
 * while alive at TSC; if none is, the latest mapping that ever held IP;
 * -1 if none ever did. */
long image_index_lookup(const struct image_index *index,
			const struct image_mapping *maps, uint64_t ip,
			uint64_t tsc);

#endif
