/* x87-tag.h: the tag GDB gives a full x87 register (i387_tag): valid,
 * zero, or special (NaN, infinity, denormal, unnormal).  Shared by the
 * data log's x87 registers (values-x87.c) and hwtrec-server's correction of
 * Valgrind's gdbserver (valgrind-x87.c), so that both classify alike. */
#ifndef HWTR_X87_TAG_H
#define HWTR_X87_TAG_H

#include <stdint.h>

enum x87_tag { x87_tag_valid = 0, x87_tag_zero = 1, x87_tag_special = 2,
	       x87_tag_empty = 3 };

/* The tag of a full register holding the 80-bit value F80. */
enum x87_tag x87_full_tag(const uint8_t f80[10]);

#endif
