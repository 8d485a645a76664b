/* values-registers.h: the one place that maps the data log's registers
 * (HWTR_VREG_* bits of a REGS record, values-format.h) to GDB's (enum
 * hwtr_amd64_regno) and gives their values as GDB sees them.  values.c
 * (a register at a position) and values-stores.c (the registers an
 * instruction changed) both read registers through it. */
#ifndef HWTR_VALUES_REGISTERS_H
#define HWTR_VALUES_REGISTERS_H

#include "values-index.h"

#include <stdbool.h>
#include <stdint.h>

/* Where GDB register REGNO is in the log: the bit that holds it, the
 * offset of its bytes in that bit's value and how many there are (xmmN the
 * low 16 bytes of ymmN, ymmNh the high 16; eflags the low 4 of rflags;
 * st0..st7, fctrl, fstat and ftag are computed from the FPU state,
 * values-x87.h, offset 0).  False for a register the log does not hold
 * (rip is the history's; fiseg, fioff, foseg, fooff, fop, mxcsr, the
 * segment selectors and orig_rax: values-x87.h says why for the x87 ones
 * and mxcsr). */
bool values_register_bit(unsigned regno, unsigned *bit, unsigned *offset,
			 unsigned *size);

/* GDB register REGNO's value in REGS record R into BUF (at least 16
 * bytes), as hwtr_values_register gives it: its size, or 0 when R does not
 * set it. */
unsigned values_record_gdb_register(const struct values_record *r,
				    unsigned regno, uint8_t *buf);

/* GDB register REGNO from VALUE, the value of the log's bit that holds it
 * (values_register_bit), into BUF (at least 16 bytes): its size, or 0
 * when that value does not give it. */
unsigned values_bit_gdb_register(unsigned regno,
				 const uint8_t value[HWTR_VREG_MAX_SIZE],
				 uint8_t *buf);

#endif
