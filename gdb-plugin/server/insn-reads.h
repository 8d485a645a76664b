/* insn-reads.h: the memory an x86-64 instruction reads, for read and
 * access watchpoints (replay-watch.c).
 *
 * Capstone's operand details give the explicit memory operands and whether
 * each is read; the implicit reads are added here: pop, popf, ret and
 * leave read the stack, string instructions (movs, lods, cmps, scas, outs)
 * read at rsi (and cmps, scas at rdi), over every iteration of a rep
 * prefix.  Writes are not listed: the data log knows every store.  Not
 * reads: lea, nop, prefetches and cache flushes name memory without
 * reading it (x86's debug registers do not trigger on them either).
 */
#ifndef HWTREC_INSN_READS_H
#define HWTREC_INSN_READS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The registers addresses are computed from: rax..r15 in GDB's order
 * (rax rbx rcx rdx rsi rdi rbp rsp r8..r15), then these. */
enum {
	INSN_REG_FS_BASE = 16,
	INSN_REG_GS_BASE = 17,
	INSN_REG_EFLAGS = 18,	/* DF: a string instruction's direction */
	INSN_REG_COUNT = 19,
};

struct insn_regs {
	uint64_t value[INSN_REG_COUNT];
};

struct insn_read {
	uint64_t addr, len;
};

#define INSN_MAX_READS 4

/* Decoded instructions, kept by address and bytes (a loop's instructions
 * are decoded once). */
struct insn_reads_cache;

int insn_reads_cache_new(struct insn_reads_cache **cache);
void insn_reads_cache_free(struct insn_reads_cache *cache);

/* Whether the instruction CODE (LEN bytes at PC) reads memory, and what
 * it needs to say where: *NEEDS a bit per register (1u << INSN_REG_*)
 * whose value its addresses use.  *REPEATS: a rep-prefixed string
 * instruction, whose count of iterations the caller gives insn_reads (rcx
 * before it minus rcx after it: repe/repne stop early).  *UNKNOWN: an
 * address not computed from those registers (a vector index), or an
 * instruction Capstone cannot decode: its reads cannot be said. */
bool insn_reads_needs(struct insn_reads_cache *cache, const uint8_t *code,
		      size_t len, uint64_t pc, unsigned *needs, bool *repeats,
		      bool *unknown);

/* The ranges it reads, with REGS holding at least the registers
 * insn_reads_needs asked for, ITERATIONS the rep count (ignored without a
 * rep prefix): how many, at most INSN_MAX_READS, into READS. */
size_t insn_reads(struct insn_reads_cache *cache, const uint8_t *code,
		  size_t len, uint64_t pc, const struct insn_regs *regs,
		  uint64_t iterations, struct insn_read reads[INSN_MAX_READS]);

#endif
