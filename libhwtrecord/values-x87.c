/* values-x87.c: GDB's x87 registers from the FPU state
 * (values-x87.h).
 *
 * VEX computes x87 arithmetic in double precision and keeps no exception
 * flags, precision control or instruction pointers.  What GDB shows here
 * is therefore what the program run under Valgrind had: each register's
 * double widened exactly to 80 bits, the control and status words built
 * from the rounding mode, the stack top and the condition bits, as VEX's
 * own fnstcw and fnstsw give them to the program (and Valgrind's gdbserver
 * to GDB).  Natively the same program shows the same wherever its long
 * double arithmetic is exact in double precision and raises no exception
 * flag; where it rounds, st0..st7 and fstat's flags differ (the recorded
 * run is Valgrind's, doc/recording-valgrind.md).  mxcsr is not given:
 * values-x87.h.  Two things differ from Valgrind's gdbserver, which
 * shows FPREG[i] as st(i) and tags every full register "valid": st(i) is
 * the stack's (FPREG[(top + i) & 7]), and ftag classifies each full
 * register as GDB does for a native process's fxsave (valid, zero,
 * special), so that both agree with GDB on the same values natively. */
#include "values-x87.h"
#include "x87-tag.h"

#include <hwtrecord.h>
#include <string.h>

/* x87 tags (ftag, two bits per physical register). */

void values_f64_to_f80(uint64_t f64, uint8_t f80[10])
{
	uint64_t fraction = f64 & ((1ull << 52) - 1), mantissa;
	unsigned exponent = (unsigned)(f64 >> 52) & 0x7ff;
	unsigned sign = (unsigned)(f64 >> 63), e80;

	if (exponent == 0 && fraction == 0) {
		mantissa = 0;
		e80 = 0;
	} else if (exponent == 0) {
		/* A denormal double is a normal long double: shift its
		 * highest set bit to the integer bit. */
		unsigned shift = (unsigned)__builtin_clzll(fraction);

		mantissa = fraction << shift;
		e80 = 16383 - 1022 - (shift - 11);
	} else if (exponent == 0x7ff) {
		mantissa = 1ull << 63 | fraction << 11;
		if (fraction)
			mantissa |= 1ull << 62;	/* a NaN loads quiet */
		e80 = 0x7fff;
	} else {
		mantissa = 1ull << 63 | fraction << 11;
		e80 = exponent - 1023 + 16383;
	}
	memcpy(f80, &mantissa, 8);
	e80 |= sign << 15;
	f80[8] = (uint8_t)e80;
	f80[9] = (uint8_t)(e80 >> 8);
}

static uint64_t fpreg(const uint8_t fpu[HWTR_VREG_FPU_SIZE], unsigned phys)
{
	uint64_t bits;

	memcpy(&bits, fpu + HWTR_VFPU_FPREG + 8 * phys, 8);
	return bits;
}

static unsigned put32(uint8_t *buf, uint32_t v)
{
	memcpy(buf, &v, 4);
	return 4;
}

unsigned values_x87_register(const uint8_t fpu[HWTR_VREG_FPU_SIZE],
			     unsigned regno, uint8_t *buf)
{
	unsigned top = fpu[HWTR_VFPU_FTOP] & 7, phys;
	uint16_t c3210;
	uint32_t ftag = 0;
	uint8_t f80[10];

	if (regno >= hwtr_amd64_st0 && regno < hwtr_amd64_st0 + 8) {
		values_f64_to_f80(fpreg(fpu, (top + regno - hwtr_amd64_st0) & 7),
				  buf);
		return 10;
	}
	switch (regno) {
	case hwtr_amd64_fctrl:
		/* all exceptions masked, extended precision: VEX's fixed
		 * bits; the rounding mode its own */
		return put32(buf, 0x037fu | (fpu[HWTR_VFPU_FPROUND] & 3u) << 10);
	case hwtr_amd64_fstat:
		memcpy(&c3210, fpu + HWTR_VFPU_FC3210, 2);
		return put32(buf, (uint32_t)top << 11 | (c3210 & 0x4700u));
	case hwtr_amd64_ftag:
		for (phys = 0; phys < 8; phys++) {
			unsigned tag = x87_tag_empty;

			if (fpu[HWTR_VFPU_FPTAG + phys]) {
				values_f64_to_f80(fpreg(fpu, phys), f80);
				tag = x87_full_tag(f80);
			}
			ftag |= tag << (2 * phys);
		}
		return put32(buf, ftag);
	default:
		return 0;
	}
}
