/* maps.h: a process's memory map (/proc/PID/maps), to turn a PC into
 * (object path, file offset). */
#ifndef HWTR_STEPPER_MAPS_H
#define HWTR_STEPPER_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct maps_entry {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	const char *path;	/* as the kernel prints it, "" when anonymous;
				 * interned (see maps_intern) */
};

struct maps {
	pid_t pid;
	struct maps_entry *entries;	/* sorted by start */
	size_t count;
	bool stale;		/* re-read before the next lookup */
};

/* Read /proc/PID/maps into MAPS (replacing what it held).  Returns 0, or -1
 * with errno set when the file cannot be read. */
int maps_read(struct maps *maps, pid_t pid);

/* The entry holding ADDR, re-reading the maps once on a miss or when they are
 * stale; NULL if ADDR is not mapped. */
const struct maps_entry *maps_lookup(struct maps *maps, uint64_t addr);

void maps_free(struct maps *maps);

/* The one copy of PATH kept for the life of the process (pointer equality
 * means path equality); NULL when out of memory. */
const char *maps_intern(const char *path);

#endif
