/* signal-delivery.h: the stop between the instruction a signal interrupted
 * and its handler's first, as record full's log has it (signal-delivery.c).
 */
#ifndef HWTREC_SIGNAL_DELIVERY_H
#define HWTREC_SIGNAL_DELIVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "hwtrecord.h"
#include "tdesc.h"

struct replay;
struct replay_thread;

struct delivery_stop {
	uint64_t position;	/* the delivery's gap in the history */
	uint64_t pc;		/* the PC the signal interrupted */
	bool after_syscall;	/* the instruction before it is a system call */
};

/* Whether INSN goes on to the next instruction: not a branch, or a
 * system call (x86-64 syscall, sysenter, int N), which returns there. */
bool insn_goes_on(const struct hwtr_insn *insn);

/* Whether position POS of T is the gap of a signal's delivery to a handler
 * whose interrupted PC the history knows (*D).  Moves T's scratch cursor. */
bool delivery_stop_at(struct replay_thread *t, uint64_t pos,
		      struct delivery_stop *d);

/* With the data log: the general registers and eflags at stop D, from the
 * signal frame the delivery saved them in (at the handler's entry); the
 * PC is the caller's.  Registers not known stay invalid. */
void delivery_stop_registers(struct replay *r, struct replay_thread *t,
			     const struct delivery_stop *d,
			     uint8_t regs[TDESC_G_SIZE], uint8_t valid[TDESC_G_SIZE]);

/* With the data log: [*LO, *HI), the bytes the delivery may have written
 * (its signal frame), which memory at stop D does not take from the
 * handler's entry; false when the handler's stack pointer is not known. */
bool delivery_frame_bytes(struct replay *r, struct replay_thread *t,
			  const struct delivery_stop *d, uint64_t *lo,
			  uint64_t *hi);

#endif
