/* hwt-lwps.h: naming hwt(4) thread indexes with LWP ids.
 *
 * hwt numbers a context's threads 0, 1, 2 ... in creation order (existing
 * threads at ALLOC in the kernel's p_threads order, later ones as they are
 * created) and its records carry only that index.  The process's thread list
 * (kinfo_proc with threads, in p_threads order: creation order) gives LWP ids.
 * Matching the two in order names each index, provided every thread is seen
 * in some listing; a thread that is created and ends between two listings is
 * never seen, and then the threads of that window cannot be told apart: they
 * are named 0x80000000 + index instead (FreeBSD's LWP ids start at 100001,
 * so such a name is never an LWP id).
 *
 * The caller's part, so that no index is ever given another thread's id:
 *   1. read every queued record (RECORD_GET until it returns less than a
 *      batch) and pass each THREAD_CREATE to hwt_lwps_created();
 *   2. list the process's threads: hwt_lwps_listed();
 *   3. read every queued record again, as in 1;
 *   4. hwt_lwps_settle(): if 3 brought no THREAD_CREATE, the indexes known are
 *      exactly the threads created before the listing, and names are given;
 *      otherwise go back to 2 (or try later: nothing is lost by waiting).
 * This relies on the kernel queueing a thread's THREAD_CREATE before the
 * thread can appear in a listing.
 */
#ifndef HWT_LWPS_H
#define HWT_LWPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HWT_UNNAMED_THREAD(index) (0x80000000u | (uint32_t)(index))

struct hwt_lwps;

int hwt_lwps_new(struct hwt_lwps **lwps);
void hwt_lwps_free(struct hwt_lwps *lwps);

/* A THREAD_CREATE record named INDEX. */
int hwt_lwps_created(struct hwt_lwps *lwps, int index);
/* The process's live threads, in creation order, just listed. */
int hwt_lwps_listed(struct hwt_lwps *lwps, const uint32_t *lwpids, size_t n);
/* Every record queued after the last listing has been read: name what the
 * listing allows, unless a THREAD_CREATE was read since it (false: list
 * again).  An index that cannot be named with certainty gets
 * HWT_UNNAMED_THREAD(index). */
bool hwt_lwps_settle(struct hwt_lwps *lwps);
/* Name every waiting index HWT_UNNAMED_THREAD(index): the process has
 * ended and no listing can settle them any more. */
void hwt_lwps_give_up(struct hwt_lwps *lwps);
/* INDEX's name, once it has one. */
bool hwt_lwps_name(const struct hwt_lwps *lwps, int index, uint32_t *tid);
/* How many indexes wait for a name (their listing has not settled). */
size_t hwt_lwps_waiting(const struct hwt_lwps *lwps);
/* How many indexes got HWT_UNNAMED_THREAD. */
size_t hwt_lwps_unnamed(const struct hwt_lwps *lwps);

#endif
