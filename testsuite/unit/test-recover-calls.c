/* test-recover-calls.c: the calling convention's contract across a call
 * (recover-calls.c).  Which calls and returns move rsp by one word (the
 * encodings of the Intel SDM's CALL and RET), which moves of rsp are an
 * ordinary frame's and which switch stacks (glibc 2.36's swapcontext and
 * longjmp bytes among them, decoded by recover_x86_decode), and the
 * restore of a variable-length array's saved rsp, the
 * equalities a matching return gives: rsp, rbx, rbp and r12-r15 after it
 * are those before the call, and nothing for a return elsewhere, a call
 * that switched stacks or a callee not taken to keep the ABI.
 */
#include "recover-calls.h"

#include "check-main.h"
#include <string.h>

#define S(x) x, sizeof(x)

START_TEST(plain_calls_and_returns)
{
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t bnd_ret[] = { 0xf2, 0xc3 };
	static const uint8_t rep_ret[] = { 0xf3, 0xc3 };
	static const uint8_t ret_8[] = { 0xc2, 0x08, 0x00 };
	static const uint8_t ret_16bit[] = { 0x66, 0xc3 };
	static const uint8_t call_rel[] = { 0xe8, 0x10, 0x00, 0x00, 0x00 };
	static const uint8_t call_rax[] = { 0xff, 0xd0 };
	static const uint8_t call_r11[] = { 0x41, 0xff, 0xd3 };
	static const uint8_t call_mem[] = { 0xff, 0x15, 0x10, 0x00, 0x00,
					    0x00 };
	static const uint8_t notrack_call[] = { 0x3e, 0xff, 0xd0 };
	static const uint8_t jmp_rax[] = { 0xff, 0xe0 };
	static const uint8_t call_16bit[] = { 0x66, 0xe8, 0x10, 0x00 };

	ck_assert(recover_calls_plain(S(ret)));
	ck_assert(recover_calls_plain(S(bnd_ret)));
	ck_assert(recover_calls_plain(S(rep_ret)));
	ck_assert(recover_calls_plain(S(call_rel)));
	ck_assert(recover_calls_plain(S(call_rax)));
	ck_assert(recover_calls_plain(S(call_r11)));
	ck_assert(recover_calls_plain(S(call_mem)));
	ck_assert(recover_calls_plain(S(notrack_call)));
	/* ret $8 pops 8 more bytes; 16-bit forms move rsp by 2. */
	ck_assert(!recover_calls_plain(S(ret_8)));
	ck_assert(!recover_calls_plain(S(ret_16bit)));
	ck_assert(!recover_calls_plain(S(call_16bit)));
	ck_assert(!recover_calls_plain(S(jmp_rax)));
}
END_TEST

/* Whether the instruction RAW, run inside an open call, ends its
 * contract. */
static bool switches(struct recover_x86 *x86, const uint8_t *raw,
		     size_t size, bool in_resolver)
{
	struct recover_calls calls;
	struct recover_op op;
	uint32_t slot[RECOVER_NREGS] = { 0 };
	uint32_t exit[RECOVER_NREGS] = { 0 };
	struct recover_equality eq[RECOVER_NREGS];
	uint64_t target;
	size_t n;

	memset(&calls, 0, sizeof(calls));
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x1005, true), 0);
	recover_x86_decode(x86, 0x2000, raw, size, &op, &target);
	recover_calls_note(&calls, &op, in_resolver);
	n = recover_calls_leave(&calls, 0x1005, exit, eq);
	ck_assert_uint_eq(calls.n, 0);
	recover_calls_free(&calls);
	return n == 0;
}

