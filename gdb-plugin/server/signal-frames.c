/* signal-frames.c: GDB's <signal handler called> frames at past positions
 * of a recording without data.
 *
 * GDB shows a signal handler's caller as a SIGTRAMP_FRAME: the signal
 * return trampoline (glibc's __restore_rt), whose unwinder (the CFI glibc
 * gives it, or GDB's amd64_linux_sigtramp) reads the interrupted frame's
 * registers from the signal frame on the stack.  A Python unwinder cannot
 * make such a frame, and without data the stack is not known.  So the
 * plugin declines the trampoline's frame and gives the handler's frame a
 * stack pointer in an address range no program has (signal-frames.h); here
 * the server answers GDB's reads of the signal frame there with what the
 * trace knows: the interrupted PC, and as the interrupted stack pointer
 * the synthetic frame address the plugin wrote into that address (GDB
 * takes it as the trampoline frame's id, and reads nothing there; the
 * plugin gives the trampoline's frame the same id when a stop is in it,
 * so that `finish` out of the handler stops there).  Every other byte
 * stays unknown.  x86-64 Linux: the ucontext at the stack pointer, its
 * mcontext at +40, rsp and rip its 16th and 17th registers.
 */
#include "signal-frames.h"

#include <string.h>

#define UCONTEXT_RSP (40 + 15 * 8)
#define UCONTEXT_RIP (40 + 16 * 8)

bool signal_frame_address(uint64_t addr)
{
	return addr >= SIGNAL_FRAME_BASE &&
	       addr - SIGNAL_FRAME_BASE < (SIGNAL_FRAME_COUNT << SIGNAL_FRAME_CFA_BITS) *
					  SIGNAL_FRAME_STRIDE;
}

size_t signal_frame_read(const struct plugin_frame *frames, size_t n,
			 uint64_t addr, void *buf, size_t len)
{
	uint64_t slot = (addr - SIGNAL_FRAME_BASE) / SIGNAL_FRAME_STRIDE;
	uint64_t k = slot >> SIGNAL_FRAME_CFA_BITS;
	uint64_t cfa = slot & ((1u << SIGNAL_FRAME_CFA_BITS) - 1);
	uint64_t offset = (addr - SIGNAL_FRAME_BASE) % SIGNAL_FRAME_STRIDE;
	uint64_t value, seen = 0;
	size_t i;

	if (len != 8 || (offset != UCONTEXT_RSP && offset != UCONTEXT_RIP))
		return 0;
	/* The K-th trampoline frame from the outermost; its caller is the
	 * interrupted frame. */
	for (i = n; i-- > 1;) {
		if (!frames[i - 1].sigtramp)
			continue;
		if (seen++ < k)
			continue;
		if (offset == UCONTEXT_RIP) {
			if (!frames[i].has_pc)
				return 0;
			value = frames[i].pc;
		} else
			value = cfa;
		memcpy(buf, &value, 8);	/* x86-64: little-endian */
		return 8;
	}
	return 0;
}
