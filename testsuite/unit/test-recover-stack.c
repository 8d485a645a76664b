/* test-recover-stack.c: the registers that come back through stack slots
 * (recover-stack.c), on real instruction bytes decoded by recover-x86.c.
 * The oracle is the ISA: push then pop at the same rsp reads back what was
 * pushed; a store that may hit the slot in between breaks that, and so
 * must stop the equality (a store to an absolute address, through another
 * register, a system call).  And mov rbp, rsp then sub rsp, imm leave rsp
 * rbp - imm, whatever the calls in between do (they give rsp back): leave
 * loses rsp, but rbp gives it; a sub of a register (a variable-length
 * array) gives nothing.
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
#define SUB_RSP_RDX { { 0x48, 0x29, 0xd4 }, 3 }		/* sub rsp, rdx */
#define STORE_RAX_RCX { { 0x48, 0x89, 0x08 }, 3 }	/* mov [rax], rcx */

static struct recover_x86 *x86;

static void setup(void)
{
	ck_assert_int_eq(recover_x86_open(&x86), 0);
}

static void teardown(void)
{
	recover_x86_close(x86);
}

/* The equalities of the instructions INSNS (N): through stack slots
 * (FRAME false), or between rsp and rbp before an operation (true). */
static size_t some_equalities(const struct insn *insns, size_t n,
			      struct recover_equality **eq, bool frame)
{
	struct recover_op *ops = calloc(n, sizeof(*ops));
	uint64_t target, ip = 0x401000;
	size_t i, count = 0, kept = 0;

	ck_assert_ptr_nonnull(ops);
	for (i = 0; i < n; i++) {
		recover_x86_decode(x86, ip, insns[i].code, insns[i].size,
				   &ops[i], &target);
		ip += insns[i].size;
	}
	*eq = NULL;
	ck_assert_int_eq(recover_stack_equalities(ops, NULL, n, eq, &count), 0);
	for (i = 0; i < count; i++)
		if (((*eq)[i].at != UINT32_MAX) == frame)
			(*eq)[kept++] = (*eq)[i];
	free(ops);
	return kept;
}

static size_t equalities(const struct insn *insns, size_t n,
			 struct recover_equality **eq)
{
	return some_equalities(insns, n, eq, false);
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

/* -O0's frame and a callee's: before each leave, rsp is a constant away
 * from rbp.  When the callee stores through a pointer, which ends every
 * stack slot, the rbp its leave reloads is not proven the caller's, and
 * the caller's leave gets nothing. */
START_TEST(frame_rsp_from_rbp)
{
	static const struct insn code[] = {
		PUSH_RBP, MOV_RBP_RSP, SUB_RSP_0X20, CALL_NEXT, PUSH_RBP,
		MOV_RBP_RSP, SPILL_EDI, LEAVE, RET, LEAVE,
	}, pointer[] = {
		PUSH_RBP, MOV_RBP_RSP, SUB_RSP_0X20, CALL_NEXT, PUSH_RBP,
		MOV_RBP_RSP, STORE_RAX_RCX, LEAVE, RET, LEAVE,
	}, vla[] = {
		PUSH_RBP, MOV_RBP_RSP, SUB_RSP_RDX, LEAVE,
	};
	struct recover_equality *eq;
	size_t n = some_equalities(code, 10, &eq, true), i;
	bool outer = false, inner = false;

	/* rsp: push 0, sub 1, call 2, push 3, leave 4, ret 5; rbp: mov 0,
	 * mov 1, leave 2. */
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(eq[i].reg, 7);
		ck_assert_uint_eq(eq[i].src_reg, 6);
		ck_assert(!eq[i].constant);
		if (eq[i].at == 7) {	/* the callee's: rsp is rbp */
			ck_assert_uint_eq(eq[i].slot, 3);
			ck_assert_uint_eq(eq[i].src_slot, 1);
			ck_assert_int_eq(eq[i].offset, 0);
			inner = true;
		}
		if (eq[i].at == 9) {	/* the caller's: rbp - 0x20 */
			ck_assert_uint_eq(eq[i].slot, 5);
			ck_assert_uint_eq(eq[i].src_slot, 2);
			ck_assert_int_eq(eq[i].offset, -0x20);
			outer = true;
		}
	}
	ck_assert(inner && outer);
	free(eq);
	n = some_equalities(pointer, 10, &eq, true);
	for (i = 0; i < n; i++)
		ck_assert_uint_ne(eq[i].at, 9);
	free(eq);
	/* (before the sub, rsp is rbp; before the leave, nothing) */
	n = some_equalities(vla, 4, &eq, true);
	for (i = 0; i < n; i++)
		ck_assert_uint_ne(eq[i].at, 3);
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
	tcase_add_test(tc, frame_rsp_from_rbp);
	return check_run_tcase("recover-stack", tc);
}
