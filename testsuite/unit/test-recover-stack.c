/* test-recover-stack.c: the registers that come back through stack slots
 * (recover-stack.c), on real instruction bytes decoded by recover-x86.c.
 * The oracle is the ISA: push then pop at the same rsp reads back what was
 * pushed; a store that may hit the slot in between breaks that, and so
 * must stop the equality (a store to an absolute address, through another
 * register, a system call).
 */
#include "recover-stack.h"

#include "check-main.h"
#include <stdlib.h>
#include <string.h>

#define NO_SLOT UINT32_MAX

struct insn {
	uint8_t code[15];
	size_t size;
};

#define PUSH_RBP { { 0x55 }, 1 }
#define MOV_RBP_RSP { { 0x48, 0x89, 0xe5 }, 3 }
#define SUB_RSP_0X20 { { 0x48, 0x83, 0xec, 0x20 }, 4 }
#define SPILL_EDI { { 0x89, 0x7d, 0xec }, 3 }		/* mov [rbp-0x14], edi */
#define LEAVE { { 0xc9 }, 1 }
#define RET { { 0xc3 }, 1 }
#define CALL_NEXT { { 0xe8, 0, 0, 0, 0 }, 5 }
#define PUSH_RBX { { 0x53 }, 1 }
#define POP_RBX { { 0x5b }, 1 }
#define STORE_GLOBAL { { 0x89, 0x05, 0x10, 0, 0, 0 }, 6 }	/* mov [rip+0x10], eax */
#define STORE_RAX { { 0x48, 0x89, 0x08 }, 3 }		/* mov [rax], rcx */
#define SYSCALL { { 0x0f, 0x05 }, 2 }
#define TEST_MEM { { 0xf7, 0x07, 0x00, 0x10, 0x00, 0x00 }, 6 } /* test dword [rdi], 0x1000 */
#define STORE_FS { { 0x64, 0x48, 0x89, 0x0c, 0x25, 0x10, 0, 0, 0 }, 9 } /* mov fs:[0x10], rcx */
#define STORE_RSP_8 { { 0x48, 0x89, 0x4c, 0x24, 0x08 }, 5 }	/* mov [rsp+8], rcx */
#define LOAD_RSP_8 { { 0x48, 0x8b, 0x54, 0x24, 0x08 }, 5 }	/* mov rdx, [rsp+8] */

static struct recover_x86 *x86;

static void setup(void)
{
	ck_assert_int_eq(recover_x86_open(&x86), 0);
}

static void teardown(void)
{
	recover_x86_close(x86);
}

/* The equalities of the instructions INSNS (N). */
static size_t equalities(const struct insn *insns, size_t n,
			 struct recover_equality **eq)
{
	struct recover_op *ops = calloc(n, sizeof(*ops));
	uint64_t target, ip = 0x401000;
	size_t i, count = 0;

	ck_assert_ptr_nonnull(ops);
	for (i = 0; i < n; i++) {
		recover_x86_decode(x86, ip, insns[i].code, insns[i].size,
				   &ops[i], &target);
		ip += insns[i].size;
	}
	ck_assert_int_eq(recover_stack_equalities(ops, n, eq, &count), 0);
	free(ops);
	return count;
}

/* -O0's frame: leave gives back the rbp push saved (the caller's, before
 * the window here: no slot). */
START_TEST(leave_restores_the_pushed_rbp)
{
	static const struct insn code[] = {
		PUSH_RBP, MOV_RBP_RSP, SUB_RSP_0X20, SPILL_EDI, LEAVE,
	};
	struct recover_equality *eq;

	ck_assert_uint_eq(equalities(code, 5, &eq), 1);
	ck_assert_uint_eq(eq[0].reg, 6);
	ck_assert_uint_eq(eq[0].slot, 1);	/* mov rbp, rsp is slot 0 */
	ck_assert_uint_eq(eq[0].src_reg, 6);
	ck_assert_uint_eq(eq[0].src_slot, NO_SLOT);
	ck_assert(!eq[0].constant);
	free(eq);
}
END_TEST

