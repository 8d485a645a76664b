/* end-memory.h: the memory of a recording's end state, from its core
 * (REC/core: PT_LOAD segments, the part the core holds), for what the data
 * log calls "the same as at the end" (values-stores.c).  Bytes the core
 * does not hold (no core, read-only file pages it left out) are not known:
 * this reader does not guess them from the binaries. */
#ifndef HWTR_END_MEMORY_H
#define HWTR_END_MEMORY_H

#include <stddef.h>
#include <stdint.h>

struct hwtr_recording;
struct end_memory;

/* 0 with *OUT set (an empty end state when the recording has no core), or
 * a negative error naming the core when it cannot be read. */
int end_memory_open(const struct hwtr_recording *recording,
		    struct end_memory **out);
void end_memory_close(struct end_memory *em);

/* Copy [ADDR, ADDR+SIZE) into BUF where the core holds it, setting
 * KNOWN[i] to 1 for each byte it holds (and leaving the others alone).
 * 0 or a negative error (a read that failed). */
int end_memory_read(struct end_memory *em, uint64_t addr, uint8_t *buf,
		    uint8_t *known, size_t size);

#endif
