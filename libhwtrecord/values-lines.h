/* values-lines.h: which bytes each chunk of the data log writes, by 64-byte
 * line (values-index.h's chunks).
 *
 * A read of memory at a past position wants, for each byte, the first
 * record after the position that writes it; a byte no later record writes
 * is as it was at the end.  A chunk may be skipped only if it writes none
 * of the bytes still wanted: a filter of the lines a chunk touches admits
 * every chunk where a call or a store writes the bytes next to the ones
 * read (the return address below a caller's locals, the other half of a
 * word), and such a read then parsed most of the rest of the log.  So each
 * chunk keeps its lines, sorted, with the mask of the bytes written in
 * each: an exact answer in a binary search.
 *
 * The lines are kept in a spill buffer (spill-buffer.h), not in malloc'ed
 * memory: 16 bytes a line, 7-8 lines a chunk of a call-heavy log, 15 MB for
 * a billion instructions and ten times that at ten billion, of which a read
 * at a past position needs those of the chunks after it only.
 */
#ifndef HWTR_VALUES_LINES_H
#define HWTR_VALUES_LINES_H

#include "spill-buffer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VALUES_LINE_SHIFT 6
/* A record over more lines than this (a system call's buffer) makes its
 * chunk one that is always scanned, rather than thousands of lines. */
#define VALUES_LINES_MAX_PER_RECORD 256

struct values_line_bits {
	uint64_t line;		/* address >> VALUES_LINE_SHIFT */
	uint64_t mask;		/* bit i: byte i of the line is written */
};

struct values_lines {
	/* Every finished chunk's lines, each chunk's sorted by line:
	 * NPOOL struct values_line_bits. */
	struct spill_buffer pool;
	size_t npool;
	/* The chunk being built: its lines hashed (key line + 1, 0 empty). */
	struct values_line_bits *building;
	size_t nbuilding, cap_building;
};

/* Empty lines whose pool's file, once it outgrows memory, is made in DIR
 * (spill_init: NULL for TMPDIR or /tmp; DIR must outlive L). */
void values_lines_init(struct values_lines *l, const char *dir);

/* The chunk being built writes [ADDR, ADDR+LEN) (LEN at most
 * VALUES_LINES_MAX_PER_RECORD lines).  0 or -hwtr_err_nomem. */
int values_lines_note(struct values_lines *lines, uint64_t addr, uint64_t len);

/* The chunk being built is finished: its lines go to the pool, from
 * *FIRST on, *COUNT of them.  0 or -hwtr_err_nomem. */
int values_lines_finish(struct values_lines *lines, size_t *first,
			size_t *count);

/* Whether the finished chunk whose lines are FIRST..FIRST+COUNT writes a
 * byte of [ADDR, ADDR+SIZE) that OPEN (a byte per byte of the range,
 * non-zero: still wanted) marks; every byte with OPEN NULL. */
bool values_lines_touch(const struct values_lines *lines, size_t first,
			size_t count, uint64_t addr, uint64_t size,
			const uint8_t *open);

/* The pages of the pool that reads brought back are given back (when it is
 * a file's mapping): after a read that looked at many chunks. */
void values_lines_release(struct values_lines *lines);

/* Everything goes; L is empty again (as values_lines_init, same DIR). */
void values_lines_free(struct values_lines *lines);

#endif
