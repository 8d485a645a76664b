/* insn-length.h: a decoded block split into instructions, internal. */
#ifndef HWTR_INSN_LENGTH_H
#define HWTR_INSN_LENGTH_H

#include "history.h"

/* The class of BLOCK's last instruction: the decoder's, or from its bytes
 * in H's image when the decoder left it unclassified. */
enum hwtr_insn_class insn_last_class(struct hwtr_history *h,
				     const struct decoder_block *block);
/* The same with the code of IMAGES and the instruction set tables of ISA:
 * for a build thread, which has its own ISA (capstone handles are not
 * shared between threads). */
enum hwtr_insn_class insn_block_class(struct image_set *images, struct isa *isa,
				      const struct decoder_block *block);
/* Fill OUT (ROOM entries) with BLOCK's instructions (its ninsn), their
 * lengths read from H's image (cached by IP and epoch); 0, or an error
 * naming the address whose length cannot be found. */
int insn_expand_block(struct hwtr_history *h, const struct decoder_block *block,
		      struct decoded_insn *out, size_t room);
/* LAST, a block's last instruction of unknown length, followed straight
 * on by block NEXT: the distance is its length, and it did not branch. */
void insn_follow_unknown_length(struct decoded_insn *last,
				const struct decoder_block *next);

#endif
