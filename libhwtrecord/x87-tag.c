/* x87-tag.c: the tag GDB gives a full x87 register (x87-tag.h). */
#include "x87-tag.h"

#include <string.h>

enum x87_tag x87_full_tag(const uint8_t f80[10])
{
	unsigned exponent = ((unsigned)(f80[9] & 0x7f) << 8) | f80[8];
	uint64_t mantissa;

	memcpy(&mantissa, f80, 8);
	if (exponent == 0x7fff)
		return x87_tag_special;
	if (exponent == 0)
		return mantissa == 0 ? x87_tag_zero : x87_tag_special;
	return mantissa >> 63 ? x87_tag_valid : x87_tag_special;
}
