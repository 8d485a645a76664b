/* values-access.h: what files beside values.c (values-stores.c) may ask of
 * an open data log, so that they read its records without knowing how
 * values.c maps history numbers to log positions.  Kept to one call (and a count for the tests). */
#ifndef HWTR_VALUES_ACCESS_H
#define HWTR_VALUES_ACCESS_H

#include "values-index.h"

#include <hwtrecord.h>

/* Where history number NUMBER of THREAD is in the log: the index, the
 * thread's records (*LOG, NULL when the log has none of it), its log
 * position (*POS, 0 for a gap), the last position whose records are all
 * in the log (*COMPLETE), and whether the log lets memory be rebuilt
 * (*MEMORY_KNOWN: whole, and every thread of the history logged).  0, or
 * a negative error (NUMBER outside the history, a thread of another
 * history). */
int values_locate(struct hwtr_values *values, struct hwtr_thread *thread,
		  uint64_t number, const struct values_index **index,
		  const struct values_thread **log, uint64_t *pos,
		  uint64_t *complete, bool *memory_known);

/* How many log records hwtr_values_register has read so far, in all its
 * scans (for the tests: a position's registers cost one scan). */
uint64_t values_register_records_read(const struct hwtr_values *values);

#endif
