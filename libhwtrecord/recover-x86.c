/* recover-x86.c: x86-64 instruction semantics for value recovery (see
 * recover-x86.h).
 *
 * Modelled exactly, on 64- and 32-bit general registers only: mov of a
 * register or an immediate, lea, add/sub/xor/and/or/imul with a register,
 * an immediate or a memory operand (recover.c supplies its bytes),
 * inc/dec/neg/not, shl/shr/sar/rol/ror by an immediate or by cl, xchg,
 * bswap, cdqe/cqo/cdq, movzx/movsx, push/pop/call/ret/leave's change of
 * rsp, and syscall; forwards only, one-operand mul/imul of a register,
 * popcnt, and bsf/tzcnt/bsr of a source not zero.  An fs: memory operand
 * has an address (recover.c adds the fs base); gs: has none.  A 32-bit result zero-extends, so it is computed
 * forwards but never inverted (the old upper half is lost).  Comparisons
 * (cmp, test, bt) write no register.  An 8- or 16-bit destination (not
 * ah..dh) is modelled forwards for moves, ALU operations and shifts by an
 * immediate (model()).  Anything else (narrow loads, flags inputs like
 * adc, cmov, setcc, gs: or address-size prefixes) is
 * unmodelled: every register Capstone says it writes, and its first
 * register operand, become unknown.
 *
 * Valgrind's client request (rol rdi by 3, 13, 61, 51, then xchg rbx,rbx)
 * sets rdx when the program runs under Valgrind, which the software source
 * does: the xchg is taken to write rdx too.
 */
#include "recover-x86.h"
#include "recover-flags.h"

#include "error.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct recover_x86 {
	csh cs;
	cs_insn *insn;
};

int recover_x86_open(struct recover_x86 **out)
{
	struct recover_x86 *x86 = calloc(1, sizeof(*x86));

	if (!x86)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &x86->cs) != CS_ERR_OK) {
		free(x86);
		return hwtr_fail(hwtr_err_invalid, "capstone: cannot open x86-64");
	}
	cs_option(x86->cs, CS_OPT_DETAIL, CS_OPT_ON);
	x86->insn = cs_malloc(x86->cs);
	if (!x86->insn) {
		cs_close(&x86->cs);
		free(x86);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	*out = x86;
	return 0;
}

void recover_x86_close(struct recover_x86 *x86)
{
	if (!x86)
		return;
	cs_free(x86->insn, 1);
	cs_close(&x86->cs);
	free(x86);
}

void recover_x86_mnemonic(struct recover_x86 *x86, uint64_t ip,
			  const uint8_t *raw, size_t size, char *buf,
			  size_t len)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;

	snprintf(buf, len, "%s",
		 cs_disasm_iter(x86->cs, &code, &size, &addr, x86->insn)
		 ? x86->insn->mnemonic : "(bad)");
}

/* The general register (0..15) that Capstone's REG is part of, and its
 * size in bytes; RECOVER_NOREG for any other register. */
static unsigned gpr(unsigned reg, unsigned *size)
{
	static const struct {
		unsigned r64, r32, r16, r8, r8h;
	} map[RECOVER_NREGS] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0 },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0 },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0 },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0 },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0 },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0 },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0 },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0 },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0 },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0 },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0 },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0 },
	};
	unsigned i;

	if (reg == X86_REG_INVALID)
		return RECOVER_NOREG;
	for (i = 0; i < RECOVER_NREGS; i++) {
		*size = reg == map[i].r64 ? 8 : reg == map[i].r32 ? 4 :
			reg == map[i].r16 ? 2 :
			reg == map[i].r8 || (map[i].r8h && reg == map[i].r8h) ? 1 : 0;
		if (*size)
			return i;
	}
	return RECOVER_NOREG;
}

/* OP moves rsp down 8 bytes and stores 8 bytes at the new [rsp] (push,
 * call); the caller says what value. */
static void push_op(struct recover_op *op)
{
	op->kind = recover_rsp_adjust;
	op->imm = -8;
	op->mkind = recover_mem_store;
	op->msize = 8;
	op->mbase = 7;	/* rsp */
	op->mindex = RECOVER_NOREG;
	op->mscale = 1;
	op->mdisp = -8;
	op->mseg = recover_seg_none;	/* (push fs:[m] read through fs) */
}

/* Registers some instructions write without naming them, which Capstone
 * 4 leaves out of its list for some (cmpxchg's rax, xlat, enter): named
 * here for every such instruction, whatever Capstone says. */
static uint16_t implicit_writes(unsigned id)
{
	enum { AX = 1u << 0, CX = 1u << 2, DX = 1u << 3, BX = 1u << 1,
	       SI = 1u << 4, DI = 1u << 5, BP = 1u << 6, SP = 1u << 7 };

	switch (id) {
	case X86_INS_CMPXCHG: case X86_INS_XLATB: case X86_INS_LAHF:
	case X86_INS_CBW: case X86_INS_CWDE: case X86_INS_CDQE:
		return AX;
	case X86_INS_CMPXCHG8B: case X86_INS_CMPXCHG16B: case X86_INS_MUL:
	case X86_INS_IMUL: case X86_INS_DIV: case X86_INS_IDIV:
	case X86_INS_RDTSC: case X86_INS_XGETBV:
	case X86_INS_RDMSR:
		return AX | DX;
	case X86_INS_CWD: case X86_INS_CDQ: case X86_INS_CQO:
		return DX;
	case X86_INS_RDTSCP:
		return AX | CX | DX;
	case X86_INS_CPUID:
		return AX | BX | CX | DX;
	case X86_INS_ENTER:
		return SP | BP;
	case X86_INS_PUSH: case X86_INS_POP: case X86_INS_PUSHF:
	case X86_INS_PUSHFQ: case X86_INS_POPF: case X86_INS_POPFQ:
	case X86_INS_CALL: case X86_INS_RET:
		return SP;	/* also push fs / pop fs, which Capstone misses */
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD:
	case X86_INS_LODSQ:
		return AX | SI | CX;
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_SCASB: case X86_INS_SCASW:
	case X86_INS_SCASD: case X86_INS_SCASQ:
		return DI | CX;
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
	case X86_INS_MOVSQ: case X86_INS_CMPSB: case X86_INS_CMPSW:
	case X86_INS_CMPSD: case X86_INS_CMPSQ:
		return SI | DI | CX;
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return CX;
	default:
		return 0;
	}
}

/* Every general register INSN may write, by Capstone's account, plus its
 * first register operand (unless it only compares): more than it writes is
 * safe, less would not be. */