START_TEST(stack_switches)
{
	/* An ordinary frame's moves of rsp. */
	static const uint8_t push_rbp[] = { 0x55 };
	static const uint8_t pop_rbx[] = { 0x5b };
	static const uint8_t leave[] = { 0xc9 };
	static const uint8_t mov_rbp_rsp[] = { 0x48, 0x89, 0xec };
	static const uint8_t lea_rbp[] = { 0x48, 0x8d, 0x65, 0xd8 };
	static const uint8_t lea_r10[] = { 0x49, 0x8d, 0x62, 0xf8 };
	static const uint8_t sub_imm[] = { 0x48, 0x83, 0xec, 0x18 };
	static const uint8_t and_imm[] = { 0x48, 0x83, 0xe4, 0xc0 };
	static const uint8_t sub_rax[] = { 0x48, 0x29, 0xc4 };
	static const uint8_t sub_mem[] = { 0x48, 0x2b, 0x25, 0xa1, 0x0a, 0x02,
					   0x00 };
	static const uint8_t mov_rsp_rbx[] = { 0x48, 0x89, 0xe3 };
	/* Stack switches: swapcontext's and setcontext's load of the new
	 * context's rsp, the end of longjmp (its demangled rsp in r8), the
	 * resolver's restore outside the resolver, and the rest. */
	static const uint8_t swapcontext[] = { 0x48, 0x8b, 0xa2, 0xa0, 0x00,
					       0x00, 0x00 };
	static const uint8_t longjmp[] = { 0x4c, 0x89, 0xc4 };
	static const uint8_t mov_rbx_rsp[] = { 0x48, 0x89, 0xdc };
	static const uint8_t xchg_rax[] = { 0x48, 0x94 };
	static const uint8_t pop_rsp[] = { 0x5c };
	static const uint8_t lea_rdi[] = { 0x48, 0x8d, 0x67, 0x08 };
	struct recover_x86 *x86;

	ck_assert_int_eq(recover_x86_open(&x86), 0);
	ck_assert(!switches(x86, S(push_rbp), false));
	ck_assert(!switches(x86, S(pop_rbx), false));
	ck_assert(!switches(x86, S(leave), false));
	ck_assert(!switches(x86, S(mov_rbp_rsp), false));
	ck_assert(!switches(x86, S(lea_rbp), false));
	ck_assert(!switches(x86, S(lea_r10), false));
	ck_assert(!switches(x86, S(sub_imm), false));
	ck_assert(!switches(x86, S(and_imm), false));
	ck_assert(!switches(x86, S(sub_rax), false));
	ck_assert(!switches(x86, S(sub_mem), false));
	ck_assert(!switches(x86, S(mov_rsp_rbx), false));
	ck_assert(!switches(x86, S(mov_rbx_rsp), true));
	ck_assert(switches(x86, S(swapcontext), false));
	ck_assert(switches(x86, S(swapcontext), true));
	ck_assert(switches(x86, S(longjmp), false));
	ck_assert(switches(x86, S(mov_rbx_rsp), false));
	ck_assert(switches(x86, S(xchg_rax), false));
	ck_assert(switches(x86, S(pop_rsp), false));
	ck_assert(switches(x86, S(lea_rdi), false));
	recover_x86_close(x86);
}
END_TEST

/* An instruction's bytes. */
struct insn {
	const uint8_t *raw;
	size_t size;
};

#define INSN(...) { (const uint8_t[]){ __VA_ARGS__ },			\
		    sizeof((const uint8_t[]){ __VA_ARGS__ }) }
#define SEQ(...) sequence_switches(x86, (const struct insn[]){ __VA_ARGS__ }, \
				   sizeof((const struct insn[]){ __VA_ARGS__ }) / \
					   sizeof(struct insn))

/* Whether the instructions SEQ[0..N), run in turn inside an open call,
 * end its contract. */
static bool sequence_switches(struct recover_x86 *x86,
			      const struct insn *seq, size_t n)
{
	struct recover_calls calls;
	struct recover_op op;
	uint32_t slot[RECOVER_NREGS] = { 0 };
	struct recover_equality eq[RECOVER_NREGS];
	uint64_t target;
	size_t i, got;

	memset(&calls, 0, sizeof(calls));
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x1005, true), 0);
	for (i = 0; i < n; i++) {
		recover_x86_decode(x86, 0x2000, seq[i].raw, seq[i].size, &op,
				   &target);
		recover_calls_note(&calls, &op, false);
	}
	got = recover_calls_leave(&calls, 0x1005, slot, eq);
	recover_calls_free(&calls);
	return got == 0;
}

/* A variable-length array's scope, as glibc 2.36's _dl_sort_maps has it:
 * `mov %rsp,-0x58(%rbp)` when it begins, `mov -0x58(%rbp),%rsp` when it
 * ends, calls and stores through pointers between; the load is an
 * ordinary frame's move only when this activation saved rsp in that slot
 * and neither rbp nor the slot changed since. */
#define SAVE_RSP INSN(0x48, 0x89, 0x65, 0xa8)		/* mov %rsp,-0x58(%rbp) */
#define LOAD_RSP INSN(0x48, 0x8b, 0x65, 0xa8)		/* mov -0x58(%rbp),%rsp */
#define LOAD_RSP_OTHER INSN(0x48, 0x8b, 0x65, 0xb0)	/* mov -0x50(%rbp),%rsp */
#define STORE_RAX_SLOT INSN(0x48, 0x89, 0x45, 0xa8)	/* mov %rax,-0x58(%rbp) */
#define STORE_EAX_NEAR INSN(0x89, 0x45, 0xac)		/* mov %eax,-0x54(%rbp) */
#define STORE_RAX_BELOW INSN(0x48, 0x89, 0x45, 0xa0)	/* mov %rax,-0x60(%rbp) */
#define STORE_PTR INSN(0x49, 0x89, 0x04, 0xd0)	/* mov %rax,(%r8,%rdx,8) */
#define SUB_RAX_RSP INSN(0x48, 0x29, 0xc4)		/* sub %rax,%rsp */
#define MOV_RDX_RBP INSN(0x48, 0x89, 0xd5)		/* mov %rdx,%rbp */
#define LOAD_RSP_RBX INSN(0x48, 0x8b, 0x63, 0xa8)	/* mov -0x58(%rbx),%rsp */

