/* signal-delivery.c: the stop between the instruction a signal interrupted
 * and its handler's first.
 *
 * A signal delivered to a handler leaves a gap in the history: the trace
 * stops at the interrupted instruction and starts again at the handler.
 * record full's log has one state there: the thread stopped for the
 * signal, at the PC it interrupted (a faulting instruction, which did not
 * run; after a system call or the last instruction that ran), before the
 * kernel wrote the handler's frame.  GDB's reverse-stepi out of a
 * handler's first instruction, reverse-finish out of the handler and
 * reverse-step from its first line stop there, in the interrupted function.
 * So the replay stops on the delivery's gap too, with that PC and the
 * frames of the instruction before it.
 *
 * Its registers, with the data log, are those the delivery saved in the
 * signal frame (the ucontext at the handler's stack pointer + 8, as the
 * kernel and Valgrind lay it out), read at the handler's entry, where the
 * handler has not changed it yet.  A system call the kernel restarts after
 * the handler has its rip moved back and rax reset in that frame, so rax
 * is not known there.  The vector and FPU registers are not: the kernel
 * gives the handler a fresh FPU state.  Memory is the handler's entry's
 * but for the frame's bytes, which the delivery wrote.  Without the data
 * log only the PC is known, as at every past position without recovery.
 */
#include "signal-delivery.h"

#include "replay-private.h"

#include <string.h>

/* The ucontext's general registers: at the handler's entry stack pointer
 * + 8 (past the return address into the trampoline), its mcontext at +40
 * (uc_flags, uc_link, uc_stack), gregs r8..r15, rdi, rsi, rbp, rbx, rdx,
 * rax, rcx, rsp, rip, eflags, as GDB numbers them below. */
#define UCONTEXT_AT 8
#define MCONTEXT_AT 40
#define NGREGS 18
static const unsigned greg_regnum[NGREGS] = {
	tdesc_r8, tdesc_r9, tdesc_r10, tdesc_r11, tdesc_r12, tdesc_r13,
	tdesc_r14, tdesc_r15, tdesc_rdi, tdesc_rsi, tdesc_rbp, tdesc_rbx,
	tdesc_rdx, tdesc_rax, tdesc_rcx, tdesc_rsp, tdesc_rip, tdesc_eflags,
};
#define GREG_RSP 15
#define GREG_RIP 16

/* The red zone below the interrupted stack pointer, which a delivery on
 * the same stack leaves alone (its frame starts below it). */
#define RED_ZONE 128
/* On an alternate signal stack the frame is somewhere above the handler's
 * stack pointer: the bytes up to this many after it are not taken from
 * the handler's entry (Valgrind's frame and the kernel's, with the largest
 * xsave area, are well under it). */
#define ALT_FRAME_BOUND (64 * 1024)

bool insn_goes_on(const struct hwtr_insn *insn)
{
	if (insn->iclass == hwtr_ic_other)
		return true;
	return insn->iclass == hwtr_ic_far_call && insn->isa == hwtr_isa_x86_64 &&
	       ((insn->raw[0] == 0x0f && (insn->raw[1] == 0x05 || insn->raw[1] == 0x34)) ||
		insn->raw[0] == 0xcd);
}

bool delivery_stop_at(struct replay_thread *t, uint64_t pos,
		      struct delivery_stop *d)
{
	struct hwtr_segment handler, interrupted;
	struct hwtr_insn insn;