static uint16_t written_registers(csh cs, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;
	uint16_t mask = 0;
	unsigned r, size;

	/* Comparisons write only the flags, whatever Capstone 4 says of
	 * their operands (it has test imm, al write al). */
	if (insn->id == X86_INS_CMP || insn->id == X86_INS_TEST ||
	    insn->id == X86_INS_BT)
		return 0;
	if (cs_regs_access(cs, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return RECOVER_ALL_REGS;
	for (i = 0; i < nwr; i++)
		if ((r = gpr(wr[i], &size)) != RECOVER_NOREG)
			mask |= 1u << r;
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG &&
		    (x->operands[i].access & CS_AC_WRITE) &&
		    (r = gpr(x->operands[i].reg, &size)) != RECOVER_NOREG)
			mask |= 1u << r;
	if (x->op_count > 0 && x->operands[0].type == X86_OP_REG &&
	    !cs_insn_group(cs, insn, CS_GRP_JUMP) &&
	    !cs_insn_group(cs, insn, CS_GRP_CALL) &&
	    insn->id != X86_INS_CMP && insn->id != X86_INS_TEST &&
	    insn->id != X86_INS_BT && insn->id != X86_INS_PUSH &&
	    (r = gpr(x->operands[0].reg, &size)) != RECOVER_NOREG)
		mask |= 1u << r;
	mask |= implicit_writes(insn->id);
	/* Valgrind's client request: xchg rbx,rbx returns in rdx. */
	if (insn->id == X86_INS_XCHG && x->op_count == 2 &&
	    x->operands[0].type == X86_OP_REG &&
	    x->operands[0].reg == X86_REG_RBX &&
	    x->operands[1].type == X86_OP_REG &&
	    x->operands[1].reg == X86_REG_RBX)
		mask |= 1u << 3;
	return mask;
}

/* Whether INSN may change the fs base: wrfsbase, a load of the fs
 * selector (mov fs, pop fs, lfs), whatever Capstone says writes fs. */
static bool changes_fs(csh cs, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;

	if (insn->id == X86_INS_WRFSBASE || insn->id == X86_INS_LFS)
		return true;
	if (cs_regs_access(cs, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;
	for (i = 0; i < nwr; i++)
		if (wr[i] == X86_REG_FS)
			return true;
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG &&
		    x->operands[i].reg == X86_REG_FS &&
		    (insn->id == X86_INS_MOV || insn->id == X86_INS_POP))
			return true;
	return false;
}

/* A prefix that changes what the operands mean: a segment override other
 * than fs: (gs:; an fs: memory operand is modelled, memory_address),
 * address size. */
static bool odd_prefix(const cs_x86 *x)
{
	return (x->prefix[1] != 0 && x->prefix[1] != X86_PREFIX_FS) ||
	       x->prefix[3] != 0;
}

static bool alu_of(unsigned id, uint8_t *alu)
{
	switch (id) {
	case X86_INS_ADD: *alu = recover_add; return true;
	case X86_INS_SUB: *alu = recover_sub; return true;
	case X86_INS_XOR: *alu = recover_xor; return true;
	case X86_INS_AND: *alu = recover_and; return true;
	case X86_INS_OR: *alu = recover_or; return true;
	case X86_INS_INC: *alu = recover_inc; return true;
	case X86_INS_DEC: *alu = recover_dec; return true;
	case X86_INS_NEG: *alu = recover_neg; return true;
	case X86_INS_NOT: *alu = recover_not; return true;
	case X86_INS_SHL: *alu = recover_shl; return true;
	case X86_INS_SHR: *alu = recover_shr; return true;
	case X86_INS_SAR: *alu = recover_sar; return true;
	case X86_INS_IMUL: *alu = recover_mul; return true;
	case X86_INS_ROL: *alu = recover_rol; return true;
	case X86_INS_ROR: *alu = recover_ror; return true;
	case X86_INS_ADC: *alu = recover_adc; return true;
	case X86_INS_SBB: *alu = recover_sbb; return true;
	default: return false;
	}
}

/* OP's memory address from Capstone's M: false when it cannot be computed
 * from the general registers and the fs base (a gs base, 32-bit
 * addressing). */
static bool memory_address(const cs_insn *insn, const x86_op_mem *m,
			   struct recover_op *op)
{
	unsigned r, size;

	if ((m->segment != X86_REG_INVALID && m->segment != X86_REG_FS) ||
	    insn->detail->x86.prefix[3])
		return false;
	op->mseg = m->segment == X86_REG_FS ? recover_seg_fs : recover_seg_none;
	op->mdisp = m->disp;
	op->mscale = (uint8_t)(m->scale ? m->scale : 1);
	if (m->base == X86_REG_RIP) {
		op->mdisp += (int64_t)(insn->address + insn->size);
	} else if (m->base != X86_REG_INVALID) {
		if ((r = gpr(m->base, &size)) == RECOVER_NOREG || size != 8)
			return false;
		op->mbase = (uint8_t)r;
	}
	if (m->index != X86_REG_INVALID) {
		if ((r = gpr(m->index, &size)) == RECOVER_NOREG || size != 8)
			return false;
		op->mindex = (uint8_t)r;
	}
	return true;
}

/* Whether INSN's memory operand I is written.  Intel's operand order puts
 * the destination first, so a first memory operand is taken to be written
 * unless the instruction only reads it; Capstone's access flags add to
 * that (they miss some stores, so they alone are not trusted), except for
 * the instructions that only read memory by the manual (Capstone 4 says
 * test [m], imm writes [m]: a store, to an address often not known, would
 * be a barrier to everything the end state proves before it). */
static bool memory_written(const cs_insn *insn, unsigned i)
{
	const cs_x86_op *o = &insn->detail->x86.operands[i];

	switch (insn->id) {
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
		return false;
	default:
		break;
	}
	if (o->access & CS_AC_WRITE)
		return true;
	switch (insn->id) {
	case X86_INS_XCHG: case X86_INS_XADD: case X86_INS_CMPXCHG:
		return true;
	case X86_INS_CMP: case X86_INS_TEST: case X86_INS_BT:
	case X86_INS_PUSH: case X86_INS_JMP: case X86_INS_CALL:
	case X86_INS_MUL: case X86_INS_IMUL: case X86_INS_DIV:
	case X86_INS_IDIV: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_NOP:
	case X86_INS_LEA:
		return false;
	default:
		return i == 0;
	}
}

/* A movs or stos without a rep prefix: one store of 1, 2, 4 or 8 bytes
 * at [rdi] (es, whose base is 0 in 64-bit mode), whichever way the
 * direction flag then moves rdi; stos stores the low bytes of rax, movs
 * what [rsi] held (not followed).  Only the plain encodings (an operand
 * size or REX prefix): a rep, an address size (edi) or any other prefix
 * stays a write of unknown extent.  False otherwise. */
static bool string_store(const cs_insn *insn, struct recover_op *op)
{
	const uint8_t *b = insn->bytes;
	size_t i = 0;
	bool wide = false, narrow = false;

	for (; i < insn->size; i++) {
		if (b[i] == 0x66)
			narrow = true, wide = false;	/* a REX counts only last */
		else if (b[i] >= 0x40 && b[i] <= 0x4f)
			wide = b[i] & 8;
		else
			break;
	}
	if (i + 1 != insn->size || (b[i] != 0xa4 && b[i] != 0xa5 &&
				    b[i] != 0xaa && b[i] != 0xab))
		return false;
	op->mkind = recover_mem_store;
	op->mseg = recover_seg_none;
	op->mbase = 5;		/* rdi */
	op->mindex = RECOVER_NOREG;
	op->mscale = 1;
	op->mdisp = 0;
	op->msize = (b[i] & 1) == 0 ? 1 : wide ? 8 : narrow ? 2 : 4;
	op->vkind = recover_value_unknown;
	if (b[i] == 0xaa || b[i] == 0xab) {
		op->vkind = recover_value_reg;
		op->vreg = 0;	/* rax */
	}
	return true;
}

/* What INSN does to memory, in OP's m* and v* fields. */
static void memory_model(const cs_insn *insn, struct recover_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *o = x->operands;
	unsigned i, nwrite = 0, nread = 0, w = 0, rd = 0, r, size;

	op->mkind = recover_mem_none;
	switch (insn->id) {
	case X86_INS_SYSCALL:
		op->mkind = recover_mem_syscall;
		return;
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD:
	case X86_INS_MOVSQ: case X86_INS_STOSB: case X86_INS_STOSW:
	case X86_INS_STOSD: case X86_INS_STOSQ:
		/* (MOVSD is also SSE's movsd, which string_store refuses,
		 * its opcode being f2 0f 10/11, and which stays a write
		 * of unknown extent as before) */
		if (string_store(insn, op))
			return;
		op->mkind = recover_mem_any;
		return;
	case X86_INS_ENTER:
	case X86_INS_PUSHF: case X86_INS_PUSHFD: case X86_INS_PUSHFQ:
	case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_XSAVE:
	case X86_INS_XSAVE64: case X86_INS_XSAVEC: case X86_INS_XSAVEC64:
	case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64: case X86_INS_XSAVES:
	case X86_INS_XSAVES64: case X86_INS_MASKMOVDQU: case X86_INS_MASKMOVQ:
	case X86_INS_INT: case X86_INS_INT3: case X86_INS_SYSENTER:
	case X86_INS_INTO:
	case X86_INS_POP:	/* pop [m]: the address is computed after rsp
				 * moved (pop into a register is modelled) */
		op->mkind = recover_mem_any;
		return;
	default:
		break;
	}
	for (i = 0; i < x->op_count; i++) {
		if (o[i].type != X86_OP_MEM)
			continue;
		if (memory_written(insn, i)) {
			nwrite++;
			w = i;
		} else {
			nread++;
			rd = i;
		}
	}
	if (!nwrite && !nread)
		return;
	if (nwrite > 1 || (nwrite && (x->prefix[0] == X86_PREFIX_REP ||
				     x->prefix[0] == X86_PREFIX_REPNE))) {
		op->mkind = recover_mem_any;
		return;
	}
	if (nwrite) {
		if (!memory_address(insn, &o[w].mem, op) || !o[w].size ||
		    o[w].size > 64) {
			op->mkind = recover_mem_any;
			return;
		}
		op->mkind = recover_mem_store;
		op->msize = o[w].size;
		if (insn->id != X86_INS_MOV || x->op_count != 2 || w != 0)
			return;
		if (o[1].type == X86_OP_IMM) {
			op->vkind = recover_value_imm;
			op->vimm = o[1].imm;
		} else if (o[1].type == X86_OP_REG &&
			   (r = gpr(o[1].reg, &size)) != RECOVER_NOREG &&
			   size == op->msize && o[1].reg != X86_REG_AH &&
			   o[1].reg != X86_REG_BH && o[1].reg != X86_REG_CH &&
			   o[1].reg != X86_REG_DH) {
			op->vkind = recover_value_reg;
			op->vreg = (uint8_t)r;
		}
		return;
	}
	if (nread == 1 && memory_address(insn, &o[rd].mem, op) &&
	    (o[rd].size == 1 || o[rd].size == 2 || o[rd].size == 4 ||
	     o[rd].size == 8)) {
		op->mkind = recover_mem_load;
		op->msize = o[rd].size;
	}
}

/* ah, bh, ch, dh: bits 8-15 of a register. */
static bool high_byte(unsigned reg)
{
	return reg == X86_REG_AH || reg == X86_REG_BH || reg == X86_REG_CH ||
	       reg == X86_REG_DH;
}

/* Fill OP's exact model of INSN when it has one; false otherwise. */
static bool model_any(const cs_insn *insn, struct recover_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *o = x->operands;
	unsigned dst = RECOVER_NOREG, dsize = 0, ssize = 0, b, i, s;
	uint8_t alu;

	if (x->op_count >= 1 && o[0].type == X86_OP_REG)
		dst = gpr(o[0].reg, &dsize);
	switch (insn->id) {
	case X86_INS_PUSH:
		if (x->op_count != 1 || o[0].size != 8)
			return false;
		/* The store to [rsp - 8]: its value a register, an immediate
		 * or a memory operand's (unknown). */
		push_op(op);
		op->vkind = recover_value_unknown;
		if (o[0].type == X86_OP_IMM) {
			op->vkind = recover_value_imm;
			op->vimm = o[0].imm;
		} else if (dst != RECOVER_NOREG && dsize == 8 && dst != 7) {
			op->vkind = recover_value_reg;
			op->vreg = (uint8_t)dst;
		}
		return true;
	case X86_INS_CALL:
		push_op(op);	/* the return address */
		op->vkind = recover_value_imm;
		op->vimm = (int64_t)(insn->address + insn->size);
		return true;
	case X86_INS_RET:
		op->kind = recover_rsp_adjust;
		op->imm = 8;
		if (x->op_count == 1 && o[0].type == X86_OP_IMM)
			op->imm += (uint16_t)o[0].imm;
		else if (x->op_count != 0)
			return false;
		return true;
	case X86_INS_POP:
		if (x->op_count != 1 || dsize != 8 || dst == 7)
			return false;
		op->kind = recover_pop;
		op->dst = (uint8_t)dst;
		op->imm = 8;
		op->mkind = recover_mem_load;
		op->msize = 8;
		op->mbase = 7;
		op->mindex = RECOVER_NOREG;
		op->mscale = 1;
		op->mdisp = 0;
		op->mseg = recover_seg_none;
		return true;
	case X86_INS_LEAVE:
		op->kind = recover_leave;
		op->mkind = recover_mem_load;	/* rbp = [rbp] */
		op->msize = 8;
		op->mbase = 6;
		op->mindex = RECOVER_NOREG;
		op->mscale = 1;
		op->mdisp = 0;
		op->mseg = recover_seg_none;
		return true;
	case X86_INS_SYSCALL:
		op->kind = recover_syscall;
		/* The kernel returns with rcx the address after it. */
		op->imm = (int64_t)(insn->address + insn->size);
		return true;
	case X86_INS_CDQE:	/* rax = eax sign-extended */
		op->kind = recover_extend;
		op->dst = op->src = 0;
		op->alu = 1;
		op->msize = 4;
		op->width = 8;
		return true;
	case X86_INS_MUL:
	case X86_INS_IMUL:
		/* One operand, a register: rdx:rax = rax * it. */
		if (x->op_count != 1 || dst == RECOVER_NOREG ||
		    (dsize != 4 && dsize != 8) || high_byte(o[0].reg))
			break;
		op->kind = recover_mul_wide;
		op->alu = insn->id == X86_INS_IMUL;
		op->dst = 0;	/* rax (and rdx) */
		op->src = (uint8_t)dst;
		op->width = (uint8_t)dsize;
		return true;
	case X86_INS_BSF:
	case X86_INS_TZCNT:
	case X86_INS_BSR:
	case X86_INS_POPCNT:
		if (x->op_count != 2 || dst == RECOVER_NOREG ||
		    (dsize != 4 && dsize != 8) || o[1].type != X86_OP_REG ||
		    (s = gpr(o[1].reg, &ssize)) == RECOVER_NOREG || ssize != dsize)
			return false;
		op->kind = recover_bit_scan;
		op->alu = insn->id == X86_INS_POPCNT ? recover_bit_count
			  : insn->id == X86_INS_BSR ? recover_bit_reverse
			  : recover_bit_forward;
		op->dst = (uint8_t)dst;
		op->src = (uint8_t)s;
		op->width = (uint8_t)dsize;
		return true;
	case X86_INS_CQO:	/* rdx = the sign of rax */
	case X86_INS_CDQ:	/* edx = the sign of eax */
		op->kind = recover_sign_fill;
		op->dst = 3;	/* rdx */
		op->src = 0;
		op->width = insn->id == X86_INS_CQO ? 8 : 4;
		return true;
	default:
		break;
	}
	if (odd_prefix(x) || dst == RECOVER_NOREG || high_byte(o[0].reg))
		return false;
	op->dst = (uint8_t)dst;
	op->width = (uint8_t)dsize;
	switch (insn->id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (x->op_count != 2)
			return false;
		if (o[1].type == X86_OP_IMM) {
			op->kind = recover_mov_imm;
			op->imm = o[1].imm;
			return true;
		}
		if (o[1].type == X86_OP_REG &&
		    (op->src = (uint8_t)gpr(o[1].reg, &ssize)) != RECOVER_NOREG &&
		    ssize == dsize) {
			op->kind = recover_mov;
			return true;
		}
		if (o[1].type == X86_OP_MEM && op->mkind == recover_mem_load &&
		    op->msize == dsize) {
			op->kind = recover_load;
			return true;
		}
		return false;
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (x->op_count != 2)
			return false;
		op->alu = insn->id != X86_INS_MOVZX;
		if (o[1].type == X86_OP_MEM && op->mkind == recover_mem_load &&
		    op->msize < dsize) {
			op->kind = recover_load;
			return true;
		}
		if (o[1].type == X86_OP_REG &&
		    (op->src = (uint8_t)gpr(o[1].reg, &ssize)) != RECOVER_NOREG &&
		    ssize < dsize && o[1].reg != X86_REG_AH &&
		    o[1].reg != X86_REG_BH && o[1].reg != X86_REG_CH &&
		    o[1].reg != X86_REG_DH) {
			op->kind = recover_extend;
			op->msize = (uint8_t)ssize;
			return true;
		}
		return false;
	case X86_INS_LEA:
		if (x->op_count != 2 || o[1].type != X86_OP_MEM ||
		    o[1].mem.segment != X86_REG_INVALID)
			return false;
		op->kind = recover_lea;
		op->imm = o[1].mem.disp;
		op->scale = (uint8_t)o[1].mem.scale;
		if (o[1].mem.base == X86_REG_RIP) {
			op->imm += (int64_t)(insn->address + insn->size);
		} else if (o[1].mem.base != X86_REG_INVALID) {
			if ((b = gpr(o[1].mem.base, &s)) == RECOVER_NOREG || s != 8)
				return false;
			op->base = (uint8_t)b;
		}
		if (o[1].mem.index != X86_REG_INVALID) {
			if ((i = gpr(o[1].mem.index, &s)) == RECOVER_NOREG || s != 8)
				return false;
			op->index = (uint8_t)i;
		}
		return true;
	default:
		break;
	}
	if (insn->id == X86_INS_BSWAP) {
		op->kind = recover_bswap;
		return x->op_count == 1;
	}
	/* xchg r, r (not Valgrind's client request xchg rbx, rbx, which
	 * sets rdx under Valgrind). */
	if (insn->id == X86_INS_XCHG) {
		if (x->op_count != 2 || o[1].type != X86_OP_REG ||
		    (op->src = (uint8_t)gpr(o[1].reg, &ssize)) == RECOVER_NOREG ||
		    ssize != dsize || op->src == dst)
			return false;
		op->kind = recover_xchg;
		return true;
	}
	if (!alu_of(insn->id, &alu))
		return false;
	op->alu = alu;
	/* imul r, r/m, imm: the 3-operand form. */
	if (alu == recover_mul && x->op_count == 3) {
		if (o[2].type != X86_OP_IMM || o[1].type != X86_OP_REG ||
		    (op->src = (uint8_t)gpr(o[1].reg, &ssize)) == RECOVER_NOREG ||
		    ssize != dsize)
			return false;
		op->kind = recover_mul_imm;
		op->imm = o[2].imm;
		return true;
	}
	if (alu == recover_inc || alu == recover_dec || alu == recover_neg ||
	    alu == recover_not) {
		if (x->op_count != 1)
			return false;
		op->kind = recover_unary;
		return true;
	}
	if (x->op_count != 2)
		return false;
	if (alu == recover_shl || alu == recover_shr || alu == recover_sar ||
	    alu == recover_rol || alu == recover_ror) {
		if (o[1].type == X86_OP_REG && o[1].reg == X86_REG_CL) {
			op->kind = recover_shift_cl;
			return true;
		}
		if (o[1].type != X86_OP_IMM)
			return false;
		op->kind = recover_shift_imm;
		op->imm = o[1].imm & (dsize == 8 ? 63 : 31);
		return true;
	}
	if (o[1].type == X86_OP_MEM && op->mkind == recover_mem_load &&
	    op->msize == dsize) {
		op->kind = recover_alu_mem;
		return true;
	}
	if (alu == recover_mul && o[1].type == X86_OP_IMM)
		return false;
	if (o[1].type == X86_OP_IMM) {
		op->kind = recover_alu_imm;
		op->imm = o[1].imm;
		return true;
	}
	if (o[1].type == X86_OP_REG &&
	    (op->src = (uint8_t)gpr(o[1].reg, &ssize)) != RECOVER_NOREG &&
	    ssize == dsize) {
		op->kind = recover_alu;
		return true;
	}
	return false;
}

/* An 8- or 16-bit destination keeps the register's other bits: only
 * moves and ALU operations on registers and immediates are modelled
 * (forwards, from the register's old value), not loads, rotates or
 * shifts by cl. */
static bool model(const cs_insn *insn, struct recover_op *op)
{
	const cs_x86 *x = &insn->detail->x86;

	if (!model_any(insn, op))
		return false;
	if (op->width != 1 && op->width != 2)
		return op->width == 4 || op->width == 8 || op->width == 0;
	if (x->op_count == 2 && x->operands[1].type == X86_OP_REG &&
	    high_byte(x->operands[1].reg))
		return false;
	switch (op->kind) {
	case recover_mov_imm:
	case recover_mov:
	case recover_alu_imm:
	case recover_alu:
	case recover_unary:
		return op->alu != recover_mul;
	case recover_shift_imm:
		return op->alu == recover_shl || op->alu == recover_shr ||
		       op->alu == recover_sar;
	default:
		return false;
	}
}

/* The condition of a jcc, setcc or cmovcc; recover_cond_none for any
 * other instruction. */
static uint8_t condition_of(unsigned id)
{
	static const struct {
		unsigned jcc, setcc, cmov;
		uint8_t cond;
	} conds[] = {
		{ X86_INS_JO, X86_INS_SETO, X86_INS_CMOVO, recover_cond_o },
		{ X86_INS_JNO, X86_INS_SETNO, X86_INS_CMOVNO, recover_cond_no },
		{ X86_INS_JB, X86_INS_SETB, X86_INS_CMOVB, recover_cond_b },
		{ X86_INS_JAE, X86_INS_SETAE, X86_INS_CMOVAE, recover_cond_ae },
		{ X86_INS_JE, X86_INS_SETE, X86_INS_CMOVE, recover_cond_e },
		{ X86_INS_JNE, X86_INS_SETNE, X86_INS_CMOVNE, recover_cond_ne },
		{ X86_INS_JBE, X86_INS_SETBE, X86_INS_CMOVBE, recover_cond_be },
		{ X86_INS_JA, X86_INS_SETA, X86_INS_CMOVA, recover_cond_a },
		{ X86_INS_JS, X86_INS_SETS, X86_INS_CMOVS, recover_cond_s },
		{ X86_INS_JNS, X86_INS_SETNS, X86_INS_CMOVNS, recover_cond_ns },
		{ X86_INS_JP, X86_INS_SETP, X86_INS_CMOVP, recover_cond_p },
		{ X86_INS_JNP, X86_INS_SETNP, X86_INS_CMOVNP, recover_cond_np },
		{ X86_INS_JL, X86_INS_SETL, X86_INS_CMOVL, recover_cond_l },
		{ X86_INS_JGE, X86_INS_SETGE, X86_INS_CMOVGE, recover_cond_ge },
		{ X86_INS_JLE, X86_INS_SETLE, X86_INS_CMOVLE, recover_cond_le },
		{ X86_INS_JG, X86_INS_SETG, X86_INS_CMOVG, recover_cond_g },
	};
	size_t i;

	for (i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		if (id == conds[i].jcc || id == conds[i].setcc ||
		    id == conds[i].cmov)
			return conds[i].cond;
	return recover_cond_none;
}

/* What a branch's outcome can prove (recover-branch.c) and what setcc and
 * cmovcc need (recover-flags.c): the condition; an indirect jump's or
 * call's target register; setcc's 8-bit register, cmovcc's two
 * registers. */
static void branch_model(const cs_insn *insn, struct recover_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *o = x->operands;
	unsigned r, size, r2, size2;

	op->cond = condition_of(insn->id);
	if (op->cond && x->op_count >= 1 && o[0].type == X86_OP_REG &&
	    !odd_prefix(x) && (r = gpr(o[0].reg, &size)) != RECOVER_NOREG) {
		if (x->op_count == 1 && size == 1 && !high_byte(o[0].reg)) {
			op->dst = (uint8_t)r;	/* setcc r8 */
			op->width = 1;
		} else if (x->op_count == 2 && (size == 4 || size == 8) &&
			   o[1].type == X86_OP_REG &&
			   (r2 = gpr(o[1].reg, &size2)) != RECOVER_NOREG &&
			   size2 == size) {
			op->dst = (uint8_t)r;	/* cmovcc r, r */
			op->src = (uint8_t)r2;
			op->width = (uint8_t)size;
		}
		return;
	}
	if ((insn->id == X86_INS_JMP || insn->id == X86_INS_CALL) &&
	    x->op_count == 1 && o[0].type == X86_OP_REG &&
	    (r = gpr(o[0].reg, &size)) != RECOVER_NOREG && size == 8)
		op->target_reg = (uint8_t)(r + 1);
}

/* cmp or test of a 32- or 64-bit register with a register of the same
 * size or an immediate: a recover_compare (it writes only the flags). */
static bool compare_model(const cs_insn *insn, struct recover_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *o = x->operands;
	unsigned a, b = RECOVER_NOREG, asize, bsize;

	if ((insn->id != X86_INS_CMP && insn->id != X86_INS_TEST) ||
	    x->op_count != 2 || o[0].type != X86_OP_REG || odd_prefix(x) ||
	    (a = gpr(o[0].reg, &asize)) == RECOVER_NOREG ||
	    (asize != 4 && asize != 8))
		return false;
	if (o[1].type == X86_OP_REG) {
		if ((b = gpr(o[1].reg, &bsize)) == RECOVER_NOREG ||
		    bsize != asize)
			return false;
	} else if (o[1].type != X86_OP_IMM) {
		return false;
	}
	op->kind = recover_compare;
	op->alu = insn->id == X86_INS_CMP ? recover_sub : recover_and;
	op->width = (uint8_t)asize;
	op->dst = (uint8_t)a;
	op->src = (uint8_t)b;
	op->imm = o[1].type == X86_OP_IMM ? o[1].imm : 0;
	op->writes = 0;
	return true;
}

/* The eflags bits INSN may change, by the manual for the instructions
 * that change more than the arithmetic flags, else by Capstone's account
 * (its flag effects and its written registers together, and a list of
 * instructions known to write the arithmetic flags, whatever it says):
 * more than it writes is safe, less would not be.  A system call's are
 * recover.c's (they depend on the call); a modelled operation's are
 * recover_flags_writes'. */
static uint32_t flags_written(csh cs, const cs_insn *insn)
{
	const uint64_t system = X86_EFLAGS_MODIFY_TF | X86_EFLAGS_MODIFY_IF |
		X86_EFLAGS_MODIFY_DF | X86_EFLAGS_MODIFY_NT |
		X86_EFLAGS_MODIFY_RF | X86_EFLAGS_PRIOR_TF |
		X86_EFLAGS_PRIOR_IF | X86_EFLAGS_PRIOR_DF |
		X86_EFLAGS_PRIOR_NT | X86_EFLAGS_RESET_DF |
		X86_EFLAGS_RESET_IF | X86_EFLAGS_RESET_TF |
		X86_EFLAGS_RESET_NT | X86_EFLAGS_RESET_RF |
		X86_EFLAGS_RESET_AC | X86_EFLAGS_RESET_0F |
		X86_EFLAGS_SET_DF | X86_EFLAGS_SET_IF;
	const uint64_t reads = X86_EFLAGS_TEST_OF | X86_EFLAGS_TEST_SF |
		X86_EFLAGS_TEST_ZF | X86_EFLAGS_TEST_PF | X86_EFLAGS_TEST_CF |
		X86_EFLAGS_TEST_NT | X86_EFLAGS_TEST_DF | X86_EFLAGS_TEST_RF |
		X86_EFLAGS_TEST_IF | X86_EFLAGS_TEST_TF | X86_EFLAGS_TEST_AF;
	uint64_t e = insn->detail->x86.eflags;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;

	switch (insn->id) {
	case X86_INS_SYSCALL:
		return 0;
	case X86_INS_STD: case X86_INS_CLD:
		return 0x400;		/* DF */
	case X86_INS_STI: case X86_INS_CLI:
		return 0x200;		/* IF */
	case X86_INS_STAC: case X86_INS_CLAC:
		return 0x40000;		/* AC */
	case X86_INS_SAHF:
		return RECOVER_FLAGS_ARITH & ~RECOVER_OF;
	case X86_INS_POPF: case X86_INS_POPFD: case X86_INS_POPFQ:
	case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
	case X86_INS_INT: case X86_INS_INT1: case X86_INS_INT3:
	case X86_INS_INTO: case X86_INS_SYSENTER: case X86_INS_SYSEXIT:
	case X86_INS_SYSRET: case X86_INS_RSM:
		return RECOVER_FLAGS_ALL;
	case X86_INS_ADC: case X86_INS_SBB: case X86_INS_BT:
	case X86_INS_BTC: case X86_INS_BTR: case X86_INS_BTS:
	case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B:
	case X86_INS_CMPXCHG16B: case X86_INS_XADD: case X86_INS_BSF:
	case X86_INS_BSR: case X86_INS_TZCNT: case X86_INS_LZCNT:
	case X86_INS_POPCNT: case X86_INS_MUL: case X86_INS_IMUL:
	case X86_INS_DIV: case X86_INS_IDIV: case X86_INS_SHLD:
	case X86_INS_SHRD: case X86_INS_RCL: case X86_INS_RCR:
	case X86_INS_COMISS: case X86_INS_COMISD: case X86_INS_UCOMISS:
	case X86_INS_UCOMISD: case X86_INS_VCOMISS: case X86_INS_VCOMISD:
	case X86_INS_VUCOMISS: case X86_INS_VUCOMISD: case X86_INS_PTEST:
	case X86_INS_VPTEST: case X86_INS_PCMPISTRI: case X86_INS_PCMPESTRI:
	case X86_INS_PCMPISTRM: case X86_INS_PCMPESTRM:
	case X86_INS_VPCMPISTRI: case X86_INS_VPCMPESTRI:
	case X86_INS_VPCMPISTRM: case X86_INS_VPCMPESTRM:
	case X86_INS_RDRAND: case X86_INS_RDSEED: case X86_INS_ANDN:
	case X86_INS_BEXTR: case X86_INS_BLSI: case X86_INS_BLSMSK:
	case X86_INS_BLSR: case X86_INS_BZHI: case X86_INS_ADCX:
	case X86_INS_ADOX: case X86_INS_CMPSB: case X86_INS_CMPSW:
	case X86_INS_CMPSD: case X86_INS_CMPSQ: case X86_INS_SCASB:
	case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_XTEST: case X86_INS_LAR: case X86_INS_LSL:
	case X86_INS_VERR: case X86_INS_VERW: case X86_INS_KORTESTB:
	case X86_INS_KORTESTW: case X86_INS_KORTESTD: case X86_INS_KORTESTQ:
		return RECOVER_FLAGS_ARITH;
	default:
		break;
	}
	if (e & system)
		return RECOVER_FLAGS_ALL;
	if (e & ~reads)
		return RECOVER_FLAGS_ARITH;
	if (cs_regs_access(cs, insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return RECOVER_FLAGS_ALL;
	for (i = 0; i < nwr; i++)
		if (wr[i] == X86_REG_EFLAGS)
			return RECOVER_FLAGS_ARITH;
	return 0;
}

/* Any other cmp or test of two operands (a register, an immediate or
 * a memory operand whose address is modelled, of 1, 2, 4 or 8 bytes): a
 * recover_compare_any, for the flags. */
static bool compare_any_model(const cs_insn *insn, struct recover_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *o = x->operands;
	unsigned r, size, width = 0, i;

	if ((insn->id != X86_INS_CMP && insn->id != X86_INS_TEST) ||
	    x->op_count != 2 || x->prefix[3] ||
	    (x->prefix[1] != 0 && x->prefix[1] != X86_PREFIX_FS))
		return false;
	op->dst = op->src = RECOVER_NOREG;
	op->scale = 0;
	for (i = 0; i < 2; i++) {
		switch (o[i].type) {
		case X86_OP_REG:
			if ((r = gpr(o[i].reg, &size)) == RECOVER_NOREG ||
			    high_byte(o[i].reg))
				return false;
			if (i == 0)
				op->dst = (uint8_t)r;
			else
				op->src = (uint8_t)r;
			break;
		case X86_OP_IMM:
			if (i == 0)
				return false;
			op->imm = o[i].imm;
			size = o[i].size;
			break;
		case X86_OP_MEM:
			/* (memory_model made it a load of its address) */
			if (op->mkind != recover_mem_load ||
			    op->msize != o[i].size)
				return false;
			size = o[i].size;
			if (i == 1)
				op->scale = 2;
			break;
		default:
			return false;
		}
		if (i == 0)
			width = size;
	}
	if (width != 1 && width != 2 && width != 4 && width != 8)
		return false;
	op->kind = recover_compare_any;
	op->alu = insn->id == X86_INS_CMP ? recover_sub : recover_and;
	op->width = (uint8_t)width;
	op->writes = 0;
	op->vkind = recover_value_unknown;
	return true;
}

void recover_x86_decode(struct recover_x86 *x86, uint64_t ip,
			const uint8_t *raw, size_t size, struct recover_op *op,
			uint64_t *target)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;
	struct recover_op m;

	memset(op, 0, sizeof(*op));
	op->dst = op->src = op->base = op->index = RECOVER_NOREG;
	op->mbase = op->mindex = RECOVER_NOREG;
	op->writes = RECOVER_ALL_REGS;
	op->mkind = recover_mem_any;	/* undecodable: anything */
	op->sets_fs = true;
	op->fwrites = RECOVER_FLAGS_ALL;
	*target = 0;
	if (!cs_disasm_iter(x86->cs, &code, &size, &addr, x86->insn))
		return;
	op->sets_fs = changes_fs(x86->cs, x86->insn);
	if ((cs_insn_group(x86->cs, x86->insn, CS_GRP_JUMP) ||
	     cs_insn_group(x86->cs, x86->insn, CS_GRP_CALL)) &&
	    x86->insn->detail->x86.op_count == 1 &&
	    x86->insn->detail->x86.operands[0].type == X86_OP_IMM)
		*target = (uint64_t)x86->insn->detail->x86.operands[0].imm;
	op->writes = written_registers(x86->cs, x86->insn);
	op->fwrites = flags_written(x86->cs, x86->insn);
	op->mbase = op->mindex = RECOVER_NOREG;
	memory_model(x86->insn, op);
	branch_model(x86->insn, op);
	if (compare_model(x86->insn, op)) {
		op->fwrites = recover_flags_writes(op);
		return;
	}
	m = *op;
	if (compare_any_model(x86->insn, &m)) {
		*op = m;
		op->fwrites = recover_flags_writes(op);
		return;
	}
	m = *op;
	if (!model(x86->insn, &m))
		return;
	*op = m;
	op->fwrites = recover_flags_writes(op);
	/* What a model writes, exactly. */
	switch (op->kind) {
	case recover_rsp_adjust:
		op->writes = 1u << 7;
		break;
	case recover_pop:
		op->writes = 1u << 7 | 1u << op->dst;
		break;
	case recover_leave:
		op->writes = 1u << 7 | 1u << 6;
		break;
	case recover_syscall:
		op->writes = RECOVER_ALL_REGS;
		break;
	case recover_xchg:
		op->writes = (uint16_t)(1u << op->dst | 1u << op->src);
		break;
	case recover_mul_wide:
		op->writes = 1u << 0 | 1u << 3;	/* rax, rdx */
		break;
	default:
		op->writes = (uint16_t)(1u << op->dst);
		break;
	}
}

static uint64_t sized(uint64_t v, unsigned width)
{
	return width == 4 ? (uint32_t)v : v;
}

static uint64_t apply(uint8_t alu, uint64_t a, uint64_t b, unsigned width)
{
	switch (alu) {
	case recover_add: return a + b;
	case recover_sub: return a - b;
	case recover_add_carry: return a + b + 1;
	case recover_sub_borrow: return a - b - 1;
	case recover_xor: return a ^ b;
	case recover_and: return a & b;
	case recover_or: return a | b;
	case recover_inc: return a + 1;
	case recover_dec: return a - 1;
	case recover_neg: return -a;
	case recover_not: return ~a;
	case recover_shl: return a << b;
	case recover_shr:
		return width == 4 ? (uint32_t)a >> b : a >> b;
	case recover_sar:
		return width == 4 ? (uint64_t)(uint32_t)((int32_t)a >> b)
				  : (uint64_t)((int64_t)a >> b);
	case recover_mul: return a * b;	/* the low half, signed or not */
	case recover_rol:
	case recover_ror: {
		unsigned bits = width == 4 ? 32 : 64, n = (unsigned)(b % bits);
		uint64_t v = sized(a, width);

		if (!n)
			return v;
		if (alu == recover_ror)
			n = bits - n;
		return sized(v << n | v >> (bits - n), width);
	}
	default: return 0;
	}
}

/* The low SIZE bytes of V extended to OP's width. */
static uint64_t extended(const struct recover_op *op, uint64_t v, unsigned size)
{
	unsigned bits = 8 * size;

	if (bits < 64) {
		v &= (1ull << bits) - 1;
		if (op->alu == 1 && (v >> (bits - 1) & 1))
			v |= ~0ull << bits;
	}
	return sized(v, op->width ? op->width : 8);
}

uint64_t recover_x86_loaded(const struct recover_op *op, const uint8_t *bytes)
{
	uint64_t v = 0;
	unsigned i = op->msize;

	while (i--)
		v = v << 8 | bytes[i];
	if (op->kind != recover_load)
		return v;
	return extended(op, v, op->msize);
}

#define KNOWN(mask, r) ((r) != RECOVER_NOREG && ((mask) >> (r) & 1))
#define RSP 7
#define RBP 6

/* recover_x86_forward of an 8- or 16-bit destination. */
static uint16_t forward_narrow(const struct recover_op *op, const uint64_t *val,
			       uint16_t known, uint64_t *out)
{
	unsigned d = op->dst, bits = 8u * op->width;
	uint64_t mask = (1ull << bits) - 1, a, res;

	if (!KNOWN(known, d))
		return 0;
	a = val[d] & mask;
	switch (op->kind) {
	case recover_mov_imm:
		res = (uint64_t)op->imm;
		break;
	case recover_mov:
		if (!KNOWN(known, op->src))
			return 0;
		res = val[op->src];
		break;
	case recover_alu:
		if (op->src == d && (op->alu == recover_xor ||
				     op->alu == recover_sub)) {
			res = 0;
			break;
		}
		if (!KNOWN(known, op->src))
			return 0;
		res = apply(op->alu, a, val[op->src] & mask, 8);
		break;
	case recover_alu_imm:
	case recover_unary:
		res = apply(op->alu, a, (uint64_t)op->imm, 8);
		break;
	case recover_shift_imm:
		if (op->alu == recover_sar && (a >> (bits - 1) & 1))
			a |= ~mask;	/* sign-extended, then shifted */
		res = apply(op->alu, a, (uint64_t)op->imm, 8);
		break;
	default:
		return 0;
	}
	out[d] = (val[d] & ~mask) | (res & mask);
	return (uint16_t)(1u << d);
}

uint16_t recover_x86_cmov_outcome(const struct recover_op *op,
				  const uint64_t *val, uint16_t known,
				  uint64_t old, bool old_known, uint64_t *out)
{
	unsigned d = op->dst, src = op->src;

	/* (32 bits: the upper half is zeroed either way, so neither old
	 * value follows whole) */
	if (!(recover_flags_wants(op) || op->kind == recover_cmov) ||
	    op->width != 8 || src == RECOVER_NOREG || src == d ||
	    !KNOWN(known, d))
		return 0;
	if (old_known && old != val[d]) {
		out[src] = val[d];	/* it moved */
		return (uint16_t)(1u << src);
	}
	if (KNOWN(known, src) && val[src] != val[d]) {
		out[d] = val[d];	/* it did not */
		return (uint16_t)(1u << d);
	}
	return 0;
}

/* setcc and cmovcc forwards: the condition from the comparison's
 * registers (recover-flags.c). */
static uint16_t forward_conditional(const struct recover_op *op,
				   const uint64_t *val, uint16_t known,
				   uint64_t *out)
{
	unsigned d = op->dst, from;
	bool holds;

	if (!recover_flags_condition(op, val, known, &holds))
		return 0;
	if (op->kind == recover_setcc) {
		if (!KNOWN(known, d))
			return 0;
		out[d] = (val[d] & ~0xffull) | holds;
		return (uint16_t)(1u << d);
	}
	/* cmov: a 32-bit one zero-extends whether it moves or not. */
	from = holds ? op->src : d;
	if (!KNOWN(known, from))
		return 0;
	out[d] = sized(val[from], op->width);
	return (uint16_t)(1u << d);
}

/* mul / imul with one operand: rdx:rax (edx:eax, each zero-extended) =
 * rax * src, unsigned or signed. */
static uint16_t forward_mul_wide(const struct recover_op *op,
				 const uint64_t *val, uint16_t known,
				 uint64_t *out)
{
	const unsigned rax = 0, rdx = 3;
	uint64_t a = val[rax], b = val[op->src];

	if (!KNOWN(known, rax) || !KNOWN(known, op->src))
		return 0;
	if (op->width == 8) {
		unsigned __int128 p = op->alu
			? (unsigned __int128)((__int128)(int64_t)a * (int64_t)b)
			: (unsigned __int128)a * b;

		out[rax] = (uint64_t)p;
		out[rdx] = (uint64_t)(p >> 64);
	} else {
		uint64_t p = op->alu
			? (uint64_t)((int64_t)(int32_t)a * (int32_t)b)
			: (uint64_t)(uint32_t)a * (uint32_t)b;

		out[rax] = (uint32_t)p;
		out[rdx] = (uint32_t)(p >> 32);
	}
	return 1u << rax | 1u << rdx;
}

/* bsf, tzcnt, bsr (a source not zero), popcnt. */
static uint16_t forward_bit_scan(const struct recover_op *op,
				 const uint64_t *val, uint16_t known,
				 uint64_t *out)
{
	uint64_t v;

	if (!KNOWN(known, op->src))
		return 0;
	v = sized(val[op->src], op->width);
	if (op->alu == recover_bit_count) {
		out[op->dst] = (uint64_t)__builtin_popcountll(v);
	} else if (!v) {
		return 0;
	} else if (op->alu == recover_bit_forward) {
		out[op->dst] = (uint64_t)__builtin_ctzll(v);
	} else {
		out[op->dst] = (uint64_t)(63 - __builtin_clzll(v));
	}
	return (uint16_t)(1u << op->dst);
}

uint16_t recover_x86_forward(const struct recover_op *op, const uint64_t *val,
			     uint16_t known, uint64_t *out)
{
	unsigned d = op->dst, r;
	uint64_t a;
	uint16_t mask = 0;

	if (op->kind == recover_setcc || op->kind == recover_cmov)
		return forward_conditional(op, val, known, out);
	/* adc and sbb without the carry (recover.c gives it when known) */
	if (op->alu == recover_adc || op->alu == recover_sbb)
		switch (op->kind) {
		case recover_alu: case recover_alu_imm: case recover_alu_mem:
			return 0;
		default:
			break;
		}
	if (op->width == 1 || op->width == 2)
		return forward_narrow(op, val, known, out);
	switch (op->kind) {
	case recover_mov_imm:
		out[d] = sized((uint64_t)op->imm, op->width);
		return (uint16_t)(1u << d);
	case recover_mov:
		if (!KNOWN(known, op->src))
			return 0;
		out[d] = sized(val[op->src], op->width);
		return (uint16_t)(1u << d);
	case recover_extend:
		if (!KNOWN(known, op->src))
			return 0;
		out[d] = extended(op, val[op->src], op->msize);
		return (uint16_t)(1u << d);
	case recover_lea:
		a = (uint64_t)op->imm;
		if (op->base != RECOVER_NOREG) {
			if (!KNOWN(known, op->base))
				return 0;
			a += val[op->base];
		}
		if (op->index != RECOVER_NOREG) {
			if (!KNOWN(known, op->index))
				return 0;
			a += val[op->index] * op->scale;
		}
		out[d] = sized(a, op->width);
		return (uint16_t)(1u << d);
	case recover_alu:
		/* xor r,r and sub r,r: zero whatever r was. */
		if (op->src == d && (op->alu == recover_xor ||
				     op->alu == recover_sub)) {
			out[d] = 0;
			return (uint16_t)(1u << d);
		}
		if (!KNOWN(known, d) || !KNOWN(known, op->src))
			return 0;
		out[d] = sized(apply(op->alu, val[d], val[op->src], op->width),
			       op->width);
		return (uint16_t)(1u << d);
	case recover_alu_imm:
	case recover_shift_imm:
	case recover_unary:
		if (!KNOWN(known, d))
			return 0;
		out[d] = sized(apply(op->alu, val[d], (uint64_t)op->imm,
				     op->width), op->width);
		return (uint16_t)(1u << d);
	case recover_mul_imm:
		if (!KNOWN(known, op->src))
			return 0;
		out[d] = sized(val[op->src] * (uint64_t)op->imm, op->width);
		return (uint16_t)(1u << d);
	case recover_shift_cl:
		/* A 32-bit shift by 0: whether the upper half is cleared is
		 * not something to rely on across CPUs. */
		if (!KNOWN(known, d) || !KNOWN(known, 2) ||
		    (op->width == 4 && !(val[2] & 31)))
			return 0;
		out[d] = sized(apply(op->alu, val[d], val[2] & (op->width == 8
							       ? 63 : 31),
				     op->width), op->width);
		return (uint16_t)(1u << d);
	case recover_xchg:
		if (KNOWN(known, d)) {
			out[op->src] = sized(val[d], op->width);
			mask |= (uint16_t)(1u << op->src);
		}
		if (KNOWN(known, op->src)) {
			out[d] = sized(val[op->src], op->width);
			mask |= (uint16_t)(1u << d);
		}
		return mask;
	case recover_mul_wide:
		return forward_mul_wide(op, val, known, out);
	case recover_bit_scan:
		return forward_bit_scan(op, val, known, out);
	case recover_sign_fill:
		if (!KNOWN(known, op->src))
			return 0;
		out[d] = sized(op->width == 8 ? (uint64_t)((int64_t)val[op->src] >> 63)
				: (uint64_t)((int32_t)val[op->src] >> 31), op->width);
		return (uint16_t)(1u << d);
	case recover_bswap:
		if (!KNOWN(known, d))
			return 0;
		out[d] = op->width == 8 ? __builtin_bswap64(val[d])
					: __builtin_bswap32((uint32_t)val[d]);
		return (uint16_t)(1u << d);
	case recover_rsp_adjust:
	case recover_pop:
		if (!KNOWN(known, RSP))
			return 0;
		out[RSP] = val[RSP] + (uint64_t)op->imm;
		return 1u << RSP;
	case recover_leave:
		if (!KNOWN(known, RBP))
			return 0;
		out[RSP] = val[RBP] + 8;
		return 1u << RSP;
	case recover_syscall:
		if (!KNOWN(known, 0) ||
		    !recover_x86_syscall_keeps_registers(val[0]))
			return 0;
		for (r = 0; r < RECOVER_NREGS; r++)
			if (r != 0 && r != 2 && (r != 11 || op->alu) &&
			    KNOWN(known, r)) {
				out[r] = val[r];
				mask |= (uint16_t)(1u << r);
			}
		/* syscall saves the return address in rcx, and sysret (or
		 * iret) gives it back: the next instruction's address. */
		out[2] = (uint64_t)op->imm;
		return mask | 1u << 2;
	default:
		return 0;
	}
}

uint16_t recover_x86_backward(const struct recover_op *op, const uint64_t *val,
			      uint16_t known, uint64_t *out)
{
	unsigned d = op->dst;
	uint16_t mask = 0;

	switch (op->kind) {
	case recover_mov:
		if (op->width != 8 || !KNOWN(known, d))
			return 0;
		out[op->src] = val[d];	/* also right when src == dst */
		return (uint16_t)(1u << op->src);
	case recover_cmov: {
		bool holds;

		/* The compared registers after it are the ones before it
		 * unless it wrote one. */
		if (op->width != 8 || !KNOWN(known, d) ||
		    (recover_flags_compared_by(op) >> d & 1) ||
		    !recover_flags_condition(op, val, known, &holds))
			return 0;
		out[holds ? op->src : d] = val[d];
		return (uint16_t)(1u << (holds ? op->src : d));
	}
	case recover_lea:
		if (op->width != 8 || !KNOWN(known, d))
			return 0;
		if (op->index == RECOVER_NOREG && op->base != RECOVER_NOREG) {
			out[op->base] = val[d] - (uint64_t)op->imm;
			return (uint16_t)(1u << op->base);
		}
		if (op->base == RECOVER_NOREG && op->index != RECOVER_NOREG &&
		    op->scale == 1) {
			out[op->index] = val[d] - (uint64_t)op->imm;
			return (uint16_t)(1u << op->index);
		}
		/* Base and index: one from the other, when that one is not
		 * the destination (whose old value is lost). */
		if (op->base != RECOVER_NOREG && op->index != d &&
		    KNOWN(known, op->index) && op->base != op->index) {
			out[op->base] = val[d] - (uint64_t)op->imm -
					val[op->index] * op->scale;
			return (uint16_t)(1u << op->base);
		}
		return 0;
	case recover_alu_imm:
		if (op->width != 8 || !KNOWN(known, d))
			return 0;
		switch (op->alu) {
		case recover_add: out[d] = val[d] - (uint64_t)op->imm; break;
		case recover_sub: out[d] = val[d] + (uint64_t)op->imm; break;
		case recover_xor: out[d] = val[d] ^ (uint64_t)op->imm; break;
		default: return 0;
		}
		return (uint16_t)(1u << d);
	case recover_alu:
		if (op->width != 8 || op->src == d || !KNOWN(known, d) ||
		    !KNOWN(known, op->src))
			return 0;
		switch (op->alu) {
		case recover_add: out[d] = val[d] - val[op->src]; break;
		case recover_sub: out[d] = val[d] + val[op->src]; break;
		case recover_xor: out[d] = val[d] ^ val[op->src]; break;
		default: return 0;
		}
		return (uint16_t)(1u << d);
	case recover_unary:
		if (op->width != 8 || !KNOWN(known, d))
			return 0;
		switch (op->alu) {
		case recover_inc: out[d] = val[d] - 1; break;
		case recover_dec: out[d] = val[d] + 1; break;
		case recover_neg: out[d] = -val[d]; break;
		case recover_not: out[d] = ~val[d]; break;
		default: return 0;
		}
		return (uint16_t)(1u << d);
	case recover_rsp_adjust:
	case recover_pop:
		if (!KNOWN(known, RSP))
			return 0;
		out[RSP] = val[RSP] - (uint64_t)op->imm;
		return 1u << RSP;
	case recover_leave:
		if (!KNOWN(known, RSP))
			return 0;
		out[RBP] = val[RSP] - 8;
		return 1u << RBP;
	case recover_xchg:	/* 64-bit: the values swap back */
		if (op->width != 8)
			return 0;
		if (KNOWN(known, d)) {
			out[op->src] = val[d];
			mask |= (uint16_t)(1u << op->src);
		}
		if (KNOWN(known, op->src)) {
			out[d] = val[op->src];
			mask |= (uint16_t)(1u << d);
		}
		return mask;
	case recover_bswap:
		if (op->width != 8 || !KNOWN(known, d))
			return 0;
		out[d] = __builtin_bswap64(val[d]);
		return (uint16_t)(1u << d);
	default:
		return 0;
	}
}

bool recover_x86_syscall_keeps_memory(uint64_t nr)
{
	switch (nr) {
	case 1:		/* write */
	case 3:		/* close */
	case 8:		/* lseek */
	case 10:	/* mprotect: protection, not contents */
	case 24:	/* sched_yield */
	case 32:	/* dup */
	case 33:	/* dup2 */
	case 39:	/* getpid */
	case 60:	/* exit */
	case 62:	/* kill */
	case 110:	/* getppid */
	case 186:	/* gettid */
	case 231:	/* exit_group */
	case 234:	/* tgkill */
	case 2:		/* open */
	case 257:	/* openat */
	case 21:	/* access */
	case 269:	/* faccessat */
	case 102:	/* getuid */
	case 104:	/* getgid */
	case 107:	/* geteuid */
	case 108:	/* getegid */
		return true;
	default:
		return false;
	}
}

bool recover_x86_syscall_keeps_mappings(uint64_t nr)
{
	unsigned addr_reg, len_reg;
	uint64_t len;

	if (nr == 10)	/* mprotect: a page made writable, then written */
		return false;
	/* brk maps and unmaps only the heap's writable pages: a page read-only
	 * at the end was made so by a later call, which counts. */
	if (nr == 12)
		return true;
	/* munmap only removes pages: one present at the end was not removed
	 * (or was mapped again by a later call, which counts), so it was
	 * there before with the same protection and contents. */
	if (nr == 11)
		return true;
	return recover_x86_syscall_keeps_memory(nr) ||
	       recover_x86_syscall_buffer(nr, &addr_reg, &len_reg, &len);
}

bool recover_x86_syscall_only_adds_mappings(uint64_t nr, uint64_t flags)
{
	/* mmap without MAP_FIXED (0x10) or MAP_FIXED_NOREPLACE (0x100000):
	 * the kernel (and Valgrind's address space manager for its client)
	 * places the new mapping where nothing is mapped at the call. */
	return nr == 9 && !(flags & (0x10 | 0x100000));
}

bool recover_x86_syscall_removes_mappings(uint64_t nr)
{
	return nr == 11 || nr == 12;	/* munmap, brk */
}

bool recover_x86_syscall_keeps_fs(uint64_t nr)
{
	switch (nr) {
	case 15:	/* rt_sigreturn */
	case 56:	/* clone: CLONE_SETTLS sets the child's; which one
			 * continues this history is not asked */
	case 57:	/* fork */
	case 58:	/* vfork */
	case 59:	/* execve */
	case 158:	/* arch_prctl: ARCH_SET_FS */
	case 205:	/* set_thread_area */
	case 322:	/* execveat */
	case 435:	/* clone3 */
		return false;
	default:
		return true;
	}
}

bool recover_x86_syscall_buffer(uint64_t nr, unsigned *addr_reg,
				unsigned *len_reg, uint64_t *len)
{
	enum { RDI = 5, RSI = 4, RDX = 3 };
	static const struct {
		uint16_t nr;
		uint8_t addr, len_reg;
		uint16_t len;
	} calls[] = {
		{ 0, RSI, RDX, 0 },		/* read(fd, buf, count) */
		{ 17, RSI, RDX, 0 },		/* pread64(fd, buf, count, off) */
		{ 89, RSI, RDX, 0 },		/* readlink(path, buf, size) */
		{ 318, RDI, RSI, 0 },		/* getrandom(buf, count, flags) */
		{ 79, RDI, RSI, 0 },		/* getcwd(buf, size) */
		{ 4, RSI, RECOVER_NOREG, 144 },	/* stat(path, struct stat *) */
		{ 5, RSI, RECOVER_NOREG, 144 },	/* fstat(fd, struct stat *) */
		{ 6, RSI, RECOVER_NOREG, 144 },	/* lstat */
		{ 262, RDX, RECOVER_NOREG, 144 },	/* newfstatat(dfd, path, st, f) */
		{ 228, RSI, RECOVER_NOREG, 16 },	/* clock_gettime(id, ts) */
		{ 63, RDI, RECOVER_NOREG, 390 },	/* uname(struct utsname *) */
		{ 22, RDI, RECOVER_NOREG, 8 },	/* pipe(int[2]) */
		{ 293, RDI, RECOVER_NOREG, 8 },	/* pipe2(int[2], flags) */
	};
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == nr) {
			*addr_reg = calls[i].addr;
			*len_reg = calls[i].len_reg;
			*len = calls[i].len;
			return true;
		}
	return false;
}

bool recover_x86_syscall_keeps_registers(uint64_t nr)
{
	switch (nr) {
	case 15:	/* rt_sigreturn: every register from the signal frame */
	case 59:	/* execve */
	case 322:	/* execveat */
		return false;
	default:
		return true;
	}
}
