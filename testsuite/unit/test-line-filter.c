/* test-line-filter.c: the Bloom filter of a chunk's executed code lines
 * (line-filter.c).
 *
 * The property a search relies on, checked on random blocks: every
 * address from a block's first instruction to its last one is found
 * (no false negatives), including blocks that cross lines and pages,
 * starting or ending at a line's last or first byte.  The filter must
 * also be useful: lines that were never added are mostly refused,
 * counted against the Bloom bound for the filter's size.
 */
#include "line-filter.h"

#include "check-main.h"
#include <stdlib.h>
#include <string.h>

#define LINE (1u << LINE_FILTER_SHIFT)

/* A fixed generator (xorshift64), so that a failure reproduces. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

struct block { uint64_t begin, end; };

/* A block of 1 to 400 bytes somewhere in a 16 MiB text (or, for ARM's
 * 32-bit addresses and a PIE's, elsewhere), often starting right at a
 * line's edge. */
static struct block random_block(void)
{
	static const uint64_t bases[] = { 0x400000, 0x555555554000ULL, 0x8000,
					  0x7ffff7dd0000ULL };
	struct block b;

	b.begin = bases[rng() % 4] + rng() % (16u << 20);
	switch (rng() % 4) {
	case 0: b.begin &= ~(uint64_t)(LINE - 1); break;	/* a line's first byte */
	case 1: b.begin |= LINE - 1; break;			/* its last byte */
	default: break;
	}
	b.end = b.begin + rng() % 400;
	return b;
}

START_TEST(no_address_of_an_added_block_is_refused)
{
	int round;

	/* 200 rounds: every unit test runs under memcheck (2,000 took minutes) */
	for (round = 0; round < 200; round++) {
		uint8_t filter[LINE_FILTER_BYTES] = { 0 };
		struct block blocks[64];
		size_t n = 1 + rng() % 64, i;

		for (i = 0; i < n; i++) {
			blocks[i] = random_block();
			line_filter_add(filter, blocks[i].begin, blocks[i].end);
		}
		for (i = 0; i < n; i++) {
			uint64_t a;

			/* A test first, not a ck_assert per byte: those are
			 * most of this test's time under memcheck. */
			for (a = blocks[i].begin; a <= blocks[i].end; a++)
				if (!line_filter_may_contain(filter, a))
					ck_abort_msg("round %d: %#llx of block "
						     "%#llx..%#llx refused", round,
						     (unsigned long long)a,
						     (unsigned long long)blocks[i].begin,
						     (unsigned long long)blocks[i].end);
		}
	}
}
END_TEST

START_TEST(a_block_across_a_line_edge_adds_both_lines_only)
{
	uint8_t filter[LINE_FILTER_BYTES] = { 0 };

	/* A 2-byte instruction at 0x40103e and one at 0x401040: the 32-byte
	 * lines 0x401020 and 0x401040. */
	ck_assert_uint_eq(LINE, 32);
	line_filter_add(filter, 0x40103e, 0x401040);
	ck_assert(line_filter_may_contain(filter, 0x401020));
	ck_assert(line_filter_may_contain(filter, 0x40103f));
	ck_assert(line_filter_may_contain(filter, 0x401040));
	ck_assert(line_filter_may_contain(filter, 0x40105f));
	/* The lines on either side were not added: with two lines in 4,096
	 * bits, a false positive here has odds below 1e-9. */
	ck_assert(!line_filter_may_contain(filter, 0x40101f));
	ck_assert(!line_filter_may_contain(filter, 0x401060));
}
END_TEST

START_TEST(an_empty_filter_refuses_everything)
{
	uint8_t filter[LINE_FILTER_BYTES] = { 0 };
	int i;

	for (i = 0; i < 10000; i++)
		if (line_filter_may_contain(filter, rng()))
			ck_abort_msg("an empty filter admitted an address");
}
END_TEST

