/* spill-buffer.c: a growing block of bytes kept in an unlinked file
 * (spill-buffer.h). */
#define _GNU_SOURCE	/* O_TMPFILE, mkostemp */
#include "spill-buffer.h"

#include "hwtrecord.h"
#include "page-release.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RELEASE_STEP ((size_t)4 << 20)	/* bytes given back at a time */

/* An unlinked file in DIR, or -1. */
static int file_in(const char *dir)
{
	char *path;
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if (!(path = hwtr_path_join(dir, ".hwtrec-spill.XXXXXX")))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

int spill_file(const char *dir)
{
	const char *tmp = getenv("TMPDIR");
	int fd = -1;

	if (dir)
		fd = file_in(dir);
	if (fd < 0 && tmp && *tmp)
		fd = file_in(tmp);
	if (fd < 0)
		fd = file_in("/tmp");
	return fd;
}

void spill_init(struct spill_buffer *b, const char *dir)
{
	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->dir = dir;
}

/* The file's blocks for [0, CAP) taken now (a write through the mapping
 * to a disk that is full would be a SIGBUS, this is an error) and mapped
 * anew: false when the disk or the mapping says no. */
static bool map_file(struct spill_buffer *b, int fd, size_t cap)
{
	void *map;

	if (posix_fallocate(fd, 0, (off_t)cap) != 0)
		return false;
	map = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return false;
	if (b->fd >= 0)
		munmap(b->bytes, b->cap);
	b->bytes = map;
	b->cap = cap;
	b->fd = fd;
	return true;
}

/* The malloc'ed bytes moved into a new file of CAP bytes: false when no
 * file takes them (they stay). */
static bool into_file(struct spill_buffer *b, size_t cap)
{
	unsigned char *old = b->bytes;
	size_t used = b->cap;
	int fd = spill_file(b->dir);

	if (fd < 0 || !map_file(b, fd, cap)) {
		if (fd >= 0)
			close(fd);
		b->no_file = true;
		return false;
	}
	if (used)	/* nothing malloc'ed yet: OLD is NULL */
		memcpy(b->bytes, old, used);
	free(old);
	b->released = 0;
	return true;
}

/* The mapped bytes moved into malloc'ed memory of CAP bytes (the disk is
 * full): false when out of memory (they stay). */
static bool out_of_file(struct spill_buffer *b, size_t cap)
{
	unsigned char *copy = malloc(cap);

	if (!copy)
		return false;
	memcpy(copy, b->bytes, b->cap);
	munmap(b->bytes, b->cap);
	close(b->fd);
	b->fd = -1;
	b->bytes = copy;
	b->cap = cap;
	b->no_file = true;
	return true;
}

bool spill_reserve(struct spill_buffer *b, size_t need)
{
	size_t page = page_size(), cap = b->cap;
	unsigned char *grown;

	if (need <= b->cap)
		return true;
	while (cap < need) {
		if (cap > SIZE_MAX / 3 * 2 - page)
			return false;
		cap = cap < 4096 ? 4096 : cap + cap / 2;
	}
	cap = (cap + page - 1) & ~(page - 1);
	if (b->fd >= 0) {
		if (map_file(b, b->fd, cap))
			return true;
		return out_of_file(b, cap);
	}
	if (cap >= SPILL_FROM && !b->no_file && into_file(b, cap))
		return true;
	if (!(grown = realloc(b->bytes, cap)))
		return false;
	b->bytes = grown;
	b->cap = cap;
	return true;
}

void spill_trim(struct spill_buffer *b, size_t size)
{
	size_t page = page_size(), cap = (size + page - 1) & ~(page - 1);
	unsigned char *shrunk;

	if (cap >= b->cap)
		return;
	if (b->fd >= 0) {
		/* The file's blocks past it go; the mapping stays as long, its
		 * end never touched. */
		if (ftruncate(b->fd, (off_t)cap) == 0) {
			munmap(b->bytes + cap, b->cap - cap);
			b->cap = cap;
		}
		return;
	}
	if ((shrunk = realloc(b->bytes, size ? size : 1))) {
		b->bytes = shrunk;
		b->cap = size;
	}
}

void spill_written(struct spill_buffer *b, size_t upto)
{
	size_t to = upto & ~(page_size() - 1);

	if (b->fd >= 0 && to > b->released && to - b->released >= RELEASE_STEP) {
		/* Advice only: when it fails the pages just stay. */
		madvise(b->bytes + b->released, to - b->released, MADV_DONTNEED);
		b->released = to;
	}
}

void spill_release(struct spill_buffer *b, size_t size)
{
	size_t to = size < b->cap ? size : b->cap;

	if (b->fd >= 0 && to)
		madvise(b->bytes, (to + page_size() - 1) & ~(page_size() - 1),
			MADV_DONTNEED);
}

bool spill_in_file(const struct spill_buffer *b)
{
	return b->fd >= 0;
}

void spill_free(struct spill_buffer *b)
{
	if (b->fd >= 0) {
		munmap(b->bytes, b->cap);
		close(b->fd);
	} else {
		free(b->bytes);
	}
	spill_init(b, b->dir);
}
