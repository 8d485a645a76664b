/* values-regstate.h: every register of one thread at one log position,
 * rebuilt in one scan of the log from the snapshot before it, and kept.
 *
 * GDB asks for a position's registers one by one (the server's `g' reply
 * fills some 60): read each with its own scan from the snapshot (one every
 * 32,768 instructions), and `info registers' or a reverse-step at a past
 * position read the same hundreds of kilobytes of log 60 times.  The state
 * kept also lets the next, later position of the same snapshot go on
 * from where this scan stopped (stepping forward).
 */
#ifndef HWTR_VALUES_REGSTATE_H
#define HWTR_VALUES_REGSTATE_H

#include "values-index.h"

#include <stdint.h>

struct values_regstate {
	const struct values_thread *thread;	/* NULL: nothing kept */
	const struct values_snapshot *snapshot;	/* the scan started there */
	uint64_t pos;
	uint64_t have;		/* bits set since the snapshot */
	uint8_t value[HWTR_VREG_COUNT][HWTR_VREG_MAX_SIZE];
	/* Where the scan stopped: the next record, what the records before
	 * it gave, and whether they were THREAD's. */
	size_t next;
	struct values_base base;
	bool ours;
	uint64_t records;	/* read, in all scans (for tests) */
};

/* STATE as THREAD's registers just before log position POS, from
 * SNAPSHOT (its last at or before POS) on: 0, or an error reading the
 * log.  Costs nothing when STATE already is that position. */
int values_regstate_at(const struct values_index *index,
		       const struct values_thread *thread,
		       const struct values_snapshot *snapshot, uint64_t pos,
		       struct values_regstate *state);

/* Forget the position kept (the records count stays). */
void values_regstate_forget(struct values_regstate *state);

#endif
