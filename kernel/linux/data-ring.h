/* data-ring.h: reading the records the kernel writes into an event's data
 * ring (MMAP2, COMM, FORK, EXIT, AUX, LOST, ITRACE_START, ...).
 *
 * The ring is the mmap's pages after the first, data_size bytes (a power of
 * two), written at data_head; we read [data_tail, data_head) and publish
 * data_tail.  A record may wrap around the end of the ring: it is copied
 * into one piece before it is handed over.  Records are parsed by
 * perf-record.c, the code that reads perf.data.
 */
#ifndef HWTR_DATA_RING_H
#define HWTR_DATA_RING_H

#include "perf-record.h"

#include <linux/perf_event.h>
#include <stdint.h>

struct perf_data_ring {
	struct perf_event_mmap_page *page;
	const uint8_t *base;
	uint64_t size;			/* a power of two */
	struct perf_rec_layout layout;	/* the event's sample_type */
};

typedef int (*perf_record_fn)(void *ctx, const struct perf_rec *rec);

/* Parse every complete record in the ring and hand it to FN, then advance
 * data_tail past them.  A record that does not parse (a size that cannot
 * be, a body that does not fit) stops the drain with hwtr_err_format and
 * its ring position; the tail is then moved to the head, dropping what
 * cannot be read, so the kernel can go on.  Returns the records read. */
int64_t perf_data_ring_drain(struct perf_data_ring *ring, perf_record_fn fn,
			     void *ctx);

#endif
