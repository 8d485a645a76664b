/* ring-fake.h: the kernel's side of an event's rings, in memory, for the
 * tests: a mmap page, a data ring and an AUX area that "kernel" functions
 * write into the way the kernel does (at the head, wrapping, never past
 * the tail in normal mode). */
#ifndef RING_FAKE_H
#define RING_FAKE_H

#include "../../kernel/linux/perf-record.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fake_rings {
	struct perf_event_mmap_page page;
	uint8_t *data;
	uint64_t data_size;
	uint8_t *aux;
	uint64_t aux_size;
};

void fake_rings_init(struct fake_rings *f, uint64_t data_size, uint64_t aux_size);
void fake_rings_release(struct fake_rings *f);
/* Write AUX bytes at aux_head; false (nothing written) if they do not fit
 * before the tail, as the kernel in normal mode. */
bool fake_aux_write(struct fake_rings *f, const void *bytes, size_t n);
/* Encode REC with LAYOUT and write it at data_head. */
void fake_data_write(struct fake_rings *f, const struct perf_rec *rec,
		     const struct perf_rec_layout *layout);

#endif
