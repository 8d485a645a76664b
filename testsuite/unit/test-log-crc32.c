/* test-log-crc32.c: the data log's CRC-32 as the Valgrind tool computes it
 * (kernel/valgrind/log-crc32.c: carry-less multiplication where the CPU
 * has it, tables elsewhere), which the seek table carries.
 *
 * Oracle: zlib's crc32, which the library checks the seek table with
 * (values-seek.c).
 */
#include "check-main.h"
#include "../../kernel/valgrind/log-crc32.h"

#include <check.h>
#include <stdlib.h>
#include <zlib.h>

static unsigned char *random_bytes(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	size_t i;

	ck_assert_ptr_nonnull(p);
	srand(seed);
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)rand();
	return p;
}

/* Every length to 4 KiB (below 64 bytes the tables alone, above the
 * folding and the tables for the last 0-15 bytes), at every alignment
 * mod 16, from 0 and from a CRC already begun. */
START_TEST(every_length_and_alignment_is_zlibs)
{
	unsigned char *buf = random_bytes(4096 + 16, 1);
	size_t n, off;

	log_crc32_init();
	for (n = 0; n <= 4096; n++)
		for (off = 0; off < 16; off += n < 300 ? 1 : 5) {
			unsigned init = off & 1 ? (unsigned)rand() : 0;

			ck_assert_msg(log_crc32_update(init, buf + off, n) ==
				      crc32(init, buf + off, (uInt)n),
				      "%zu bytes at +%zu from 0x%08x", n, off,
				      init);
		}
	free(buf);
}
END_TEST

/* The log's way: a segment's CRC carried across pieces of any size (a
 * buffer flushed, a restart point) is the whole segment's. */
START_TEST(pieces_make_the_whole)
{
	size_t size = 3u << 20, at = 0;
	unsigned char *buf = random_bytes(size, 2);
	unsigned crc = 0;

	log_crc32_init();
	while (at < size) {
		size_t n = (size_t)rand() % 70000;

		if (n > size - at)
			n = size - at;
		crc = log_crc32_update(crc, buf + at, n);
		at += n;
	}
	ck_assert_uint_eq(crc, crc32(0, buf, (uInt)size));
	free(buf);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("log-crc32");

	tcase_add_test(tc, every_length_and_alignment_is_zlibs);
	tcase_add_test(tc, pieces_make_the_whole);
	tcase_set_timeout(tc, 120);
	return check_run_tcase("log-crc32", tc);
}
