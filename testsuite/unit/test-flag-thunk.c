/* test-flag-thunk.c: rflags from VEX's flag thunk as the Valgrind tool
 * computes them for the data log (kernel/valgrind/flag-thunk.h): add, sub
 * and the logical operations in each width, for edge and random operands.
 *
 * Oracle: the CPU's own flags after the same instruction (pushfq); under
 * memcheck (memcheck.sh) that is VEX's emulation, the reference the tool
 * must match.  For the logical ones AF is undefined on the CPU; VEX (and so
 * the log) has 0.
 */
#include "check-main.h"
#include "../../kernel/valgrind/flag-thunk.h"

#include <check.h>
#include <stdlib.h>

#if defined(__x86_64__)
#define ARITH_FLAGS 0x8d5ull	/* C P A Z S O */
#define AF 0x10ull

enum kind { ADD, SUB, AND, OR, XOR };

/* OP (a mnemonic without its size suffix) on x, y: x becomes the result, f
 * the flags after it. */
#define ASM(op, suffix, cons)						\
	__asm__(op #suffix " %2, %0\n\tpushfq\n\tpopq %1"		\
		: "+" cons (x), "=r" (f) : cons (y) : "cc")

#define HW(suffix, type, cons)						\
static unsigned long long hw_##suffix(enum kind k, unsigned long long a, \
				      unsigned long long b,		\
				      unsigned long long *res)		\
{									\
	type x = (type)a, y = (type)b;					\
	unsigned long long f = 0;					\
									\
	switch (k) {							\
	case ADD: ASM("add", suffix, cons); break;			\
	case SUB: ASM("sub", suffix, cons); break;			\
	case AND: ASM("and", suffix, cons); break;			\
	case OR: ASM("or", suffix, cons); break;			\
	case XOR: ASM("xor", suffix, cons); break;			\
	}								\
	*res = x;							\
	return f;							\
}

HW(b, unsigned char, "q")
HW(w, unsigned short, "r")
HW(l, unsigned int, "r")
HW(q, unsigned long long, "r")

static unsigned long long hw(enum kind k, unsigned w, unsigned long long a,
			     unsigned long long b, unsigned long long *res)
{
	switch (w) {
	case 0: return hw_b(k, a, b, res);
	case 1: return hw_w(k, a, b, res);
	case 2: return hw_l(k, a, b, res);
	default: return hw_q(k, a, b, res);
	}
}

/* The thunk VEX leaves for K on A, B in width W (0 byte .. 3 quad), as
 * guest_amd64_toIR.c writes it: operands zero-extended to 64 bits. */
static void check_one(enum kind k, unsigned w, unsigned long long a,
		      unsigned long long b)
{
	unsigned long long mask = w == 3 ? ~0ull : (1ull << (8u << w)) - 1;
	unsigned long long res, want, got = ~0ull, op;
	unsigned long long care = ARITH_FLAGS;

	a &= mask;
	b &= mask;
	want = hw(k, w, a, b, &res) & ARITH_FLAGS;
	if (k == ADD || k == SUB) {
		op = (k == ADD ? FLAG_THUNK_ADDB : FLAG_THUNK_SUBB) + w;
		ck_assert(flag_thunk_flags(op, a, b, &got));
	} else {
		op = FLAG_THUNK_LOGICB + w;
		ck_assert(flag_thunk_flags(op, res, 0, &got));
		ck_assert_msg(!(got & AF), "AF set by a logical operation");
		care &= ~AF;
	}
	ck_assert_msg(!(got & ~ARITH_FLAGS), "flags 0x%llx beyond C P A Z S O",
		      got);
	ck_assert_msg((got & care) == (want & care),
		      "op %d width %u: 0x%llx, 0x%llx: 0x%llx, the CPU 0x%llx",
		      (int)k, 8u << w, a, b, got & care, want & care);
}

static const unsigned long long edges[] = {
	0, 1, 2, 0xf, 0x10, 0x7f, 0x80, 0x81, 0xff, 0x100, 0x7fff, 0x8000,
	0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull,
	~0ull,
};

START_TEST(edges_are_the_cpus)
{
	size_t i, j;
	unsigned w;
	int k;

	for (k = ADD; k <= XOR; k++)
		for (w = 0; w < 4; w++)
			for (i = 0; i < sizeof(edges) / sizeof(*edges); i++)
				for (j = 0; j < sizeof(edges) / sizeof(*edges); j++)
					check_one((enum kind)k, w, edges[i],
						  edges[j]);
}
END_TEST

static unsigned long long random64(void)
{
	return (unsigned long long)rand() << 42 ^
	       (unsigned long long)rand() << 21 ^ (unsigned long long)rand();
}

START_TEST(random_operands_are_the_cpus)
{
	unsigned n;

	srand(18);
	for (n = 0; n < (unsigned)check_trials(100000); n++) {
		unsigned long long a = random64(), b = random64();

		/* Small numbers too: carries and zeros in the low bytes. */
		if (n & 1)
			b &= 0xff;
		check_one((enum kind)(n % 5), (n / 5) % 4, a, b);
	}
}
END_TEST

/* Every other operation is left to VEX. */
START_TEST(others_are_not_handled)
{
	unsigned long long op, flags;

	for (op = 0; op < 64; op++)
		ck_assert_int_eq(flag_thunk_flags(op, 1, 2, &flags),
				 (op >= 1 && op <= 8) || (op >= 17 && op <= 20));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("flag-thunk");

	tcase_add_test(tc, edges_are_the_cpus);
	tcase_add_test(tc, random_operands_are_the_cpus);
	tcase_add_test(tc, others_are_not_handled);
	tcase_set_timeout(tc, 120);
	return check_run_tcase("flag-thunk", tc);
}
#else
int main(void)
{
	return 77;	/* the oracle is an x86-64 CPU */
}
#endif
