/* spill-append.h: a block written from its start to its end, kept in an
 * unlinked file and not in the process's memory; internal.
 *
 * The segment stores (segment-store.c) are written in order, a group of
 * segments at a time, and read back seldom.  Written through a shared
 * mapping of their file (spill-buffer.h), every new page was a page fault
 * that first read the page from the file (zeroes, the blocks being
 * preallocated) and then marked it dirty: 24 K faults and most of the
 * build's system time for the 123 MB of a call-heavy history.  Here the
 * bytes are put together in a buffer of SPILL_FROM bytes and handed to the
 * file with pwrite(2) when it is full, which copies them into the page
 * cache without a fault; they are read through a read-only mapping of the
 * file, whose pages come from the page cache.  A block smaller than
 * SPILL_FROM, or one no file takes (the file is made as spill-buffer.h
 * says), stays in malloc'ed memory, and so does one whose disk fills up:
 * the bytes are the same either way.
 */
#ifndef HWTR_SPILL_APPEND_H
#define HWTR_SPILL_APPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spill_append {
	uint64_t size;		/* the block's bytes */
	uint64_t flushed;	/* [0, flushed) are in the file */
	unsigned char *buf;	/* [flushed, size), or the whole block */
	size_t buf_cap;
	int fd;			/* -1: the whole block is in buf */
	const unsigned char *map;	/* the file, read-only: [0, map_size) */
	size_t map_size;
	const char *dir;	/* where its file is made; must outlive it */
	bool no_file;		/* no file could be made or written */
};

/* An empty block whose file will be made in DIR (NULL: TMPDIR or /tmp
 * only). */
void spill_append_init(struct spill_append *a, const char *dir);
/* Where to write NEED more bytes at the block's end (then
 * spill_append_done), or NULL when out of memory.  Pointers from
 * spill_append_at before it may be stale after. */
unsigned char *spill_append_room(struct spill_append *a, size_t need);
/* N bytes written at the block's end (at most what spill_append_room
 * made room for). */
void spill_append_done(struct spill_append *a, size_t n);
/* N bytes of the block that are not written yet, at its end (they read
 * as zeroes until spill_append_write_at puts bytes there): false when out
 * of memory. */
bool spill_append_skip(struct spill_append *a, uint64_t n);
/* The N bytes at OFFSET, which are in the block, replaced by BYTES: false
 * when the disk says no (they are then lost: the block cannot be used). */
bool spill_append_write_at(struct spill_append *a, uint64_t offset,
			   const void *bytes, size_t n);
/* Byte OFFSET of the block (below its size) to read: what one
 * spill_append_room made room for lies together. */
const unsigned char *spill_append_at(const struct spill_append *a,
				     uint64_t offset);
/* The whole block, written, together and read-only from now on: NULL
 * when the disk says no.  Nothing may be appended after. */
const unsigned char *spill_append_finish(struct spill_append *a);
/* Whether the block's bytes are a file's mapping (then pages read through
 * it may be given back: spill_append_release). */
bool spill_append_in_file(const struct spill_append *a);
/* The pages of the file's mapping given back (they are read again from
 * the page cache when used). */
void spill_append_release(struct spill_append *a);
/* The bytes resident for certain: the buffer. */
size_t spill_append_resident(const struct spill_append *a);
/* SIZE bytes at BYTES written at OFFSET of file FD, whatever pwrite(2)
 * writes at a time: 0, or -1 (errno). */
int spill_pwrite(int fd, uint64_t offset, const void *bytes, size_t size);
/* The bytes, the file and its mapping go. */
void spill_append_free(struct spill_append *a);

#endif
