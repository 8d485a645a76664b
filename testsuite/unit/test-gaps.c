/* test-gaps.c: the gaps of a history (gaps.c): where they are, what their
 * messages and kinds say.
 *
 * Oracles: the trace offsets are where libipt's encoder wrote each packet
 * (the trace's length before it, by the Intel SDM's packet sizes); the
 * instruction numbers are the fixture's labels along the path; the decode
 * error's words are libipt's (pt_errstr).
 */
#include "fixture.h"
#include "gaps.h"
#include "segments.h"
#include "check-main.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(an_overflow_is_one_instruction_naming_its_offset)
{
	const struct gap_entry *g;
	struct hwtr_segment s;
	struct fixture_history o;
	struct trace t;
	size_t ovf, fup, resumed;
	char expected[128];

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");	/* 13 instructions: i1 .. the second i7 */
	ovf = trace_size(&t);
	enc_ovf(&t);
	fup = trace_size(&t);
	enc_fup(&t, fixture_symbol("loop"));
	resumed = trace_size(&t);
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	fixture_history_open(&o, &t);
	ck_assert_uint_eq(o.thread->ngaps, 1);
	ck_assert_ptr_null(history_gap_at(o.thread, 13));
	ck_assert_ptr_null(history_gap_at(o.thread, 15));
	g = history_gap_at(o.thread, 14);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->insn, 14);
	/* libipt reports the overflow once the FUP that ends it (2 bytes
	 * after the OVF) is read: at an offset from the OVF to the end of
	 * that FUP (the SDM: OVF 2 bytes, FUP with a full IP 7). */
	ck_assert_uint_eq(fup, ovf + 2);
	ck_assert_uint_eq(resumed, fup + 7);
	ck_assert_uint_ge(g->gap.offset, ovf);
	ck_assert_uint_le(g->gap.offset, resumed);
	snprintf(expected, sizeof(expected),
		 "overflow: the trace source dropped trace (offset %llu)",
		 (unsigned long long)g->gap.offset);
	ck_assert_str_eq(g->gap.message, expected);
	ck_assert_str_eq(g->gap.kind, "overflow");
	ck_assert_int_eq(g->gap.error, 0);
	/* Its own segment, a gap one. */
	ck_assert_uint_eq(history_segment_of(o.thread, 14), g->segment);
	history_segment_view(o.thread, g->segment, &s);
	ck_assert_uint_eq(s.flags & HWTR_SEG_GAP, HWTR_SEG_GAP);
	ck_assert_uint_eq(s.insn_begin, 14);
	ck_assert_uint_eq(s.insn_end, 15);
	ck_assert_ptr_eq(s.gap, &g->gap);
	fixture_history_close(&o);
}
END_TEST

START_TEST(a_kernel_address_says_the_kernels_image_is_missing)
{
	const struct gap_entry *g;
	struct fixture_history o;
	struct trace t;
	char expected[256];

	trace_begin(&t);
	enc_psb(&t, 0xffffffff81000000ull, 100);
	enc_tip_pgd(&t);
	fixture_history_open(&o, &t);
	g = history_gap_at(o.thread, 1);
	ck_assert_ptr_nonnull(g);
	snprintf(expected, sizeof(expected),
		 "%s at 0xffffffff81000000 (offset %llu): a kernel address; "
		 "decoding there needs the traced kernel's image (its "
		 "vmlinux), which the recording does not have",
		 pt_errstr(pt_errcode(-pte_nomap)),
		 (unsigned long long)g->gap.offset);
	ck_assert_str_eq(g->gap.message, expected);
	ck_assert_str_eq(g->gap.kind, pt_errstr(pt_errcode(-pte_nomap)));
	ck_assert_int_eq(g->gap.pt_error, pte_nomap);
	fixture_history_close(&o);
}
END_TEST

/* A trip through the kernel as a signal makes it (FUP at the interrupted
 * i6 + TIP.PGD, TIP.PGE at a function's entry): PATH is _start i1 i2,
 * leaf i3 i4, _start i5, the gap, then "the handler" outer i21, leaf i3
 * i4, outer i24, tail i25, whose return leaves for the kernel.  With
 * PSB_WHILE_OFF tracing comes back with a PSB+ (another session). */
static void signal_trip(struct fixture_history *o, bool psb_while_off)
{
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1");		/* leaf's return, compressed */
	enc_fup(&t, fixture_symbol("i6"));
	enc_tip_pgd(&t);
	if (psb_while_off)
		enc_psb_disabled(&t, 200);
	enc_tip_pge(&t, fixture_symbol("outer"));
	enc_tnt(&t, "1");		/* leaf's return */
	enc_tip_pgd(&t);		/* tail's return */
	fixture_history_open(o, &t);
}

