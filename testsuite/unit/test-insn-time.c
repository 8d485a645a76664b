/* test-insn-time.c: an instruction's time (insn-time.c,
 * hwtr_thread_insn_time) over chunk indexes built by hand, so that the
 * expected times follow from the rule by arithmetic: between two timed
 * chunk starts (first instruction F0 at TSC T0, F1 at T1), instruction N is
 * at T0 + (T1 - T0) * (N - F0) / (F1 - F0), rounded down.
 */
#include "history.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static uint64_t last_time;
static bool has_last_time;

static bool fake_last_time(const struct decoder_stream *stream, uint64_t *tsc)
{
	*tsc = last_time;
	return has_last_time;
}

static const struct decoder_ops fake_ops = {
	.stream_last_time = fake_last_time,
};

static struct chunk chunks[4];
static struct hwtr_thread thread;

/* A thread of NINSNS instructions whose chunks start at FIRST[i] with
 * TSC[i] (0: no time there). */
static void make_thread(uint64_t ninsns, size_t n, const uint64_t *first,
			const uint64_t *tsc)
{
	size_t i;

	memset(chunks, 0, sizeof(chunks));
	memset(&thread, 0, sizeof(thread));
	for (i = 0; i < n; i++) {
		chunks[i].first_insn = first[i];
		chunks[i].tsc_begin = tsc[i];
	}
	thread.tid = 42;
	thread.ops = &fake_ops;
	thread.stream = (struct decoder_stream *)&thread;	/* any non-NULL */
	thread.chunks = chunks;
	thread.nchunks = n;
	thread.ninsns = ninsns;
	has_last_time = false;
}

static uint64_t time_of(uint64_t n)
{
	uint64_t tsc = 0;

	ck_assert_int_eq(hwtr_thread_insn_time(&thread, n, &tsc), 0);
	return tsc;
}

START_TEST(interpolates_between_chunk_starts)
{
	make_thread(150, 2, (uint64_t[]){ 1, 101 }, (uint64_t[]){ 1000, 2000 });
	ck_assert_uint_eq(time_of(1), 1000);
	ck_assert_uint_eq(time_of(51), 1500);
	ck_assert_uint_eq(time_of(100), 1990);
	ck_assert_uint_eq(time_of(101), 2000);
	/* The last chunk, with no later time: its start's. */
	ck_assert_uint_eq(time_of(150), 2000);
}
END_TEST

START_TEST(last_chunk_runs_to_the_streams_last_time)
{
	make_thread(150, 2, (uint64_t[]){ 1, 101 }, (uint64_t[]){ 1000, 2000 });
	last_time = 2500;
	has_last_time = true;
	/* As if instruction 151 were at 2500: 500 ticks over 50 instructions. */
	ck_assert_uint_eq(time_of(101), 2000);
	ck_assert_uint_eq(time_of(126), 2250);
	ck_assert_uint_eq(time_of(150), 2490);
}
END_TEST

START_TEST(untimed_chunks_are_spanned)
{
	make_thread(200, 3, (uint64_t[]){ 1, 51, 101 },
		    (uint64_t[]){ 1000, 0, 2000 });
	ck_assert_uint_eq(time_of(76), 1750);
}
END_TEST

START_TEST(before_the_first_time_is_the_first_time)
{
	make_thread(30, 3, (uint64_t[]){ 1, 11, 21 }, (uint64_t[]){ 0, 1000, 2000 });
	ck_assert_uint_eq(time_of(5), 1000);
	ck_assert_uint_eq(time_of(16), 1500);
}
END_TEST

START_TEST(a_time_going_back_holds_still)
{
	make_thread(200, 2, (uint64_t[]){ 1, 101 }, (uint64_t[]){ 2000, 1000 });
	ck_assert_uint_eq(time_of(50), 2000);
	ck_assert_uint_eq(time_of(101), 1000);	/* what the trace says */
}
END_TEST

START_TEST(no_tsc_is_not_found)
{
	uint64_t tsc;

	make_thread(30, 2, (uint64_t[]){ 1, 11 }, (uint64_t[]){ 0, 0 });
	ck_assert_int_eq(hwtr_thread_insn_time(&thread, 5, &tsc), -hwtr_err_notfound);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "thread 42"));
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "no time"));
}
END_TEST

START_TEST(numbers_outside_the_history_are_refused)
{
	uint64_t tsc;

	make_thread(30, 1, (uint64_t[]){ 1 }, (uint64_t[]){ 1000 });
	ck_assert_int_eq(hwtr_thread_insn_time(&thread, 0, &tsc), -hwtr_err_range);
	ck_assert_int_eq(hwtr_thread_insn_time(&thread, 31, &tsc), -hwtr_err_range);
	ck_assert_int_eq(hwtr_thread_insn_time(NULL, 1, &tsc), -hwtr_err_invalid);
	ck_assert_int_eq(hwtr_thread_insn_time(&thread, 1, NULL), -hwtr_err_invalid);
}
END_TEST

START_TEST(large_tsc_spans_do_not_overflow)
{
	/* (T1 - T0) * (N - F0) exceeds 2^64. */
	make_thread(1u << 21, 2, (uint64_t[]){ 1, (1u << 20) + 1 },
		    (uint64_t[]){ 1, (1ull << 50) + 1 });
	ck_assert_uint_eq(time_of((1u << 19) + 1), (1ull << 49) + 1);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, interpolates_between_chunk_starts);
	tcase_add_test(tc, last_chunk_runs_to_the_streams_last_time);
	tcase_add_test(tc, untimed_chunks_are_spanned);
	tcase_add_test(tc, before_the_first_time_is_the_first_time);
	tcase_add_test(tc, a_time_going_back_holds_still);
	tcase_add_test(tc, no_tsc_is_not_found);
	tcase_add_test(tc, numbers_outside_the_history_are_refused);
	tcase_add_test(tc, large_tsc_spans_do_not_overflow);
	return check_run_tcase("insn-time", tc);
}
