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
/* Whether an instruction starting at IP may have been added (false: it
 * certainly was not). */
bool line_filter_may_contain(const uint8_t *filter, uint64_t ip);

#endif
