/* hwt-bufpoll.h: following a buffer's write pointer when the kernel sends no
 * BUFFER records (the coresight backend: the TMC-ETR's write pointer is only
 * read, with BUFPTR_GET).
 *
 * The pointer says where the writer is inside the circular buffer, not how
 * many times it went round.  A thread of the recorder reads it every
 * PERIOD_US and adds up the distances between readings into an absolute count
 * of bytes written: right as long as it reads at least once per lap, which
 * the recorder's main loop (20 ms ticks, waits for records, copies) could
 * not promise by itself.  If the poller is not scheduled for a whole lap, a
 * lap is missed and cannot be known: see doc/recording-freebsd.md.
 */
#ifndef HWT_BUFPOLL_H
#define HWT_BUFPOLL_H

#include "hwt-sys.h"

#include <stdint.h>

struct hwt_bufpoll;

/* Poll node FD's buffer (SIZE bytes) every PERIOD_US from a new thread; the
 * count starts at 0 where the pointer is at 0.  0, or an errno. */
int hwt_bufpoll_start(const struct hwt_sys *sys, int fd, uint64_t size,
		      unsigned period_us, struct hwt_bufpoll **poll);
/* Bytes written as of the newest reading, and the reading itself (a buffer
 * offset) in *POSITION if not NULL. */
uint64_t hwt_bufpoll_written(struct hwt_bufpoll *poll, uint64_t *position);
/* Read the pointer now (in the caller's thread) and count it in: 0, or the
 * errno. */
int hwt_bufpoll_now(struct hwt_bufpoll *poll);
/* Stop the thread and free: 0, or the errno that stopped the polling. */
int hwt_bufpoll_stop(struct hwt_bufpoll *poll);

#endif
