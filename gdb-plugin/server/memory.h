/* memory.h: the memory of the recorded process, as the server serves it.
 *
 * A read is served from the core first (the process's own pages at the end),
 * then from the files that were mapped (the recording's sideband mmap events,
 * preferring the copy saved in the recording's objects/, then the core's
 * NT_FILE note).  The same memory is served at every position in the history:
 * it is the end state, not the memory at that time.
 */
#ifndef HWTREC_MEMORY_H
#define HWTREC_MEMORY_H

#include <stddef.h>
#include <stdint.h>

struct core;
struct memory;

struct memory_mapping {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	const char *path;	/* the file to read */
};

int memory_create(const struct core *core, struct memory **memory);
void memory_free(struct memory *memory);

/* Add a file mapping; later additions win over earlier ones that overlap. */
int memory_add_mapping(struct memory *memory, const struct memory_mapping *map);

/* Read up to LEN bytes at ADDR; returns how many could be read contiguously
 * from ADDR (0 if none). */
size_t memory_read(struct memory *memory, uint64_t addr, void *buf, size_t len);

#endif /* HWTREC_MEMORY_H */
