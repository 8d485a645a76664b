/* insn-length.c: the instructions of a decoded block, one by one.
 *
 * A block (decoder.h) is a run of contiguous instructions ending at a
 * branch: its instructions are found from their lengths alone (isa.c),
 * read from the image the block was decoded in.  Hot code is split again
 * and again, so lengths are cached by IP and image epoch.  The last
 * instruction's class comes from the decoder, or from its bytes where the
 * decoder left it unclassified.
 */
#include "insn-length.h"

#include "error.h"

#include <string.h>

/* Decoders may leave a block's last instruction unclassified (libipt's
 * ptic_error); then its bytes decide. */
enum hwtr_insn_class insn_last_class(struct hwtr_history *h,
				     const struct decoder_block *block)
{
	return insn_block_class(h->images, h->isa, block);
}

enum hwtr_insn_class insn_block_class(struct image_set *images, struct isa *isa,
				      const struct decoder_block *block)
{
	uint8_t bytes[16];
	size_t n;

	if (block->iclass != DECODER_UNCLASSIFIED)
		return (enum hwtr_insn_class)block->iclass;
	if (block->truncated) {
		memcpy(bytes, block->raw, block->size);
		n = block->size;
	} else {
		n = image_epoch_read(images, block->epoch, block->end_ip, bytes,
				     isa_max_length(block->isa));
	}
	return isa_classify(isa, block->isa, bytes, n, block->end_ip);
}

/* Hot code is decoded again and again: instruction lengths by IP (and
 * epoch, since code at one IP can change with the image). */
static size_t length_cache_get(struct hwtr_history *h, uint64_t ip,
			       unsigned epoch)
{
	const struct length_slot *slot =
		&h->lengths[(ip * 0x9e3779b97f4a7c15ULL) >> (64 - LENGTH_CACHE_BITS)];

	return slot->ip == ip && slot->epoch == epoch ? slot->len : 0;
}

static void length_cache_put(struct hwtr_history *h, uint64_t ip,
			     unsigned epoch, size_t len)
{
	struct length_slot *slot =
		&h->lengths[(ip * 0x9e3779b97f4a7c15ULL) >> (64 - LENGTH_CACHE_BITS)];

	slot->ip = ip;
	slot->epoch = epoch;
	slot->len = (uint8_t)len;
}

/* The code at IP with at least the longest instruction after it, if the
 * image holds that much: in place, or copied into BUF where an instruction
 * may cross from one mapping into the next. */
static const uint8_t *code_at(struct hwtr_history *h, unsigned epoch,
			      enum hwtr_isa set, uint64_t ip, uint8_t *buf,
			      size_t *have)
{
	const uint8_t *code = image_epoch_code(h->images, epoch, ip, have);

	if (code && *have < isa_max_length(set)) {
		*have = image_epoch_read(h->images, epoch, ip, buf,
					 isa_max_length(set));
		return buf;
	}
	return code;
}

/* Split a block into instructions: blocks end at every branch, so the
 * instructions in between are contiguous and only their lengths are needed. */
int insn_expand_block(struct hwtr_history *h, const struct decoder_block *block,
		      struct decoded_insn *out, size_t room)
{
	enum hwtr_isa set = (enum hwtr_isa)block->isa;
	size_t fixed = isa_fixed_length(set), maxlen = isa_max_length(set);
	const uint8_t *code = NULL;
	uint8_t edge[16];
	uint64_t ip = block->ip, base = ip;
	size_t i, have = 0;

	if (block->ninsn > room)
		return hwtr_fail(hwtr_err_decode, "chunk holds more instructions "
				 "than the index says");
	for (i = 0; i < block->ninsn; i++) {
		struct decoded_insn *d = &out[i];
		bool last = i + 1 == block->ninsn;
		size_t len;

		d->ip = ip;
		d->epoch = block->epoch;
		d->isa = (uint8_t)set;
		d->flags = block->speculative ? INSN_SPECULATIVE : 0;
		d->iclass = hwtr_ic_other;
		if (last) {
			d->iclass = (uint8_t)insn_last_class(h, block);
			if (block->truncated) {
				d->size = block->size;
				break;
			}
		}
		if (fixed) {
			d->size = (uint8_t)fixed;
			ip += fixed;
			continue;
		}
		len = length_cache_get(h, ip, block->epoch);
		if (len) {	/* the last one too: its class is set above */
			d->size = (uint8_t)len;
			ip += len;
			continue;
		}
		if (!code || ip < base || ip + maxlen > base + have) {
			code = code_at(h, block->epoch, set, ip, edge, &have);
			if (!code || !have)
				return hwtr_fail(hwtr_err_decode,
						 "cannot read code at 0x%llx again",
						 (unsigned long long)ip);
			base = ip;
		}
		len = isa_length(h->isa, set, code + (ip - base),
				 have - (size_t)(ip - base), ip);
		if (len)
			length_cache_put(h, ip, block->epoch, len);
		/* A guess depends on this block (what is left of it, where it
		 * ends): not cached, or another block would get it. */
		else if (!last && set == hwtr_isa_x86_64)
			len = isa_guess_length(h->isa, code, have, base, ip,
					       block->ninsn - i - 1, block->end_ip);
		if (!len && !last)
			return hwtr_fail(hwtr_err_decode,
					 "cannot find the length of the instruction "
					 "at 0x%llx", (unsigned long long)ip);
		d->size = (uint8_t)len;	/* 0: an unknown last instruction */
		if (!len)
			d->iclass = hwtr_ic_unknown;
		ip += len;
	}
	if (out[block->ninsn - 1].ip != block->end_ip)
		return hwtr_fail(hwtr_err_decode,
				 "block 0x%llx..0x%llx re-decoded to end at 0x%llx",
				 (unsigned long long)block->ip,
				 (unsigned long long)block->end_ip,
				 (unsigned long long)out[block->ninsn - 1].ip);
	return 0;
}

/* A block's last instruction whose length the ISA tables do not know (an
 * instruction Capstone cannot decode) that NEXT goes on from, straight after
 * it: the distance is its length, and it did not branch.  Where the decoder
 * ends its blocks varies (libipt's block cache), and the same instruction in
 * the middle of a block gets its length from the block (isa_guess_length):
 * this gives it the same wherever the blocks end. */
void insn_follow_unknown_length(struct decoded_insn *last,
				const struct decoder_block *next)
{
	if (last->flags & INSN_GAP || last->size ||
	    last->iclass != hwtr_ic_unknown || next->ip <= last->ip ||
	    next->ip - last->ip > isa_max_length((enum hwtr_isa)last->isa))
		return;
	last->size = (uint8_t)(next->ip - last->ip);
	last->iclass = hwtr_ic_other;
}

