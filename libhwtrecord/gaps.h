/* gaps.h: the gaps of a thread's history; internal. */
#ifndef HWTR_GAPS_H
#define HWTR_GAPS_H

#include "history.h"

struct builder;

/* The walk's gap ITEM as the thread's next instruction and a segment of
 * its own, with its message and kind. */
int gap_add(struct builder *b, const struct walk_item *item);
/* The gap that is instruction NUMBER, or NULL. */
const struct gap_entry *history_gap_at(const struct hwtr_thread *thread,
				       uint64_t number);

#endif