/* A call in between pushes its return address below the slot, and the
 * callee's frame lies below too: pop rbx still reads what push rbx saved;
 * ret reads the return address, a constant. */
START_TEST(calls_in_between_keep_the_slot)
{
	static const struct insn code[] = {
		PUSH_RBX, CALL_NEXT, PUSH_RBP, MOV_RBP_RSP, SPILL_EDI, LEAVE,
		RET, POP_RBX,
	};
	struct recover_equality *eq;
	size_t n = equalities(code, 8, &eq), i;
	bool rbx = false, rbp = false;

	for (i = 0; i < n; i++) {
		if (eq[i].reg == 1 && eq[i].slot == 0 && eq[i].src_reg == 1 &&
		    eq[i].src_slot == NO_SLOT)
			rbx = true;
		if (eq[i].reg == 6 && eq[i].slot == 1 &&
		    eq[i].src_slot == NO_SLOT)
			rbp = true;
	}
	ck_assert(rbx && rbp);
	ck_assert_uint_eq(n, 2);
	free(eq);
}
END_TEST

/* mov [rsp+8], rcx ... mov rdx, [rsp+8]: rdx is rcx's slot. */
START_TEST(spill_and_reload)
{
	static const struct insn code[] = { STORE_RSP_8, LOAD_RSP_8 };
	struct recover_equality *eq;

	ck_assert_uint_eq(equalities(code, 2, &eq), 1);
	ck_assert_uint_eq(eq[0].reg, 3);
	ck_assert_uint_eq(eq[0].slot, 0);
	ck_assert_uint_eq(eq[0].src_reg, 2);
	ck_assert_uint_eq(eq[0].src_slot, NO_SLOT);
	free(eq);
}
END_TEST

/* A comparison with memory through another register reads it: the slot
 * survives (Capstone 4 calls test's memory operand written). */
START_TEST(comparisons_with_memory_keep_the_slot)
{
	static const struct insn code[] = {
		PUSH_RBP, MOV_RBP_RSP, TEST_MEM, LEAVE,
	};
	struct recover_equality *eq;

	ck_assert_uint_eq(equalities(code, 4, &eq), 1);
	ck_assert_uint_eq(eq[0].reg, 6);
	ck_assert_uint_eq(eq[0].src_reg, 6);
	ck_assert_uint_eq(eq[0].src_slot, NO_SLOT);
	free(eq);
}
END_TEST

/* A store that may write the slot: an absolute address (the stack could
 * be anywhere), through another register, through fs, or a system
 * call. */
START_TEST(possible_aliases_stop_it)
{
	static const struct insn global[] = {
		PUSH_RBP, MOV_RBP_RSP, STORE_GLOBAL, LEAVE,
	}, pointer[] = {
		PUSH_RBP, MOV_RBP_RSP, STORE_RAX, LEAVE,
	}, sys[] = {
		PUSH_RBP, MOV_RBP_RSP, SYSCALL, LEAVE,
	}, moved[] = {
		PUSH_RBP, MOV_RBP_RSP, SUB_RSP_0X20, POP_RBX,
	}, tls[] = {
		PUSH_RBP, MOV_RBP_RSP, STORE_FS, LEAVE,
	};
	struct recover_equality *eq;

	ck_assert_uint_eq(equalities(global, 4, &eq), 0);
	free(eq);
	ck_assert_uint_eq(equalities(pointer, 4, &eq), 0);
	free(eq);
	ck_assert_uint_eq(equalities(sys, 4, &eq), 0);
	free(eq);
	/* fs: the TLS block, which may be on this stack (a thread's). */
	ck_assert_uint_eq(equalities(tls, 4, &eq), 0);
	free(eq);
	/* pop at another offset than the push: nothing. */
	ck_assert_uint_eq(equalities(moved, 4, &eq), 0);
	free(eq);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("stack slots");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, leave_restores_the_pushed_rbp);
	tcase_add_test(tc, calls_in_between_keep_the_slot);
	tcase_add_test(tc, spill_and_reload);
	tcase_add_test(tc, possible_aliases_stop_it);
	tcase_add_test(tc, comparisons_with_memory_keep_the_slot);
	return check_run_tcase("recover-stack", tc);
}
