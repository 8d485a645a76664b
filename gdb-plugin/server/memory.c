/* memory.c: memory from the core, then from mapped files (see memory.h).
 * Files are mapped read-only on first use and kept until memory_free. */
#include "memory.h"

#include "corefile.h"

#include <hwtrecord.h>

#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct mapping {
	uint64_t start, end, pgoff;
	char *path;
	bool read_only;
	bool tried;		/* opened (or failed to) already */
	const uint8_t *bytes;	/* the whole file, or NULL */
	size_t size;
};

struct memory {
	const struct core *core;
	size_t n, cap;
	struct mapping *maps;
};

bool sideband_read_only(const struct hwtr_sideband_event *ev)
{
	return ev->prot && !(ev->prot & HWTR_PROT_WRITE);
}

int memory_create(const struct core *core, struct memory **out)
{
	struct memory *m = calloc(1, sizeof(*m));

	if (!m)
		return -1;
	m->core = core;
	*out = m;
	return 0;
}

void memory_free(struct memory *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		if (m->maps[i].bytes)
			munmap((void *)m->maps[i].bytes, m->maps[i].size);
		free(m->maps[i].path);
	}
	free(m->maps);
	free(m);
}

int memory_add_mapping(struct memory *m, const struct memory_mapping *map)
{
	struct mapping *p;

	if (map->end <= map->start || !map->path)
		return -1;
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;

		p = realloc(m->maps, cap * sizeof(*p));
		if (!p)
			return -1;
		m->maps = p;
		m->cap = cap;
	}
	p = &m->maps[m->n];
	memset(p, 0, sizeof(*p));
	p->start = map->start;
	p->end = map->end;
	p->pgoff = map->pgoff;
	p->read_only = map->read_only;
	p->path = strdup(map->path);
	if (!p->path)
		return -1;
	m->n++;
	return 0;
}

static void open_mapping(struct mapping *p)
{
	struct stat st;
	int fd;

	p->tried = true;
	/* O_NONBLOCK: a FIFO or a device at a mapping's path must not block
	 * the open; only a regular file is used. */
	fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (b != MAP_FAILED) {
			p->bytes = b;
			p->size = (size_t)st.st_size;
		}
	}
	close(fd);
}

/* Bytes at A from the newest mapping that covers it; with FIXED only when
 * that mapping is read-only (a writable one may have changed them). */
static size_t read_mapped(struct memory *m, uint64_t a, uint8_t *buf, size_t len,
			  bool fixed)
{
	size_t i = m->n;

	while (i-- > 0) {
		struct mapping *p = &m->maps[i];
		uint64_t off;
		size_t n;

		if (a < p->start || a >= p->end)
			continue;
		if (fixed && !p->read_only)
			return 0;
		if (!p->tried)
			open_mapping(p);
		off = p->pgoff + (a - p->start);
		if (!p->bytes)
			continue;	/* file missing here: an older mapping may have it */
		if (off >= p->size)
			return 0;	/* past the file's end: SIGBUS in the program */
		n = p->size - off;
		if (n > p->end - a)
			n = p->end - a;
		if (n > len)
			n = len;
		memcpy(buf, p->bytes + off, n);
		return n;
	}
	return 0;
}

size_t memory_read(struct memory *m, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t a = addr + done;
		size_t n = m->core ? hwtr_core_memory_read(m->core->memory, a, (uint8_t *)buf + done,
						      len - done) : 0;

		if (!n)
			n = read_mapped(m, a, (uint8_t *)buf + done, len - done, false);
		if (!n)
			break;
		done += n;
	}
	return done;
}

size_t memory_read_fixed(struct memory *m, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t n = read_mapped(m, addr + done, (uint8_t *)buf + done,
				       len - done, true);

		if (!n)
			break;
		done += n;
	}
	return done;
}
