/* isa.h: what the history needs to know about instruction sets.
 *
 * Decoders give blocks (a first and a last IP and a count); splitting a
 * block into instructions needs each instruction's length, and an
 * unclassified last instruction needs its class.  x86-64 lengths come from
 * capstone (with a search for instructions capstone does not know), classes
 * from the opcode alone (x86-class.c); A64 and A32 instructions are 4 bytes; a T32 instruction is 2
 * or 4 bytes, as its first halfword says.
 */
#ifndef HWTR_ISA_H
#define HWTR_ISA_H

#include "hwtrecord.h"

struct isa;

int isa_open(struct isa **isa);
void isa_close(struct isa *isa);

/* The length of every instruction of ISA, or 0 if it varies. */
size_t isa_fixed_length(enum hwtr_isa isa);
/* The longest instruction of ISA. */
size_t isa_max_length(enum hwtr_isa isa);

/* The length of the instruction at CODE (AVAIL bytes readable), or 0 if it
 * is not known. */
size_t isa_length(struct isa *isa, enum hwtr_isa set, const uint8_t *code,
		  size_t avail, uint64_t ip);

/* x86-64: the length of the unknown instruction at IP after which the rest
 * of a block (LEFT more instructions, the last at END_IP) decodes exactly;
 * 0 if none does.  BUF holds HAVE bytes of code from BASE. */
size_t isa_guess_length(struct isa *isa, const uint8_t *buf, size_t have,
			uint64_t base, uint64_t ip, size_t left, uint64_t end_ip);

/* The class of the instruction at CODE (x86-64; other instruction sets are
 * classified by their decoders), hwtr_ic_unknown if it does not decode. */
enum hwtr_insn_class isa_classify(struct isa *isa, enum hwtr_isa set,
				  const uint8_t *code, size_t avail,
				  uint64_t ip);

/* x86-64 "call next instruction" (e8 00000000): computes the PC, no call. */
bool isa_is_pic_call(enum hwtr_isa set, const uint8_t *code, size_t avail);

/* Linux's signal return trampoline (glibc's __restore_rt on x86-64, the
 * vDSO's __kernel_rt_sigreturn on AArch64): *CODE its LEN bytes up to and
 * with the rt_sigreturn system call, *LEAD those before the system call.
 * False for an instruction set without one here. */
bool isa_sigreturn_code(enum hwtr_isa set, const uint8_t **code, size_t *len,
			size_t *lead);

#endif
