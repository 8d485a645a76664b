/* test-code-ranges.c: the exact code ranges of a chunk (code-ranges.c).
 *
 * Oracle: a map of the bytes of a 4 KiB window, each added block's
 * [first, last] set in it.  After every add, while the ranges are exact,
 * they must hold exactly the bytes the map has (no false negative, no
 * false positive, a breakpoint in the middle of a block included), and
 * they turn CODE_RANGES_MANY exactly when the map's runs of set bytes
 * first outnumber CODE_RANGES_MAX.  The parallel pass's stitching
 * (code_ranges_merge into a new chunk) must give the same bytes as the
 * adds.
 */
#include "code-ranges.h"

#include "check-main.h"
#include <string.h>

#define WINDOW 4096
#define BASE 0x555555555000ULL

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Runs of set bytes: the ranges an exact answer needs. */
static unsigned runs(const uint8_t *map)
{
	unsigned n = 0, i;

	for (i = 0; i < WINDOW; i++)
		n += map[i] && (i == 0 || !map[i - 1]);
	return n;
}

START_TEST(exact_ranges_hold_every_byte_of_every_block_and_nothing_else)
{
	int round;

	/* 150 rounds: the unit tests run under memcheck. */
	for (round = 0; round < 150; round++) {
		struct code_ranges r, stitched;
		uint8_t map[WINDOW] = { 0 };
		/* Few, short blocks in a small part of the window (a loop,
		 * a recursion) or many all over it. */
		unsigned span = round % 3 ? 256 : WINDOW - 64, i;
		unsigned nblocks = 1 + rng() % (round % 2 ? 12 : 60);
		bool was_many = false;

		memset(&r, 0, sizeof(r));
		for (i = 0; i < nblocks; i++) {
			uint64_t b = rng() % span, e = b + rng() % 40, a;

			code_ranges_add(&r, BASE + b, BASE + e);
			memset(map + b, 1, e - b + 1);
			if (!code_ranges_exact(&r)) {
				ck_assert_msg(was_many || runs(map) > CODE_RANGES_MAX,
					      "round %d: many ranges with %u runs", round,
					      runs(map));
				was_many = true;
				continue;
			}
			ck_assert_msg(!was_many, "round %d: exact again", round);
			ck_assert_uint_eq(r.count, runs(map));
			ck_assert(code_ranges_valid(&r));
			/* A test first, not a ck_assert per byte: under
			 * memcheck those took two minutes. */
			for (a = 0; a < span + 48; a++)
				if (code_ranges_contain(&r, BASE + a) != map[a])
					ck_abort_msg("round %d: byte %#llx: ranges say "
						     "%d, blocks %d", round,
						     (unsigned long long)a,
						     code_ranges_contain(&r, BASE + a),
						     map[a]);
			ck_assert(!code_ranges_contain(&r, BASE - 1));
			ck_assert(!code_ranges_contain(&r, 0));
		}
		memset(&stitched, 0, sizeof(stitched));
		code_ranges_merge(&stitched, &r);
		ck_assert_mem_eq(&stitched, &r, sizeof(r));
	}
}
END_TEST

START_TEST(touching_blocks_make_one_range_and_a_gap_of_one_byte_two)
{
	struct code_ranges r;

	memset(&r, 0, sizeof(r));
	/* fib's "ret" at 0x1162 and the block after it at 0x1163: one range. */
	code_ranges_add(&r, 0x1159, 0x1162);
	code_ranges_add(&r, 0x1163, 0x1167);
	ck_assert_uint_eq(r.count, 1);
	/* Its "jmp" at 0x117d: main at 0x117f, one byte on, ran nowhere. */
	code_ranges_add(&r, 0x1178, 0x117d);
	ck_assert_uint_eq(r.count, 2);
	ck_assert(code_ranges_contain(&r, 0x117d));
	ck_assert(!code_ranges_contain(&r, 0x117e));
	ck_assert(!code_ranges_contain(&r, 0x117f));
	/* A block bridging both joins them. */
	code_ranges_add(&r, 0x1168, 0x1177);
	ck_assert_uint_eq(r.count, 1);
	ck_assert(code_ranges_contain(&r, 0x1170));
	/* At the top of the address space. */
	code_ranges_add(&r, UINT64_MAX - 3, UINT64_MAX);
	ck_assert(code_ranges_contain(&r, UINT64_MAX));
	ck_assert(!code_ranges_contain(&r, UINT64_MAX - 4));
	ck_assert(code_ranges_valid(&r));
}
END_TEST

