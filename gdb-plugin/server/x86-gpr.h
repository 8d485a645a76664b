/* x86-gpr.h: Capstone's 64-bit general registers in the order of GDB's
 * amd64 register numbers (rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp,
 * r8-r15), which the server's register buffers and the data log share. */
#ifndef HWTREC_X86_GPR_H
#define HWTREC_X86_GPR_H

#include <capstone/capstone.h>

/* REG's index in that order, or -1 (not a 64-bit general register). */
static inline int x86_gpr_index(x86_reg reg)
{
	static const x86_reg order[16] = {
		X86_REG_RAX, X86_REG_RBX, X86_REG_RCX, X86_REG_RDX,
		X86_REG_RSI, X86_REG_RDI, X86_REG_RBP, X86_REG_RSP,
		X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	int i;

	for (i = 0; i < 16; i++)
		if (order[i] == reg)
			return i;
	return -1;
}

#endif
