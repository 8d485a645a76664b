/* test-spill-append.c: a block written in order into an unlinked file
 * (spill-append.c).
 *
 * Oracles: the bytes written (a pattern of their offsets), which must read
 * back the same while the block grows, after a hole at its start is filled
 * in, and after the disk refused more (the file size limit, RLIMIT_FSIZE);
 * the kernel's count of the process's page faults (getrusage), which
 * writing through a shared mapping of the file raises by one a page (4 K
 * for 16 MB) and writing with pwrite(2) does not (but under memcheck or
 * AddressSanitizer, whose own shadow memory faults), and the Rss of the block's mapping in
 * /proc/self/smaps, none while it is written and after it is given back.
 */
#include "spill-append.h"
#include "spill-buffer.h"
#include "check-main.h"
#include "mapping-rss.h"

#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
/* AddressSanitizer's shadow memory faults as the pages written are
 * checked (1,771 faults for 14 MB in the sanitizer tree), as memcheck's. */
#if defined(__SANITIZE_ADDRESS__)
#define SHADOW_FAULTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHADOW_FAULTS 1
#endif
#endif
#ifndef SHADOW_FAULTS
#define SHADOW_FAULTS 0
#endif

#define MB ((size_t)1 << 20)

static unsigned char pattern(uint64_t offset)
{
	uint64_t x = offset * 0x9e3779b97f4a7c15ull;

	return (unsigned char)(x >> 56);
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* Pieces of 1 to 8,000 bytes (a group of segments is 300-4,600) from
 * offset FROM up to SIZE, each read back where it was put right after. */
static void append_all(struct spill_append *a, uint64_t from, uint64_t size)
{
	uint64_t at = from, seed = 1;

	while (at < size) {
		size_t n, i;
		unsigned char *p;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		n = (size_t)(seed >> 33) % 8000 + 1;
		if (n > size - at)
			n = (size_t)(size - at);
		ck_assert((p = spill_append_room(a, n + 100)) != NULL);
		for (i = 0; i < n; i++)
			p[i] = pattern(at + i);
		spill_append_done(a, n);
		ck_assert_uint_eq(a->size, at + n);
		p = (unsigned char *)spill_append_at(a, at);
		for (i = 0; i < n; i += 997)
			ck_assert_uint_eq(p[i], pattern(at + i));
		at += n;
	}
}

static void same_bytes(const unsigned char *block, uint64_t from, uint64_t size)
{
	uint64_t i;

	for (i = from; i < size; i++)
		if (block[i] != pattern(i))
			ck_abort_msg("byte %llu is %u, was written %u",
				     (unsigned long long)i, block[i], pattern(i));
}

START_TEST(a_small_block_stays_in_memory)
{
	struct spill_append a;

	spill_append_init(&a, ".");
	append_all(&a, 0, 512 * 1024);
	ck_assert(!spill_append_in_file(&a));
	same_bytes(spill_append_finish(&a), 0, 512 * 1024);
	ck_assert(!spill_append_in_file(&a));
	spill_append_free(&a);
}
END_TEST

START_TEST(a_large_block_is_written_without_a_fault_a_page)
{
	const uint64_t size = 16 * MB;
	const unsigned char *block;
	struct spill_append a;
	long faults;

	spill_append_init(&a, ".");
	/* The buffer made and the file started: then only the writes. */
	append_all(&a, 0, 2 * MB);
	ck_assert(spill_append_in_file(&a));
	faults = minor_faults();
	append_all(&a, 2 * MB, size);
	faults = minor_faults() - faults;
	/* 3,584 pages written; through a shared mapping, a fault each. */
	if (!RUNNING_ON_VALGRIND && !SHADOW_FAULTS)	/* shadow memory faults */
		ck_assert_msg(faults < 500, "%ld page faults writing 14 MB", faults);
	/* Nothing written went through the file's mapping. */
	ck_assert_msg(resident_kb(a.map) == 0, "%ld KB of the mapping resident "
		      "after the writes", resident_kb(a.map));
	block = spill_append_finish(&a);
	ck_assert(block != NULL && spill_append_in_file(&a));
	same_bytes(block, 0, size);
	ck_assert_msg(resident_kb(block) > 12 * 1024, "the read is %ld KB",
		      resident_kb(block));
	spill_append_release(&a);
	ck_assert_msg(resident_kb(block) < 64, "%ld KB resident after the release",
		      resident_kb(block));
	/* Back from the file, the same. */
	same_bytes(block, 0, size);
	spill_append_free(&a);
	ck_assert(a.buf == NULL && a.fd == -1 && a.map == NULL);
}
END_TEST

/* A table at the start (segment_store_finish's), filled in after the
 * bytes behind it, in a file and in memory. */
static void hole_filled(uint64_t hole, uint64_t size)
{
	unsigned char *fill = malloc(hole);
	const unsigned char *block;
	struct spill_append a;
	uint64_t i;

	spill_append_init(&a, ".");
	ck_assert(spill_append_skip(&a, hole));
	ck_assert_uint_eq(a.size, hole);
	append_all(&a, hole, size);
	for (i = 0; i < hole; i++)
		fill[i] = pattern(i);
	ck_assert(spill_append_write_at(&a, 0, fill, hole / 3));
	ck_assert(spill_append_write_at(&a, hole / 3, fill + hole / 3, hole - hole / 3));
	if (a.flushed >= 1000 && a.size - a.flushed >= 1000) {
		/* Across what is in the file and what is not yet. */
		uint64_t at = a.flushed - 1000;
		unsigned char other[2000];

		for (i = 0; i < 2000; i++)
			other[i] = (unsigned char)~pattern(at + i);
		ck_assert(spill_append_write_at(&a, at, other, 2000));
		ck_assert_uint_eq(*spill_append_at(&a, at + 999), other[999]);
		ck_assert_uint_eq(*spill_append_at(&a, at + 1000), other[1000]);
		for (i = 0; i < 2000; i++)
			other[i] = pattern(at + i);
		ck_assert(spill_append_write_at(&a, at, other, 2000));
	}
	block = spill_append_finish(&a);
	ck_assert(block != NULL);
	ck_assert(spill_append_in_file(&a) == (size > SPILL_FROM));
	same_bytes(block, 0, size);
	spill_append_free(&a);
	free(fill);
}

START_TEST(a_hole_at_the_start_is_filled_in_after)
{
	hole_filled(0, 0);
	hole_filled(1000, 300 * 1000);
	hole_filled(3 * MB, 20 * MB);
	hole_filled(100 * 1000, 5 * MB + 12345);
}
END_TEST

START_TEST(a_disk_that_refuses_more_leaves_the_block_in_memory)
{
	struct rlimit was, limit;
	struct spill_append a;
	const unsigned char *block;

	/* The file may not grow past 6 MB: pwrite fails with EFBIG. */
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	limit = was;
	limit.rlim_cur = 6 * MB;
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
	spill_append_init(&a, ".");
	append_all(&a, 0, 12 * MB);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert(!spill_append_in_file(&a));
	block = spill_append_finish(&a);
	same_bytes(block, 0, 12 * MB);
	spill_append_free(&a);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("spill-append");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, a_small_block_stays_in_memory);
	tcase_add_test(tc, a_large_block_is_written_without_a_fault_a_page);
	tcase_add_test(tc, a_hole_at_the_start_is_filled_in_after);
	tcase_add_test(tc, a_disk_that_refuses_more_leaves_the_block_in_memory);
	return check_run_tcase("spill-append", tc);
}
