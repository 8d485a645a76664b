/* maps.c: /proc/PID/maps, kept current by re-reading it when the stepper saw
 * a mapping system call (the caller sets maps->stale) or on a lookup miss.
 * Entries are sorted by the kernel, so a lookup is a binary search. */
#define _GNU_SOURCE
#include "maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Paths are interned for the life of the process: a stepper holds a few dozen,
 * and callers keep pointers to them across re-reads. */
static char **interned;
static size_t ninterned;

const char *maps_intern(const char *path)
{
	char **grown;

	for (size_t i = 0; i < ninterned; i++)
		if (!strcmp(interned[i], path))
			return interned[i];
	grown = realloc(interned, (ninterned + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	interned = grown;
	interned[ninterned] = strdup(path);
	return interned[ninterned] ? interned[ninterned++] : NULL;
}

static void clear(struct maps *maps)
{
	free(maps->entries);
	maps->entries = NULL;
	maps->count = 0;
}

int maps_read(struct maps *maps, pid_t pid)
{
	char name[64], *line = NULL;
	size_t cap = 0, alloc = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return -1;
	clear(maps);
	maps->pid = pid;
	while (getline(&line, &cap, f) > 0) {
		uint64_t start, end, offset;
		int path_at = 0;
		char *path;

		/* start-end perms offset dev inode   path */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64
			   " %*s %*u %n", &start, &end, &offset, &path_at) < 3)
			continue;
		path = line + path_at;
		path[strcspn(path, "\n")] = '\0';
		if (maps->count == alloc) {
			size_t n = alloc ? 2 * alloc : 64;
			struct maps_entry *e = realloc(maps->entries,
						       n * sizeof(*e));
			if (!e)
				break;
			maps->entries = e;
			alloc = n;
		}
		path = (char *)maps_intern(path);
		if (!path)
			break;
		maps->entries[maps->count++] = (struct maps_entry){
			start, end, offset, path
		};
	}
	free(line);
	fclose(f);
	maps->stale = false;
	return 0;
}

static const struct maps_entry *search(const struct maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct maps_entry *e = &maps->entries[mid];

		if (addr < e->start)
			hi = mid;
		else if (addr >= e->end)
			lo = mid + 1;
		else
			return e;
	}
	return NULL;
}

const struct maps_entry *maps_lookup(struct maps *maps, uint64_t addr)
{
	const struct maps_entry *e = NULL;

	if (!maps->stale)
		e = search(maps, addr);
	if (!e && maps_read(maps, maps->pid) == 0)
		e = search(maps, addr);
	return e;
}

void maps_free(struct maps *maps)
{
	clear(maps);
}
