/* branch-class.c: classify an x86-64 instruction as Intel PT sees branches.
 *
 * Why not use the IR's jump kinds: VEX's optimiser folds constants, so an
 * indirect `jmp *%rax` whose target is known in the block ends with a
 * constant `next`, yet PT hardware (and every PT decoder) treats it as an
 * indirect branch that needs a TIP.  The decoder decides from the instruction
 * bytes, so we do too.  A Valgrind tool cannot link a disassembler (no libc),
 * and only the opcodes of branches matter here: legacy prefixes, REX, one- or
 * two-byte opcode, and the ModRM reg field of opcode 0xFF.  VEX/EVEX-encoded
 * instructions are never branches.
 */
#include "branch-class.h"

static Bool is_legacy_prefix(UChar b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return True;
	default:
		return False;
	}
}

static Int read_s32(const UChar *p)
{
	return (Int)((UInt)p[0] | (UInt)p[1] << 8 | (UInt)p[2] << 16 |
		     (UInt)p[3] << 24);
}

enum branch_class branch_classify(const UChar *bytes, UInt len, Addr addr,
				  Addr *target)
{
	UInt i = 0;
	UChar op;
	Addr next = addr + len;

	*target = 0;
	while (i < len && is_legacy_prefix(bytes[i]))
		i++;
	if (i < len && (bytes[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= len)
		return bc_other;
	op = bytes[i];

	if (op >= 0x70 && op <= 0x7f && i + 2 == len) {	/* jcc rel8 */
		*target = next + (Long)(signed char)bytes[i + 1];
		return bc_cond;
	}
	if (op >= 0xe0 && op <= 0xe3 && i + 2 == len) {	/* loop*, jrcxz */
		*target = next + (Long)(signed char)bytes[i + 1];
		return bc_cond;
	}
	switch (op) {
	case 0xe8:		/* call rel32 */
		if (i + 5 != len)
			return bc_other;
		*target = next + (Long)read_s32(bytes + i + 1);
		return bc_call;
	case 0xe9:		/* jmp rel32 */
		if (i + 5 != len)
			return bc_other;
		*target = next + (Long)read_s32(bytes + i + 1);
		return bc_jump;
	case 0xeb:		/* jmp rel8 */
		if (i + 2 != len)
			return bc_other;
		*target = next + (Long)(signed char)bytes[i + 1];
		return bc_jump;
	case 0xc2: case 0xc3:	/* ret, ret imm16 */
		return bc_return;
	case 0xca: case 0xcb: case 0xcf:	/* far ret, iret */
	case 0xcc: case 0xcd: case 0xce:	/* int3, int n, into */
		return bc_far;
	case 0xff:
		if (i + 1 >= len)
			return bc_other;
		switch ((bytes[i + 1] >> 3) & 7) {
		case 2: return bc_call_indirect;
		case 4: return bc_jump_indirect;
		case 3: case 5: return bc_far;	/* far call/jmp m16:64 */
		default: return bc_other;
		}
	case 0x0f:
		if (i + 1 >= len)
			return bc_other;
		op = bytes[i + 1];
		if (op >= 0x80 && op <= 0x8f && i + 6 == len) {	/* jcc rel32 */
			*target = next + (Long)read_s32(bytes + i + 2);
			return bc_cond;
		}
		if (op == 0x05 || op == 0x34 || op == 0x07 || op == 0x35)
			return bc_far;	/* syscall, sysenter, sysret, sysexit */
		return bc_other;
	default:
		return bc_other;
	}
}
