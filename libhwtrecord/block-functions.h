/* block-functions.h: the function of each instruction of a block, for the
 * index pass (history.c, history-parallel.c); internal.
 *
 * A function segment changes where the function changes, at any
 * instruction, as GDB's btrace decides per instruction.  A block usually
 * stays in one function, since decoders end blocks at branches; but code
 * can run on into the next function without one (padding, then the next
 * function's entry), and where libipt ends such a block depends on its
 * block cache, i.e. on what it decoded before.  So the pass finds the
 * function of every instruction, and splits a block where it changes: the
 * segments then do not depend on where blocks end, which lets the build
 * threads decode chunks in any order.
 */
#ifndef HWTR_BLOCK_FUNCTIONS_H
#define HWTR_BLOCK_FUNCTIONS_H

#include "decoder.h"
#include "isa.h"
#include "symbols.h"

/* The function found for the last instruction: the next one in its range
 * (and image) is in it too, else looked up (function_at's rule: with
 * symbols that overlap, a lookup alone could answer otherwise). */
struct fn_memo {
	uint32_t fn;		/* 0: none, looked up at every instruction
				 * outside the addresses known to have none */
	unsigned epoch;		/* fn's image; unused while fn is 0 */
	uint64_t start, end;	/* fn's range */
	/* Addresses known to have no function (looked up: 0), noted by
	 * fn_block_split */
	bool none_valid;
	unsigned none_epoch;
	uint64_t none_begin, none_end;
};

/* LOOKUP: symbolizer_function, or a thread's own cached lookup. */
typedef uint32_t (*fn_lookup_fn)(void *ctx, unsigned epoch, uint64_t ip);

/* Whether IP in EPOCH is in the run of addresses MEMO knows to have no
 * function. */
static inline bool fn_memo_in_none(const struct fn_memo *m, uint64_t ip,
				   unsigned epoch)
{
	return m->none_valid && m->none_epoch == epoch && ip >= m->none_begin &&
	       ip < m->none_end;
}

/* Whether MEMO tells the function of the instruction at IP in EPOCH without
 * a lookup, and which (*FN): what fn_memo_at would answer.  Inline, as the
 * next one: the index pass asks them at every block. */
static inline bool fn_memo_known(const struct fn_memo *m, uint64_t ip,
				 unsigned epoch, uint32_t *fn)
{
	if (m->fn && ip >= m->start && ip < m->end && epoch == m->epoch) {
		*fn = m->fn;
		return true;
	}
	/* Code without symbols (a stripped program) would otherwise be looked
	 * up at every block: the lookup would answer 0 there too. */
	*fn = 0;
	return fn_memo_in_none(m, ip, epoch);
}

/* The function of the instruction at IP in EPOCH after MEMO's (updated). */
uint32_t fn_memo_at(struct fn_memo *memo, const struct hwtr_symbolizer *symbols,
		    fn_lookup_fn lookup, void *ctx, uint64_t ip, unsigned epoch);

/* BLOCK's first instruction is in MEMO's function: how many of its
 * instructions are before the first one in another function (BLOCK's
 * ninsn when none is), with the last of them at *LAST_IP and that one at
 * *SPLIT_IP.  MEMO is left as it was, but for the run of addresses without
 * a function it notes.  Instruction lengths come from IMAGES and ISA;
 * where one cannot be told the block is taken whole.  fn_block_split is
 * the usual case inline, fn_block_split_slow the rest. */
uint32_t fn_block_split_slow(struct fn_memo *memo,
			     const struct hwtr_symbolizer *symbols,
			     struct image_set *images, struct isa *isa,
			     const struct decoder_block *block, uint64_t *last_ip,
			     uint64_t *split_ip);
static inline uint32_t fn_block_split(struct fn_memo *memo,
				      const struct hwtr_symbolizer *symbols,
				      struct image_set *images, struct isa *isa,
				      const struct decoder_block *block,
				      uint64_t *last_ip, uint64_t *split_ip)
{
	/* The usual case: the block ends in its first instruction's function
	 * range, or in the run without a function noted already. */
	if (memo->fn ? block->end_ip >= memo->start && block->end_ip < memo->end
		     : fn_memo_in_none(memo, block->ip, block->epoch) &&
			       (block->ninsn <= 1 ||
				block->end_ip < memo->none_end)) {
		*last_ip = block->end_ip;
		*split_ip = 0;
		return block->ninsn;
	}
	return fn_block_split_slow(memo, symbols, images, isa, block, last_ip,
				   split_ip);
}

#endif
