/* values-stores.h: what values-stores.c offers inside the library beyond
 * hwtr_stores_* (hwtrecord.h). */
#ifndef HWTR_VALUES_STORES_H
#define HWTR_VALUES_STORES_H

#include <hwtrecord.h>

/* The instruction whose values follow NUMBER's in the log: NUMBER + 1,
 * or the first after gaps where tracing was only disabled (*ACROSS_GAP:
 * the kernel delivered a signal there, and the log counts nothing in
 * them).  0, or -hwtr_err_notfound: NUMBER is the last, or another kind
 * of gap follows (it may hide instructions the log counted). */
int stores_next_insn(struct hwtr_stores *stores, uint64_t number,
		     uint64_t *next, bool *across_gap);

/* Registers as the log sets them at one position (enum hwtr_amd64_regno;
 * values little-endian, as hwtr_values_register gives them). */
struct stores_registers {
	bool changed[hwtr_amd64_nregs];
	uint8_t value[hwtr_amd64_nregs][16];
};

/* The registers the log sets just before the instruction after NUMBER
 * (stores_next_insn) and their values there: every register whose value
 * differs from before NUMBER is among them (the log records each change at
 * the position it shows), maybe more (a full snapshot).  0, or
 * -hwtr_err_notfound when the log cannot say. */
int stores_registers_after(struct hwtr_stores *stores, uint64_t number,
			   struct stores_registers *regs);

#endif
