/* memory.h: the memory of the recorded process, as the server serves it.
 *
 * A read is served from the core first (the process's own pages at the end),
 * then from the files that were mapped (the recording's sideband mmap events,
 * preferring the copy saved in the recording's objects/, then the core's
 * NT_FILE note): the end state.
 *
 * At a past position the end state may be wrong (a global written since, a
 * buffer a system call filled later), so there only bytes that cannot have
 * changed are read (memory_read_fixed): those of files mapped read-only,
 * which are the same at every time the mapping exists.  Everything else is
 * unknown there unless a value provider knows it (replay.c).
 */
#ifndef HWTREC_MEMORY_H
#define HWTREC_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct core;
struct hwtr_sideband_event;
struct memory;

struct memory_mapping {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	const char *path;	/* the file to read */
	/* Mapped without write permission (code, constants): its bytes are
	 * the file's at every time.  False when not known. */
	bool read_only;
};

/* Whether a sideband mmap event maps its file read-only (a source that
 * does not say, prot 0, counts as writable). */
bool sideband_read_only(const struct hwtr_sideband_event *event);

int memory_create(const struct core *core, struct memory **memory);
void memory_free(struct memory *memory);

/* Add a file mapping; later additions win over earlier ones that overlap. */
int memory_add_mapping(struct memory *memory, const struct memory_mapping *map);

/* Read up to LEN bytes at ADDR; returns how many could be read contiguously
 * from ADDR (0 if none). */
size_t memory_read(struct memory *memory, uint64_t addr, void *buf, size_t len);

/* The same, but only bytes that were the same at every time: from files
 * whose newest mapping at ADDR is read-only (never the core). */
size_t memory_read_fixed(struct memory *memory, uint64_t addr, void *buf,
			 size_t len);

#endif /* HWTREC_MEMORY_H */
