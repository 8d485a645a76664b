/* test-insn-stamp.c: instructions' stamps on one time axis (insn-stamp.c)
 * over a trace of fixture-code written with libipt's encoder.
 *
 * Oracle: the trace itself.  It is the fixture's main path (fixture.c: a
 * PSB with TSC 100 at i1, instructions 1..13; a PSB with TSC 200 at
 * "loop", 14..29, ending in a syscall's TIP.PGD), then what the software
 * source writes where a thread runs again after others did: TSC 500,
 * MODE.Exec and TIP.PGE at "loop", and the path from there once more
 * (instruction 30 is the gap of the trace being off, 31..46 the path).
 * The chunk-interpolated time (hwtr_thread_insn_time) puts those last
 * instructions between 200 and 500; their stamp is 500.
 */
#include "fixture.h"
#include "check-main.h"

#include <check.h>
#include <string.h>

static void open_resumed_path(struct fixture_history *o)
{
	struct pt_packet tsc;
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);
	memset(&tsc, 0, sizeof(tsc));
	tsc.type = ppt_tsc;
	tsc.payload.tsc.tsc = 500;
	ck_assert_int_ge(pt_enc_next(t.encoder, &tsc), 0);
	enc_tip_pge(&t, fixture_symbol("loop"));
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	fixture_history_open(o, &t);
}

static uint64_t stamp_of(struct hwtr_thread *t, uint64_t number)
{
	uint64_t stamp = 0;

	ck_assert_msg(hwtr_thread_insn_stamp(t, number, &stamp) == 0, "%s",
		      hwtr_last_error());
	return stamp;
}

static uint64_t first_after(struct hwtr_thread *t, uint64_t stamp)
{
	uint64_t number = 0;

	ck_assert_msg(hwtr_thread_first_after_stamp(t, stamp, &number) == 0,
		      "%s", hwtr_last_error());
	return number;
}

START_TEST(each_instruction_has_the_time_its_run_began)
{
	struct fixture_history o;
	struct hwtr_thread_stats stats;
	struct hwtr_cursor *c;
	struct hwtr_insn insn;
	uint64_t n;

	open_resumed_path(&o);
	ck_assert_int_eq(hwtr_thread_stats(o.thread, &stats), 0);
	ck_assert_uint_eq(stats.instructions, 46);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
	ck_assert_int_eq(hwtr_cursor_goto(c, 30), 0);
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_ptr_nonnull(insn.gap);
	ck_assert_int_eq(hwtr_cursor_goto(c, 31), 0);
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_uint_eq(insn.ip, fixture_symbol("loop"));
	hwtr_cursor_free(c);
	for (n = 1; n <= 13; n++)
		ck_assert_uint_eq(stamp_of(o.thread, n), 100);
	for (n = 14; n <= 30; n++)	/* the gap: the time still in force */
		ck_assert_uint_eq(stamp_of(o.thread, n), 200);
	for (n = 31; n <= 46; n++)
		ck_assert_uint_eq(stamp_of(o.thread, n), 500);
	fixture_history_close(&o);
}
END_TEST

START_TEST(first_after_a_time_is_where_the_thread_stands_then)
{
	struct fixture_history o;

	open_resumed_path(&o);
	ck_assert_uint_eq(first_after(o.thread, 0), 1);
	ck_assert_uint_eq(first_after(o.thread, 99), 1);
	ck_assert_uint_eq(first_after(o.thread, 100), 14);
	ck_assert_uint_eq(first_after(o.thread, 199), 14);
	ck_assert_uint_eq(first_after(o.thread, 200), 31);
	ck_assert_uint_eq(first_after(o.thread, 499), 31);
	ck_assert_uint_eq(first_after(o.thread, 500), 47);	/* all run */
	ck_assert_uint_eq(first_after(o.thread, UINT64_MAX - 1), 47);
	fixture_history_close(&o);
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
	struct fixture_history o;
	uint64_t v;

	open_resumed_path(&o);
	ck_assert_int_eq(hwtr_thread_insn_stamp(o.thread, 0, &v), -hwtr_err_range);
	ck_assert_int_eq(hwtr_thread_insn_stamp(o.thread, 47, &v), -hwtr_err_range);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "no instruction 47"));
	ck_assert_int_eq(hwtr_thread_insn_stamp(NULL, 1, &v), -hwtr_err_invalid);
	ck_assert_int_eq(hwtr_thread_insn_stamp(o.thread, 1, NULL), -hwtr_err_invalid);
	ck_assert_int_eq(hwtr_thread_first_after_stamp(NULL, 1, &v), -hwtr_err_invalid);
	fixture_history_close(&o);
}
END_TEST

START_TEST(a_trace_without_time_has_no_stamps)
{
	struct fixture_history o;
	struct trace t;
	uint64_t v;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 0);	/* TSC 0: no time */
	enc_tnt(&t, "1111");
	enc_tip_pgd(&t);
	fixture_history_open(&o, &t);
	ck_assert_int_eq(hwtr_thread_insn_stamp(o.thread, 1, &v), -hwtr_err_notfound);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "no time"));
	ck_assert_int_eq(hwtr_thread_first_after_stamp(o.thread, 1, &v),
			 -hwtr_err_notfound);
	fixture_history_close(&o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, each_instruction_has_the_time_its_run_began);
	tcase_add_test(tc, first_after_a_time_is_where_the_thread_stands_then);
	tcase_add_test(tc, bad_arguments_are_refused);
	tcase_add_test(tc, a_trace_without_time_has_no_stamps);
	return check_run_tcase("insn-stamp", tc);
}
