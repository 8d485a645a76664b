/* rep.h: recognise REP-prefixed string instructions, which single-stepping
 * reports once per iteration while a trace (and the architecture's retirement
 * count) sees one instruction. */
#ifndef HWTR_STEPPER_REP_H
#define HWTR_STEPPER_REP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True if BYTES (SIZE of them, from the instruction's start) encode a string
 * instruction with a REP/REPE/REPNE prefix. */
bool rep_string_insn(const uint8_t *bytes, size_t size);

#endif
