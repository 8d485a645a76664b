/* test-isa.c: instruction lengths and classes per instruction set (isa.c).
 *
 * Oracles: the x86-64 bytes and lengths are objdump -d's for fixture-code
 * (fixture-code.S); T32 lengths follow the Arm ARM's rule (a halfword whose
 * top five bits are 0b11101, 0b11110 or 0b11111 starts a 32-bit
 * instruction); A64 and A32 instructions are 4 bytes.
 */
#include "isa.h"

#include <check.h>
#include <stdlib.h>

static struct isa *isa;

static void open_isa(void)
{
	ck_assert_int_eq(isa_open(&isa), 0);
}

static void close_isa(void)
{
	isa_close(isa);
	isa = NULL;
}

static size_t x86_length(const uint8_t *code, size_t n)
{
	return isa_length(isa, hwtr_isa_x86_64, code, n, 0x401000);
}

static enum hwtr_insn_class x86_class(const uint8_t *code, size_t n)
{
	return isa_classify(isa, hwtr_isa_x86_64, code, n, 0x401000);
}

START_TEST(x86_64_lengths_are_objdumps)
{
	static const uint8_t xor_ecx[] = { 0x31, 0xc9 };
	static const uint8_t call[] = { 0xe8, 0x1c, 0x00, 0x00, 0x00 };
	static const uint8_t cmp[] = { 0x83, 0xf9, 0x03 };
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05, 0x02, 0x00, 0x00, 0x00 };
	static const uint8_t syscall[] = { 0x0f, 0x05 };
	static const uint8_t ret[] = { 0xc3 };

	ck_assert_uint_eq(x86_length(xor_ecx, sizeof(xor_ecx)), 2);
	ck_assert_uint_eq(x86_length(call, sizeof(call)), 5);
	ck_assert_uint_eq(x86_length(cmp, sizeof(cmp)), 3);
	ck_assert_uint_eq(x86_length(lea, sizeof(lea)), 7);
	ck_assert_uint_eq(x86_length(syscall, sizeof(syscall)), 2);
	ck_assert_uint_eq(x86_length(ret, sizeof(ret)), 1);
	/* Cut short: not known. */
	ck_assert_uint_eq(x86_length(call, 2), 0);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_x86_64), 0);
	ck_assert_uint_eq(isa_max_length(hwtr_isa_x86_64), 15);
}
END_TEST

START_TEST(x86_64_classes)
{
	static const uint8_t call[] = { 0xe8, 0x1c, 0x00, 0x00, 0x00 };
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t jne[] = { 0x75, 0xf4 };
	static const uint8_t jmp_rax[] = { 0xff, 0xe0 };
	static const uint8_t jmp_short[] = { 0xeb, 0x00 };
	static const uint8_t inc_ecx[] = { 0xff, 0xc1 };
	static const uint8_t pic_call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00 };

	ck_assert_int_eq(x86_class(call, sizeof(call)), hwtr_ic_call);
	ck_assert_int_eq(x86_class(ret, sizeof(ret)), hwtr_ic_return);
	ck_assert_int_eq(x86_class(jne, sizeof(jne)), hwtr_ic_cond_jump);
	ck_assert_int_eq(x86_class(jmp_rax, sizeof(jmp_rax)), hwtr_ic_jump);
	ck_assert_int_eq(x86_class(jmp_short, sizeof(jmp_short)), hwtr_ic_jump);
	ck_assert_int_eq(x86_class(inc_ecx, sizeof(inc_ecx)), hwtr_ic_other);
	ck_assert(isa_is_pic_call(hwtr_isa_x86_64, pic_call, sizeof(pic_call)));
	ck_assert(!isa_is_pic_call(hwtr_isa_x86_64, ret, sizeof(ret)));
	ck_assert(!isa_is_pic_call(hwtr_isa_a64, pic_call, sizeof(pic_call)));
}
END_TEST

START_TEST(arm_lengths)
{
	/* nop (0xbf00), then bl (0xf000 0xf800), little-endian halfwords. */
	static const uint8_t t32_nop[] = { 0x00, 0xbf };
	static const uint8_t t32_bl[] = { 0x00, 0xf0, 0x00, 0xf8 };
	static const uint8_t t32_ldrd[] = { 0xd0, 0xe9, 0x00, 0x01 };	/* 0xe9d0: 0b11101 */
	static const uint8_t a64_nop[] = { 0x1f, 0x20, 0x03, 0xd5 };

	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_nop, 2, 0), 2);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_bl, 4, 0), 4);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_ldrd, 4, 0), 4);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_bl, 2, 0), 0);	/* cut */
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_a64, a64_nop, 4, 0), 4);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_a64, a64_nop, 3, 0), 0);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_a64), 4);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_a32), 4);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_t32), 0);
	ck_assert_uint_eq(isa_max_length(hwtr_isa_a64), 4);
	ck_assert_uint_eq(isa_max_length(hwtr_isa_t32), 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isa");
	TCase *tc = tcase_create("lengths and classes");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, open_isa, close_isa);
	tcase_add_test(tc, x86_64_lengths_are_objdumps);
	tcase_add_test(tc, x86_64_classes);
	tcase_add_test(tc, arm_lengths);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
