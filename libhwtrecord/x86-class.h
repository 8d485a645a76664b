/* x86-class.h: the control-flow class of an x86-64 instruction from its
 * bytes, internal.
 *
 * The index pass needs the class of every block's last instruction that
 * libipt leaves unclassified (indirect jumps and far transfers served from
 * its block cache).  Only the opcode decides the class, so it is read from
 * the prefixes, the opcode and the ModRM byte's reg field: no full decode,
 * no text (Capstone formats every instruction it decodes).
 */
#ifndef HWTR_X86_CLASS_H
#define HWTR_X86_CLASS_H

#include "hwtrecord.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The class of the x86-64 instruction at CODE (AVAIL bytes readable):
 * hwtr_ic_unknown when the bytes end before its opcode (and ModRM, where
 * that decides) or when it is not valid in 64-bit mode as a branch. */
enum hwtr_insn_class x86_class(const uint8_t *code, size_t avail);
/* Whether B is a legacy prefix or a REX byte: what may come before an
 * opcode (a REX byte counts only right before it, but is no opcode). */
bool x86_is_prefix(uint8_t b);

#endif
