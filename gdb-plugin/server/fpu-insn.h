/* fpu-insn.h: whether an x86-64 instruction may change the FPU state that
 * Valgrind keeps (the x87 registers, the x87 and SSE rounding modes), from
 * its bytes.  The replay asks it of a software recording's last
 * instruction: if not, the data log's x87 state before it is the state at
 * the end, where Valgrind's core has zeros (replay.c). */
#ifndef HWTREC_FPU_INSN_H
#define HWTREC_FPU_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the instruction CODE (SIZE bytes) may change the FPU state: an
 * x87 instruction (fwait too: it may deliver a pending exception); MMX, which sets the x87 stack top and tags; fxrstor,
 * xrstor, ldmxcsr, emms, femms, 3DNow!; anything VEX- or EVEX-encoded
 * (vldmxcsr among them); a system call or interrupt (rt_sigreturn restores
 * the state).  From the prefixes and opcode alone, so true for some that
 * do not (SSE instructions among MMX's opcodes, fences under 0f ae): never
 * false for one that does (test-fpu-insn.c checks that against Capstone). */
bool fpu_insn_may_change(const uint8_t *code, size_t size);

#endif
