/* test-recover-branch.c: the register values a branch's outcome proves
 * (recover-branch.c), on real instruction bytes decoded by recover-x86.c.
 * The oracle is the ISA: je after cmp r, imm is taken exactly when r ==
 * imm; test r, r and cmp r, 0 clear the carry, so jbe/ja decide on zero
 * alone; jmp *r and call *r go to r; 32-bit writes zero-extend.  And what
 * proves nothing exact (an inequality, a 32-bit comparison of a register
 * whose upper half may be set, test r, s) must give nothing.
 */
#include "recover-branch.h"

#include "check-main.h"
#include <string.h>

struct insn {
	uint8_t code[15];
	size_t size;
};

#define CMP_RAX_5 { { 0x48, 0x83, 0xf8, 0x05 }, 4 }
#define CMP_RAX_MINUS1 { { 0x48, 0x83, 0xf8, 0xff }, 4 }
#define CMP_RAX_0 { { 0x48, 0x83, 0xf8, 0x00 }, 4 }
#define CMP_RAX_BIG { { 0x48, 0x3d, 0x78, 0x56, 0x34, 0x12 }, 6 }	/* cmp rax, 0x12345678 */
#define CMP_EAX_7 { { 0x83, 0xf8, 0x07 }, 3 }
#define CMP_EAX_MINUS1 { { 0x83, 0xf8, 0xff }, 3 }
#define CMP_RAX_RBX { { 0x48, 0x39, 0xd8 }, 3 }	/* cmp rax, rbx */
#define TEST_RDI_RDI { { 0x48, 0x85, 0xff }, 3 }
#define TEST_RAX_RBX { { 0x48, 0x85, 0xd8 }, 3 }
#define CMP_AL_5 { { 0x3c, 0x05 }, 2 }
#define JE { { 0x74, 0x10 }, 2 }
#define JNE { { 0x75, 0x10 }, 2 }
#define JBE { { 0x76, 0x10 }, 2 }
#define JA { { 0x77, 0x10 }, 2 }
#define JL { { 0x7c, 0x10 }, 2 }
#define JMP_R11 { { 0x41, 0xff, 0xe3 }, 3 }
#define CALL_RAX { { 0xff, 0xd0 }, 2 }
#define JMP_MEM { { 0xff, 0x25, 0, 0, 0, 0 }, 6 }	/* jmp [rip] */
#define MOV_EAX_EDX { { 0x89, 0xd0 }, 2 }
#define MOV_RAX_RDX { { 0x48, 0x89, 0xd0 }, 3 }

static struct recover_x86 *x86;

static void setup(void)
{
	ck_assert_int_eq(recover_x86_open(&x86), 0);
}

static void teardown(void)
{
	recover_x86_close(x86);
}

static void decode(const struct insn *i, struct recover_op *op)
{
	uint64_t target;

	recover_x86_decode(x86, 0x401000, i->code, i->size, op, &target);
}

/* The fact of BRANCH after COMPARE (NULL: none), TAKEN or not, with
 * UPPER_ZERO: 1 when there is one, in *F. */
static size_t fact(const struct insn *compare, const struct insn *branch,
		   bool taken, uint16_t upper_zero,
		   struct recover_branch_fact *f)
{
	struct recover_op prev, op;

	if (compare)
		decode(compare, &prev);
	decode(branch, &op);
	return recover_branch_facts(compare ? &prev : NULL, &op, taken,
				    0x402000, upper_zero, f);
}

static void assert_constant(const struct insn *compare,
			    const struct insn *branch, bool taken,
			    uint16_t upper_zero, unsigned reg, uint64_t value)
{
	struct recover_branch_fact f;

	ck_assert_uint_eq(fact(compare, branch, taken, upper_zero, &f), 1);
	ck_assert_uint_eq(f.reg, reg);
	ck_assert_uint_eq(f.reg2, RECOVER_NOREG);
	ck_assert_uint_eq(f.value, value);
}

static void assert_nothing(const struct insn *compare,
			   const struct insn *branch, bool taken,
			   uint16_t upper_zero)
{
	struct recover_branch_fact f;

	ck_assert_uint_eq(fact(compare, branch, taken, upper_zero, &f), 0);
}

