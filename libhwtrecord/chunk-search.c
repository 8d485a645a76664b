/* chunk-search.c: finding an instruction at one of several addresses in a chunk.
 *
 * Reverse-continue and continue to a breakpoint (cursor.c) ask each chunk
 * whose code ranges or line filter may hold an address (code-ranges.c,
 * line-filter.c) for the last or first instruction
 * in a range at one of the addresses.  A chunk in the cache is searched
 * there; else its blocks are walked again and only a block whose address
 * range holds one of the (sorted) addresses is split into instructions:
 * most of a chunk needs no instruction lengths at all.
 */
#include "chunk-search.h"

#include "chunk-cache.h"
#include "error.h"
#include "insn-length.h"

#include <stdlib.h>

/* The first of the sorted ADDRS at or above IP (N if none). */
static size_t lower_bound(const uint64_t *addrs, size_t n, uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addrs[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool block_may_hold(const struct decoder_block *block, const uint64_t *addrs,
			   size_t n)
{
	size_t i = lower_bound(addrs, n, block->ip);

	return i < n && addrs[i] <= block->end_ip;
}

static bool in_addrs(uint64_t ip, const uint64_t *addrs, size_t n)
{
	size_t i = lower_bound(addrs, n, ip);

	return i < n && addrs[i] == ip;
}

int history_find_in_chunk(struct hwtr_thread *t, size_t k,
			  const uint64_t *addrs, size_t naddrs, uint64_t lo,
			  uint64_t hi, int direction, uint64_t *found)
{
	const struct chunk *c = &t->chunks[k];
	struct decoded_insn *insns = NULL;
	size_t cap = 0;
	uint64_t number = c->first_insn, end;
	struct decoder_walk *walk;
	struct walk_item item;
	bool first_chunk_item = true;
	int status, err = 0, hit = 0;

	end = k + 1 < t->nchunks ? t->chunks[k + 1].first_insn : t->ninsns + 1;
	if (hi > end)
		hi = end;
	if (c->offset == NO_START || lo >= hi)
		return 0;
	/* Decoded already: look in the cache. */
	{
		struct hwtr_history *h = t->history;
		size_t i;

		for (i = 0; i < h->cache_slots; i++)
			if (h->cache[i].key == chunk_cache_key(t, k)) {
				const struct decoded_chunk *d = &h->cache[i];
				uint64_t n;

				for (n = lo; n < hi; n++) {
					uint64_t m = direction < 0 ? hi - 1 - (n - lo) : n;
					const struct decoded_insn *di =
						&d->insns[m - d->first_insn];

					if (!(di->flags & INSN_GAP) &&
					    in_addrs(di->ip, addrs, naddrs)) {
						*found = m;
						return 1;
					}
				}
				return 0;
			}
	}
	/* Otherwise walk the blocks and split only those that may hold an
	 * address: most of a chunk needs no instruction lengths at all. */
	if ((err = t->ops->walk_at(t->stream, c->offset, history_chunk_image, t, &walk)))
		return err;
	while (number < hi && (status = t->ops->walk_next(walk, &item)) > 0) {
		size_t i;

		if (item.kind == walk_chunk_start) {
			if (!first_chunk_item)
				break;
			first_chunk_item = false;
			continue;
		}
		if (item.kind == walk_gap) {
			number++;
			continue;
		}
		if (number + item.block.ninsn > lo &&
		    block_may_hold(&item.block, addrs, naddrs)) {
			if (item.block.ninsn > cap) {
				free(insns);
				cap = item.block.ninsn;
				insns = calloc(cap, sizeof(*insns));
				if (!insns) {
					err = hwtr_fail(hwtr_err_nomem, "out of memory");
					break;
				}
			}
			if ((err = insn_expand_block(t->history, &item.block, insns, cap)))
				break;
			for (i = 0; i < item.block.ninsn; i++) {
				uint64_t m = number + i;

				if (m < lo || m >= hi ||
				    !in_addrs(insns[i].ip, addrs, naddrs))
					continue;
				*found = m;
				hit = 1;
				if (direction > 0)
					break;
			}
			if (hit && direction > 0)
				break;
		}
		number += item.block.ninsn;
	}
	t->ops->walk_free(walk);
	free(insns);
	return err ? err : hit;
}