START_TEST(saved_rsp)
{
	struct recover_x86 *x86;

	ck_assert_int_eq(recover_x86_open(&x86), 0);
	/* Saved, a VLA allocated and filled through a pointer, restored. */
	ck_assert(!SEQ(SAVE_RSP, SUB_RAX_RSP, STORE_PTR, STORE_RAX_BELOW,
		       LOAD_RSP));
	/* Not saved by this activation, or saved elsewhere. */
	ck_assert(SEQ(LOAD_RSP));
	ck_assert(SEQ(SAVE_RSP, LOAD_RSP_OTHER));
	/* Through another base register. */
	ck_assert(SEQ(SAVE_RSP, LOAD_RSP_RBX));
	/* The slot overwritten, whole or in part, after the save. */
	ck_assert(SEQ(SAVE_RSP, STORE_RAX_SLOT, LOAD_RSP));
	ck_assert(SEQ(SAVE_RSP, STORE_EAX_NEAR, LOAD_RSP));
	/* rbp changed after the save: another slot. */
	ck_assert(SEQ(SAVE_RSP, MOV_RDX_RBP, LOAD_RSP));
	/* Saved again after an overwrite. */
	ck_assert(!SEQ(SAVE_RSP, STORE_RAX_SLOT, SAVE_RSP, LOAD_RSP));
	recover_x86_close(x86);
}
END_TEST

static void slots(uint32_t *slot, uint32_t base)
{
	unsigned r;

	for (r = 0; r < RECOVER_NREGS; r++)
		slot[r] = base + r;
}

START_TEST(contract)
{
	struct recover_calls calls;
	struct recover_equality eq[RECOVER_NREGS];
	uint32_t outer[RECOVER_NREGS], inner[RECOVER_NREGS];
	uint32_t exit[RECOVER_NREGS];
	bool seen[RECOVER_NREGS] = { false };
	size_t n, i;
	unsigned r;

	memset(&calls, 0, sizeof(calls));
	slots(outer, 100);
	outer[1] = UINT32_MAX;	/* rbx: its value before the window */
	slots(inner, 200);
	slots(exit, 300);
	ck_assert_int_eq(recover_calls_enter(&calls, outer, 0x1005, true), 0);
	ck_assert_int_eq(recover_calls_enter(&calls, inner, 0x2005, true), 0);
	/* The inner call returns to its return address. */
	n = recover_calls_leave(&calls, 0x2005, exit, eq);
	ck_assert_uint_eq(n, 7);
	for (i = 0; i < n; i++) {
		r = eq[i].reg;
		ck_assert(!eq[i].constant);
		ck_assert_uint_eq(eq[i].src_reg, r);
		ck_assert_uint_eq(eq[i].slot, exit[r]);
		ck_assert_uint_eq(eq[i].src_slot, inner[r]);
		ck_assert_int_eq(eq[i].offset, 0);
		seen[r] = true;
	}
	/* rbx, rbp, rsp, r12-r15 (enum hwtr_amd64_regno), nothing else. */
	for (r = 0; r < RECOVER_NREGS; r++)
		ck_assert(seen[r] == (r == 1 || r == 6 || r == 7 || r >= 12));
	/* Then the outer one, with its slot before the window. */
	n = recover_calls_leave(&calls, 0x1005, exit, eq);
	ck_assert_uint_eq(n, 7);
	for (i = 0; i < n; i++)
		if (eq[i].reg == 1)
			ck_assert_uint_eq(eq[i].src_slot, UINT32_MAX);
	ck_assert_uint_eq(calls.n, 0);
	recover_calls_free(&calls);
}
END_TEST

START_TEST(no_contract)
{
	struct recover_calls calls;
	struct recover_equality eq[RECOVER_NREGS];
	uint32_t slot[RECOVER_NREGS] = { 0 };

	memset(&calls, 0, sizeof(calls));
	/* A return elsewhere (a landing pad, longjmp's target) forgets
	 * every open call: the outer one's return gives nothing either. */
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x1005, true), 0);
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x2005, true), 0);
	ck_assert_uint_eq(recover_calls_leave(&calls, 0x3000, slot, eq), 0);
	ck_assert_uint_eq(calls.n, 0);
	ck_assert_uint_eq(recover_calls_leave(&calls, 0x1005, slot, eq), 0);
	/* A callee not taken to keep the ABI (no symbol at its entry) is
	 * matched and gives nothing; the call around it still does. */
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x1005, true), 0);
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x2005, false), 0);
	ck_assert_uint_eq(recover_calls_leave(&calls, 0x2005, slot, eq), 0);
	ck_assert_uint_eq(recover_calls_leave(&calls, 0x1005, slot, eq), 7);
	/* A reset (a gap) forgets them. */
	ck_assert_int_eq(recover_calls_enter(&calls, slot, 0x1005, true), 0);
	recover_calls_reset(&calls);
	ck_assert_uint_eq(recover_calls_leave(&calls, 0x1005, slot, eq), 0);
	recover_calls_free(&calls);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("calling convention");

	tcase_add_test(tc, plain_calls_and_returns);
	tcase_add_test(tc, stack_switches);
	tcase_add_test(tc, saved_rsp);
	tcase_add_test(tc, contract);
	tcase_add_test(tc, no_contract);
	return check_run_tcase("recover-calls", tc);
}