START_TEST(a_block_over_more_lines_than_bits_fills_the_filter)
{
	uint8_t filter[LINE_FILTER_BYTES] = { 0 }, full[LINE_FILTER_BYTES];
	uint64_t span = (uint64_t)LINE_FILTER_BYTES * 8 * LINE;

	memset(full, 0xff, sizeof(full));
	line_filter_add(filter, 0x400000, 0x400000 + span);
	ck_assert_mem_eq(filter, full, sizeof(full));
	ck_assert(line_filter_may_contain(filter, 0x12345678));
	/* A range given backwards adds nothing. */
	memset(filter, 0, sizeof(filter));
	line_filter_add(filter, 0x400010, 0x400000);
	ck_assert(!line_filter_may_contain(filter, 0x400000));
}
END_TEST

/* The index pass adds blocks through a memo of the lines the chunk's
 * filter already holds (line_filter_add_new): the filter must come out
 * byte for byte as from line_filter_add alone, with code run again and
 * again (hot lines), lines that share a memo slot (LINE_MEMO_SLOTS lines
 * apart), and a memo reset with its filter for the next chunk. */
START_TEST(the_memo_gives_the_filter_of_plain_adds)
{
	static struct line_memo memo;	/* zeroed: reset */
	uint64_t last_start = rng_state;
	int chunk;

	for (chunk = 0; chunk < 30; chunk++) {
		uint8_t plain[LINE_FILTER_BYTES] = { 0 };
		uint8_t memoed[LINE_FILTER_BYTES] = { 0 };
		struct block hot[8];
		int i;

		/* Every third chunk runs the blocks of the one before again: a
		 * memo that was not reset would skip all their lines. */
		if (chunk % 3 == 2)
			rng_state = last_start;
		last_start = rng_state;
		for (i = 0; i < 8; i++)
			hot[i] = random_block();
		/* About 250 lines: a quarter of the bits, so a skipped line
		 * shows. */
		for (i = 0; i < 200; i++) {
			struct block b = rng() % 2 ? hot[rng() % 8] : random_block();

			b.end = b.begin + (b.end - b.begin) % 48;

			if (rng() % 5 == 0) {	/* a line a memo slot away */
				b.begin += (uint64_t)LINE_MEMO_SLOTS * LINE;
				b.end += (uint64_t)LINE_MEMO_SLOTS * LINE;
			}
			line_filter_add(plain, b.begin, b.end);
			line_filter_add_new(memoed, &memo, b.begin, b.end);
		}
		ck_assert_mem_eq(memoed, plain, sizeof(plain));
		line_memo_reset(&memo);
	}
}
END_TEST

/* Bloom's bound for N lines, K hashes, M bits: (1 - e^(-KN/M))^K; with
 * 4 hashes and 4,096 bits, for N = 300 it is 0.42%, for 64 lines (the loop
 * of a small program) 0.0014%.  Measured over 100,000 lines never added, on 20 filters each. */
static double false_positive_rate(unsigned lines_added)
{
	unsigned f, hits = 0, tries = 0;

	for (f = 0; f < 20; f++) {
		uint8_t filter[LINE_FILTER_BYTES] = { 0 };
		uint64_t base = 0x400000 + (rng() % 1024) * 0x100000;
		unsigned i;

		/* Lines of a program: consecutive, from BASE. */
		for (i = 0; i < lines_added; i++)
			line_filter_add(filter, base + (uint64_t)i * LINE,
					base + (uint64_t)i * LINE + 3);
		for (i = 0; i < 5000; i++, tries++)
			hits += line_filter_may_contain(
				filter, base + (uint64_t)(lines_added + i) * LINE);
	}
	return (double)hits / tries;
}

START_TEST(lines_never_added_are_mostly_refused)
{
	double at300 = false_positive_rate(300), at64 = false_positive_rate(64);

	ck_assert_msg(at300 < 0.008, "300 lines: %.4f false positives", at300);
	ck_assert_msg(at64 < 0.0005, "64 lines: %.6f false positives", at64);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("bloom");

	tcase_add_test(tc, no_address_of_an_added_block_is_refused);
	tcase_add_test(tc, a_block_across_a_line_edge_adds_both_lines_only);
	tcase_add_test(tc, an_empty_filter_refuses_everything);
	tcase_add_test(tc, a_block_over_more_lines_than_bits_fills_the_filter);
	tcase_add_test(tc, lines_never_added_are_mostly_refused);
	tcase_add_test(tc, the_memo_gives_the_filter_of_plain_adds);
	return check_run_tcase("line-filter", tc);
}
