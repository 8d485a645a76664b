/* chunk-cache.c: a chunk's instructions, decoded again on demand.
 *
 * The history keeps no per-instruction data (history.h): a cursor that
 * needs instruction N decodes N's chunk again with the same walk as the
 * index pass, from the chunk's start, and splits its blocks into
 * instructions (insn-length.c).  The result must match the index (the
 * count and the first IP), else the chunk is refused.  The last decoded
 * chunks are kept, least recently used out, and the last failure is
 * remembered, so that a cursor stepping through a bad chunk does not
 * decode it at every step.  The cache is bounded by the bytes it holds
 * (hwtr_history_options.cache_bytes), not by a count of chunks: a chunk of
 * a call-heavy trace (0.2 bits an instruction) decodes to megabytes, and
 * the data log's check of its snapshots alone (values.c) visits 256
 * chunks spread over the history.
 */
#include "chunk-cache.h"

#include "error.h"
#include "insn-length.h"

#include <stdlib.h>
#include <string.h>

static void gap_insn(struct decoded_insn *d)
{
	memset(d, 0, sizeof(*d));
	d->flags = INSN_GAP;
}

/* Note that the time is TIME from instruction INDEX on, if it changed. */
static int add_stamp(struct decoded_chunk *d, size_t index, uint64_t time,
		     size_t *cap)
{
	if (d->nstamps && d->stamps[d->nstamps - 1].time == time)
		return 0;
	if (d->nstamps == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct insn_stamp *grown = realloc(d->stamps, n * sizeof(*grown));

		if (!grown)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		d->stamps = grown;
		*cap = n;
	}
	d->stamps[d->nstamps].index = index;
	d->stamps[d->nstamps].time = time;
	d->nstamps++;
	return 0;
}

/* D's instructions made room for NEED of them (the COUNT the index gives
 * at most), *CAP held so far: they grow as the walk decodes them, so that
 * an index that claims more than the trace holds costs no more than the
 * trace. */
static int insns_room(struct decoded_chunk *d, size_t need, size_t count,
		      size_t *cap)
{
	struct decoded_insn *grown;
	size_t n;

	if (need > count)
		need = count;
	if (need <= *cap)
		return 0;
	n = *cap * 2 > need ? *cap * 2 : need;
	if (n > count)
		n = count;
	if (!(grown = realloc(d->insns, n * sizeof(*grown))))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	d->insns = grown;
	*cap = n;
	return 0;
}

static int fill_chunk(struct hwtr_thread *t, size_t k, struct decoded_chunk *d,
		      size_t count)
{
	size_t stamps_cap = 0, cap = 0;
	const struct chunk *c = &t->chunks[k];
	struct decoder_walk *walk;
	struct walk_item item;
	size_t filled = 0;
	bool first_chunk_item = true;
	int status, err = 0;

	if (c->offset == NO_START) {
		/* Gaps only: they come from the index (which checked that
		 * there are COUNT). */
		if ((err = insns_room(d, count, count, &cap)))
			return err;
		for (filled = 0; filled < count; filled++)
			gap_insn(&d->insns[filled]);
		return 0;
	}
	if ((err = t->ops->walk_at(t->stream, c->offset, history_chunk_image, t, &walk)))
		return err;
	while (filled < count && (status = t->ops->walk_next(walk, &item)) > 0) {
		if (item.kind == walk_chunk_start) {
			if (!first_chunk_item)
				break;	/* the next chunk: ours is complete */
			first_chunk_item = false;
			continue;
		}
		if (item.kind == walk_gap) {
			if ((err = insns_room(d, filled + 1, count, &cap)))
				break;
			gap_insn(&d->insns[filled++]);
			continue;
		}
		if (filled)
			insn_follow_unknown_length(&d->insns[filled - 1], &item.block);
		if (item.block.timed &&
		    (err = add_stamp(d, filled, item.block.time, &stamps_cap)))
			break;
		if ((err = insns_room(d, filled + item.block.ninsn, count, &cap)))
			break;
		err = insn_expand_block(t->history, &item.block, d->insns + filled,
					count - filled);
		if (err)
			break;
		filled += item.block.ninsn;
	}
	t->ops->walk_free(walk);
	if (err)
		return hwtr_fail_context(err, "thread %u, chunk at offset %llu: ",
					 t->tid, (unsigned long long)c->offset);
	if (filled != count || (c->entry_ip && count && !(d->insns[0].flags & INSN_GAP) &&
				d->insns[0].ip != c->entry_ip))
		return hwtr_fail(hwtr_err_decode,
				 "thread %u: the chunk at offset %llu decoded to %zu "
				 "instructions on demand, the index has %zu",
				 t->tid, (unsigned long long)c->offset, filled,
				 count);
	return 0;
}

