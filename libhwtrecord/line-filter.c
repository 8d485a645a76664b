/* line-filter.c: a chunk's summary of the code it executed.
 *
 * A Bloom filter of the 32-byte code lines its blocks covered: a search
 * for a breakpoint address (cursor.c) skips every chunk whose filter says
 * the address's line was never executed there.  Lines, not pages, so that
 * a program whose code all sits on one page still has most chunks skipped
 * (issue 21 item 5).  False positives only cost a decode; there are no
 * false negatives.  A chunk that ran little code also keeps its exact
 * ranges (code-ranges.c), which answer for it instead: they tell apart
 * addresses that share a line.
 *
 * A block adds every line from its first instruction's address to its
 * last one's: every instruction of the block starts in one of them.  The
 * bytes of an instruction that straddles into the next line are not
 * added, and need not be: a breakpoint is hit where an instruction
 * starts, and the search compares start addresses only.  The index pass
 * adds through a memo of the lines the chunk's filter holds already
 * (line_filter_add_new): hashing every line of every block was 7% of
 * `hwtrec info`, though a chunk runs the same few lines again and again.
 *
 * Sizing, measured on recordings by the software source (500 breakpoint
 * lines drawn from all the lines a recording executed, each asked of every
 * chunk): chunks of 225,000 instructions of a small C program execute 2
 * 64-byte lines each, gzip's 164,000 a median of 31, python3's 34,000 a
 * median of 300 (860 at the 90th percentile).  On python3, the chunks
 * searched were 19.6% with the former 256-bit page filter; with 4,096 bits
 * and 4 hashes 5.5% for 64-byte lines, 11.3% for 32-byte ones, 23.5% for
 * 16-byte ones (8,192 bits: 3.9% at 32 bytes).  32-byte lines, because a
 * small program's loop often shares a 64-byte line with the code before it
 * (a breakpoint at main of bench-scale's calls.c: 0x1183, its loop from
 * 0x11a8), and 4,096 bits: 512 bytes a chunk, 15 MB for a 1 G-instruction
 * python3 history (29,000 chunks), 2-3 MB for C programs.
 */
#include "line-filter.h"

#include <string.h>

#define LINE_FILTER_BITS (LINE_FILTER_BYTES * 8)

/* Four 12-bit hashes from one 64-bit mix of the line number (murmur3's
 * finalizer: consecutive lines land far apart). */
static uint64_t line_mix(uint64_t line)
{
	uint64_t x = line;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#define HASH_BITS 12	/* log2(LINE_FILTER_BITS) */
_Static_assert(LINE_FILTER_BITS == 1 << HASH_BITS &&
	       LINE_FILTER_HASHES * HASH_BITS <= 64, "one mix gives every hash");

static void add_line(uint8_t *filter, uint64_t line)
{
	uint64_t x = line_mix(line);
	int i;

	for (i = 0; i < LINE_FILTER_HASHES; i++, x >>= HASH_BITS) {
		unsigned bit = (unsigned)(x & (LINE_FILTER_BITS - 1));

		filter[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
}

/* Hashing each line of a range this long would set (nearly) every bit
 * anyway: the filter is filled. */
static bool fills_filter(uint64_t begin, uint64_t end)
{
	return (end >> LINE_FILTER_SHIFT) - (begin >> LINE_FILTER_SHIFT) >=
	       LINE_FILTER_BITS;
}

void line_filter_add(uint8_t *filter, uint64_t begin, uint64_t end)
{
	uint64_t line, last = end >> LINE_FILTER_SHIFT;

	if (end < begin)
		return;
	if (fills_filter(begin, end)) {
		memset(filter, 0xff, LINE_FILTER_BYTES);
		return;
	}
	for (line = begin >> LINE_FILTER_SHIFT; line <= last; line++)
		add_line(filter, line);
}

void line_memo_reset(struct line_memo *memo)
{
	memset(memo, 0, sizeof(*memo));
}

void line_filter_add_new(uint8_t *filter, struct line_memo *memo,
			 uint64_t begin, uint64_t end)
{
	uint64_t line, last = end >> LINE_FILTER_SHIFT;

	if (end < begin || fills_filter(begin, end)) {
		line_filter_add(filter, begin, end);
		return;
	}
	for (line = begin >> LINE_FILTER_SHIFT; line <= last; line++) {
		uint64_t *slot = &memo->line[line % LINE_MEMO_SLOTS];

		if (*slot == line + 1)
			continue;
		*slot = line + 1;
		add_line(filter, line);
	}
}

bool line_filter_may_contain(const uint8_t *filter, uint64_t ip)
{
	uint64_t x = line_mix(ip >> LINE_FILTER_SHIFT);
	int i;

	for (i = 0; i < LINE_FILTER_HASHES; i++, x >>= HASH_BITS) {
		unsigned bit = (unsigned)(x & (LINE_FILTER_BITS - 1));

		if (!(filter[bit / 8] & (1u << (bit % 8))))
			return false;
	}
	return true;
}
