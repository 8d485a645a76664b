/* values-x87.h: GDB's x87 registers from the data log's FPU state
 * (HWTR_VREG_FPU, values-format.h), which is Valgrind's: doubles by
 * physical register, their full/empty tags, the stack top, the rounding
 * modes and the condition bits.  values-registers.c asks it. */
#ifndef HWTR_VALUES_X87_H
#define HWTR_VALUES_X87_H

#include "values-format.h"

#include <stdint.h>

/* GDB register REGNO (st0..st7, fctrl, fstat, ftag) as GDB shows it for
 * FPU state FPU, into BUF (at least 10 bytes): its size (10 for st0..st7,
 * else 4), or 0 for a register the state does not give: fiseg, fioff,
 * foseg, fooff, fop (VEX keeps no last-instruction pointers) and mxcsr
 * (VEX keeps its rounding mode but not its sticky exception flags, which
 * any inexact SSE operation sets, such as a conversion of 2.5 to int: a
 * value built from the rounding mode alone would be wrong in most
 * programs). */
unsigned values_x87_register(const uint8_t fpu[HWTR_VREG_FPU_SIZE],
			     unsigned regno, uint8_t *buf);

/* The double with bits F64 as the x87's 80-bit extended format, the way
 * the hardware loads a double (fld m64): exact, denormals normalised, a
 * NaN keeps its payload and comes out quiet. */
void values_f64_to_f80(uint64_t f64, uint8_t f80[10]);

#endif
