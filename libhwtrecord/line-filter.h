/* line-filter.h: the code lines a chunk executed (a Bloom filter), internal. */
#ifndef HWTR_LINE_FILTER_H
#define HWTR_LINE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/* 32-byte lines; 4,096 bits, 4 hashes per line (sizing: line-filter.c). */
#define LINE_FILTER_SHIFT 5
#define LINE_FILTER_BYTES 512
#define LINE_FILTER_HASHES 4

/* Add the lines of code from BEGIN to END (both included: a block's first
 * and last instructions' addresses) to FILTER (of LINE_FILTER_BYTES).  A
 * range over more lines than the filter has bits fills it (it then holds
 * every address). */
void line_filter_add(uint8_t *filter, uint64_t begin, uint64_t end);

/* The lines one filter was given since it was cleared: the index pass adds
 * every block, and a chunk runs the same few lines again and again (a loop,
 * a hot function), so a line it remembers is not hashed again.  A
 * direct-mapped table of line numbers plus one (0: empty, so a zeroed memo
 * is a reset one). */
#define LINE_MEMO_SLOTS 512
struct line_memo {
	uint64_t line[LINE_MEMO_SLOTS];
};

/* Forget every line: whenever the filter is cleared (a new chunk). */
void line_memo_reset(struct line_memo *memo);
/* line_filter_add, skipping the lines MEMO says FILTER already holds. */
void line_filter_add_new(uint8_t *filter, struct line_memo *memo,
			 uint64_t begin, uint64_t end);
/* Whether an instruction starting at IP may have been added (false: it
 * certainly was not). */
bool line_filter_may_contain(const uint8_t *filter, uint64_t ip);

#endif
