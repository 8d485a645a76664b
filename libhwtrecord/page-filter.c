/* page-filter.c: a chunk's summary of the code pages it executed.
 *
 * A Bloom filter of 256 bits with two hashes of each 4 KiB page number
 * (multiplicative, Knuth's golden-ratio constant): a search for a
 * breakpoint address skips every chunk whose filter says the page was never
 * executed there.  False positives only cost a decode; there are no false
 * negatives.
 */
#include "page-filter.h"

static void page_hashes(uint64_t page, unsigned *h1, unsigned *h2)
{
	uint64_t x = page * 0x9e3779b97f4a7c15ULL;

	*h1 = (unsigned)(x >> 56);
	*h2 = (unsigned)(x >> 48) & 0xff;
}

void page_filter_add(uint8_t *filter, uint64_t begin, uint64_t end)
{
	uint64_t page;

	for (page = begin >> 12; page <= end >> 12; page++) {
		unsigned h1, h2;

		page_hashes(page, &h1, &h2);
		filter[h1 / 8] |= (uint8_t)(1u << (h1 % 8));
		filter[h2 / 8] |= (uint8_t)(1u << (h2 % 8));
		if (page - (begin >> 12) > 64)
			break;	/* a block over many pages: already saturated */
	}
}

bool page_filter_may_contain(const uint8_t *filter, uint64_t ip)
{
	unsigned h1, h2;

	page_hashes(ip >> 12, &h1, &h2);
	return (filter[h1 / 8] & (1u << (h1 % 8))) &&
	       (filter[h2 / 8] & (1u << (h2 % 8)));
}
