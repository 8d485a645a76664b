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

#include "decoded-block.h"
#include "image.h"
#include "isa.h"

#include <stdbool.h>
#include <stdint.h>

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
