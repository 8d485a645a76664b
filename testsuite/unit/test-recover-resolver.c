/* test-recover-resolver.c: how glibc's lazy-binding resolver is recognised
 * and what its round trip is taken to keep (recover-resolver.c).  The
 * bytes are those of glibc 2.36's _dl_runtime_resolve_xsavec exit and of
 * binutils' PLT0 (with and without the bnd prefix of -z bndplt / IBT
 * PLTs); every near miss (another stack adjustment, another register, a
 * PLT0 whose two GOT words are not adjacent) must not be taken for it,
 * and the contract must tie rsp to the entry's + 16 and every register but
 * r10 and r11 to the entry's.
 */
#include "recover-resolver.h"

#include "check-main.h"
#include <string.h>

/* glibc 2.36, sysdeps/x86_64/dl-trampoline.h, as built by Debian 12. */
static const uint8_t mov_rbx_rsp[] = { 0x48, 0x89, 0xdc };
static const uint8_t mov_rbx_rsp_8b[] = { 0x48, 0x8b, 0xe3 };
static const uint8_t load_rbx[] = { 0x48, 0x8b, 0x1c, 0x24 };
static const uint8_t add_rsp_24[] = { 0x48, 0x83, 0xc4, 0x18 };
static const uint8_t add_rsp_16[] = { 0x48, 0x83, 0xc4, 0x10 };
static const uint8_t jmp_r11[] = { 0x41, 0xff, 0xe3 };
static const uint8_t bnd_jmp_r11[] = { 0xf2, 0x41, 0xff, 0xe3 };
static const uint8_t jmp_rax[] = { 0xff, 0xe0 };
static const uint8_t load_rbp[] = { 0x48, 0x8b, 0x2c, 0x24 };

static bool exit_shape(const uint8_t *a, size_t na, const uint8_t *b,
		       size_t nb, const uint8_t *c, size_t nc,
		       const uint8_t *d, size_t nd)
{
	const uint8_t *code[4] = { a, b, c, d };
	size_t size[4] = { na, nb, nc, nd };

	return recover_resolver_exit(code, size);
}

#define S(x) x, sizeof(x)

START_TEST(exit_sequence)
{
	ck_assert(exit_shape(S(mov_rbx_rsp), S(load_rbx), S(add_rsp_24),
			     S(jmp_r11)));
	ck_assert(exit_shape(S(mov_rbx_rsp_8b), S(load_rbx), S(add_rsp_24),
			     S(bnd_jmp_r11)));
	/* Another adjustment, register or target: not the resolver's. */
	ck_assert(!exit_shape(S(mov_rbx_rsp), S(load_rbx), S(add_rsp_16),
			      S(jmp_r11)));
	ck_assert(!exit_shape(S(mov_rbx_rsp), S(load_rbp), S(add_rsp_24),
			      S(jmp_r11)));
	ck_assert(!exit_shape(S(mov_rbx_rsp), S(load_rbx), S(add_rsp_24),
			      S(jmp_rax)));
	ck_assert(!exit_shape(S(load_rbx), S(mov_rbx_rsp), S(add_rsp_24),
			      S(jmp_r11)));
}
END_TEST

/* PLT0 at 0x1020: push GOT+8(%rip); jmp *GOT+16(%rip), GOT at 0x4000. */
START_TEST(plt0)
{
	/* 0x1026 + 0x2fe2 = 0x4008; 0x102c + 0x2fe4 = 0x4010 */
	static const uint8_t push[] = { 0xff, 0x35, 0xe2, 0x2f, 0x00, 0x00 };
	static const uint8_t jmp[] = { 0xff, 0x25, 0xe4, 0x2f, 0x00, 0x00 };
	/* bnd jmp: 0x102d + 0x2fe3 = 0x4010 */
	static const uint8_t bnd[] = { 0xf2, 0xff, 0x25, 0xe3, 0x2f, 0x00,
				       0x00 };
	/* jmp *GOT+24: not the word after GOT[1] */
	static const uint8_t far[] = { 0xff, 0x25, 0xec, 0x2f, 0x00, 0x00 };
	/* push $imm32, a PLT entry's, is not PLT0's push */
	static const uint8_t push_imm[] = { 0x68, 0x00, 0x00, 0x00, 0x00 };

	ck_assert(recover_resolver_plt0(0x1020, S(push), 0x1026, S(jmp)));
	ck_assert(recover_resolver_plt0(0x1020, S(push), 0x1026, S(bnd)));
	ck_assert(!recover_resolver_plt0(0x1020, S(push), 0x1026, S(far)));
	ck_assert(!recover_resolver_plt0(0x1020, S(push), 0x1030, S(jmp)));
	ck_assert(!recover_resolver_plt0(0x1021, S(push_imm), 0x1026,
					 S(jmp)));
}
END_TEST

START_TEST(names)
{
	ck_assert(recover_resolver_name("_dl_runtime_resolve_xsavec"));
	ck_assert(recover_resolver_name("_dl_runtime_resolve_xsave"));
	ck_assert(recover_resolver_name("_dl_runtime_resolve_fxsave"));
	/* LD_AUDIT's trampoline returns through its own frame. */
	ck_assert(!recover_resolver_name("_dl_runtime_profile_avx"));
	ck_assert(!recover_resolver_name(NULL));
}
END_TEST

/* The equalities: each register at the exit against the entry's. */
START_TEST(contract)
{
	struct recover_equality eq[RECOVER_NREGS];
	uint32_t entry[RECOVER_NREGS], exit[RECOVER_NREGS];
	bool seen[RECOVER_NREGS] = { false };
	size_t n, i;
	unsigned r;

	for (r = 0; r < RECOVER_NREGS; r++) {
		entry[r] = 100 + r;
		exit[r] = 200 + r;
	}
	entry[3] = UINT32_MAX;	/* rdx: its value before the window */
	n = recover_resolver_facts(entry, exit, eq);
	ck_assert_uint_eq(n, 14);
	for (i = 0; i < n; i++) {
		r = eq[i].reg;
		ck_assert(!eq[i].constant);
		ck_assert_uint_eq(eq[i].src_reg, r);
		ck_assert_uint_eq(eq[i].slot, exit[r]);
		ck_assert_uint_eq(eq[i].src_slot, entry[r]);
		/* rsp after the two pushed words are popped. */
		ck_assert_int_eq(eq[i].offset, r == 7 ? 16 : 0);
		seen[r] = true;
	}
	for (r = 0; r < RECOVER_NREGS; r++)
		ck_assert(seen[r] == (r != 10 && r != 11));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("lazy-binding resolver");

	tcase_add_test(tc, exit_sequence);
	tcase_add_test(tc, plt0);
	tcase_add_test(tc, names);
	tcase_add_test(tc, contract);
	return check_run_tcase("recover-resolver", tc);
}
