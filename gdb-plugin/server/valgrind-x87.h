/* valgrind-x87.h: Valgrind's gdbserver's x87 registers (and its segment
 * selectors, below), corrected.  It
 * answers them from VEX's state but gives FPREG[i] as st(i) whatever the
 * stack top, tags every full register "valid" (even a zero), and answers
 * mxcsr from the rounding mode alone and the x87 pointers and opcode as 0:
 * values VEX does not keep.  Live mode (live.c) passes its 'g' answers
 * through this, so that the live end agrees with the data log's past
 * positions (libhwtrecord/values-x87.c) and with a native process. */
#ifndef HWTREC_VALGRIND_X87_H
#define HWTREC_VALGRIND_X87_H

#include <stddef.h>
#include <stdint.h>

/* Rewrite HEX (LEN characters, a 'g' answer in the amd64 layout, tdesc.h)
 * in place: st(i) the physical register (top + i) mod 8; ftag each full
 * register's class (valid, zero, special) from its value, as GDB derives
 * it from a native fxsave; fiseg..fop and mxcsr unavailable ("xx").  An
 * answer too short to hold them, or whose fstat or ftag is not hex, is
 * left alone. */
void valgrind_x87_fix(char *hex, size_t len);

/* The segment selectors cs, ss, ds, es, fs, gs (tdesc order) of every
 * x86-64 Linux process: __USER_CS, __USER_DS in ss, the rest null.  VEX
 * has no selectors (a program under it cannot load one); Valgrind's
 * gdbserver answers 0 for cs and ss, values no process has. */
extern const uint32_t linux_user_selectors[6];
/* Rewrite HEX (LEN characters, a 'g' answer in the amd64 layout) in
 * place: the selectors those above.  An answer too short is left alone. */
void valgrind_selectors_fix(char *hex, size_t len);

#endif
