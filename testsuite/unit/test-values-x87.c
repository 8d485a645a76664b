/* test-values-x87.c: GDB's x87 registers from the data log's FPU state
 * (values-x87.c).
 *
 * The oracle for widening a double to 80 bits is this machine's x87: the
 * compiler's (long double) conversion of a double held in a volatile is an
 * fld m64, the instruction whose result values_f64_to_f80 must give.  Not
 * for NaNs: the unit tests run under memcheck, whose VEX loads every NaN
 * as one fixed pattern; their 80 bits are written out below as Intel's
 * manual defines the load (payload kept, made quiet), which is what this
 * machine's x87 gives natively.  The
 * register mapping is checked on a state built here: the stack top, the
 * physical registers and their tags, the status and control words.
 */
#include "values-x87.h"
#include "check-main.h"

#include <hwtrecord.h>

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t bits_of(double d)
{
	uint64_t b;

	memcpy(&b, &d, 8);
	return b;
}

/* The 80 bits the hardware loads for the double with bits B. */
static void hardware_f80(uint64_t b, uint8_t out[10])
{
	volatile double d;
	long double ld;
	double tmp;

	memcpy(&tmp, &b, 8);
	d = tmp;
	ld = (long double)d;
	memcpy(out, &ld, 10);
}

START_TEST(doubles_widen_as_the_hardware_loads_them)
{
	static const uint64_t cases[] = {
		0, 1ull << 63,				/* +0, -0 */
		0x3ff0000000000000ull,			/* 1 */
		0xc004000000000000ull,			/* -2.5 */
		0x3fd5555555555555ull,			/* 1/3 */
		0x7fefffffffffffffull,			/* DBL_MAX */
		0x0010000000000000ull,			/* DBL_MIN */
		1, 0x000fffffffffffffull, 0x8000000000000123ull, /* denormals */
		0x0000000000080000ull,
		0x7ff0000000000000ull, 0xfff0000000000000ull,	/* +-inf */
	};
	static const struct { uint64_t f64; uint16_t exp; uint64_t mant; }
	nans[] = {
		{ 0x7ff8000000000000ull, 0x7fff, 0xc000000000000000ull },
		{ 0xfff8000000000abcull, 0xffff, 0xc00000000055e000ull },
		/* signalling: loaded quiet */
		{ 0x7ff0000000000001ull, 0x7fff, 0xc000000000000800ull },
		{ 0x7ff4000000000000ull, 0x7fff, 0xe000000000000000ull },
	};
	uint8_t ours[10], theirs[10];
	size_t i;

	for (i = 0; i < sizeof(nans) / sizeof(nans[0]); i++) {
		memcpy(theirs, &nans[i].mant, 8);
		memcpy(theirs + 8, &nans[i].exp, 2);
		values_f64_to_f80(nans[i].f64, ours);
		ck_assert_msg(memcmp(ours, theirs, 10) == 0,
			      "NaN 0x%016llx", (unsigned long long)nans[i].f64);
	}

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		values_f64_to_f80(cases[i], ours);
		hardware_f80(cases[i], theirs);
		ck_assert_msg(memcmp(ours, theirs, 10) == 0,
			      "double 0x%016llx", (unsigned long long)cases[i]);
	}
	/* and a sweep over exponents and fractions */
	for (i = 0; i < 200000; i++) {
		uint64_t b = (uint64_t)i * 0x9e3779b97f4a7c15ull;

		if ((b >> 52 & 0x7ff) == 0x7ff && (b << 12))
			continue;	/* a NaN: above */
		values_f64_to_f80(b, ours);
		hardware_f80(b, theirs);
		ck_assert_msg(memcmp(ours, theirs, 10) == 0,
			      "double 0x%016llx", (unsigned long long)b);
	}
}
END_TEST

static void put_fpreg(uint8_t *fpu, unsigned phys, double d, bool full)
{
	uint64_t b = bits_of(d);

	memcpy(fpu + HWTR_VFPU_FPREG + 8 * phys, &b, 8);
	fpu[HWTR_VFPU_FPTAG + phys] = full;
}

static uint32_t reg32(const uint8_t *fpu, unsigned regno)
{
	uint8_t buf[16];
	uint32_t v;

	ck_assert_uint_eq(values_x87_register(fpu, regno, buf), 4);
	memcpy(&v, buf, 4);
	return v;
}

START_TEST(registers_are_the_stacks_with_their_tags)
{
	uint8_t fpu[HWTR_VREG_FPU_SIZE] = { 0 }, buf[16], want[10];
	uint16_t c3210 = 0x4100;	/* C3 and C0 */
	unsigned i;

	/* three pushed: top 5; st0 = phys 5, st1 = 6, st2 = 7, st3 = 0 */
	put_fpreg(fpu, 5, 1.25, true);
	put_fpreg(fpu, 6, -0.0, true);			/* zero */
	put_fpreg(fpu, 7, 0x1p-1070, true);		/* a denormal double:
							 * normal in 80 bits */
	put_fpreg(fpu, 0, 3.5, false);			/* empty, kept */
	put_fpreg(fpu, 1, INFINITY, false);
	put_fpreg(fpu, 2, NAN, true);			/* special */
	fpu[HWTR_VFPU_FTOP] = 5;
	fpu[HWTR_VFPU_FPROUND] = 3;			/* toward zero */
	memcpy(fpu + HWTR_VFPU_FC3210, &c3210, 2);
	fpu[HWTR_VFPU_SSEROUND] = 1;

	static const double st[8] = { 1.25, -0.0, 0x1p-1070, 3.5, INFINITY,
				      NAN, 0, 0 };
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_st0 + i,
						      buf), 10);
		values_f64_to_f80(bits_of(st[i]), want);
		ck_assert_msg(memcmp(buf, want, 10) == 0, "st%u", i);
	}
	ck_assert_uint_eq(reg32(fpu, hwtr_amd64_fctrl), 0x0f7f);
	ck_assert_uint_eq(reg32(fpu, hwtr_amd64_fstat), 5u << 11 | 0x4100);
	/* by physical register 7..0: valid (a denormal double is normal in
	 * 80 bits), zero, valid, empty, empty, special, empty, empty */
	ck_assert_uint_eq(reg32(fpu, hwtr_amd64_ftag),
			  0u << 14 | 1u << 12 | 0u << 10 | 3u << 8 | 3u << 6 |
			  2u << 4 | 3u << 2 | 3u);
	/* what VEX does not keep */
	ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_fiseg, buf), 0);
	ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_fioff, buf), 0);
	ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_foseg, buf), 0);
	ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_fooff, buf), 0);
	ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_fop, buf), 0);
	ck_assert_uint_eq(values_x87_register(fpu, hwtr_amd64_mxcsr, buf), 0);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("x87");

	tcase_add_test(tc, doubles_widen_as_the_hardware_loads_them);
	tcase_add_test(tc, registers_are_the_stacks_with_their_tags);
	return check_run_tcase("values-x87", tc);
}
