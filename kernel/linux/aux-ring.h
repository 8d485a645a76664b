/* aux-ring.h: draining an event's AUX area (where Intel PT writes).
 *
 * The kernel writes trace at aux_head (in the event's mmap page) into a
 * ring of aux_size bytes (a power of two) and, in normal mode (the area
 * mapped PROT_READ|PROT_WRITE), never past aux_tail: when the ring is full
 * it stops tracing and says so with an AUX record flagged TRUNCATED.  We
 * copy [aux_tail, aux_head), in two pieces when it wraps, and publish the
 * new aux_tail.  Heads and tails count every byte ever written, so the
 * position of a byte in the thread's stream is its aux offset.
 *
 * Overwrite (snapshot) mode, the area mapped read-only: the kernel ignores
 * aux_tail and keeps the newest SIZE bytes; perf_aux_ring_snapshot copies
 * them, oldest first.
 *
 * The page and the area are plain pointers: the source maps them, tests
 * hand in memory.
 */
#ifndef HWTR_AUX_RING_H
#define HWTR_AUX_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_aux_ring {
	struct perf_event_mmap_page *page;
	const uint8_t *base;
	uint64_t size;		/* a power of two */
};

typedef int (*perf_ring_sink)(void *ctx, const void *bytes, size_t size);

/* Normal mode: hand SINK the new bytes, then advance aux_tail.  Returns the
 * bytes drained, or a negative error (a sink's, or hwtr_err_format when
 * the head is behind the tail or more than SIZE ahead: the page is not what
 * the kernel writes, and nothing is drained). */
int64_t perf_aux_ring_drain(struct perf_aux_ring *ring, perf_ring_sink sink,
			    void *ctx);

/* Overwrite mode: hand SINK the last min(aux_head, SIZE) bytes, oldest
 * first; aux_tail is not touched.  Returns the bytes handed over. */
int64_t perf_aux_ring_snapshot(const struct perf_aux_ring *ring,
			       perf_ring_sink sink, void *ctx);

#endif
