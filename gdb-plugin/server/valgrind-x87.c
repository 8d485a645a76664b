/* valgrind-x87.c: Valgrind's gdbserver's x87 registers, corrected
 * (valgrind-x87.h). */
#include "valgrind-x87.h"
#include "rsp.h"
#include "tdesc.h"
#include "../../libhwtrecord/x87-tag.h"

#include <stdint.h>
#include <string.h>

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
		tags |= (tag == x87_tag_empty ? x87_tag_empty : x87_full_tag(phys[i]))
			<< (2 * i);
	}
	memcpy(word, &tags, 4);
	put_hex(hex + 2 * tdesc_register_offset(tdesc_ftag), word, 4);
	for (regnum = tdesc_fiseg; regnum <= tdesc_fop; regnum++)
		unavailable(hex, regnum);
	unavailable(hex, tdesc_mxcsr);
}

const uint32_t linux_user_selectors[6] = { 0x33, 0x2b, 0, 0, 0, 0 };

void valgrind_selectors_fix(char *hex, size_t len)
{
	unsigned regnum;

	if (len < 2 * ((size_t)tdesc_register_offset(tdesc_gs) + 4))
		return;
	for (regnum = tdesc_cs; regnum <= tdesc_gs; regnum++) {
		uint8_t word[4];

		memcpy(word, &linux_user_selectors[regnum - tdesc_cs], 4);
		put_hex(hex + 2 * tdesc_register_offset(regnum), word, 4);
	}
}