	if (!t->history || pos < 2 || pos >= t->instructions)
		return false;
	/* Every memory read and frame question at a position asks: look at
	 * the position through its own cursor, without moving the scratch
	 * one, and stop at once where it is not a gap. */
	if (hwtr_cursor_position(t->cursor) == pos
	    ? hwtr_cursor_insn(t->cursor, &insn) < 0
	    : hwtr_cursor_goto(t->scratch, pos) < 0 ||
	      hwtr_cursor_insn(t->scratch, &insn) < 0)
		return false;
	if (!insn.gap)
		return false;
	/* The handler's first segment right after the gap, linked to the
	 * segment the signal interrupted, which ends right before it. */
	if (hwtr_cursor_goto(t->scratch, pos + 1) < 0 ||
	    hwtr_cursor_segment(t->scratch, &handler) < 0 ||
	    !(handler.flags & HWTR_SEG_UP_LINKS_TO_SIGNAL) ||
	    handler.insn_begin != pos + 1 || handler.number != handler.up + 2 ||
	    hwtr_thread_segment(t->history, handler.up, &interrupted) < 0 ||
	    interrupted.insn_end != pos)
		return false;
	/* Its PC: after the last instruction that ran, when that goes on to
	 * the next (a branch's target is not known here). */
	if (hwtr_cursor_goto(t->scratch, pos - 1) < 0 ||
	    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap ||
	    !insn_goes_on(&insn))
		return false;
	d->position = pos;
	d->pc = insn.ip + insn.size;
	d->after_syscall = insn.iclass == hwtr_ic_far_call;
	return true;
}

/* The handler's stack pointer at its first instruction, from the log. */
static bool handler_rsp(struct replay *r, struct replay_thread *t,
			const struct delivery_stop *d, uint64_t *rsp)
{
	return r->values &&
	       hwtr_values_register(r->values, t->history, d->position + 1,
				    hwtr_amd64_rsp, rsp, sizeof(*rsp)) == 8;
}

/* The saved general registers (NGREGS of them) at stop D. */
static bool saved_gregs(struct replay *r, struct replay_thread *t,
			const struct delivery_stop *d, uint64_t gregs[NGREGS])
{
	uint64_t rsp;

	return handler_rsp(r, t, d, &rsp) &&
	       replay_logged_memory(r, t, d->position + 1,
				    rsp + UCONTEXT_AT + MCONTEXT_AT,
				    (uint8_t *)gregs, NGREGS * 8) == NGREGS * 8;
}

void delivery_stop_registers(struct replay *r, struct replay_thread *t,
			     const struct delivery_stop *d,
			     uint8_t regs[TDESC_G_SIZE], uint8_t valid[TDESC_G_SIZE])
{
	uint64_t gregs[NGREGS];
	bool restarted;
	unsigned i;

	if (r->tdesc != &tdesc_amd64_linux || !saved_gregs(r, t, d, gregs))
		return;
	/* The frame holds the interrupted PC, or for a system call the kernel
	 * restarts the call's own (2 bytes back, rax its number again); any
	 * other is not a frame we can read. */
	restarted = d->after_syscall && gregs[GREG_RIP] == d->pc - 2;
	if (gregs[GREG_RIP] != d->pc && !restarted)
		return;
	for (i = 0; i < NGREGS; i++) {
		unsigned regnum = greg_regnum[i];
		int off = tdesc_offset(r->tdesc, regnum);
		int size = r->tdesc->size(regnum);

		if (regnum == tdesc_rip || (restarted && regnum == tdesc_rax) ||
		    off < 0 || size <= 0 || size > 8)
			continue;
		memcpy(regs + off, &gregs[i], (size_t)size);
		memset(valid + off, 1, (size_t)size);
	}
}

bool delivery_frame_bytes(struct replay *r, struct replay_thread *t,
			  const struct delivery_stop *d, uint64_t *lo,
			  uint64_t *hi)
{
	uint64_t rsp, gregs[NGREGS];

	if (!handler_rsp(r, t, d, &rsp))
		return false;
	*lo = rsp;
	*hi = rsp + ALT_FRAME_BOUND;
	/* On the interrupted stack: everything from the handler's stack
	 * pointer up to the red zone. */
	if (saved_gregs(r, t, d, gregs) && gregs[GREG_RSP] - RED_ZONE > rsp &&
	    gregs[GREG_RSP] - RED_ZONE - rsp <= ALT_FRAME_BOUND)
		*hi = gregs[GREG_RSP] - RED_ZONE;
	return true;
}
