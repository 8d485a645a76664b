/* test-page-filter.c: the Bloom filter of a chunk's code pages
 * (page-filter.c), bit by bit.
 *
 * The expected bits are computed by hand from the filter's definition, not
 * from the code: a 4 KiB page P sets bits h1 = (P * 0x9e3779b97f4a7c15 mod
 * 2^64) >> 56 and h2 = that >> 48 & 0xff (bit B is byte B / 8, bit B % 8),
 * e.g. page 0x401 sets bits 124 and 30, page 0x402 bits 26 and 85.
 */
#include "page-filter.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static unsigned bits_set(const uint8_t *filter)
{
	unsigned i, n = 0;

	for (i = 0; i < PAGE_FILTER_BYTES * 8; i++)
		n += filter[i / 8] >> (i % 8) & 1;
	return n;
}

START_TEST(one_page_sets_its_two_bits)
{
	uint8_t filter[PAGE_FILTER_BYTES] = { 0 };

	/* A block inside page 0x401. */
	page_filter_add(filter, 0x401010, 0x401ff0);
	ck_assert_uint_eq(bits_set(filter), 2);
	ck_assert_uint_eq(filter[124 / 8], 1u << (124 % 8));	/* 0x10 in byte 15 */
	ck_assert_uint_eq(filter[30 / 8], 1u << (30 % 8));	/* 0x40 in byte 3 */
	ck_assert(page_filter_may_contain(filter, 0x401000));
	ck_assert(page_filter_may_contain(filter, 0x401fff));
	/* Pages 0x402 (bits 26, 85) and 0x400 (221, 230) share no bit with it. */
	ck_assert(!page_filter_may_contain(filter, 0x402000));
	ck_assert(!page_filter_may_contain(filter, 0x400fff));
}
END_TEST

START_TEST(a_block_across_a_page_boundary_adds_both_pages)
{
	uint8_t filter[PAGE_FILTER_BYTES] = { 0 };

	page_filter_add(filter, 0x401ffe, 0x402003);
	ck_assert_uint_eq(bits_set(filter), 4);
	ck_assert(filter[124 / 8] & 1u << (124 % 8));
	ck_assert(filter[30 / 8] & 1u << (30 % 8));
	ck_assert(filter[26 / 8] & 1u << (26 % 8));
	ck_assert(filter[85 / 8] & 1u << (85 % 8));
	ck_assert(page_filter_may_contain(filter, 0x402abc));
}
END_TEST

START_TEST(page_zero_sets_bit_zero_only)
{
	uint8_t filter[PAGE_FILTER_BYTES] = { 0 };

	/* 0 * anything is 0: both hashes are bit 0. */
	page_filter_add(filter, 0x10, 0x20);
	ck_assert_uint_eq(bits_set(filter), 1);
	ck_assert_uint_eq(filter[0], 1);
	ck_assert(page_filter_may_contain(filter, 0xfff));
}
END_TEST

START_TEST(a_block_over_many_pages_adds_its_first_66)
{
	/* Pages 0x400..0x441 by hand (a block of 100 pages from 0x400000). */
	static const uint8_t expected[PAGE_FILTER_BYTES] = {
		0x53, 0xb2, 0x52, 0x65, 0xcc, 0x88, 0x1a, 0x35,
		0x2a, 0x2b, 0x72, 0xc4, 0x8c, 0xa9, 0x4a, 0x95,
		0x31, 0x23, 0x6a, 0xd4, 0x94, 0xac, 0x58, 0x19,
		0x33, 0xa6, 0x4c, 0x6d, 0xc6, 0x8c, 0x14, 0x31,
	};
	uint8_t filter[PAGE_FILTER_BYTES] = { 0 };

	page_filter_add(filter, 0x400000, 0x400000 + 100 * 4096 - 1);
	ck_assert_mem_eq(filter, expected, sizeof(expected));
	/* Page 0x442 (bits 168, 52) was not added; 168 is not set. */
	ck_assert(!page_filter_may_contain(filter, 0x442000));
	/* Page 0x500 (bits 21, 96) was never there. */
	ck_assert(!page_filter_may_contain(filter, 0x500000));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("bits");

	tcase_add_test(tc, one_page_sets_its_two_bits);
	tcase_add_test(tc, a_block_across_a_page_boundary_adds_both_pages);
	tcase_add_test(tc, page_zero_sets_bit_zero_only);
	tcase_add_test(tc, a_block_over_many_pages_adds_its_first_66);
	return check_run_tcase("page-filter", tc);
}
