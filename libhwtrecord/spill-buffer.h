/* spill-buffer.h: a growing block of bytes kept in a file, not in the
 * process's memory; internal.
 *
 * A build makes blocks it reads back seldom and never all at once (a
 * call-heavy history's function segments: 4.5 bytes a segment, 650 MB for
 * a billion instructions of fib).  Kept in malloc'ed memory they count in
 * the process's resident size as long as the process lives; kept in an
 * unlinked file mapped shared, the pages written are given back as the
 * writing goes on (MADV_DONTNEED keeps a shared file page's bytes in the
 * page cache and the file) and a read brings back the few it needs.  The
 * file is made in a directory the caller names (the recording: a disk, not
 * a tmpfs), else in TMPDIR or /tmp; when none takes it, or the disk cannot
 * hold more, the block lives in malloc'ed memory as before: the bytes are
 * the same either way.
 */
#ifndef HWTR_SPILL_BUFFER_H
#define HWTR_SPILL_BUFFER_H

#include <stdbool.h>
#include <stddef.h>

struct spill_buffer {
	unsigned char *bytes;	/* [0, cap): mapped from fd, or malloc'ed */
	size_t cap;
	int fd;			/* -1: malloc'ed */
	size_t released;	/* pages below this offset given back */
	const char *dir;	/* where its file is made; must outlive it */
	bool no_file;		/* no file could be made or grown */
};

/* An empty buffer whose file will be made in DIR (NULL: TMPDIR or /tmp
 * only).  Nothing is made before the first spill_reserve. */
void spill_init(struct spill_buffer *b, const char *dir);
/* A new unlinked file in DIR, else in TMPDIR or /tmp (the first that
 * takes one), open for reading and writing: its descriptor, or -1. */
int spill_file(const char *dir);
/* Blocks smaller than this stay in malloc'ed memory: a small history
 * makes no file. */
#define SPILL_FROM ((size_t)1 << 20)

/* Room for NEED bytes from the start (what is there is kept; BYTES may
 * move): false when out of memory. */
bool spill_reserve(struct spill_buffer *b, size_t need);
/* The buffer's room cut to SIZE bytes, its end not written after. */
void spill_trim(struct spill_buffer *b, size_t size);
/* Everything before UPTO is written and need not stay resident: pages
 * wholly before it are given back a few megabytes at a time (never for a
 * malloc'ed buffer, whose pages would come back as zeros). */
void spill_written(struct spill_buffer *b, size_t upto);
/* Every page of [0, SIZE) given back now, when the buffer is a file's
 * mapping: after a pass that read them. */
void spill_release(struct spill_buffer *b, size_t size);
/* Whether its pages may be given back (spill_release): a file's mapping. */
bool spill_in_file(const struct spill_buffer *b);
/* The bytes, the file and its mapping go. */
void spill_free(struct spill_buffer *b);

#endif
