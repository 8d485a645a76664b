/* test-chunk-search.c: an instruction at one of several addresses in a chunk
 * (chunk-search.c), on the fixture's main path (fixture.c).
 *
 * Oracle: the assembler's labels of fixture-code.S in the order the path
 * runs them (main_path_labels): i4 (leaf's ret) is instructions 4, 10, 16
 * and 23, i3 3, 9, 15 and 22, i21 21, i25 25, i28 28.  Chunk 0 holds
 * instructions 1..13, chunk 1 14..29.  Each case is asked twice: walking
 * the chunk's blocks, and from the cache once the chunk is decoded.
 */
#include "chunk-cache.h"
#include "fixture.h"
#include "chunk-search.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The instruction number found, 0 for none. */
static uint64_t find(struct hwtr_thread *t, size_t k, const char *a,
		     const char *b, uint64_t lo, uint64_t hi, int direction)
{
	uint64_t addrs[2], found = 0;
	size_t n = 0;
	int hit;

	addrs[n++] = fixture_symbol(a);
	if (b)
		addrs[n++] = fixture_symbol(b);
	ck_assert(n < 2 || addrs[0] < addrs[1]);	/* sorted */
	hit = history_find_in_chunk(t, k, addrs, n, lo, hi, direction, &found);
	ck_assert_msg(hit >= 0, "%s", hwtr_last_error());
	return hit ? found : 0;
}

static void check_cases(struct hwtr_thread *t)
{
	ck_assert_uint_eq(find(t, 0, "i4", NULL, 1, 14, 1), 4);
	ck_assert_uint_eq(find(t, 0, "i4", NULL, 1, 14, -1), 10);
	ck_assert_uint_eq(find(t, 0, "i4", NULL, 5, 10, 1), 0);	/* HI excluded */
	ck_assert_uint_eq(find(t, 0, "i4", NULL, 5, 11, -1), 10);
	ck_assert_uint_eq(find(t, 0, "i4", NULL, 11, 11, 1), 0);	/* empty */
	ck_assert_uint_eq(find(t, 0, "i28", NULL, 1, 14, 1), 0);
	/* HI past the chunk is its end: i20 (20) is chunk 1's. */
	ck_assert_uint_eq(find(t, 0, "i20", NULL, 1, 30, 1), 0);
	ck_assert_uint_eq(find(t, 1, "i4", "i25", 14, 30, 1), 16);
	ck_assert_uint_eq(find(t, 1, "i4", "i25", 14, 30, -1), 25);
	ck_assert_uint_eq(find(t, 1, "i3", "i21", 16, 30, 1), 21);
	ck_assert_uint_eq(find(t, 1, "i3", "i21", 14, 30, -1), 22);
	ck_assert_uint_eq(find(t, 1, "i28", NULL, 14, 30, -1), 28);
}

START_TEST(the_first_and_last_hits_are_the_paths)
{
	const struct decoded_chunk *d;
	struct fixture_history o;

	fixture_history_main_path(&o);
	check_cases(o.thread);	/* walking the blocks */
	ck_assert_int_eq(history_decode_chunk(o.thread, 0, &d), 0);
	ck_assert_int_eq(history_decode_chunk(o.thread, 1, &d), 0);
	check_cases(o.thread);	/* from the cache */
	fixture_history_close(&o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("main path");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, the_first_and_last_hits_are_the_paths);
	return check_run_tcase("chunk-search", tc);
}
