/* cursor.c: a position in one thread's history, and moving it.
 *
 * Positions are instruction numbers (1-based, as GDB's btrace).  Seeking is a
 * binary search over chunks plus decoding at most one chunk; searching for
 * addresses skips every chunk whose code ranges (code-ranges.c) or filter
 * of executed code lines (line-filter.c) rule them out.
 *
 * A history that is extended (hwtr_history_extend) keeps the meaning of
 * every position before its threads' last chunks; a position past a
 * thread's new end (an end that was a gap, decoded again) is its new end.
 */
#include "chunk-cache.h"
#include "gaps.h"
#include "history.h"
#include "segments.h"
#include "chunk-search.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

struct hwtr_cursor {
	struct hwtr_thread *thread;
	uint64_t position;
};

int hwtr_cursor_alloc(struct hwtr_thread *thread, struct hwtr_cursor **out)
{
	struct hwtr_cursor *c;

	if (!thread || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_cursor_alloc: bad argument");
	if (thread->ninsns == 0)
		return hwtr_fail(hwtr_err_eos, "thread %u has an empty history",
				 thread->tid);
	c = calloc(1, sizeof(*c));
	if (!c)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	c->thread = thread;
	c->position = thread->ninsns;
	*out = c;
	return 0;
}

void hwtr_cursor_free(struct hwtr_cursor *c)
{
	free(c);
}

/* The position, within the thread's history as it is now. */
static uint64_t where(const struct hwtr_cursor *c)
{
	return c->position > c->thread->ninsns ? c->thread->ninsns : c->position;
}

uint64_t hwtr_cursor_position(const struct hwtr_cursor *c)
{
	return c ? where(c) : 0;
}

int hwtr_cursor_goto(struct hwtr_cursor *c, uint64_t number)
{
	if (!c)
		return hwtr_fail(hwtr_err_invalid, "no cursor");
	if (number < 1 || number > c->thread->ninsns)
		return hwtr_fail(hwtr_err_range,
				 "instruction %llu is outside the history of thread "
				 "%u (1 to %llu)", (unsigned long long)number,
				 c->thread->tid,
				 (unsigned long long)c->thread->ninsns);
	c->position = number;
	return 0;
}

int hwtr_cursor_step(struct hwtr_cursor *c, int64_t delta)
{
	uint64_t n;

	if (!c)
		return hwtr_fail(hwtr_err_invalid, "no cursor");
	n = c->thread->ninsns;
	c->position = where(c);
	/* -(delta + 1) + 1 is |delta| without overflow at INT64_MIN. */
	if (delta < 0 && (uint64_t)(-(delta + 1)) + 1 >= c->position) {
		c->position = 1;
		return hwtr_fail(hwtr_err_eos, "reached the beginning of the history");
	}
	if (delta > 0 && (uint64_t)delta > n - c->position) {
		c->position = n;
		return hwtr_fail(hwtr_err_eos, "reached the end of the history");
	}
	c->position += (uint64_t)delta;
	return 0;
}

static int decoded_at(struct hwtr_thread *t, uint64_t number,
		      const struct decoded_insn **insn)
{
	const struct decoded_chunk *d;
	size_t k = history_chunk_of(t, number);
	int err = history_decode_chunk(t, k, &d);

	if (err)
		return err;
	if (number < d->first_insn || number - d->first_insn >= d->count)
		return hwtr_fail(hwtr_err_range, "instruction %llu not in its chunk",
				 (unsigned long long)number);
	*insn = &d->insns[number - d->first_insn];
	return 0;
}

int cursor_cfi_entry(struct hwtr_cursor *c, bool *entry)
{
	const struct decoded_insn *d;
	int err;

	*entry = false;
	c->position = where(c);
	if ((err = decoded_at(c->thread, c->position, &d)))
		return err;
	if (!(d->flags & INSN_GAP) && d->size)
		*entry = symbolizer_cfi_entry(c->thread->history->symbols,
					      d->epoch, d->ip);
	return 0;
}

int hwtr_cursor_insn(struct hwtr_cursor *c, struct hwtr_insn *out)
{
	const struct decoded_insn *d = NULL;
	struct hwtr_thread *t;
	int err;

	if (!c || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_cursor_insn: bad argument");
	t = c->thread;
	c->position = where(c);
	if ((err = decoded_at(t, c->position, &d)))
		return err;
	memset(out, 0, sizeof(*out));
	out->number = c->position;
	if (d->flags & INSN_GAP) {
		const struct gap_entry *g = history_gap_at(t, c->position);

		out->gap = g ? &g->gap : NULL;
		return 0;
	}
	out->ip = d->ip;
	out->size = d->size;
	out->iclass = (enum hwtr_insn_class)d->iclass;
	out->speculative = d->flags & INSN_SPECULATIVE;
	out->isa = (enum hwtr_isa)d->isa;
	if (d->size)
		image_epoch_read(t->history->images, d->epoch, d->ip, out->raw,
				 d->size);
	return 0;
}

int hwtr_cursor_segment(const struct hwtr_cursor *c, struct hwtr_segment *out)
{
	if (!c || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_cursor_segment: bad argument");
	history_segment_view(c->thread, history_segment_of(c->thread, where(c)),
			     out);
	return 0;
}


/* ADDRS sorted: each code line is asked once, whatever the number of
 * addresses on it (thousands of breakpoints sit on a few lines).  A chunk
 * that ran little code knows it exactly (code-ranges.c): its ranges answer,
 * not its filter, which cannot tell apart addresses sharing a line. */
static bool chunk_may_hold(const struct chunk *c, const uint64_t *addrs,
			   size_t n)
{
	size_t i;

	if (code_ranges_exact(&c->ranges))
		return code_ranges_hold_any(&c->ranges, addrs, n);
	for (i = 0; i < n; i++)
		if ((i == 0 || addrs[i] >> LINE_FILTER_SHIFT !=
				       addrs[i - 1] >> LINE_FILTER_SHIFT) &&
		    line_filter_may_contain(c->lines, addrs[i]))
			return true;
	return false;
}

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int find_sorted(struct hwtr_cursor *c, int direction,
		       const uint64_t *addrs, size_t naddrs)
{
	struct hwtr_thread *t = c->thread;
	uint64_t pos = where(c);
	size_t k = history_chunk_of(t, pos);

	for (;;) {
		const struct chunk *ch = &t->chunks[k];
		uint64_t end = k + 1 < t->nchunks ? t->chunks[k + 1].first_insn
						  : t->ninsns + 1, found = 0;

		if (chunk_may_hold(ch, addrs, naddrs)) {
			/* Before the position going back, after it going forward. */
			uint64_t lo = direction < 0 ? ch->first_insn
						    : (pos + 1 > ch->first_insn ? pos + 1
									 : ch->first_insn);
			uint64_t hi = direction < 0 ? (pos < end ? pos : end) : end;
			int hit;

			t->chunks_searched++;
			hit = history_find_in_chunk(t, k, addrs, naddrs, lo, hi,
						    direction, &found);

			if (hit < 0)
				return hit;
			if (hit) {
				c->position = found;
				return 1;
			}
		}
		if (direction < 0) {
			if (k == 0)
				return 0;
			k--;
		} else {
			if (k + 1 >= t->nchunks)
				return 0;
			k++;
		}
	}
}

int hwtr_cursor_find(struct hwtr_cursor *c, int direction,
		     const uint64_t *addrs, size_t naddrs)
{
	uint64_t *sorted;
	size_t i;
	int rc;

	if (!c || (!addrs && naddrs) || direction == 0)
		return hwtr_fail(hwtr_err_invalid, "hwtr_cursor_find: bad argument");
	if (naddrs == 0)
		return 0;
	/* The search looks addresses up by binary search (a debugger may
	 * have thousands of breakpoints): sorted as given, or a sorted copy. */
	for (i = 1; i < naddrs && addrs[i - 1] <= addrs[i]; i++)
		;
	if (i == naddrs)
		return find_sorted(c, direction, addrs, naddrs);
	sorted = malloc(naddrs * sizeof(*sorted));
	if (!sorted)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	memcpy(sorted, addrs, naddrs * sizeof(*sorted));
	qsort(sorted, naddrs, sizeof(*sorted), cmp_addr);
	rc = find_sorted(c, direction, sorted, naddrs);
	free(sorted);
	return rc;
}

int hwtr_cursor_callstack(const struct hwtr_cursor *c,
			  struct hwtr_segment *segments, size_t max)
{
	uint64_t number;
	size_t n = 0;

	if (!c || (!segments && max))
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_cursor_callstack: bad argument");
	number = history_segment_of(c->thread, where(c));
	while (number && n < max) {
		history_segment_view(c->thread, number, &segments[n]);
		number = segments[n].up;
		n++;
	}
	return (int)n;
}
