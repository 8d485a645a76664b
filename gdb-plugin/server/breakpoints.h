/* breakpoints.h: the breakpoints GDB inserted, for the replay engine.
 *
 * GDB removes and inserts every breakpoint around each resume, and may have
 * thousands: inserting, removing and asking about an address each cost
 * O(log n) (a search tree), and the sorted list of distinct addresses that
 * the history's search takes is made again only after a change.  Software
 * and hardware breakpoints alike: the trace sees both. */
#ifndef HWTREC_BREAKPOINTS_H
#define HWTREC_BREAKPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct breakpoints;

int breakpoints_new(struct breakpoints **breakpoints);
void breakpoints_free(struct breakpoints *breakpoints);

/* TYPE is GDB's Z type (0 software, 1 hardware; at most 31).  Inserting
 * one twice or removing one never inserted is no error (GDB does both). */
int breakpoints_insert(struct breakpoints *breakpoints, int type, uint64_t addr);
int breakpoints_remove(struct breakpoints *breakpoints, int type, uint64_t addr);

/* Is there a breakpoint (of any type) at ADDR? */
bool breakpoints_at(const struct breakpoints *breakpoints, uint64_t addr);

/* The distinct addresses, ascending; valid until the next change.  0, or
 * -ENOMEM. */
int breakpoints_addresses(struct breakpoints *breakpoints,
			  const uint64_t **addrs, size_t *count);

#endif /* HWTREC_BREAKPOINTS_H */
