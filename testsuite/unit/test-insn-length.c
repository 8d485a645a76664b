/* test-insn-length.c: a decoded block split into instructions
 * (insn-length.c), on blocks of fixture-code.S given by hand.
 *
 * Oracles: the assembler's labels for addresses and objdump -d fixture-code
 * for lengths and classes: i5 "inc %ecx" (ff c1, 2 bytes), i6 "cmp $3,%ecx"
 * (83 f9 03, 3), i7 "jne loop" (75 f4, 2), i2 "call leaf" (e8 ..., 5).
 * The history only provides the image to read the code from.
 */
#include "chunk-cache.h"
#include "decoder.h"
#include "fixture.h"
#include "insn-length.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct decoder_block block(struct hwtr_thread *t, const char *first,
				  const char *last, uint32_t ninsn, uint8_t iclass)
{
	struct decoder_block b;
	unsigned epoch;

	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(history_insn_epoch(t, 1, &epoch), 0);
	b.ip = fixture_symbol(first);
	b.end_ip = fixture_symbol(last);
	b.ninsn = ninsn;
	b.epoch = epoch;
	b.iclass = iclass;
	b.isa = hwtr_isa_x86_64;
	return b;
}

START_TEST(a_block_splits_into_objdumps_instructions)
{
	struct decoded_insn out[3];
	struct decoder_block b;
	struct fixture_history o;

	fixture_history_main_path(&o);
	b = block(o.thread, "i5", "i7", 3, hwtr_ic_cond_jump);
	ck_assert_msg(insn_expand_block(o.history, &b, out, 3) == 0, "%s",
		      hwtr_last_error());
	ck_assert_uint_eq(out[0].ip, fixture_symbol("i5"));
	ck_assert_uint_eq(out[0].size, 2);
	ck_assert_uint_eq(out[0].iclass, hwtr_ic_other);
	ck_assert_uint_eq(out[1].ip, fixture_symbol("i6"));
	ck_assert_uint_eq(out[1].size, 3);
	ck_assert_uint_eq(out[2].ip, fixture_symbol("i7"));
	ck_assert_uint_eq(out[2].size, 2);
	ck_assert_uint_eq(out[2].iclass, hwtr_ic_cond_jump);
	/* Again, with the lengths now in the cache. */
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(insn_expand_block(o.history, &b, out, 3), 0);
	ck_assert_uint_eq(out[1].ip, fixture_symbol("i6"));
	ck_assert_uint_eq(out[1].size, 3);
	fixture_history_close(&o);
}
END_TEST

START_TEST(an_unclassified_last_instruction_is_classed_by_its_bytes)
{
	struct decoded_insn out[1];
	struct decoder_block b;
	struct fixture_history o;

	fixture_history_main_path(&o);
	b = block(o.thread, "i2", "i2", 1, DECODER_UNCLASSIFIED);
	ck_assert_int_eq(insn_last_class(o.history, &b), hwtr_ic_call);
	ck_assert_int_eq(insn_expand_block(o.history, &b, out, 1), 0);
	ck_assert_uint_eq(out[0].iclass, hwtr_ic_call);
	ck_assert_uint_eq(out[0].size, 5);
	b = block(o.thread, "i4", "i4", 1, DECODER_UNCLASSIFIED);	/* ret */
	ck_assert_int_eq(insn_last_class(o.history, &b), hwtr_ic_return);
	fixture_history_close(&o);
}
END_TEST

START_TEST(a_block_that_does_not_end_where_it_says_is_refused)
{
	struct decoded_insn out[3];
	struct decoder_block b;
	struct fixture_history o;
	char expected[128];

	fixture_history_main_path(&o);
	/* Two instructions from i5 end at i6, not i7. */
	b = block(o.thread, "i5", "i7", 2, hwtr_ic_cond_jump);
	ck_assert_int_eq(insn_expand_block(o.history, &b, out, 3), -hwtr_err_decode);
	snprintf(expected, sizeof(expected),
		 "block 0x%llx..0x%llx re-decoded to end at 0x%llx",
		 (unsigned long long)fixture_symbol("i5"),
		 (unsigned long long)fixture_symbol("i7"),
		 (unsigned long long)fixture_symbol("i6"));
	ck_assert_str_eq(hwtr_last_error(), expected);
	/* More instructions than room. */
	b = block(o.thread, "i5", "i7", 3, hwtr_ic_cond_jump);
	ck_assert_int_eq(insn_expand_block(o.history, &b, out, 2), -hwtr_err_decode);
	fixture_history_close(&o);
}
END_TEST

START_TEST(an_unknown_length_is_the_distance_to_the_next_block)
{
	struct decoded_insn last;
	struct decoder_block next;

	memset(&last, 0, sizeof(last));
	last.ip = 0x401000;
	last.iclass = hwtr_ic_unknown;
	last.isa = hwtr_isa_x86_64;
	memset(&next, 0, sizeof(next));
	next.ip = 0x401002;
	insn_follow_unknown_length(&last, &next);
	ck_assert_uint_eq(last.size, 2);
	ck_assert_uint_eq(last.iclass, hwtr_ic_other);
	/* 16 bytes on is past x86-64's longest instruction (15): a branch. */
	memset(&last, 0, sizeof(last));
	last.ip = 0x401000;
	last.iclass = hwtr_ic_unknown;
	last.isa = hwtr_isa_x86_64;
	next.ip = 0x401010;
	insn_follow_unknown_length(&last, &next);
	ck_assert_uint_eq(last.size, 0);
	ck_assert_uint_eq(last.iclass, hwtr_ic_unknown);
	next.ip = 0x40100f;
	insn_follow_unknown_length(&last, &next);
	ck_assert_uint_eq(last.size, 15);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("blocks");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, a_block_splits_into_objdumps_instructions);
	tcase_add_test(tc, an_unclassified_last_instruction_is_classed_by_its_bytes);
	tcase_add_test(tc, a_block_that_does_not_end_where_it_says_is_refused);
	tcase_add_test(tc, an_unknown_length_is_the_distance_to_the_next_block);
	return check_run_tcase("insn-length", tc);
}