START_TEST(equal_outcomes_give_the_compared_value)
{
	static const struct insn cmp5 = CMP_RAX_5, m1 = CMP_RAX_MINUS1,
		big = CMP_RAX_BIG, je = JE, jne = JNE;

	assert_constant(&cmp5, &je, true, 0, 0, 5);
	assert_constant(&cmp5, &jne, false, 0, 0, 5);
	/* imm8 and imm32 are sign-extended to 64 bits. */
	assert_constant(&m1, &je, true, 0, 0, UINT64_MAX);
	assert_constant(&big, &je, true, 0, 0, 0x12345678);
	assert_nothing(&cmp5, &je, false, 0);
	assert_nothing(&cmp5, &jne, true, 0);
}
END_TEST

START_TEST(zero_through_test_and_unsigned_conditions)
{
	static const struct insn test = TEST_RDI_RDI, cmp0 = CMP_RAX_0,
		cmp5 = CMP_RAX_5, testrb = TEST_RAX_RBX, je = JE, jbe = JBE,
		ja = JA, jl = JL;

	assert_constant(&test, &je, true, 0, 5, 0);
	assert_constant(&test, &jbe, true, 0, 5, 0);
	assert_constant(&test, &ja, false, 0, 5, 0);
	assert_constant(&cmp0, &jbe, true, 0, 0, 0);
	assert_constant(&cmp0, &ja, false, 0, 0, 0);
	/* rax <= 5 unsigned, rax < 0 signed, rax & rbx == 0: no value. */
	assert_nothing(&cmp5, &jbe, true, 0);
	assert_nothing(&cmp5, &ja, false, 0);
	assert_nothing(&test, &jl, true, 0);
	assert_nothing(&testrb, &je, true, 0);
	assert_nothing(&test, &ja, true, 0);
}
END_TEST

START_TEST(register_equality)
{
	static const struct insn cmp = CMP_RAX_RBX, je = JE;
	struct recover_branch_fact f;

	ck_assert_uint_eq(fact(&cmp, &je, true, 0, &f), 1);
	ck_assert_uint_eq(f.reg, 0);
	ck_assert_uint_eq(f.reg2, 1);
	assert_nothing(&cmp, &je, false, 0);
}
END_TEST

/* cmp eax, 7 speaks of the low half: the whole rax only when the upper
 * half is known to be zero; mov eax, edx zero-extends, mov rax, rdx does
 * not tell. */
START_TEST(thirty_two_bits_need_a_zero_upper_half)
{
	static const struct insn cmp7 = CMP_EAX_7, m1 = CMP_EAX_MINUS1,
		cmpal = CMP_AL_5, je = JE, mov32 = MOV_EAX_EDX,
		mov64 = MOV_RAX_RDX;
	struct recover_op op;

	assert_nothing(&cmp7, &je, true, 0);
	assert_constant(&cmp7, &je, true, 1, 0, 7);
	assert_constant(&m1, &je, true, 1, 0, 0xffffffffu);
	assert_nothing(&cmpal, &je, true, 0xffff);
	decode(&mov32, &op);
	ck_assert(recover_branch_zero_extends(&op, 0));
	ck_assert(!recover_branch_zero_extends(&op, 2));
	decode(&mov64, &op);
	ck_assert(!recover_branch_zero_extends(&op, 0));
}
END_TEST

START_TEST(indirect_targets)
{
	static const struct insn jmp = JMP_R11, call = CALL_RAX,
		jmpm = JMP_MEM, je = JE, cmp5 = CMP_RAX_5;

	assert_constant(NULL, &jmp, true, 0, 11, 0x402000);
	assert_constant(&cmp5, &call, true, 0, 0, 0x402000);
	assert_nothing(NULL, &jmpm, true, 0);
	/* A conditional jump with no comparison just before it. */
	assert_nothing(NULL, &je, true, 0);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("branch outcomes");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, equal_outcomes_give_the_compared_value);
	tcase_add_test(tc, zero_through_test_and_unsigned_conditions);
	tcase_add_test(tc, register_equality);
	tcase_add_test(tc, thirty_two_bits_need_a_zero_upper_half);
	tcase_add_test(tc, indirect_targets);
	return check_run_tcase("recover-branch", tc);
}
