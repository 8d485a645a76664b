/* page-filter.h: the code pages a chunk executed (a Bloom filter), internal. */
#ifndef HWTR_PAGE_FILTER_H
#define HWTR_PAGE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#define PAGE_FILTER_BYTES 32

/* Add the pages of code BEGIN..END (inclusive) to FILTER (of
 * PAGE_FILTER_BYTES); a block over more than 66 pages adds its first 66
 * only (by then the filter is saturated). */
void page_filter_add(uint8_t *filter, uint64_t begin, uint64_t end);
/* Whether IP's page may have been added (false: it certainly was not). */
bool page_filter_may_contain(const uint8_t *filter, uint64_t ip);

#endif
