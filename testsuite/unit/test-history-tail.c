/* test-history-tail: the history of the end of a trace only
 * (hwtr_history_build_tail, libhwtrecord/history-tail.c).
 *
 * The oracle is the fixture's own path: the assembler's labels give each
 * instruction's address and main_path_segments each instruction's
 * function.  The tail of the main path (two chunks: a PSB at i1, one at
 * "loop") is its second chunk, instructions 14 to 29 of the whole; the
 * whole history's numbers come with hwtr_thread_tail_base.  Call stacks of
 * the tail are the whole history's innermost frames, with the same
 * functions and the same level differences. */
#include "fixture.h"

#include "check-main.h"
#include <stdio.h>
#include <string.h>

#define TAIL_FIRST 14	/* main_path_labels[13]: the PSB at "loop" */

struct tail_fixture {
	struct fixture_history whole;
	struct hwtr_history *tail;
	struct hwtr_thread *thread;
};

static void open_tail(struct tail_fixture *f, uint64_t tail_bytes)
{
	fixture_history_main_path(&f->whole);
	ck_assert_msg(hwtr_history_build_tail(f->whole.rec, NULL, tail_bytes,
					      &f->tail) == 0, "%s", hwtr_last_error());
	f->thread = hwtr_history_thread(f->tail, 0);
	ck_assert_ptr_nonnull(f->thread);
}

static void close_tail(struct tail_fixture *f)
{
	hwtr_history_free(f->tail);
	fixture_history_close(&f->whole);
}

/* The oracle's function of whole instruction N. */
static const char *function_of(uint64_t n)
{
	size_t i;

	for (i = 0; i < sizeof(main_path_segments) / sizeof(main_path_segments[0]); i++)
		if (main_path_segments[i].begin <= n && n <= main_path_segments[i].end)
			return main_path_segments[i].function;
	ck_abort_msg("instruction %llu is in no segment", (unsigned long long)n);
	return NULL;
}

START_TEST(a_tail_holds_the_last_chunk_numbered_from_its_start)
{
	struct tail_fixture f;
	struct hwtr_thread_stats st;
	struct hwtr_cursor *c;
	struct hwtr_insn insn;
	uint64_t base = 99, n;

	open_tail(&f, 1);
	ck_assert_int_eq(hwtr_thread_stats(f.thread, &st), 0);
	ck_assert_uint_eq(st.instructions, 29 - TAIL_FIRST + 1);
	ck_assert_uint_eq(st.chunks, 1);
	/* Only the tail was decoded. */
	ck_assert_uint_eq(st.decoded_instructions, 29 - TAIL_FIRST + 1);
	ck_assert_int_eq(hwtr_thread_tail_base(f.thread, f.whole.thread, &base), 0);
	ck_assert_uint_eq(base, TAIL_FIRST - 1);
	ck_assert_int_eq(hwtr_cursor_alloc(f.thread, &c), 0);
	for (n = 1; n <= st.instructions; n++) {
		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		ck_assert_ptr_null(insn.gap);
		ck_assert_uint_eq(insn.ip,
				  fixture_symbol(main_path_labels[n + base - 1]));
	}
	hwtr_cursor_free(c);
	close_tail(&f);
}
END_TEST

START_TEST(a_tails_call_stacks_are_the_innermost_frames_of_the_whole)
{
	struct hwtr_segment ts[16], ws[16];
	struct tail_fixture f;
	struct hwtr_cursor *tc, *wc;
	uint64_t base, n;
	int nt, nw, i;

	open_tail(&f, 1);
	ck_assert_int_eq(hwtr_thread_tail_base(f.thread, f.whole.thread, &base), 0);
	ck_assert_int_eq(hwtr_cursor_alloc(f.thread, &tc), 0);
	ck_assert_int_eq(hwtr_cursor_alloc(f.whole.thread, &wc), 0);
	for (n = 1; n + base <= 29; n++) {
		ck_assert_int_eq(hwtr_cursor_goto(tc, n), 0);
		ck_assert_int_eq(hwtr_cursor_goto(wc, n + base), 0);
		nt = hwtr_cursor_callstack(tc, ts, 16);
		nw = hwtr_cursor_callstack(wc, ws, 16);
		ck_assert_int_gt(nt, 0);
		ck_assert_int_le(nt, nw);
		ck_assert_str_eq(ts[0].function, function_of(n + base));
		for (i = 0; i < nt; i++) {
			ck_assert_str_eq(ts[i].function, ws[i].function);
			ck_assert_int_eq(ts[i].level - ts[0].level,
					 ws[i].level - ws[0].level);
		}
	}
	hwtr_cursor_free(tc);
	hwtr_cursor_free(wc);
	close_tail(&f);
}
END_TEST

START_TEST(a_tail_longer_than_the_trace_is_the_whole_history)
{
	struct hwtr_thread_stats ts, ws;
	struct tail_fixture f;
	uint64_t base = 99;

	open_tail(&f, 1u << 30);
	ck_assert_int_eq(hwtr_thread_stats(f.thread, &ts), 0);
	ck_assert_int_eq(hwtr_thread_stats(f.whole.thread, &ws), 0);
	ck_assert_uint_eq(ts.instructions, 29);
	ck_assert_uint_eq(ts.instructions, ws.instructions);
	ck_assert_uint_eq(ts.segments, ws.segments);
	ck_assert_int_eq(hwtr_thread_tail_base(f.thread, f.whole.thread, &base), 0);
	ck_assert_uint_eq(base, 0);
	close_tail(&f);
}
END_TEST

START_TEST(a_tail_is_not_extended)
{
	struct tail_fixture f;

	open_tail(&f, 1);
	ck_assert_int_lt(hwtr_history_extend(f.tail), 0);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "tail"));
	close_tail(&f);
}
END_TEST

START_TEST(a_tail_and_a_history_of_another_recording_are_refused)
{
	struct fixture_history other;
	struct hwtr_history *tail;
	struct hwtr_recording *rec;
	struct trace t;
	char dir[512];
	uint64_t base;

	fixture_history_main_path(&other);
	snprintf(dir, sizeof(dir), "%s/short.hwtrec", fixture_tmpdir());
	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	enc_tip_pgd(&t);
	fixture_recording(dir, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build_tail(other.rec, NULL, 1, &tail), 0);
	/* Another recording: refused as a bad argument. */
	{
		struct hwtr_history *short_whole;

		ck_assert_int_eq(hwtr_history_build(rec, NULL, &short_whole), 0);
		ck_assert_int_eq(hwtr_thread_tail_base(hwtr_history_thread(tail, 0),
						       hwtr_history_thread(short_whole, 0),
						       &base), -hwtr_err_invalid);
		hwtr_history_free(short_whole);
	}
	hwtr_history_free(tail);
	hwtr_recording_close(rec);
	fixture_history_close(&other);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("tail");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, a_tail_holds_the_last_chunk_numbered_from_its_start);
	tcase_add_test(tc, a_tails_call_stacks_are_the_innermost_frames_of_the_whole);
	tcase_add_test(tc, a_tail_longer_than_the_trace_is_the_whole_history);
	tcase_add_test(tc, a_tail_is_not_extended);
	tcase_add_test(tc, a_tail_and_a_history_of_another_recording_are_refused);
	return check_run_tcase("history-tail", tc);
}
