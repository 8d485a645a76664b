/* test-spill-buffer.c: a growing block kept in an unlinked file
 * (spill-buffer.c).
 *
 * Oracles: the bytes written (a pattern of their offsets), which must read
 * back the same after the block grew, moved, was given back and trimmed;
 * and the kernel's count of the block's resident pages (the Rss of its
 * mapping in /proc/self/smaps), which must stay a few megabytes while 16 MB
 * are written and fall to nothing when the block is given back.
 */
#include "spill-buffer.h"
#include "check-main.h"
#include "mapping-rss.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB ((size_t)1 << 20)

static unsigned char pattern(size_t offset)
{
	uint64_t x = offset * 0x9e3779b97f4a7c15ull;

	return (unsigned char)(x >> 56);
}

/* SIZE bytes written in pieces of 64 KB, each given up as written; the
 * most resident KB seen of the mapping after a piece. */
static long write_all(struct spill_buffer *b, size_t size)
{
	long most = 0;
	size_t at;

	for (at = 0; at < size; at += 64 * 1024) {
		size_t i;

		ck_assert(spill_reserve(b, at + 64 * 1024));
		for (i = at; i < at + 64 * 1024; i++)
			b->bytes[i] = pattern(i);
		spill_written(b, at + 64 * 1024);
		if (spill_in_file(b)) {
			long kb = resident_kb(b->bytes);

			if (kb > most)
				most = kb;
		}
	}
	return most;
}

static void same_bytes(const struct spill_buffer *b, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++)
		if (b->bytes[i] != pattern(i))
			ck_abort_msg("byte %zu is %u, was written %u", i, b->bytes[i],
				     pattern(i));
}

START_TEST(a_small_block_stays_in_memory)
{
	struct spill_buffer b;

	spill_init(&b, ".");
	write_all(&b, 512 * 1024);
	ck_assert(!spill_in_file(&b));
	same_bytes(&b, 512 * 1024);
	spill_free(&b);
}
END_TEST

START_TEST(a_large_block_goes_to_a_file_and_is_not_kept_resident)
{
	const size_t size = 16 * MB;
	struct spill_buffer b;
	long most;

	spill_init(&b, ".");
	/* Room for all at once: one mapping, which no growth replaces. */
	ck_assert(spill_reserve(&b, size));
	most = write_all(&b, size);
	ck_assert(spill_in_file(&b));
	/* Given back 4 MB at a time as written, a few pages more. */
	ck_assert_msg(most > 0 && most < 9 * 1024, "%ld KB resident while written", most);
	same_bytes(&b, size);
	ck_assert_msg(resident_kb(b.bytes) > 12 * 1024, "the read is %ld KB",
		      resident_kb(b.bytes));
	spill_release(&b, size);
	ck_assert_msg(resident_kb(b.bytes) < 64, "%ld KB resident after the release",
		      resident_kb(b.bytes));
	/* Back from the file, the same. */
	same_bytes(&b, size);
	spill_trim(&b, size - 12345);
	same_bytes(&b, size - 12345);
	spill_free(&b);
	ck_assert(b.bytes == NULL && b.fd == -1);
}
END_TEST

START_TEST(a_directory_that_takes_no_file_leaves_it_to_tmpdir)
{
	struct spill_buffer b;

	spill_init(&b, "/nonexistent/hwtrec-spill-test");
	write_all(&b, 4 * MB);
	ck_assert(spill_in_file(&b));
	same_bytes(&b, 4 * MB);
	spill_free(&b);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("spill");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, a_small_block_stays_in_memory);
	tcase_add_test(tc, a_large_block_goes_to_a_file_and_is_not_kept_resident);
	tcase_add_test(tc, a_directory_that_takes_no_file_leaves_it_to_tmpdir);
	return check_run_tcase("spill-buffer", tc);
}