/* Empty slot D. */
static void slot_clear(struct hwtr_history *h, struct decoded_chunk *d)
{
	free(d->insns);
	d->insns = NULL;
	free(d->stamps);
	d->stamps = NULL;
	d->nstamps = 0;
	d->key = UINT64_MAX;
	d->last_use = 0;
	h->cache_bytes -= d->bytes;
	d->bytes = 0;
}

/* Let go of the least recently used chunks but SLOT (being refilled) until
 * NEED more bytes fit, keeping the last one used: a caller may still hold
 * it (a step across a chunk's edge). */
static void make_room(struct hwtr_history *h, struct decoded_chunk *slot,
		      size_t need)
{
	while (h->cache_bytes + need > h->cache_limit) {
		struct decoded_chunk *lru = NULL;
		size_t i, held = 0;

		for (i = 0; i < h->cache_slots; i++) {
			struct decoded_chunk *d = &h->cache[i];

			if (d == slot || d->key == UINT64_MAX)
				continue;
			held++;
			if (!lru || d->last_use < lru->last_use)
				lru = d;
		}
		if (held <= 1)
			return;
		slot_clear(h, lru);
	}
}

uint64_t chunk_cache_key(const struct hwtr_thread *t, size_t k)
{
	return (uint64_t)t->index << 40 | k;
}

int history_decode_chunk(struct hwtr_thread *t, size_t k,
			 const struct decoded_chunk **out)
{
	struct hwtr_history *h = t->history;
	struct decoded_chunk *slot = NULL;
	uint64_t end;
	size_t i, count;
	int err;

	if (k >= t->nchunks)
		return hwtr_fail(hwtr_err_range, "no chunk %zu", k);
	for (i = 0; i < h->cache_slots; i++) {
		struct decoded_chunk *d = &h->cache[i];

		if (d->key == chunk_cache_key(t, k)) {
			d->last_use = ++h->cache_clock;
			*out = d;
			return 0;
		}
		if (!slot || d->last_use < slot->last_use)
			slot = d;
	}
	if (h->failed_message && h->failed_key == chunk_cache_key(t, k))
		return hwtr_fail(hwtr_err_decode, "%s", h->failed_message);
	end = k + 1 < t->nchunks ? t->chunks[k + 1].first_insn : t->ninsns + 1;
	count = (size_t)(end - t->chunks[k].first_insn);
	slot_clear(h, slot);
	make_room(h, slot, count * sizeof(*slot->insns));
	err = fill_chunk(t, k, slot, count);
	if (err) {
		/* Remember the failure: a cursor stepping through this chunk
		 * must not decode it again at every step. */
		slot_clear(h, slot);
		free(h->failed_message);
		h->failed_message = strdup(hwtr_last_error());
		h->failed_key = chunk_cache_key(t, k);
		return err;
	}
	slot->key = chunk_cache_key(t, k);
	slot->first_insn = t->chunks[k].first_insn;
	slot->count = count;
	slot->last_use = ++h->cache_clock;
	slot->bytes = count * sizeof(*slot->insns) +
		      slot->nstamps * sizeof(*slot->stamps);
	h->cache_bytes += slot->bytes;
	*out = slot;
	return 0;
}

int history_insn_epoch(struct hwtr_thread *t, uint64_t number,
		       unsigned *epoch)
{
	const struct decoded_chunk *d;
	int err = history_decode_chunk(t, history_chunk_of(t, number), &d);

	if (err)
		return err;
	if (number < d->first_insn || number - d->first_insn >= d->count)
		return hwtr_fail(hwtr_err_range, "instruction %llu not in its "
				 "chunk", (unsigned long long)number);
	*epoch = d->insns[number - d->first_insn].epoch;
	return 0;
}

void chunk_cache_forget(struct hwtr_thread *t, size_t k)
{
	struct hwtr_history *h = t->history;
	size_t i;

	for (i = 0; i < h->cache_slots; i++) {
		struct decoded_chunk *d = &h->cache[i];

		if (d->key == UINT64_MAX || d->key >> 40 != t->index ||
		    (d->key & ((1ull << 40) - 1)) < k)
			continue;
		slot_clear(h, d);
	}
	free(h->failed_message);
	h->failed_message = NULL;
	h->failed_key = UINT64_MAX;
}
