/* recover-flags.h: setcc and cmovcc after a comparison, for value
 * recovery (recover.c).
 *
 * The arithmetic flags are not tracked as a register.  Instead, a setcc
 * or cmovcc whose flags come from a cmp or test of registers (or of a
 * register and an immediate; recover_compare) takes that comparison's
 * operands into its own operation: with them known, the condition is
 * computed exactly (ZF, SF, CF, OF, PF of the subtraction or the and, at
 * the comparison's width), and so is the result.  recover.c attaches a
 * comparison only when nothing between the two may have changed the
 * flags or the compared registers (recover_flags_keeps).
 *
 * An arithmetic or logical instruction sets the flags too, from its
 * result: and, or, xor as test r, r of the result (CF and OF cleared);
 * add, sub, inc, dec, neg as a comparison whose ZF, SF and PF are the
 * result's and whose CF and OF are not known (alu recover_result): a
 * condition that reads CF or OF is then not known.
 *
 * In the operation (recover_setcc, recover_cmov): cond the condition;
 * base and index the compared registers (index RECOVER_NOREG: imm); alu
 * recover_sub (cmp) or recover_and (test); scale the comparison's width.
 */
#ifndef HWTR_RECOVER_FLAGS_H
#define HWTR_RECOVER_FLAGS_H

#include "recover-x86.h"

/* Whether OP is a setcc or cmovcc of the registers it names (decoded with
 * its condition, its kind still recover_unmodelled): it can take a
 * comparison. */
bool recover_flags_wants(const struct recover_op *op);

/* Make OP (recover_flags_wants) read the flags of COMPARE (a
 * recover_compare). */
void recover_flags_attach(struct recover_op *op,
			  const struct recover_op *compare);

/* Whether OP sets the flags from its result (see above): then *COMPARE
 * is the comparison that stands for it, over the registers after OP. */
bool recover_flags_from_result(const struct recover_op *op,
			       struct recover_op *compare);

/* Whether OP, between a comparison and its reader, keeps the flags and
 * the registers in COMPARED (a mask): a move, a load, lea, an extension
 * (none of which touch the flags) that writes none of them. */
bool recover_flags_keeps(const struct recover_op *op, uint16_t compared);

/* The registers a comparison reads, as a mask. */
uint16_t recover_flags_compared(const struct recover_op *compare);

/* The same for the comparison attached to OP (recover_setcc,
 * recover_cmov). */
uint16_t recover_flags_compared_by(const struct recover_op *op);

/* The condition of OP (recover_setcc or recover_cmov) from the registers
 * before it (VAL, KNOWN): true with *HOLDS when the compared values are
 * known. */
bool recover_flags_condition(const struct recover_op *op, const uint64_t *val,
			     uint16_t known, bool *holds);

/* eflags as a register (recover.c keeps the flags before each
 * operation, as bits known and their values). */

/* The eflags bits OP may change: a modelled operation's by the manual
 * (none for moves, lea, push, pop, not; CF and OF for rotates; all
 * arithmetic flags but CF for inc and dec; the six for the rest), else
 * what decoding said (OP->fwrites). */
uint32_t recover_flags_writes(const struct recover_op *op);

/* The flags after OP from the registers before it (VAL, KNOWN) and the
 * flags before it (FLAGS, the bits FKNOWN known): the flags in *OUT, the
 * bits known returned.  Bits OP does not write keep their value; those it
 * writes are known where it defines them from known inputs (never one the
 * manual leaves undefined: AF after a logical operation or a shift, SF,
 * ZF, AF, PF after a multiplication, OF after a shift by more than 1); a
 * shift by 0 keeps them all. */
uint32_t recover_flags_after(const struct recover_op *op, const uint64_t *val,
			     uint16_t known, uint32_t flags, uint32_t fknown,
			     uint32_t *out);

/* The flags a condition reads. */
uint32_t recover_flags_read_by(uint8_t cond);

/* Make OP (a setcc or cmovcc: recover_flags_wants, or one attached to a
 * comparison) read FLAGS (known in every bit its condition reads). */
void recover_flags_given_to(struct recover_op *op, uint32_t flags);

/* Make OP, an adc or sbb of registers or an immediate, the add or sub
 * (with the carry) it is when the flags before it are FLAGS, when CF is
 * among the bits FKNOWN; false (OP unchanged) otherwise. */
bool recover_flags_carry_in(struct recover_op *op, uint32_t flags,
			    uint32_t fknown);

#endif /* HWTR_RECOVER_FLAGS_H */
