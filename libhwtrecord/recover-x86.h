/* recover-x86.h: what an x86-64 instruction does to the 16 general
 * registers, for value recovery (recover.c): Capstone's operand details
 * turned into a small set of exact operations that can be run forwards
 * (outputs from known inputs) and, where no bit is lost, backwards (inputs
 * from known outputs).  Every other instruction is "unmodelled": whatever
 * it may write becomes unknown.  Flags, vector registers and memory are not
 * modelled here.
 *
 * Registers are numbered as enum hwtr_amd64_regno: 0 rax .. 15 r15.
 */
#ifndef HWTR_RECOVER_X86_H
#define HWTR_RECOVER_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECOVER_NREGS 16
#define RECOVER_NOREG 0xff
#define RECOVER_ALL_REGS 0xffffu

enum recover_kind {
	recover_unmodelled = 0,	/* WRITES become unknown */
	recover_mov_imm,	/* dst = imm */
	recover_mov,		/* dst = src */
	recover_lea,		/* dst = base + index * scale + imm */
	recover_alu_imm,	/* dst = dst ALU imm */
	recover_alu,		/* dst = dst ALU src */
	recover_unary,		/* dst = ALU dst (inc, dec, neg, not) */
	recover_shift_imm,	/* dst = dst shifted by imm */
	recover_rsp_adjust,	/* rsp += imm: push, call, ret (and pop's rsp) */
	recover_pop,		/* rsp += 8, dst loaded (unknown) */
	recover_leave,		/* rsp = rbp + 8, rbp loaded */
	recover_load,		/* dst = the memory operand (mov r, [m]; movzx,
				 * movsx: msize bytes extended, signed when alu
				 * is 1) */
	recover_extend,		/* dst = the low msize bytes of src, extended
				 * (movzx, movsx, movsxd; signed when alu is 1) */
	recover_syscall,	/* rax, rcx, r11 unknown; the rest kept when
				 * the call number says so (recover_x86_*);
				 * alu 1: r11 kept too (VEX's syscall: the
				 * program ran under Valgrind) */
	recover_clobber,	/* not an instruction: a step the code does
				 * not explain; every register unknown */
	recover_alu_mem,	/* dst = dst ALU the memory operand (msize ==
				 * width bytes; recover.c supplies them) */
	recover_mul_imm,	/* dst = src * imm (imul r, r, imm) */
	recover_shift_cl,	/* dst = dst shifted or rotated by cl */
	recover_xchg,		/* dst and src swap */
	recover_sign_fill,	/* dst = every bit the sign of src (cqo, cdq) */
	recover_bswap,		/* dst = dst's bytes reversed */
	recover_compare,	/* flags only: dst compared with src, or with
				 * imm when src is RECOVER_NOREG (alu
				 * recover_sub: cmp; recover_and: test) */
	recover_setcc,		/* low byte of dst = cond of the comparison
				 * (recover-flags.h) */
	recover_cmov,		/* dst = cond of the comparison ? src : dst */
	recover_mul_wide,	/* rdx:rax = rax * src (mul; imul when alu is
				 * 1), forwards only */
	recover_bit_scan,	/* dst = bit index or count of src (alu: enum
				 * recover_bit_op), forwards only */
	recover_compare_any,	/* flags only: cmp (alu recover_sub) or test
				 * (recover_and) that recover_compare does not
				 * take: of 8 or 16 bits, or with a memory
				 * operand.  The first operand is register dst,
				 * or the memory when dst is RECOVER_NOREG; the
				 * second register src, or imm, or the memory
				 * when scale is 2.  Its memory operand's value,
				 * when recover.c knows it: vimm, with vkind
				 * recover_value_imm. */
};

/* What a recover_bit_scan computes.  bsf, bsr and tzcnt only when the
 * source is not zero: bsf/bsr then leave dst as the manual does not say,
 * and tzcnt runs as bsf on a CPU without BMI1 (the same for a source not
 * zero). */
enum recover_bit_op {
	recover_bit_forward,	/* bsf, tzcnt: the lowest set bit's index */
	recover_bit_reverse,	/* bsr: the highest set bit's index */
	recover_bit_count,	/* popcnt: the number of set bits */
};

/* The conditions of jcc, setcc and cmovcc (recover-branch.h,
 * recover-flags.h); recover_cond_none for any other instruction. */