START_TEST(too_much_code_or_a_backward_block_gives_up_for_good)
{
	struct code_ranges r, zero;
	unsigned i;

	memset(&r, 0, sizeof(r));
	memset(&zero, 0, sizeof(zero));
	for (i = 0; i <= CODE_RANGES_MAX; i++)
		code_ranges_add(&r, 0x400000 + 16 * i, 0x400000 + 16 * i + 3);
	ck_assert(!code_ranges_exact(&r));
	/* Every address may have run; no stale ranges left to save. */
	ck_assert(code_ranges_contain(&r, 0x12345));
	ck_assert_mem_eq(r.range, zero.range, sizeof(r.range));
	code_ranges_add(&r, 0x400000, 0x400003);
	ck_assert(!code_ranges_exact(&r));

	memset(&r, 0, sizeof(r));
	code_ranges_add(&r, 0x400010, 0x400000);
	ck_assert(!code_ranges_exact(&r));
	ck_assert(code_ranges_contain(&r, 0x400008));
}
END_TEST

START_TEST(a_saved_index_s_ranges_are_checked)
{
	struct code_ranges r;

	memset(&r, 0, sizeof(r));
	code_ranges_add(&r, 0x1000, 0x1010);
	code_ranges_add(&r, 0x2000, 0x2010);
	ck_assert(code_ranges_valid(&r));
	r.count = CODE_RANGES_MAX + 1;	/* would read past the array */
	ck_assert(!code_ranges_valid(&r));
	r.count = 2;
	r.range[1].begin = 0x1011;	/* touches the first: not merged */
	ck_assert(!code_ranges_valid(&r));
	r.range[1].begin = 0x800;	/* out of order */
	ck_assert(!code_ranges_valid(&r));
	r.range[1].begin = 0x2020;	/* ends before it begins */
	ck_assert(!code_ranges_valid(&r));
}
END_TEST

/* The search's question for many breakpoints at once, against asking
 * each address alone. */
START_TEST(any_of_sorted_addresses_is_each_address_asked_alone)
{
	int round;

	for (round = 0; round < 2000; round++) {
		struct code_ranges r;
		uint64_t addrs[40];
		size_t n = rng() % 40, i, j;
		bool alone = false;

		memset(&r, 0, sizeof(r));
		for (i = 0; i < 1 + rng() % CODE_RANGES_MAX; i++) {
			uint64_t b = rng() % 2048;

			code_ranges_add(&r, BASE + b, BASE + b + rng() % 30);
		}
		for (i = 0; i < n; i++) {	/* sorted, by insertion */
			uint64_t a = BASE - 16 + rng() % 2100;

			for (j = i; j > 0 && addrs[j - 1] > a; j--)
				addrs[j] = addrs[j - 1];
			addrs[j] = a;
		}
		for (i = 0; i < n; i++)
			alone |= code_ranges_contain(&r, addrs[i]);
		ck_assert_msg(code_ranges_hold_any(&r, addrs, n) == alone,
			      "round %d: %zu addresses", round, n);
	}
}
END_TEST

/* The index pass adds through a memo of the blocks the ranges hold
 * (code_ranges_add_new): the ranges must come out byte for byte as from
 * code_ranges_add alone, with blocks run again and again, blocks that
 * share a memo slot, blocks that grow at the end, and a memo reset with its
 * ranges for the next chunk (a memo that was not would skip the blocks of
 * the chunk before, run again). */
START_TEST(the_memo_gives_the_ranges_of_plain_adds)
{
	static struct code_ranges_memo memo;	/* zeroed: reset */
	int chunk;

	for (chunk = 0; chunk < 200; chunk++) {
		struct code_ranges plain, memoed;
		uint64_t hot[6];
		int i;

		memset(&plain, 0, sizeof(plain));
		memset(&memoed, 0, sizeof(memoed));
		for (i = 0; i < 6; i++)
			hot[i] = BASE + rng() % 512;
		if (chunk % 2)	/* the blocks of the chunk before, again */
			hot[0] = BASE;
		for (i = 0; i < 60; i++) {
			uint64_t b = rng() % 3 ? hot[rng() % 6] : BASE + rng() % 2048;
			uint64_t e = b + rng() % 24;

			code_ranges_add(&plain, b, e);
			code_ranges_add_new(&memoed, &memo, b, e);
			ck_assert_mem_eq(&memoed, &plain, sizeof(plain));
		}
		code_ranges_memo_reset(&memo);
	}
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("ranges");

	tcase_add_test(tc, exact_ranges_hold_every_byte_of_every_block_and_nothing_else);
	tcase_add_test(tc, touching_blocks_make_one_range_and_a_gap_of_one_byte_two);
	tcase_add_test(tc, too_much_code_or_a_backward_block_gives_up_for_good);
	tcase_add_test(tc, a_saved_index_s_ranges_are_checked);
	tcase_add_test(tc, any_of_sorted_addresses_is_each_address_asked_alone);
	tcase_add_test(tc, the_memo_gives_the_ranges_of_plain_adds);
	return check_run_tcase("code-ranges", tc);
}
