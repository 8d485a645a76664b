/* x86-class.c: an x86-64 instruction's control-flow class from its opcode
 * (see x86-class.h).  Opcodes from the Intel SDM volume 2, appendix A
 * (opcode map); classes as GDB's btrace and libipt give them: near call,
 * return, jump and conditional jump; far call (lcall, syscall, sysenter,
 * int n, int3), far return (lret, iret, sysret, sysexit), far jump (ljmp).
 * Everything else is "other".
 */
#include "x86-class.h"

#include <stdbool.h>

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	default:
		return false;
	}
}

bool x86_is_prefix(uint8_t b)
{
	return is_legacy_prefix(b) || (b & 0xf0) == 0x40;
}

/* 0x0f xx */
static enum hwtr_insn_class two_byte_class(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f)
		return hwtr_ic_cond_jump;	/* jcc rel32 */
	switch (op) {
	case 0x05: case 0x34: return hwtr_ic_far_call;	/* syscall, sysenter */
	case 0x07: case 0x35: return hwtr_ic_far_return;	/* sysret, sysexit */
	default: return hwtr_ic_other;
	}
}

/* 0xff /reg: group 5. */
static enum hwtr_insn_class group5_class(uint8_t modrm)
{
	unsigned reg = (modrm >> 3) & 7, mod = modrm >> 6;

	switch (reg) {
	case 2: return hwtr_ic_call;
	case 4: return hwtr_ic_jump;
	/* Far forms take a memory operand only. */
	case 3: return mod == 3 ? hwtr_ic_unknown : hwtr_ic_far_call;
	case 5: return mod == 3 ? hwtr_ic_unknown : hwtr_ic_far_jump;
	case 7: return hwtr_ic_unknown;	/* undefined */
	default: return hwtr_ic_other;	/* inc, dec, push */
	}
}

static enum hwtr_insn_class opcode_class(const uint8_t *code, size_t avail,
					 size_t i)
{
	uint8_t op;

	if (i >= avail)
		return hwtr_ic_unknown;
	op = code[i++];
	if (op >= 0x70 && op <= 0x7f)
		return hwtr_ic_cond_jump;	/* jcc rel8 */
	switch (op) {
	case 0x0f:
		return i < avail ? two_byte_class(code[i]) : hwtr_ic_unknown;
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:	/* loop*, jrcxz */
		return hwtr_ic_cond_jump;
	case 0xe8: return hwtr_ic_call;
	case 0xe9: case 0xeb: return hwtr_ic_jump;
	case 0xc2: case 0xc3: return hwtr_ic_return;
	case 0xca: case 0xcb: case 0xcf: return hwtr_ic_far_return;
	case 0xcc: case 0xcd: return hwtr_ic_far_call;	/* int3, int n */
	/* Invalid in 64-bit mode: far call/jump ptr16:32, into. */
	case 0x9a: case 0xea: case 0xce:
		return hwtr_ic_unknown;
	case 0xff:
		return i < avail ? group5_class(code[i]) : hwtr_ic_unknown;
	default:
		return hwtr_ic_other;
	}
}

enum hwtr_insn_class x86_class(const uint8_t *code, size_t avail)
{
	enum hwtr_insn_class c;
	bool locked = false;
	size_t i = 0;

	/* A REX byte counts only right before the opcode, but either way it
	 * is not the opcode. */
	while (i < avail && i < 14 && x86_is_prefix(code[i]))
		locked |= code[i++] == 0xf0;
	c = opcode_class(code, avail, i);
	/* lock before a branch is #UD. */
	if (locked && c != hwtr_ic_other)
		return hwtr_ic_unknown;
	return c;
}
