/* code-ranges.c: the exact code a chunk executed, when it is little.
 *
 * A chunk's line filter (line-filter.c) cannot tell apart addresses that
 * share a 32-byte line: a breakpoint at main's first instruction, on the
 * line where a hot loop or a recursive function ends, passes the filter in
 * every chunk, and a reverse-continue to it decoded the whole history
 * again (bench-scale.sh's call-heavy and loop-heavy programs: 1 G
 * instructions, 20-50 s).  So a chunk also keeps the address ranges of the
 * blocks it ran, [first instruction, last instruction], merged where they
 * overlap or touch, as long as they are at most CODE_RANGES_MAX: an
 * address outside all of them started no instruction there.  Exact, no
 * false positive and no false negative; a chunk that ran more code keeps
 * CODE_RANGES_MANY and its filter answers for it.
 *
 * Sizing: 16 ranges of 16 bytes, 264 bytes a chunk beside the filter's 512.
 * A chunk of a C program's loops or recursion runs a few blocks (fib: 7
 * ranges, bench-scale's loops: 4); python3's chunks run hundreds and gzip's
 * dozens, so they stay with the filter.
 *
 * The pass adds a block through a memo of the blocks the ranges hold
 * (code_ranges_add_new), so a hot loop's block is not looked up again at
 * every run: without it, a 1.4 G-instruction loop's build took about 10%
 * more CPU (measured with HWTREC_BUILD_THREADS=1 on a loaded machine; with
 * it the difference is within the noise, 15-18 s both).
 *
 * The pass adds every block in trace order; the parallel pass (history-
 * parallel.c) adds a chunk's blocks in the same order on one build thread,
 * so both give the same ranges, byte for byte.
 */
#include "code-ranges.h"

#include <string.h>

/* Neither overlaps nor touches the other. */
static bool apart(uint64_t a_begin, uint64_t a_end, uint64_t b_begin,
		  uint64_t b_end)
{
	return (a_end < b_begin && b_begin - a_end > 1) ||
	       (b_end < a_begin && a_begin - b_end > 1);
}

/* For good: and no stale ranges, so that both passes save the same bytes. */
static void set_many(struct code_ranges *r)
{
	r->count = CODE_RANGES_MANY;
	memset(r->range, 0, sizeof(r->range));
}

/* The last range that begins at or below IP, or -1. */
static int range_at_or_below(const struct code_ranges *r, uint64_t ip)
{
	int lo = 0, hi = (int)r->count;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (r->range[mid].begin <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

void code_ranges_add(struct code_ranges *r, uint64_t begin, uint64_t end)
{
	struct code_range out[CODE_RANGES_MAX + 1], add = { begin, end };
	size_t n = 0, i;
	bool placed = false;
	int at;

	if (r->count == CODE_RANGES_MANY)
		return;
	if (end < begin) {	/* no block runs backwards: keep no claim */
		set_many(r);
		return;
	}
	/* Hot code: the block is held already. */
	at = range_at_or_below(r, begin);
	if (at >= 0 && end <= r->range[at].end)
		return;
	for (i = 0; i < r->count; i++) {
		const struct code_range *x = &r->range[i];

		if (!apart(x->begin, x->end, add.begin, add.end)) {
			if (x->begin < add.begin)
				add.begin = x->begin;
			if (x->end > add.end)
				add.end = x->end;
			continue;
		}
		if (!placed && x->begin > add.end) {
			out[n++] = add;
			placed = true;
		}
		if (n == CODE_RANGES_MAX + 1)
			break;
		out[n++] = *x;
	}
	if (!placed && n <= CODE_RANGES_MAX)
		out[n++] = add;
	if (n > CODE_RANGES_MAX) {
		set_many(r);
		return;
	}
	/* The unused entries zero: both passes save the same bytes. */
	memset(r->range, 0, sizeof(r->range));
	memcpy(r->range, out, n * sizeof(*out));
	r->count = (uint32_t)n;
}

void code_ranges_memo_reset(struct code_ranges_memo *memo)
{
	memset(memo, 0, sizeof(*memo));
}

void code_ranges_merge(struct code_ranges *into, const struct code_ranges *from)
{
	uint32_t i;

	if (from->count == CODE_RANGES_MANY) {
		set_many(into);
		return;
	}
	for (i = 0; i < from->count; i++)
		code_ranges_add(into, from->range[i].begin, from->range[i].end);
}

bool code_ranges_exact(const struct code_ranges *r)
{
	return r->count != CODE_RANGES_MANY;
}

bool code_ranges_contain(const struct code_ranges *r, uint64_t ip)
{
	int at;

	if (r->count == CODE_RANGES_MANY)
		return true;
	at = range_at_or_below(r, ip);
	return at >= 0 && ip <= r->range[at].end;
}

bool code_ranges_hold_any(const struct code_ranges *r, const uint64_t *addrs,
			  size_t n)
{
	uint32_t i;

	if (r->count == CODE_RANGES_MANY)
		return n > 0;
	for (i = 0; i < r->count; i++) {
		size_t lo = 0, hi = n;

		while (lo < hi) {	/* the first address at or above begin */
			size_t mid = lo + (hi - lo) / 2;

			if (addrs[mid] < r->range[i].begin)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && addrs[lo] <= r->range[i].end)
			return true;
	}
	return false;
}

bool code_ranges_valid(const struct code_ranges *r)
{
	uint32_t i;

	if (r->count == CODE_RANGES_MANY)
		return true;
	if (r->count > CODE_RANGES_MAX)
		return false;
	for (i = 0; i < r->count; i++)
		if (r->range[i].end < r->range[i].begin ||
		    (i && !(r->range[i - 1].end < r->range[i].begin &&
			    r->range[i].begin - r->range[i - 1].end > 1)))
			return false;
	return true;
}
