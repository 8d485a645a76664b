/* valgrind-x87.h: Valgrind's gdbserver's x87 registers, corrected.  It
 * answers them from VEX's state but gives FPREG[i] as st(i) whatever the
 * stack top, tags every full register "valid" (even a zero), and answers
 * mxcsr from the rounding mode alone and the x87 pointers and opcode as 0:
 * values VEX does not keep.  Live mode (live.c) passes its 'g' answers
 * through this, so that the live end agrees with the data log's past
 * positions (libhwtrecord/values-x87.c) and with a native process. */
#ifndef HWTREC_VALGRIND_X87_H
#define HWTREC_VALGRIND_X87_H

#include <stddef.h>

/* Rewrite HEX (LEN characters, a 'g' answer in the amd64 layout, tdesc.h)
 * in place: st(i) the physical register (top + i) mod 8; ftag each full
 * register's class (valid, zero, special) from its value, as GDB derives
 * it from a native fxsave; fiseg..fop and mxcsr unavailable ("xx").  An
 * answer too short to hold them, or whose fstat or ftag is not hex, is
 * left alone. */
void valgrind_x87_fix(char *hex, size_t len);

#endif