enum recover_cond {
	recover_cond_none = 0,
	recover_cond_o, recover_cond_no,	/* OF, !OF */
	recover_cond_b, recover_cond_ae,	/* CF, !CF */
	recover_cond_e, recover_cond_ne,	/* ZF, !ZF */
	recover_cond_be, recover_cond_a,	/* CF|ZF, !(CF|ZF) */
	recover_cond_s, recover_cond_ns,	/* SF, !SF */
	recover_cond_p, recover_cond_np,	/* PF, !PF */
	recover_cond_l, recover_cond_ge,	/* SF!=OF, SF==OF */
	recover_cond_le, recover_cond_g,	/* ZF|SF!=OF, !ZF&&SF==OF */
};

enum recover_alu {
	recover_add, recover_sub, recover_xor, recover_and, recover_or,
	recover_inc, recover_dec, recover_neg, recover_not,
	recover_shl, recover_shr, recover_sar,
	recover_mul, recover_rol, recover_ror,
	recover_result,		/* a comparison's: flags from dst alone (ZF,
				 * SF, PF); CF and OF not known
				 * (recover-flags.h) */
	recover_flags_given,	/* a setcc's or cmov's: the flags are imm
				 * (recover-flags.h) */
	recover_add_carry,	/* adc with CF set: dst + src + 1 */
	recover_sub_borrow,	/* sbb with CF set: dst - src - 1 */
	recover_adc,		/* adc, sbb: recover_add or recover_sub with */
	recover_sbb,		/* the carry flag (recover.c supplies it) */
};

/* The eflags bits: the six arithmetic flags, which ordinary instructions
 * set, and the rest (DF, IF, TF, AC, ID, the reserved bits, ...), which
 * only popf, iret, std/cld and the like change. */
#define RECOVER_CF 0x1u
#define RECOVER_PF 0x4u
#define RECOVER_AF 0x10u
#define RECOVER_ZF 0x40u
#define RECOVER_SF 0x80u
#define RECOVER_OF 0x800u
#define RECOVER_FLAGS_ARITH 0x8d5u
#define RECOVER_FLAGS_ALL 0xffffffffu

/* What an operation does to memory. */
enum recover_mem_kind {
	recover_mem_none = 0,
	recover_mem_load,	/* reads [address] into dst (load, pop, leave) */
	recover_mem_store,	/* writes [address] (value: vkind) */
	recover_mem_any,	/* may write memory at an unknown place (rep
				 * strings, system calls, signals, unknown
				 * instructions) */
	recover_mem_syscall,	/* any, unless the call number says not */
};

/* The segment of a memory operand: none (flat), or fs, whose base is the
 * thread's TLS pointer (the stack protector's canary, the pointer guard,
 * errno).  gs and 32-bit addressing are not modelled: such an operand is
 * an unknown address. */
enum recover_segment {
	recover_seg_none = 0,
	recover_seg_fs,
};

enum recover_value_kind {
	recover_value_unknown = 0,
	recover_value_reg,	/* the low msize bytes of vreg */
	recover_value_imm,	/* vimm */
};

struct recover_op {
	uint8_t kind;		/* enum recover_kind */
	uint8_t alu;		/* enum recover_alu */
	uint8_t width;		/* operand size: 4 (zero-extends) or 8 */
	uint8_t dst, src, base, index, scale;	/* RECOVER_NOREG if none */
	uint16_t writes;	/* bit per register it may change */
	uint32_t fwrites;	/* eflags bits it may change */
	uint8_t cond;		/* enum recover_cond of a jcc, setcc, cmovcc */
	uint8_t target_reg;	/* an indirect jump or call through a
				 * register: the register + 1; else 0 */
	int64_t imm;		/* immediate, displacement (absolute for
				 * rip-relative lea) or rsp change */
	/* Memory: [mbase + mindex * mscale + mdisp] (a register before the
	 * operation; rip-relative resolved into mdisp), msize bytes. */
	uint8_t mkind;		/* enum recover_mem_kind */
	uint8_t msize;
	uint8_t mbase, mindex, mscale;
	uint8_t mseg;		/* enum recover_segment: fs adds the thread's
				 * fs base (recover.c) */
	bool sets_fs;		/* may change the fs base (wrfsbase, a load
				 * of fs, an instruction not decoded) */
	uint8_t vkind, vreg;	/* a store's value */
	int64_t mdisp;
	int64_t vimm;
};

struct recover_x86;

int recover_x86_open(struct recover_x86 **x86);
void recover_x86_close(struct recover_x86 *x86);

/* What the instruction RAW (SIZE bytes) at IP does: OP; *TARGET the
 * destination of a direct jump or call, else 0.  Never fails: an
 * instruction Capstone cannot decode is unmodelled with every register
 * written. */
