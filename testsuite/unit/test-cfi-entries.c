/* test-cfi-entries.c: .eh_frame_hdr's binary search table (cfi-entries.c)
 * read from bytes laid out by hand as the LSB's "Exception Frame Header"
 * says, and what it does with headers that are not that.
 *
 * Oracle: the LSB layout (version 1; eh_frame_ptr, fde_count and table
 * encodings; eh_frame_ptr; fde_count; pairs of datarel sdata4 initial
 * location and FDE address), with the encodings GNU ld writes (readelf
 * --debug-dump=frames shows them on any binary: 0x1b, 0x03, 0x3b).
 * test-symbolizer.c checks real binaries against readelf's FDEs.
 */
#include "cfi-entries.h"
#include "check-main.h"

#include <check.h>
#include <string.h>

#define VADDR 0x2000u

/* A header with ld's encodings and N entries whose initial locations are
 * LOC[i] (offsets from the header), FDE addresses anything: its size. */
static size_t header(uint8_t *h, const int32_t *loc, uint32_t n)
{
	int32_t eh_frame = 0x40;
	uint32_t i;

	h[0] = 1;
	h[1] = 0x1b;	/* pcrel sdata4 */
	h[2] = 0x03;	/* udata4 */
	h[3] = 0x3b;	/* datarel sdata4 */
	memcpy(h + 4, &eh_frame, 4);
	memcpy(h + 8, &n, 4);
	for (i = 0; i < n; i++) {
		int32_t fde = 0x100 + 0x20 * (int32_t)i;

		memcpy(h + 12 + 8 * i, &loc[i], 4);
		memcpy(h + 16 + 8 * i, &fde, 4);
	}
	return 12 + 8 * (size_t)n;
}

START_TEST(starts_are_the_table_relative_to_the_header)
{
	static const int32_t loc[] = { -0x1000, -0xf00, -0x10, 0x8, 0x123 };
	uint8_t h[64];
	size_t size = header(h, loc, 5), i;
	struct cfi_entries e;

	ck_assert_int_eq(cfi_entries_parse(h, size, VADDR, &e), 0);
	ck_assert_uint_eq(e.n, 5);
	for (i = 0; i < 5; i++) {
		ck_assert_uint_eq(e.start[i], VADDR + (int64_t)loc[i]);
		ck_assert(cfi_entries_has(&e, VADDR + (int64_t)loc[i]));
		ck_assert(!cfi_entries_has(&e, VADDR + (int64_t)loc[i] + 1));
		ck_assert(!cfi_entries_has(&e, VADDR + (int64_t)loc[i] - 1));
	}
	ck_assert(!cfi_entries_has(&e, 0));
	ck_assert(!cfi_entries_has(&e, UINT64_MAX));
	cfi_entries_free(&e);
	ck_assert_uint_eq(e.n, 0);
	ck_assert(!cfi_entries_has(&e, VADDR + 8));
}
END_TEST

/* Each header that is not ld's layout gives no entries, and no error. */
static void assert_none(const uint8_t *h, size_t size, const char *why)
{
	struct cfi_entries e;

	ck_assert_msg(cfi_entries_parse(h, size, VADDR, &e) == 0, "%s: an error", why);
	ck_assert_msg(e.n == 0 && e.start == NULL, "%s: %zu entries", why, e.n);
}

START_TEST(headers_not_read_give_no_entries)
{
	static const int32_t loc[] = { 0x10, 0x20, 0x30 };
	static const int32_t unsorted[] = { 0x10, 0x30, 0x20 };
	uint8_t h[64], bad[64];
	size_t size = header(h, loc, 3), i;
	uint32_t n;

	for (i = 0; i < size; i++)	/* cut anywhere */
		assert_none(h, i, "cut short");
	memcpy(bad, h, size);
	bad[0] = 2;
	assert_none(bad, size, "version 2");
	memcpy(bad, h, size);
	bad[3] = 0x1b;		/* pcrel, not datarel */
	assert_none(bad, size, "table pcrel");
	memcpy(bad, h, size);
	bad[3] = 0xff;		/* DW_EH_PE_omit: no table */
	assert_none(bad, size, "table omitted");
	memcpy(bad, h, size);
	bad[2] = 0xff;
	assert_none(bad, size, "count omitted");
	memcpy(bad, h, size);
	bad[2] = 0x13;		/* pcrel count */
	assert_none(bad, size, "count pcrel");
	memcpy(bad, h, size);
	bad[1] = 0x02;		/* udata2: not read here */
	assert_none(bad, size, "eh_frame_ptr udata2");
	memcpy(bad, h, size);
	n = 4;			/* one entry more than the bytes hold */
	memcpy(bad + 8, &n, 4);
	assert_none(bad, size, "count past the end");
	n = UINT32_MAX;
	memcpy(bad + 8, &n, 4);
	assert_none(bad, size, "count UINT32_MAX");
	n = 0;
	memcpy(bad + 8, &n, 4);
	assert_none(bad, size, "no entries");
	size = header(bad, unsorted, 3);
	assert_none(bad, size, "out of order");
}
END_TEST

/* An 8-byte count and eh_frame_ptr (udata8, absptr) are read too. */
START_TEST(eight_byte_fields_are_skipped_over)
{
	uint8_t h[64];
	uint64_t eh_frame = 0x40, n = 2;
	int32_t loc[2] = { 0x10, 0x18 }, fde = 0x100;
	struct cfi_entries e;

	h[0] = 1;
	h[1] = 0x00;	/* absptr */
	h[2] = 0x04;	/* udata8 */
	h[3] = 0x3b;
	memcpy(h + 4, &eh_frame, 8);
	memcpy(h + 12, &n, 8);
	memcpy(h + 20, &loc[0], 4);
	memcpy(h + 24, &fde, 4);
	memcpy(h + 28, &loc[1], 4);
	memcpy(h + 32, &fde, 4);
	ck_assert_int_eq(cfi_entries_parse(h, 36, VADDR, &e), 0);
	ck_assert_uint_eq(e.n, 2);
	ck_assert(cfi_entries_has(&e, VADDR + 0x18));
	cfi_entries_free(&e);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("cfi-entries");

	tcase_add_test(tc, starts_are_the_table_relative_to_the_header);
	tcase_add_test(tc, headers_not_read_give_no_entries);
	tcase_add_test(tc, eight_byte_fields_are_skipped_over);
	return check_run_tcase("cfi-entries", tc);
}
