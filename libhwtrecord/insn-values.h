/* insn-values.h: what each instruction of a listing changed (registers and
 * memory), from the data log, for `hwtrec dump --insn --values`
 * (listing.c): as JSON fields or as text lines under the instruction. */
#ifndef HWTR_INSN_VALUES_H
#define HWTR_INSN_VALUES_H

#include <hwtrecord.h>
#include <jansson.h>
#include <stdio.h>

struct insn_values;

int insn_values_open(struct hwtr_values *values, struct hwtr_thread *thread,
		     struct insn_values **out);
void insn_values_close(struct insn_values *iv);

/* Add "regs" and "stores" of instruction NUMBER to OBJ. */
int insn_values_json(struct insn_values *iv, uint64_t number, json_t *obj);
/* Print them as lines under the instruction. */
int insn_values_text(struct insn_values *iv, uint64_t number, FILE *out);

#endif