void recover_x86_decode(struct recover_x86 *x86, uint64_t ip,
			const uint8_t *raw, size_t size, struct recover_op *op,
			uint64_t *target);

/* Forwards: from the registers before (VAL, KNOWN mask), the registers the
 * operation writes afterwards, in OUT where bit set in the returned mask.
 * Registers of OP->writes not in the mask are unknown after it. */
uint16_t recover_x86_forward(const struct recover_op *op, const uint64_t *val,
			     uint16_t known, uint64_t *out);

/* Backwards: from the registers after (VAL, KNOWN), the registers before
 * that can be proven: returns the mask of OUT that is set.  For a register
 * of OP->writes that is its old value; for one it does not write, its value
 * (which the operation's result showed, e.g. the source of a move). */
uint16_t recover_x86_backward(const struct recover_op *op, const uint64_t *val,
			      uint16_t known, uint64_t *out);

/* A 64-bit cmov OP whose condition is not known, backwards, from the
 * registers after it (VAL, KNOWN) and its destination's value before it (OLD, when OLD_KNOWN: recover_x86_backward
 * does not see it): a destination after it other than OLD shows that it
 * moved, so the source held that value; one other than the source shows
 * that it did not, so the destination held it before.  The mask of OUT
 * set.  A 32-bit cmov zeroes the upper half either way: nothing. */
uint16_t recover_x86_cmov_outcome(const struct recover_op *op,
				  const uint64_t *val, uint16_t known,
				  uint64_t old, bool old_known, uint64_t *out);

/* The mnemonic of the instruction RAW (SIZE bytes) at IP in BUF (LEN
 * bytes), "(bad)" when Capstone cannot decode it: for reports. */
void recover_x86_mnemonic(struct recover_x86 *x86, uint64_t ip,
			  const uint8_t *raw, size_t size, char *buf,
			  size_t len);

/* The value a load of OP gives from its MSIZE bytes BYTES. */
uint64_t recover_x86_loaded(const struct recover_op *op, const uint8_t *bytes);

/* Whether a system call numbered NR (rax) leaves every register but rax,
 * rcx and r11 as it was: false for rt_sigreturn and the execs. */
bool recover_x86_syscall_keeps_registers(uint64_t nr);

/* Whether a system call numbered NR surely writes no user memory (write,
 * close, getpid, kill, ...): a short list; any other may. */
bool recover_x86_syscall_keeps_memory(uint64_t nr);

/* Whether a system call numbered NR surely leaves every page that is
 * mapped at the end as it was before the call (its place, protection and
 * contents but for the memory the call writes): those of
 * recover_x86_syscall_keeps_memory but mprotect, those of
 * recover_x86_syscall_buffer, brk (it maps only writable heap pages: one
 * read-only at the end was protected by a later call, which counts) and
 * munmap (it only removes pages: one present at the end that it removed
 * was mapped again by a later call, which counts).  Any other may map,
 * protect or drop pages (mmap, mremap, madvise, an exec, ...). */
bool recover_x86_syscall_keeps_mappings(uint64_t nr);

/* Whether a system call numbered NR with flags FLAGS (r10) surely changes
 * no page that is mapped at the call, only maps new ones: mmap without
 * MAP_FIXED or MAP_FIXED_NOREPLACE, which takes addresses free at the
 * call.  A page present before it is present after it with the same
 * protection and contents; but one that an earlier munmap or brk
 * removed may come back with other bytes (recover_x86_syscall_removes_
 * mappings). */
bool recover_x86_syscall_only_adds_mappings(uint64_t nr, uint64_t flags);

/* Whether a system call numbered NR (one of those
 * recover_x86_syscall_keeps_mappings takes) may remove pages: munmap and
 * brk (which shrinks the heap). */
bool recover_x86_syscall_removes_mappings(uint64_t nr);

/* Whether a system call numbered NR surely leaves this thread's fs base
 * as it was: false for arch_prctl, set_thread_area, clone, the execs and
 * rt_sigreturn. */
bool recover_x86_syscall_keeps_fs(uint64_t nr);

/* The one user buffer a system call numbered NR writes, when that is all
 * it writes: its address is register *ADDR_REG; its length register
 * *LEN_REG, or *LEN bytes when *LEN_REG is RECOVER_NOREG (read's buffer,
 * fstat's struct stat, ...).  False for any other call. */
bool recover_x86_syscall_buffer(uint64_t nr, unsigned *addr_reg,
				unsigned *len_reg, uint64_t *len);

#endif /* HWTR_RECOVER_X86_H */
