/* test-values-lines.c: which bytes each chunk of the data log writes
 * (values-lines.c), against a byte map of the same writes (the oracle:
 * a chunk writes a byte of a read exactly when one of its records covers
 * that byte and the read still wants it).
 */
#include "values-lines.h"
#include "check-main.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SPACE 4096		/* the oracle's bytes, from BASE */
#define BASE 0x1ffeff0000ull
#define CHUNKS 40
/* Enough chunks of about 60 lines for a pool past SPILL_FROM: in a file. */
#define MANY_CHUNKS 1500

static struct values_lines lines;
static size_t first[MANY_CHUNKS], count[MANY_CHUNKS];
static uint8_t (*written)[SPACE];

static void setup(void)
{
	values_lines_init(&lines, NULL);
	written = calloc(MANY_CHUNKS, SPACE);
	ck_assert_ptr_nonnull(written);
}

static void teardown(void)
{
	values_lines_free(&lines);
	free(written);
}

static void note(size_t chunk, uint64_t addr, uint64_t len)
{
	ck_assert_int_eq(values_lines_note(&lines, addr, len), 0);
	if (addr >= BASE && addr - BASE < SPACE && len <= SPACE - (addr - BASE))
		memset(written[chunk] + (addr - BASE), 1, len);
}

static void finish(size_t chunk)
{
	ck_assert_int_eq(values_lines_finish(&lines, &first[chunk],
					     &count[chunk]), 0);
}

static bool touch(size_t chunk, uint64_t addr, uint64_t size,
		  const uint8_t *open)
{
	return values_lines_touch(&lines, first[chunk], count[chunk], addr,
				  size, open);
}

/* The shape a filter of lines cannot tell: a loop's int at 0x...ef4 and a
 * call's return address at 0x...ee8 are written in every chunk, the int
 * at 0x...ef0 beside them and the word at 0x...ef8 never. */
START_TEST(neighbours_written_are_not_the_bytes_read)
{
	uint8_t open[16];
	size_t k;

	for (k = 0; k < 3; k++) {
		note(k, BASE + 0xef4, 4);
		note(k, BASE + 0xee8, 8);
		finish(k);
	}
	for (k = 0; k < 3; k++) {
		ck_assert(!touch(k, BASE + 0xef0, 4, NULL));
		ck_assert(!touch(k, BASE + 0xef8, 8, NULL));
		ck_assert(touch(k, BASE + 0xef0, 8, NULL));
		ck_assert(touch(k, BASE + 0xee0, 64, NULL));
		/* 16 bytes at 0x...ef0, of which 0x...ef4-ef7 are no longer
		 * wanted (an earlier chunk gave them). */
		memset(open, 1, sizeof(open));
		memset(open + 4, 0, 4);
		ck_assert(!touch(k, BASE + 0xef0, 16, open));
		open[5] = 1;
		ck_assert(touch(k, BASE + 0xef0, 16, open));
	}
}
END_TEST

/* A record over several lines, the first and the last byte of a line,
 * line 0 and the last line of the address space. */
START_TEST(edges_of_lines_and_of_the_address_space)
{
	note(0, BASE + 60, 200);	/* lines 0-4 of BASE, partly */
	note(0, 0, 1);
	note(0, UINT64_MAX - 63, 64);
	finish(0);
	ck_assert_uint_eq(count[0], 7);
	ck_assert(!touch(0, BASE + 59, 1, NULL));
	ck_assert(touch(0, BASE + 59, 2, NULL));
	ck_assert(touch(0, BASE + 259, 1, NULL));
	ck_assert(!touch(0, BASE + 260, 100, NULL));
	ck_assert(touch(0, 0, 1, NULL));
	ck_assert(!touch(0, 1, 63, NULL));
	ck_assert(touch(0, UINT64_MAX - 1, 1, NULL));
	ck_assert(!touch(0, UINT64_MAX - 127, 64, NULL));
	/* A chunk with no memory record: nothing. */
	finish(1);
	ck_assert_uint_eq(count[1], 0);
	ck_assert(!touch(1, BASE, SPACE, NULL));
}
END_TEST

/* NCHUNKS chunks of random records over a page (up to MOST a chunk). */
static void random_writes(size_t nchunks, int most)
{
	size_t k, i;

	for (k = 0; k < nchunks; k++) {
		size_t n = (size_t)(rand() % most);

		for (i = 0; i < n; i++) {
			uint64_t len = 1 + (uint64_t)(rand() % (i % 7 ? 16 : 300));
			uint64_t at = (uint64_t)rand() % (SPACE - len);

			note(k, BASE + at, len);
		}
		finish(k);
	}
}

/* READS random reads of the first NCHUNKS chunks with random wanted
 * bytes, every answer the byte map's. */
static void random_reads(size_t nchunks, size_t reads)
{
	uint8_t open[512];
	size_t k, i;

	for (i = 0; i < reads; i++) {
		uint64_t size = 1 + (uint64_t)(rand() % 512);
		uint64_t at = (uint64_t)rand() % (SPACE - size), b;
		bool with_open = rand() % 2, want = false;

		k = (size_t)rand() % nchunks;
		for (b = 0; b < size; b++)
			open[b] = rand() % 4 != 0;
		for (b = 0; b < size; b++)
			want |= written[k][at + b] && (!with_open || open[b]);
		ck_assert_msg(touch(k, BASE + at, size, with_open ? open : NULL) == want,
			      "chunk %zu, %llu bytes at +%llu", k,
			      (unsigned long long)size, (unsigned long long)at);
	}
}

START_TEST(random_writes_and_reads_agree_with_a_byte_map)
{
	srand(20261127);
	random_writes(CHUNKS, 300);
	random_reads(CHUNKS, 20000);
}
END_TEST

/* A pool large enough to live in a file (spill-buffer.h) gives the same
 * answers, and again after its pages were given back (read back from the
 * file, not zeros). */
START_TEST(a_pool_in_a_file_agrees_with_the_byte_map_after_a_release)
{
	srand(20261128);
	random_writes(MANY_CHUNKS, 600);
	ck_assert_uint_gt(lines.npool * sizeof(struct values_line_bits),
			  SPILL_FROM);
	ck_assert(spill_in_file(&lines.pool));
	random_reads(MANY_CHUNKS, 20000);
	values_lines_release(&lines);
	random_reads(MANY_CHUNKS, 20000);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("lines");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, neighbours_written_are_not_the_bytes_read);
	tcase_add_test(tc, edges_of_lines_and_of_the_address_space);
	tcase_add_test(tc, random_writes_and_reads_agree_with_a_byte_map);
	tcase_add_test(tc, a_pool_in_a_file_agrees_with_the_byte_map_after_a_release);
	return check_run_tcase("values-lines", tc);
}
