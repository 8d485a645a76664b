/* decoded-block.h: one decoded block as a walk's block cache keeps it
 * (decode-pt-blocks.h) and the index pass reads it (decoder.h:
 * walk_take_blocks; history.c, history-parallel.c), internal.
 *
 * Its own header so that the history reads the blocks a decoder hands it
 * without knowing which decoder caches them: the decoder owns the block,
 * the index pass writes only its pass_* fields.
 */
#ifndef HWTR_DECODED_BLOCK_H
#define HWTR_DECODED_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* How the walk goes on after a block's last instruction. */
enum block_exit {
	exit_unsure,		/* not modelled: let libipt decode the chunk */
	exit_fall,		/* no branch; the next instruction is in
				 * another section: next = fall-through */
	exit_cond,		/* jcc, jrcxz, loop: a TNT bit picks target
				 * or fall-through */
	exit_jump,		/* direct jmp: next = target */
	exit_call,		/* direct call: push fall-through (unless it
				 * calls the next instruction), next = target */
	exit_indirect_call,	/* push fall-through, next from a TIP */
	exit_return,		/* compressed (TNT + return stack) or a TIP */
	exit_indirect,		/* indirect jmp or far transfer: a TIP */
};

struct decoded_block {
	uint64_t ip;		/* first instruction (the key, with epoch) */
	uint64_t end_ip;	/* last instruction */
	uint64_t target;	/* direct branch target */
	uint32_t epoch;
	uint32_t ninsn;
	uint8_t last_size;	/* length of the last instruction */
	uint8_t iclass;		/* enum hwtr_insn_class of the last one */
	uint8_t exit;		/* enum block_exit */
	bool pushes;		/* exit_call: pushes a return address */
	bool mov_cr;		/* has a mov to a control register, where
				 * libipt binds a TIP.PGD without an IP */
	/* The blocks that follow on a direct exit, once looked up: [0] the
	 * fall-through (a jcc not taken), [1] the target.  Blocks never move,
	 * so hot loops go from block to block without a hash lookup, as
	 * libxdc follows its cached transitions.  Blocks that end otherwise
	 * keep the blocks found last time (the walk checks their IP): after
	 * an indirect branch or a return, [0] is where it went; a call keeps
	 * the block its return went to in [0] (a direct call) or [1] (an
	 * indirect one). */
	struct decoded_block *next[2];
	/* The index pass's (history.c), 0 until it sees the block: the
	 * chunk whose code ranges and line filter have it already, as a
	 * number no other chunk of any pass has (builder_chunk_stamp), so
	 * that hot code is added once a chunk without a lookup. */
	uint64_t pass_chunk;
	/* And the function of its first instruction as a lookup finds it
	 * (fn_memo_at's when its memo cannot tell: a function of the IP and
	 * epoch alone), once found: the memo is then set without the
	 * symbols' cache and function table. */
	bool pass_fn_known;
	uint32_t pass_fn;
	uint64_t pass_fn_start, pass_fn_end;
};

#endif
