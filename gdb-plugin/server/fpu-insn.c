/* fpu-insn.c: whether an instruction may change the FPU state
 * (fpu-insn.h). */
#include "fpu-insn.h"

/* Prefixes other than 66, f2 and f3, which select SSE forms: the other
 * legacy ones, and REX (a REX before a legacy prefix is ignored, but the
 * instruction still runs). */
static bool other_prefix(uint8_t b)
{
	return b == 0x67 || b == 0xf0 || b == 0x2e || b == 0x36 ||
	       b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 ||
	       (b & 0xf0) == 0x40;
}

/* Whether 0f OP with prefix f3 (F3) or f2 is an SSE instruction rather
 * than its MMX form with the prefix ignored, among MMX's opcodes. */
static bool sse_with_rep_prefix(uint8_t op, bool f3)
{
	switch (op) {
	case 0x2a: case 0x2c: case 0x2d: case 0x70: case 0xc2: case 0xe6:
		return true;
	case 0x6f: case 0x7e: case 0xb8: case 0xbc: case 0xbd:
		return f3;
	case 0x7c: case 0x7d: case 0xd0: case 0xf0:
		return !f3;
	default:
		return false;
	}
}

bool fpu_insn_may_change(const uint8_t *b, size_t n)
{
	bool f2 = false, f3 = false, opsize = false;
	size_t i = 0;

	for (; i < n; i++) {
		if (b[i] == 0x66)
			opsize = true;
		else if (b[i] == 0xf2)
			f2 = true;
		else if (b[i] == 0xf3)
			f3 = true;
		else if (!other_prefix(b[i]))
			break;
	}
	if (i >= n)
		return true;
	if ((b[i] >= 0xd8 && b[i] <= 0xdf) || b[i] == 0x9b ||	/* x87 */
	    b[i] == 0xc4 || b[i] == 0xc5 || b[i] == 0x62 ||	/* VEX, EVEX */
	    b[i] == 0xcc || b[i] == 0xcd || b[i] == 0xce)	/* int */
		return true;
	if (b[i] != 0x0f)
		return false;
	if (++i >= n)
		return true;
	switch (b[i]) {
	case 0x05: case 0x07: case 0x34: case 0x35:	/* system calls */
	case 0x0e: case 0x0f:		/* femms, 3DNow! */
	case 0x77: case 0xae:		/* emms; fxrstor, ldmxcsr, xrstor */
	case 0xc7:			/* xrstors, whatever the prefix */
	case 0xd6:			/* movq2dq, movdq2q */
		return true;
	case 0x2a: case 0x2c: case 0x2d:	/* cvt*pi*: MMX but with f2/f3 */
		return !(f2 || f3);
	case 0x38: case 0x3a:	/* SSSE3 and others: MMX without 66 */
		return !opsize;
	default:
		if (!((b[i] >= 0x60 && b[i] <= 0x7f) || b[i] >= 0xc2))
			return false;
		/* MMX's opcodes: SSE with 66, or with f2/f3 where that
		 * prefix selects an SSE form (the last of f2/f3 decides;
		 * either way, when both are there, may) */
		if (f2 && f3)
			return true;
		if (f2 || f3)
			return !sse_with_rep_prefix(b[i], f3);
		return !opsize;
	}
}
