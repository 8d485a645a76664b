/* tdesc.h: the x86-64 GNU/Linux target description the server offers.
 *
 * The same registers and numbers as gdbserver's amd64-linux description
 * (features i386.core, i386.sse, i386.linux, i386.segments; no AVX), and the
 * layout of the 'g' packet that follows from it: registers in number order,
 * little-endian, no padding.
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

/* Bytes in the 'g' packet (all registers). */
#define TDESC_G_SIZE 560

/* The XML document GDB reads as target.xml. */
extern const char tdesc_target_xml[];

/* Size in bytes and offset in the 'g' packet of register REGNUM;
 * -1 if there is no such register. */
int tdesc_register_size(unsigned regnum);
int tdesc_register_offset(unsigned regnum);

#endif /* HWTREC_TDESC_H */
