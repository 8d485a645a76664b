/* spill-append.c: a block written in order into an unlinked file with
 * pwrite(2), read through a read-only mapping (spill-append.h). */
#include "spill-append.h"

#include "page-release.h"
#include "spill-buffer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The file's mapping is made this large at first and grows by half:
 * it moves seldom, and a mapping past the file's end costs nothing while
 * its pages are not read. */
#define MAP_FIRST ((size_t)16 << 20)

void spill_append_init(struct spill_append *a, const char *dir)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->dir = dir;
}

int spill_pwrite(int fd, uint64_t offset, const void *bytes, size_t size)
{
	const unsigned char *p = bytes;

	while (size) {
		ssize_t n = pwrite(fd, p, size, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		offset += (uint64_t)n;
		size -= (size_t)n;
	}
	return 0;
}

/* The mapping covers the file's bytes [0, flushed): false when it cannot
 * be made. */
static bool map_flushed(struct spill_append *a)
{
	size_t page = page_size(), size = a->map_size ? a->map_size : MAP_FIRST;
	void *map;

	if (a->flushed <= a->map_size)
		return true;
	while (size < a->flushed)
		size += size / 2;
	size = (size + page - 1) & ~(page - 1);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, a->fd, 0);
	if (map == MAP_FAILED)
		return false;
	if (a->map)
		munmap((void *)a->map, a->map_size);
	a->map = map;
	a->map_size = size;
	return true;
}

/* The file goes; the whole block, read back from it, in BUF of CAP bytes
 * (at least its size): false when out of memory (nothing changed). */
static bool out_of_file(struct spill_append *a, size_t cap)
{
	unsigned char *all = malloc(cap ? cap : 1);

	if (!all || (a->flushed &&
		     pread(a->fd, all, a->flushed, 0) != (ssize_t)a->flushed)) {
		free(all);
		return false;
	}
	memcpy(all + a->flushed, a->buf, a->size - a->flushed);
	free(a->buf);
	if (a->map)
		munmap((void *)a->map, a->map_size);
	close(a->fd);
	a->fd = -1;
	a->map = NULL;
	a->map_size = 0;
	a->buf = all;
	a->buf_cap = cap;
	a->flushed = 0;
	a->no_file = true;
	return true;
}

/* The buffer's bytes into the file: false when the disk says no (the
 * block is then moved into memory, if there is some). */
static bool flush(struct spill_append *a)
{
	if (a->size > a->flushed &&
	    spill_pwrite(a->fd, a->flushed, a->buf, a->size - a->flushed))
		return out_of_file(a, a->size + a->buf_cap);
	a->flushed = a->size;
	if (!map_flushed(a))
		return out_of_file(a, a->size + a->buf_cap);
	return true;
}

/* The buffer holds the whole block and will hold more than SPILL_FROM:
 * it goes into a new file when one is made. */
static void into_file(struct spill_append *a)
{
	int fd = spill_file(a->dir);

	a->no_file = true;
	if (fd < 0)
		return;
	a->fd = fd;
	a->no_file = false;
	if (!flush(a))
		a->no_file = true;	/* back in memory: flush moved it */
}

/* Room in the buffer for NEED more bytes: false when out of memory. */
static bool buffer_room(struct spill_append *a, size_t need)
{
	size_t used = (size_t)(a->size - a->flushed), cap = a->buf_cap;
	unsigned char *grown;

	if (a->buf && need <= cap - used)
		return true;	/* (none yet: made, so that room is not NULL) */
	if (used > SIZE_MAX / 2 || need > SIZE_MAX / 2 - used)
		return false;
	if (!cap)
		cap = 4096;
	while (cap - used < need)
		cap += cap / 2;
	if (!(grown = realloc(a->buf, cap)))
		return false;
	a->buf = grown;
	a->buf_cap = cap;
	return true;
}

unsigned char *spill_append_room(struct spill_append *a, size_t need)
{
	if (a->fd < 0 && !a->no_file && a->size + need > SPILL_FROM)
		into_file(a);
	/* A full buffer goes to the file and starts again. */
	if (a->fd >= 0 && a->size - a->flushed + need > SPILL_FROM &&
	    a->size > a->flushed && !flush(a))
		return NULL;
	if (!buffer_room(a, need))
		return NULL;
	return a->buf + (a->size - a->flushed);
}

void spill_append_done(struct spill_append *a, size_t n)
{
	a->size += n;
}

bool spill_append_skip(struct spill_append *a, uint64_t n)
{
	unsigned char *p;

	if (a->fd < 0 && !a->no_file && a->size + n > SPILL_FROM)
		into_file(a);
	/* In a file: a hole, no bytes written, zeroes read. */
	if (a->fd >= 0 && flush(a) && a->fd >= 0) {
		if (ftruncate(a->fd, (off_t)(a->size + n)) == 0) {
			a->size += n;
			a->flushed = a->size;
			if (map_flushed(a))
				return true;
			a->size -= n;
			a->flushed = a->size;
		}
		if (!out_of_file(a, a->size + a->buf_cap))
			return false;
	}
	if (a->fd >= 0 || n > SIZE_MAX || !(p = spill_append_room(a, (size_t)n)))
		return false;
	memset(p, 0, (size_t)n);
	spill_append_done(a, (size_t)n);
	return true;
}

bool spill_append_write_at(struct spill_append *a, uint64_t offset,
			   const void *bytes, size_t n)
{
	const unsigned char *p = bytes;

	if (offset < a->flushed) {
		size_t in_file = a->flushed - offset < n ? (size_t)(a->flushed - offset) : n;

		if (spill_pwrite(a->fd, offset, p, in_file))
			return false;
		offset += in_file;
		p += in_file;
		n -= in_file;
	}
	if (n)
		memcpy(a->buf + (offset - a->flushed), p, n);
	return true;
}

const unsigned char *spill_append_at(const struct spill_append *a, uint64_t offset)
{
	return offset < a->flushed ? a->map + offset : a->buf + (offset - a->flushed);
}

const unsigned char *spill_append_finish(struct spill_append *a)
{
	unsigned char *shrunk;

	if (a->fd >= 0) {
		if (!flush(a))
			return NULL;
		if (a->fd >= 0) {
			free(a->buf);
			a->buf = NULL;
			a->buf_cap = 0;
			return a->map;
		}
	}
	if ((shrunk = realloc(a->buf, a->size ? a->size : 1))) {
		a->buf = shrunk;
		a->buf_cap = a->size;
	}
	return a->buf;
}

bool spill_append_in_file(const struct spill_append *a)
{
	return a->fd >= 0;
}

void spill_append_release(struct spill_append *a)
{
	if (a->map)
		madvise((void *)a->map, a->map_size, MADV_DONTNEED);
}

size_t spill_append_resident(const struct spill_append *a)
{
	return a->buf_cap;
}

void spill_append_free(struct spill_append *a)
{
	if (a->map)
		munmap((void *)a->map, a->map_size);
	if (a->fd >= 0)
		close(a->fd);
	free(a->buf);
	spill_append_init(a, a->dir);
}
