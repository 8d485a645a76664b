/* signal-frames.h: GDB's <signal handler called> frames at past positions
 * of a recording without data (see signal-frames.c). */
#ifndef HWTREC_SIGNAL_FRAMES_H
#define HWTREC_SIGNAL_FRAMES_H

#include "plugin-packets.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The plugin's unwinder gives the handler's frame of signal frame K (0:
 * the outermost of the stack) the stack pointer SIGNAL_FRAME_BASE +
 * (K << 16 | CFA) * SIGNAL_FRAME_STRIDE, CFA the synthetic stack address
 * (below 64 KiB) it chose for the trampoline's frame
 * (gdb-plugin/python/hwtrecord/unwinder.py says the same): above every
 * user address and every other address of the plugin's. */
#define SIGNAL_FRAME_BASE (1ull << 57)
#define SIGNAL_FRAME_STRIDE 0x1000ull
#define SIGNAL_FRAME_CFA_BITS 16
#define SIGNAL_FRAME_COUNT (1ull << 20)

/* Whether ADDR lies in the signal frames' addresses. */
bool signal_frame_address(uint64_t addr);

/* Bytes at ADDR (signal_frame_address) of the signal frames of the call
 * stack FRAMES (N of them, innermost first): the interrupted frame's PC and
 * stack pointer where GDB's unwinders read them, nothing else.  Returns the
 * number of bytes read: LEN, or 0. */
size_t signal_frame_read(const struct plugin_frame *frames, size_t n,
			 uint64_t addr, void *buf, size_t len);

#endif
