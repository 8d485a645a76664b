/* insn-fault.c: instructions that always fault in user mode.
 *
 * VEX cannot decode hlt, cli, mov to a control register and the like (they
 * are of no use to a user program), nor ud0/ud1/ud2, and Valgrind raises
 * SIGILL at any instruction it cannot decode.  For ud0-2 that is what the
 * CPU does (#UD).  For a privileged instruction the CPU raises #GP, which
 * Linux delivers as SIGSEGV (si_code SI_KERNEL): the tool turns such a
 * block's "no decode" exit into Valgrind's own SIGSEGV exit (instrument.c),
 * so a recorded program dies as it does natively.  Any other instruction
 * VEX cannot decode may well run natively: that is a limit of Valgrind.
 *
 * Only instructions that fault at CPL 3 whatever the process did are
 * privileged here: not I/O (ioperm can allow it), not rdpmc or rdtsc (CR4
 * decides), not sgdt/sidt/smsw (Linux emulates them under UMIP).
 */
#include "insn-fault.h"

static Bool is_prefix(UChar b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return True;
	default:
		return False;
	}
}

static Bool is_privileged(const UChar *bytes, UInt avail)
{
	UInt i = 0, reg, mod;

	while (i < avail && is_prefix(bytes[i]))
		i++;
	if (i < avail && (bytes[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= avail)
		return False;
	switch (bytes[i]) {
	case 0xf4:			/* hlt */
	case 0xfa: case 0xfb:		/* cli, sti (IOPL is 0) */
		return True;
	case 0x0f:
		break;
	default:
		return False;
	}
	if (++i >= avail)
		return False;
	switch (bytes[i]) {
	case 0x06:			/* clts */
	case 0x07: case 0x35:		/* sysret, sysexit */
	case 0x08: case 0x09:		/* invd, wbinvd */
	case 0x20: case 0x21: case 0x22: case 0x23:	/* mov cr/dr */
	case 0x30: case 0x32:		/* wrmsr, rdmsr */
		return True;
	case 0x00: case 0x01:
		break;
	default:
		return False;
	}
	if (i + 1 >= avail)
		return False;
	reg = (bytes[i + 1] >> 3) & 7;
	mod = bytes[i + 1] >> 6;
	if (bytes[i] == 0x00)		/* lldt, ltr */
		return reg == 2 || reg == 3;
	if (bytes[i + 1] == 0xf8)	/* swapgs */
		return True;
	/* lgdt, lidt (memory forms), lmsw, invlpg (memory form) */
	return (mod != 3 && (reg == 2 || reg == 3 || reg == 7)) || reg == 6;
}

static Bool is_undefined(const UChar *bytes, UInt avail)
{
	UInt i = 0;

	while (i < avail && is_prefix(bytes[i]))
		i++;
	if (i < avail && (bytes[i] & 0xf0) == 0x40)	/* REX */
		i++;
	return i + 1 < avail && bytes[i] == 0x0f &&
	       (bytes[i + 1] == 0x0b || bytes[i + 1] == 0xb9 ||
		bytes[i + 1] == 0xff);	/* ud2, ud1, ud0 */
}

enum insn_fault insn_native_fault(const UChar *bytes, UInt avail)
{
	if (is_undefined(bytes, avail))
		return insn_fault_sigill;
	if (is_privileged(bytes, avail))
		return insn_fault_sigsegv;
	return insn_fault_unknown;
}
