/* insn-reads.c: the memory an instruction reads (insn-reads.h), from
 * Capstone's operand details, kept as templates by address. */
#include "insn-reads.h"
#include "x86-gpr.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SLOTS 4096	/* a power of two */

enum { base_none = -1, base_rip = -2, reg_unknown = -3 };

/* One read, as the instruction names it. */
struct read_template {
	int8_t base, index;	/* INSN_REG_* index, or base_none, base_rip */
	uint8_t scale;
	int8_t segment;		/* INSN_REG_FS_BASE, INSN_REG_GS_BASE or -1 */
	bool string;		/* at rsi or rdi, once per iteration */
	int64_t disp;
	uint64_t size;
};

struct decoded {
	uint64_t pc;
	uint8_t len;		/* 0: empty slot */
	uint8_t code[15];
	unsigned needs;
	bool repeats, unknown;
	uint8_t nreads;
	struct read_template reads[INSN_MAX_READS];
};

struct insn_reads_cache {
	csh handle;
	struct decoded slots[CACHE_SLOTS];
};

int insn_reads_cache_new(struct insn_reads_cache **out)
{
	struct insn_reads_cache *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -1;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c->handle) != CS_ERR_OK) {
		free(c);
		return -1;
	}
	cs_option(c->handle, CS_OPT_DETAIL, CS_OPT_ON);
	*out = c;
	return 0;
}

void insn_reads_cache_free(struct insn_reads_cache *c)
{
	if (!c)
		return;
	cs_close(&c->handle);
	free(c);
}

/* The INSN_REG_* index of a 64-bit general register, or reg_unknown. */
static int reg_index(x86_reg reg)
{
	int i = x86_gpr_index(reg);

	if (reg == X86_REG_INVALID)
		return base_none;
	if (reg == X86_REG_RIP)
		return base_rip;
	return i >= 0 ? i : reg_unknown;	/* a 32-bit address, a vector index */
}

/* Names memory without reading it. */
static bool reads_nothing(unsigned id)
{
	switch (id) {
	case X86_INS_LEA:
	case X86_INS_NOP:
	case X86_INS_PREFETCH:
	case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW:
	case X86_INS_CLFLUSH:
	case X86_INS_CLFLUSHOPT:
	case X86_INS_CLWB:
		return true;
	default:
		return false;
	}
}

/* A string instruction (movs, lods, cmps, scas, outs: one-byte opcodes;
 * SSE's movsd shares Capstone's id with the string movsd). */
static bool is_string(const cs_x86 *x)
{
	uint8_t op = x->opcode[0];

	return x->opcode[1] == 0 &&
	       ((op >= 0xa4 && op <= 0xa7) || (op >= 0xac && op <= 0xaf) ||
		op == 0x6e || op == 0x6f);
}

static void add_read(struct decoded *d, int base, int index, unsigned scale,
		     int segment, int64_t disp, uint64_t size, bool string)
{
	struct read_template *t;

	if (base == reg_unknown || index == reg_unknown) {
		d->unknown = true;
		return;
	}
	if (d->nreads == INSN_MAX_READS) {
		d->unknown = true;
		return;
	}
	t = &d->reads[d->nreads++];
	*t = (struct read_template){ (int8_t)base, (int8_t)index,
				     (uint8_t)scale, (int8_t)segment, string,
				     disp, size };
	if (base >= 0)
		d->needs |= 1u << base;
	if (index >= 0)
		d->needs |= 1u << index;
	if (segment >= 0)
		d->needs |= 1u << segment;
	if (string)
		d->needs |= 1u << INSN_REG_EFLAGS;
}

static void decode(struct insn_reads_cache *c, struct decoded *d)
{
	cs_insn *insn = NULL;
	const cs_x86 *x;
	bool string;
	size_t i;

	if (cs_disasm(c->handle, d->code, d->len, d->pc, 1, &insn) != 1) {
		d->unknown = true;	/* the trace ran it: Capstone cannot */
		return;
	}
	x = &insn->detail->x86;
	string = is_string(x);
	switch (insn->id) {
	case X86_INS_POP:
	case X86_INS_POPFQ:
	case X86_INS_RET:
		add_read(d, 7, base_none, 0, -1, 0, 8, false);	/* [rsp] */
		break;
	case X86_INS_LEAVE:
		add_read(d, 6, base_none, 0, -1, 0, 8, false);	/* [rbp] */
		break;
	default:
		break;
	}
	for (i = 0; i < x->op_count && !reads_nothing(insn->id); i++) {
		const cs_x86_op *op = &x->operands[i];
		int segment = op->mem.segment == X86_REG_FS ? INSN_REG_FS_BASE
			      : op->mem.segment == X86_REG_GS ? INSN_REG_GS_BASE
			      : -1;

		if (op->type != X86_OP_MEM || !(op->access & CS_AC_READ))
			continue;
		add_read(d, reg_index(op->mem.base), reg_index(op->mem.index),
			 (unsigned)op->mem.scale, segment, op->mem.disp, op->size,
			 string);
	}
	/* rep (f3) or repne (f2) on a string instruction: rcx iterations. */
	if (string && (x->prefix[0] == X86_PREFIX_REP ||
		       x->prefix[0] == X86_PREFIX_REPNE))
		d->repeats = true;
	cs_free(insn, 1);
}

static struct decoded *lookup(struct insn_reads_cache *c, const uint8_t *code,
			      size_t len, uint64_t pc)
{
	struct decoded *d = &c->slots[(pc ^ (pc >> 12)) & (CACHE_SLOTS - 1)];

	if (len > sizeof(d->code))
		len = sizeof(d->code);
	if (d->len == len && d->pc == pc && !memcmp(d->code, code, len))
		return d;
	memset(d, 0, sizeof(*d));
	d->pc = pc;
	d->len = (uint8_t)len;
	memcpy(d->code, code, len);
	decode(c, d);
	return d;
}

bool insn_reads_needs(struct insn_reads_cache *c, const uint8_t *code,
		      size_t len, uint64_t pc, unsigned *needs, bool *repeats,
		      bool *unknown)
{
	const struct decoded *d = lookup(c, code, len, pc);

	*repeats = d->repeats;
	*unknown = d->unknown;
	*needs = d->needs | (d->repeats ? 1u << 2 : 0);	/* rcx */
	return d->nreads > 0;
}

size_t insn_reads(struct insn_reads_cache *c, const uint8_t *code, size_t len,
		  uint64_t pc, const struct insn_regs *regs, uint64_t iterations,
		  struct insn_read reads[INSN_MAX_READS])
{
	const struct decoded *d = lookup(c, code, len, pc);
	size_t i, n = 0;

	for (i = 0; i < d->nreads; i++) {
		const struct read_template *t = &d->reads[i];
		uint64_t a = (uint64_t)t->disp, count = d->repeats ? iterations : 1;

		if (t->base == base_rip)
			a += pc + d->len;
		else if (t->base >= 0)
			a += regs->value[t->base];
		if (t->index >= 0)
			a += regs->value[t->index] * t->scale;
		if (t->segment >= 0)
			a += regs->value[t->segment];
		if (t->string && count == 0)
			continue;	/* rep with rcx 0: reads nothing */
		if (t->string && count > 1) {
			/* DF (eflags bit 10) set: the string runs down. */
			if ((regs->value[INSN_REG_EFLAGS] >> 10) & 1)
				a -= (count - 1) * t->size;
			reads[n++] = (struct insn_read){ a, count * t->size };
		} else {
			reads[n++] = (struct insn_read){ a, t->size };
		}
	}
	return n;
}
