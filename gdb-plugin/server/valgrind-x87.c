/* valgrind-x87.c: Valgrind's gdbserver's x87 registers, corrected
 * (valgrind-x87.h). */
#include "valgrind-x87.h"
#include "rsp.h"
#include "tdesc.h"

#include <stdint.h>
#include <string.h>

enum { tag_valid = 0, tag_zero = 1, tag_special = 2, tag_empty = 3 };

/* The class of a full register holding F80, as GDB's i387_tag gives it
 * (libhwtrecord/values-x87.c classifies the data log's the same way). */
static unsigned full_tag(const uint8_t f80[10])
{
	unsigned exponent = ((unsigned)(f80[9] & 0x7f) << 8) | f80[8];
	uint64_t mantissa;

	memcpy(&mantissa, f80, 8);
	if (exponent == 0x7fff)
		return tag_special;
	if (exponent == 0)
		return mantissa == 0 ? tag_zero : tag_special;
	return mantissa >> 63 ? tag_valid : tag_special;
}

static void put_hex(char *text, const uint8_t *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		text[2 * i] = digits[bytes[i] >> 4];
		text[2 * i + 1] = digits[bytes[i] & 15];
	}
}

static void unavailable(char *hex, unsigned regnum)
{
	memset(hex + 2 * tdesc_register_offset(regnum), 'x',
	       2 * (size_t)tdesc_register_size(regnum));
}

void valgrind_x87_fix(char *hex, size_t len)
{
	size_t st0 = 2 * (size_t)tdesc_register_offset(tdesc_st0);
	size_t end = 2 * ((size_t)tdesc_register_offset(tdesc_mxcsr) + 4);
	uint8_t phys[8][10], word[4];
	uint32_t fstat, ftag, tags = 0;
	unsigned i, top, regnum;

	if (len < end ||
	    !rsp_unhex(hex + 2 * tdesc_register_offset(tdesc_fstat), 4, word))
		return;
	memcpy(&fstat, word, 4);
	if (!rsp_unhex(hex + 2 * tdesc_register_offset(tdesc_ftag), 4, word))
		return;
	memcpy(&ftag, word, 4);
	top = (fstat >> 11) & 7;
	/* Valgrind's "st i" is physical register i. */
	for (i = 0; i < 8; i++)
		if (!rsp_unhex(hex + st0 + 20 * i, 10, phys[i]))
			return;
	for (i = 0; i < 8; i++) {
		unsigned tag = (ftag >> (2 * i)) & 3;

		put_hex(hex + st0 + 20 * i, phys[(top + i) & 7], 10);
		tags |= (tag == tag_empty ? tag_empty : full_tag(phys[i]))
			<< (2 * i);
	}
	memcpy(word, &tags, 4);
	put_hex(hex + 2 * tdesc_register_offset(tdesc_ftag), word, 4);
	for (regnum = tdesc_fiseg; regnum <= tdesc_fop; regnum++)
		unavailable(hex, regnum);
	unavailable(hex, tdesc_mxcsr);
}
