/* code-ranges.h: the exact code a chunk executed, when it is little; internal. */
#ifndef HWTR_CODE_RANGES_H
#define HWTR_CODE_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Up to this many disjoint ranges a chunk (sizing: code-ranges.c). */
#define CODE_RANGES_MAX 16
/* count when the chunk ran more code than that: only its line filter
 * (line-filter.h) says what it ran. */
#define CODE_RANGES_MANY UINT32_MAX

/* Saved as it is in a recording's history.idx (inside struct chunk). */
struct code_ranges {
	uint32_t count;		/* ranges in use, or CODE_RANGES_MANY */
	uint32_t reserved;	/* 0 */
	struct code_range {
		uint64_t begin, end;	/* both included: instruction starts */
	} range[CODE_RANGES_MAX];	/* sorted, disjoint, not adjacent */
};

/* Add the block from BEGIN to END (its first and last instructions'
 * addresses) to RANGES, which a zeroed struct starts empty.  More than
 * CODE_RANGES_MAX ranges make it CODE_RANGES_MANY for good. */
void code_ranges_add(struct code_ranges *ranges, uint64_t begin, uint64_t end);
/* The blocks one chunk's ranges were given since they were cleared: the
 * index pass adds every block, and a chunk runs the same few again and
 * again, so a block it remembers is not looked up again (ranges only grow:
 * a block held stays held).  Direct-mapped by the block's first address;
 * zeroed is reset. */
#define CODE_MEMO_SLOTS 64
struct code_ranges_memo {
	uint64_t begin_plus_one[CODE_MEMO_SLOTS];	/* 0: empty */
	uint64_t end[CODE_MEMO_SLOTS];
};

/* Forget every block: whenever the ranges are cleared (a new chunk). */
void code_ranges_memo_reset(struct code_ranges_memo *memo);

static inline unsigned code_ranges_memo_slot(uint64_t begin)
{
	return (unsigned)((begin * 0x9e3779b97f4a7c15ULL) >> 58);
}

/* Whether MEMO holds the block from BEGIN to END: it was added since the
 * reset, whole. */
static inline bool code_ranges_memo_holds(const struct code_ranges_memo *memo,
					  uint64_t begin, uint64_t end)
{
	unsigned slot = code_ranges_memo_slot(begin);

	return memo->begin_plus_one[slot] == begin + 1 && end <= memo->end[slot];
}

/* code_ranges_add, skipping a block MEMO says RANGES hold already. */
static inline void code_ranges_add_new(struct code_ranges *ranges,
				       struct code_ranges_memo *memo,
				       uint64_t begin, uint64_t end)
{
	unsigned slot = code_ranges_memo_slot(begin);

	if (code_ranges_memo_holds(memo, begin, end))
		return;
	code_ranges_add(ranges, begin, end);
	memo->begin_plus_one[slot] = begin + 1;
	memo->end[slot] = end;
}

/* Add everything FROM holds to INTO (the parallel pass's stitching). */
void code_ranges_merge(struct code_ranges *into, const struct code_ranges *from);
/* Whether RANGES know exactly what ran (not CODE_RANGES_MANY). */
bool code_ranges_exact(const struct code_ranges *ranges);
/* For exact RANGES: whether an instruction starting at IP may have run
 * (false: it certainly did not). */
bool code_ranges_contain(const struct code_ranges *ranges, uint64_t ip);
/* For exact RANGES: whether any of the N addresses ADDRS (sorted) may have
 * started an instruction: one binary search per range, not per address (a
 * debugger may have thousands of breakpoints). */
bool code_ranges_hold_any(const struct code_ranges *ranges,
			  const uint64_t *addrs, size_t n);
/* Whether RANGES are well formed (a saved index's, before it is used). */
bool code_ranges_valid(const struct code_ranges *ranges);

#endif