/* The segments' model (GDB's btrace, with a signal handler's caller the
 * frame it interrupted): numbers from the path above by hand. */
START_TEST(a_handler_after_tracing_was_off_is_called_by_the_interrupted_frame)
{
	static const struct {
		const char *function;
		uint64_t begin, up, prev;
		int level;
		uint32_t flags;
	} want[] = {
		{ "_start", 1, 0, 0, 0, 0 },
		{ "leaf", 3, 1, 0, 1, 0 },
		{ "_start", 5, 0, 1, 0, 0 },
		{ NULL, 6, 0, 0, 0, HWTR_SEG_GAP },
		{ "outer", 7, 3, 0, 1, HWTR_SEG_UP_LINKS_TO_SIGNAL },
		{ "leaf", 8, 5, 0, 2, 0 },
		{ "outer", 10, 3, 5, 1, HWTR_SEG_UP_LINKS_TO_SIGNAL },
		{ "tail", 11, 7, 0, 2, HWTR_SEG_UP_LINKS_TO_TAILCALL },
	};
	struct fixture_history o;
	struct hwtr_segment s;
	size_t k;

	signal_trip(&o, false);
	ck_assert_uint_eq(o.thread->nsegments, sizeof(want) / sizeof(want[0]));
	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		history_segment_view(o.thread, k + 1, &s);
		ck_assert_msg(!want[k].function == !s.function &&
			      (!s.function || !strcmp(s.function, want[k].function)),
			      "segment %zu: %s", k + 1, s.function ? s.function : "-");
		ck_assert_uint_eq(s.insn_begin, want[k].begin);
		ck_assert_uint_eq(s.up, want[k].up);
		ck_assert_uint_eq(s.prev, want[k].prev);
		ck_assert_int_eq(s.level, want[k].level);
		ck_assert_uint_eq(s.flags, want[k].flags);
	}
	fixture_history_close(&o);

	/* Tracing back with a PSB+: no caller known, as before. */
	signal_trip(&o, true);
	history_segment_view(o.thread, 5, &s);
	ck_assert_str_eq(s.function, "outer");
	ck_assert_uint_eq(s.up, 0);
	ck_assert_uint_eq(s.flags & HWTR_SEG_UP_LINKS_TO_SIGNAL, 0);
	fixture_history_close(&o);
}
END_TEST

/* hwtr_thread_next_gap against a scan of every position's instruction
 * (the cursor's: a gap or not), both ways from every number, on a trace
 * with two overflows. */
START_TEST(the_next_gap_either_way_is_the_nearest_a_scan_finds)
{
	struct fixture_history o;
	struct hwtr_cursor *c;
	struct hwtr_insn insn;
	struct trace t;
	bool is_gap[64] = { false };
	uint64_t n, k, found, gaps = 0;
	int dir, rc;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	enc_ovf(&t);
	enc_fup(&t, fixture_symbol("loop"));
	enc_tnt(&t, "1011");
	enc_ovf(&t);
	enc_fup(&t, fixture_symbol("loop"));
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	fixture_history_open(&o, &t);
	ck_assert_uint_lt(o.thread->ninsns, 60);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
	for (n = 1; n <= o.thread->ninsns; n++) {
		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		is_gap[n] = insn.gap != NULL;
		gaps += is_gap[n];
	}
	hwtr_cursor_free(c);
	ck_assert_uint_eq(gaps, 2);
	for (n = 0; n <= o.thread->ninsns + 1; n++)
		for (dir = -1; dir <= 1; dir += 2) {
			uint64_t want = 0;

			for (k = n + dir; k >= 1 && k <= o.thread->ninsns; k += dir)
				if (is_gap[k]) {
					want = k;
					break;
				}
			found = 0;
			rc = hwtr_thread_next_gap(o.thread, n, dir, &found);
			ck_assert_int_eq(rc, want != 0);
			if (want)
				ck_assert_msg(found == want, "from %llu way %d: %llu, not %llu",
					      (unsigned long long)n, dir,
					      (unsigned long long)found,
					      (unsigned long long)want);
		}
	ck_assert_int_lt(hwtr_thread_next_gap(o.thread, 1, 0, &found), 0);
	fixture_history_close(&o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("messages");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, an_overflow_is_one_instruction_naming_its_offset);
	tcase_add_test(tc, a_kernel_address_says_the_kernels_image_is_missing);
	tcase_add_test(tc, a_handler_after_tracing_was_off_is_called_by_the_interrupted_frame);
	tcase_add_test(tc, the_next_gap_either_way_is_the_nearest_a_scan_finds);
	return check_run_tcase("gaps", tc);
}
