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

int main(void)
{
	TCase *tc = tcase_create("messages");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, an_overflow_is_one_instruction_naming_its_offset);
	tcase_add_test(tc, a_kernel_address_says_the_kernels_image_is_missing);
	return check_run_tcase("gaps", tc);
}
