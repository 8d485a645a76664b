/* tdesc.h: the target descriptions the server offers, by the recording's
 * architecture.
 *
 * x86-64 GNU/Linux: the same registers and numbers as gdbserver's
 * amd64-linux description (features i386.core, i386.sse, i386.linux,
 * i386.segments; no AVX).  AArch64: GDB's aarch64 core feature (x0-x30, sp,
 * pc, cpsr; no FP/SIMD registers: nothing in a trace recovers them).  For
 * both, the 'g' packet holds the registers in number order, little-endian,
 * no padding.
 */
#ifndef HWTREC_TDESC_H
#define HWTREC_TDESC_H

#include <stddef.h>

enum tdesc_regnum {
	tdesc_rax = 0, tdesc_rbx, tdesc_rcx, tdesc_rdx, tdesc_rsi, tdesc_rdi,
	tdesc_rbp, tdesc_rsp, tdesc_r8, tdesc_r9, tdesc_r10, tdesc_r11,
	tdesc_r12, tdesc_r13, tdesc_r14, tdesc_r15,
	tdesc_rip = 16, tdesc_eflags,
	tdesc_cs, tdesc_ss, tdesc_ds, tdesc_es, tdesc_fs, tdesc_gs,
	tdesc_st0 = 24,
	tdesc_fctrl = 32, tdesc_fstat, tdesc_ftag, tdesc_fiseg, tdesc_fioff,
	tdesc_foseg, tdesc_fooff, tdesc_fop,
	tdesc_xmm0 = 40,
	tdesc_mxcsr = 56,
	tdesc_orig_rax = 57,
	tdesc_fs_base = 58, tdesc_gs_base = 59,
	tdesc_nregs = 60,
};

/* Bytes in the amd64 'g' packet (all registers); no layout has more, so
 * it sizes every register buffer. */
#define TDESC_G_SIZE 560

/* The XML document GDB reads as target.xml. */
extern const char tdesc_target_xml[];

/* Size in bytes and offset in the 'g' packet of register REGNUM;
 * -1 if there is no such register. */
int tdesc_register_size(unsigned regnum);
int tdesc_register_offset(unsigned regnum);

/* AArch64 register numbers (GDB's aarch64 core feature). */
enum tdesc_aarch64_regnum {
	tdesc_aarch64_x0 = 0,
	tdesc_aarch64_fp = 29,	/* x29 */
	tdesc_aarch64_lr = 30,	/* x30 */
	tdesc_aarch64_sp = 31,
	tdesc_aarch64_pc = 32,
	tdesc_aarch64_cpsr = 33,
	tdesc_aarch64_nregs = 34,
};

/* One architecture's description and 'g' layout. */
struct tdesc {
	const char *arch;		/* the recording's arch ("x86_64") */
	const char *xml;		/* target.xml */
	unsigned nregs;
	size_t g_size;			/* bytes in the 'g' packet */
	unsigned pc;			/* the PC's register number */
	const unsigned *expedite;	/* registers sent with stop replies */
	size_t nexpedite;
	int (*size)(unsigned regnum);	/* -1 if there is no such register */
};

extern const struct tdesc tdesc_amd64_linux;
extern const struct tdesc tdesc_aarch64;

/* The description for a recording's arch, or NULL. */
const struct tdesc *tdesc_for_arch(const char *arch);
/* Offset of REGNUM in D's 'g' packet, or -1. */
int tdesc_offset(const struct tdesc *d, unsigned regnum);

#endif /* HWTREC_TDESC_H */
