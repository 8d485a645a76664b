/* rep.c: skip legacy prefixes and REX, then look for a string opcode. */
#include "rep.h"

bool rep_string_insn(const uint8_t *bytes, size_t size)
{
	bool rep = false;
	size_t i;

	for (i = 0; i < size; i++) {
		uint8_t b = bytes[i];

		if (b == 0xf2 || b == 0xf3)
			rep = true;
		else if (!(b == 0xf0 || b == 0x2e || b == 0x36 || b == 0x3e ||
			   b == 0x26 || b == 0x64 || b == 0x65 || b == 0x66 ||
			   b == 0x67))
			break;
	}
	if (i < size && (bytes[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (!rep || i >= size)
		return false;
	switch (bytes[i]) {
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:	/* ins, outs */
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:	/* movs, cmps */
	case 0xaa: case 0xab: case 0xac: case 0xad:	/* stos, lods */
	case 0xae: case 0xaf:				/* scas */
		return true;
	default:
		return false;
	}
}
