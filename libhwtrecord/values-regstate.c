/* values-regstate.c: a thread's registers at a position in one scan
 * (values-regstate.h). */
#include "values-regstate.h"

int values_regstate_at(const struct values_index *ix,
		       const struct values_thread *lt,
		       const struct values_snapshot *snap, uint64_t pos,
		       struct values_regstate *st)
{
	struct values_record r;
	int err;

	if (st->thread == lt && st->snapshot == snap && st->pos == pos)
		return 0;
	if (st->thread != lt || st->snapshot != snap || st->pos > pos) {
		st->thread = NULL;
		st->snapshot = snap;
		st->have = 0;
		st->next = snap->offset;
		st->base = snap->base;
		st->ours = true;
	}
	/* The records of position POS itself are its instruction's: they
	 * come after POS's registers, so a REGS record at POS counts and
	 * the scan stops at the first one after POS (or at a THREAD record
	 * of this thread at POS or later: it was switched out before). */
	while (st->next < ix->end) {
		if ((err = values_record_read(ix, st->next, &st->base, &r))) {
			st->thread = NULL;
			return err;
		}
		if (r.type == HWTR_VREC_THREAD) {
			if (r.lwpid == lt->lwpid && r.pos >= pos)
				break;
			st->ours = r.lwpid == lt->lwpid;
			if (!st->ours) {
				/* Other threads' records: on to this
				 * thread's next THREAD record. */
				size_t resumes = values_thread_resumes_after(
					lt, st->next);

				st->records++;
				st->next = resumes == SIZE_MAX ? ix->end
							       : resumes;
				values_base_next(&st->base, &r);
				continue;
			}
		} else if (st->ours && r.type == HWTR_VREC_REGS) {
			if (r.pos > pos)
				break;
			st->have |= values_record_registers(&r, st->value);
		}
		st->records++;
		st->next = r.next;
		values_base_next(&st->base, &r);
	}
	st->thread = lt;
	st->pos = pos;
	return 0;
}

void values_regstate_forget(struct values_regstate *st)
{
	st->thread = NULL;
}
