/* test-integrity.c: integrity_crc32 (integrity.c), the CRC-32 of a
 * finished recording's files and of a saved index, whichever library
 * computes it (ISA-L when configure finds it, else zlib).
 *
 * Oracles: the CRC-32 check value of "123456789" (0xcbf43926, the
 * checksum's published definition) and zlib's crc32_z over the same bytes:
 * every length up to 300 at every alignment up to 16, a chain of pieces as
 * integrity_crc32_of_fd reads a file, 1 MiB at once, and no bytes at NULL
 * (zlib's initial value, 0).  Recordings and indexes written before keep
 * their checksums only if these agree.
 */
#include "check-main.h"
#include "integrity.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

/* Bytes that are not all alike (xorshift). */
static uint8_t *random_bytes(size_t size)
{
	uint8_t *b = malloc(size);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
	return b;
}

START_TEST(check_value_of_123456789)
{
	ck_assert_uint_eq(integrity_crc32(0, "123456789", 9), 0xcbf43926u);
}
END_TEST

START_TEST(every_length_and_alignment_as_zlib)
{
	uint8_t *b = random_bytes(400);
	size_t off, len;

	for (off = 0; off < 16; off++)
		for (len = 0; len <= 300; len++) {
			uint32_t want = (uint32_t)crc32_z(0, b + off, len);
			uint32_t got = integrity_crc32(0, b + off, len);

			if (got != want)
				ck_abort_msg("offset %zu, %zu bytes: %08x, zlib %08x",
					     off, len, got, want);
		}
	free(b);
}
END_TEST

START_TEST(chained_pieces_and_a_large_buffer_as_zlib)
{
	size_t size = 1u << 20, at = 0, piece = 1;
	uint8_t *b = random_bytes(size);
	uint32_t crc = 0;

	/* Pieces of 1, 2, 4, ... bytes then the rest: one checksum. */
	while (at < size) {
		size_t n = piece < size - at ? piece : size - at;

		crc = integrity_crc32(crc, b + at, n);
		at += n;
		piece *= 2;
	}
	ck_assert_uint_eq(crc, (uint32_t)crc32_z(0, b, size));
	ck_assert_uint_eq(integrity_crc32(0, b, size), (uint32_t)crc32_z(0, b, size));
	/* Seeded with another checksum, as zlib is. */
	ck_assert_uint_eq(integrity_crc32(0x12345678u, b, 1000),
			  (uint32_t)crc32_z(0x12345678u, b, 1000));
	free(b);
}
END_TEST

START_TEST(no_bytes_at_null_is_the_initial_value)
{
	ck_assert_uint_eq(integrity_crc32(0x12345678u, NULL, 0),
			  (uint32_t)crc32_z(0x12345678u, NULL, 0));
	ck_assert_uint_eq(integrity_crc32(0x12345678u, "", 0), 0x12345678u);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("crc32");

	tcase_add_test(tc, check_value_of_123456789);
	tcase_add_test(tc, every_length_and_alignment_as_zlib);
	tcase_add_test(tc, chained_pieces_and_a_large_buffer_as_zlib);
	tcase_add_test(tc, no_bytes_at_null_is_the_initial_value);
	return check_run_tcase("integrity", tc);
}
