/* test-recover-ops.c: the table of distinct operations (recover-ops.c),
 * on real instruction bytes decoded by recover-x86.c.  One static
 * instruction executed twice with different facts (the comparison a cmovcc
 * reads, a clobber's pc) must give two entries, each with its own facts:
 * sharing one would give one execution the other's values.  Equal
 * operations share one entry whatever their padding bytes hold.
 */
#include "recover-ops.h"
#include "recover-flags.h"

#include "check-main.h"
#include <stdlib.h>
#include <string.h>

static struct recover_x86 *x86;

static void setup(void)
{
	ck_assert_int_eq(recover_x86_open(&x86), 0);
}

static void teardown(void)
{
	recover_x86_close(x86);
}

static struct recover_op decoded(const uint8_t *code, size_t size)
{
	struct recover_op op;
	uint64_t target;

	recover_x86_decode(x86, 0x401000, code, size, &op, &target);
	return op;
}

/* cmovcc after cmp eax, 5 and after cmp eax, 7: one instruction, two
 * comparisons, two entries. */
START_TEST(per_execution_compare)
{
	static const uint8_t cmp5[] = { 0x83, 0xf8, 0x05 };
	static const uint8_t cmp7[] = { 0x83, 0xf8, 0x07 };
	static const uint8_t cmove[] = { 0x0f, 0x44, 0xca };	/* cmove ecx, edx */
	struct recover_ops t;
	struct recover_op c5 = decoded(cmp5, 3), c7 = decoded(cmp7, 3);
	struct recover_op a = decoded(cmove, 3), b = a;
	uint32_t ia, ib, ic;

	memset(&t, 0, sizeof(t));
	ck_assert(recover_flags_wants(&a));
	ic = recover_ops_intern(&t, &a);
	recover_flags_attach(&a, &c5);
	recover_flags_attach(&b, &c7);
	ia = recover_ops_intern(&t, &a);
	ib = recover_ops_intern(&t, &b);
	ck_assert_uint_ne(ia, ib);
	ck_assert_uint_ne(ia, ic);
	ck_assert_uint_eq(t.op[ia].kind, recover_cmov);
	ck_assert_int_eq(t.op[ia].imm, 5);
	ck_assert_int_eq(t.op[ib].imm, 7);
	ck_assert_uint_eq(t.op[ic].kind, recover_unmodelled);
	/* The same execution facts again: the same entries. */
	ck_assert_uint_eq(recover_ops_intern(&t, &b), ib);
	ck_assert_uint_eq(recover_ops_intern(&t, &a), ia);
	ck_assert_uint_eq(t.n, 3);
	recover_ops_free(&t);
}
END_TEST

/* Clobbers differ only in the pc they lead to (vimm). */
START_TEST(per_execution_clobber)
{
	struct recover_ops t;
	struct recover_op a, b;

	memset(&t, 0, sizeof(t));
	memset(&a, 0, sizeof(a));
	a.kind = recover_clobber;
	a.writes = RECOVER_ALL_REGS;
	a.vimm = 0x401000;
	b = a;
	b.vimm = 0x401005;
	ck_assert_uint_ne(recover_ops_intern(&t, &a), recover_ops_intern(&t, &b));
	ck_assert_int_eq(t.op[1].vimm, 0x401005);
	recover_ops_free(&t);
}
END_TEST

/* Padding does not count; every distinct operation keeps its index when
 * the hash grows. */
START_TEST(equal_and_many)
{
	static const uint8_t add[] = { 0x48, 0x83, 0xc0, 0x01 };	/* add rax, 1 */
	struct recover_ops t;
	struct recover_op a = decoded(add, 4), b;
	uint32_t i, ix[10000];

	memset(&t, 0, sizeof(t));
	memset(&b, 0xa5, sizeof(b));
	b.kind = a.kind; b.alu = a.alu; b.width = a.width; b.dst = a.dst;
	b.src = a.src; b.base = a.base; b.index = a.index; b.scale = a.scale;
	b.writes = a.writes; b.fwrites = a.fwrites; b.cond = a.cond;
	b.target_reg = a.target_reg; b.imm = a.imm; b.mkind = a.mkind;
	b.msize = a.msize; b.mbase = a.mbase; b.mindex = a.mindex;
	b.mscale = a.mscale; b.mseg = a.mseg; b.sets_fs = a.sets_fs;
	b.vkind = a.vkind; b.vreg = a.vreg; b.mdisp = a.mdisp; b.vimm = a.vimm;
	ck_assert_uint_eq(recover_ops_intern(&t, &a), recover_ops_intern(&t, &b));
	for (i = 0; i < 10000; i++) {
		b = a;
		b.imm = i;
		ix[i] = recover_ops_intern(&t, &b);
	}
	for (i = 0; i < 10000; i++) {
		b = a;
		b.imm = i;
		ck_assert_uint_eq(recover_ops_intern(&t, &b), ix[i]);
		ck_assert_int_eq(t.op[ix[i]].imm, i);
	}
	ck_assert_uint_eq(t.n, 10000);	/* (imm 1 is add rax, 1 itself) */
	recover_ops_built(&t);
	ck_assert_int_eq(t.op[ix[42]].imm, 42);
	recover_ops_free(&t);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("distinct operations");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, per_execution_compare);
	tcase_add_test(tc, per_execution_clobber);
	tcase_add_test(tc, equal_and_many);
	return check_run_tcase("recover-ops", tc);
}
