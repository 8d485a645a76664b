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

/* Which registers (CHANGED[regno], hwtr_amd64_nregs entries) the data log
 * may show changed between just before THREAD's instruction NUMBER and
 * just before the next (stores_next_insn): every register whose values there differ is
 * marked (the log records each change at the position it shows), maybe
 * more.  0, or -hwtr_err_notfound when the log cannot say. */
int stores_changed_registers(struct hwtr_stores *stores, uint64_t number,
			     bool *changed);

#endif
