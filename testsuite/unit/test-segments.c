/* test-segments.c: a thread's function segments (segments.c), GDB's
 * btrace model, on the fixture's two paths.
 *
 * Oracle: the segments of each path worked out by hand from GDB's btrace
 * rules (fixture.c: main_path_segments, recursion_path_segments, in
 * instruction numbers of the assembler's labels).  Checked here through
 * the internal lookups: the segment of every instruction, and each
 * segment's view (links, levels normalised to 0, flags, function).
 */
#include "fixture.h"
#include "segments.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void open_path(struct fixture_history *o, bool recursion)
{
	struct trace t;

	trace_begin(&t);
	if (recursion) {
		enc_psb(&t, fixture_symbol("r1"), 100);
		enc_tnt(&t, "0111");	/* jnz no, jnz yes, ret, ret */
		enc_tip_pgd(&t);
	} else {
		trace_main_path(&t);
	}
	fixture_history_open(o, &t);
}

static void check_segments(struct hwtr_thread *t,
			   const struct fixture_segment *expected, size_t n)
{
	uint64_t number;
	size_t i;

	ck_assert_uint_eq(t->nsegments, n);
	for (i = 0; i < n; i++) {
		const struct fixture_segment *e = &expected[i];
		struct hwtr_segment s;

		for (number = e->begin; number <= e->end; number++)
			ck_assert_msg(history_segment_of(t, number) == i + 1,
				      "instruction %llu: segment %llu, expected %zu",
				      (unsigned long long)number,
				      (unsigned long long)history_segment_of(t, number),
				      i + 1);
		history_segment_view(t, i + 1, &s);
		ck_assert_uint_eq(s.number, i + 1);
		ck_assert_str_eq(s.function, e->function);
		ck_assert_uint_eq(s.function_start, fixture_symbol(e->function));
		ck_assert_uint_eq(s.insn_begin, e->begin);
		ck_assert_uint_eq(s.insn_end, e->end + 1);
		ck_assert_int_eq(s.level, e->level - 1);
		ck_assert_uint_eq(s.up, e->up);
		ck_assert_uint_eq(s.prev, e->prev);
		ck_assert_uint_eq(s.next, e->next);
		ck_assert_uint_eq(s.flags, e->flags);
	}
}

START_TEST(the_main_paths_segments_are_btraces)
{
	struct fixture_history o;

	open_path(&o, false);
	check_segments(o.thread, main_path_segments,
		       sizeof(main_path_segments) / sizeof(main_path_segments[0]));
	fixture_history_close(&o);
}
END_TEST

START_TEST(a_return_after_a_tail_call_links_to_the_tail_callers_caller)
{
	struct fixture_history o;

	open_path(&o, true);
	check_segments(o.thread, recursion_path_segments,
		       sizeof(recursion_path_segments) /
			       sizeof(recursion_path_segments[0]));
	fixture_history_close(&o);
}
END_TEST

START_TEST(the_segment_after_the_end_is_refused)
{
	struct hwtr_segment s;
	struct fixture_history o;

	open_path(&o, false);
	ck_assert_int_eq(hwtr_thread_segment(o.thread, 13, &s), -hwtr_err_range);
	ck_assert_int_eq(hwtr_thread_segment(o.thread, 0, &s), -hwtr_err_range);
	ck_assert_int_eq(hwtr_thread_segment(o.thread, 12, &s), 0);
	ck_assert_str_eq(s.function, "_start");
	fixture_history_close(&o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("paths");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, the_main_paths_segments_are_btraces);
	tcase_add_test(tc, a_return_after_a_tail_call_links_to_the_tail_callers_caller);
	tcase_add_test(tc, the_segment_after_the_end_is_refused);
	return check_run_tcase("segments", tc);
}
