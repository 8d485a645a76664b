/* decode-pt-blocks.h: a cache of decoded x86-64 blocks by (start IP, image
 * epoch), internal: what the query-decoder walk (decode-pt-fast.c) needs to
 * follow a block without decoding its instructions again, as libxdc does.
 *
 * A block here ends where libipt's block decoder (with end_on_call and
 * end_on_jump) ends one: at every branch, at every direct call and jump, and
 * where the next instruction lies in another section (mapping).  Its code is
 * read from the history's image, split into instructions by their lengths
 * (isa.c) and classified from the opcode (x86-class.c).  Where that cannot be
 * done the way libipt would do it (code that is not mapped or does not
 * decode, an instruction that crosses a mapping's end or that libipt takes
 * for a far branch and x86-class.c does not, a block as long as libipt's
 * limit, an operand-size prefix on a direct branch), the block is "unsure"
 * and the walk leaves the chunk to libipt's block decoder.
 */
#ifndef HWTR_DECODE_PT_BLOCKS_H
#define HWTR_DECODE_PT_BLOCKS_H

#include "image.h"
#include "isa.h"

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

struct decoded_block_pool;
struct decoded_block_code;

struct decoded_blocks {
	struct decoded_block **slots;	/* open addressing, power of 2 */
	size_t mask;			/* slots - 1, or 0 when empty */
	size_t count;
	struct decoded_block_pool *pool;	/* where blocks live */
	/* By IP alone, the last block decoded there and the code it was
	 * decoded from: a block of another epoch that reads the same bytes
	 * is copied, not decoded again (a program that maps a library makes
	 * a new epoch, and all its code is the same). */
	struct decoded_block_code *by_ip;
	size_t by_ip_mask, by_ip_count;
	uint64_t hits, misses;
	uint64_t repeats;	/* of the hits, an indirect branch's last target */
	uint64_t copies;	/* of the misses, copied from another epoch */
};

/* The block at IP in EPOCH of IMAGES, decoded with ISA on first use: NULL
 * only when out of memory (an unsure block is a block).  It stays where it
 * is until the cache is released. */
struct decoded_block *decoded_blocks_get(struct decoded_blocks *cache,
					       struct image_set *images,
					       struct isa *isa, uint64_t ip,
					       unsigned epoch);
void decoded_blocks_release(struct decoded_blocks *cache);

/* Decode the block at IP in EPOCH into B (exported for the unit test). */
void decoded_block_fill(struct decoded_block *b, struct image_set *images,
			struct isa *isa, uint64_t ip, unsigned epoch);

#endif
