/* insn-fault.h: what the CPU does with instructions VEX cannot decode. */
#ifndef HWTREC_INSN_FAULT_H
#define HWTREC_INSN_FAULT_H

#include "pub_tool_basics.h"

enum insn_fault {
	insn_fault_unknown = 0,	/* it may run natively */
	insn_fault_sigill,	/* ud0, ud1, ud2: #UD, SIGILL, as Valgrind */
	insn_fault_sigsegv,	/* privileged: #GP at CPL 3, SIGSEGV */
};

/* How the x86-64 instruction at BYTES (AVAIL readable bytes) faults in a
 * user-mode program whatever its operands, if it always does. */
enum insn_fault insn_native_fault(const UChar *bytes, UInt avail);

#endif
