/* values-index.h: the data log (values-format.h) mapped and indexed, so
 * that a register or memory read at any position costs a binary search and
 * a short scan, not a walk over the log.
 *
 * One pass at open checks every record and builds, per thread, where it
 * ran (slices: its position and the global count when it was switched in)
 * and where its full register snapshots are; and, per 64 KiB chunk of the
 * log, the largest global stamp of a memory record so far and the bytes
 * its memory records write, by 64-byte line (values-lines.h).  The chunks
 * and their lines are kept in spill buffers (spill-buffer.h): 72 bytes a
 * chunk and 16 a line, 25 MB for a call-heavy log of a billion
 * instructions (8 GB), resident only while the pass writes them and a
 * read uses them (values_index_walked).
 */
#ifndef HWTR_VALUES_INDEX_H
#define HWTR_VALUES_INDEX_H

#include "values-format.h"
#include "values-lines.h"
#include "spill-buffer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct hwtr_file_check;

/* The log's fixed-size numbers, little-endian at any alignment. */
static inline uint32_t values_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t values_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* What a record's relative numbers start from (values-format.h: dpos,
 * daddr): the position and the address the records before it gave. */
struct values_base {
	uint64_t pos, addr;
};

struct values_slice {
	uint64_t pos, global;	/* the thread's and all threads' counts */
	size_t offset;		/* of the THREAD record */
};

struct values_snapshot {
	uint64_t pos;
	size_t offset;		/* of the REGS record */
	struct values_base base;	/* before it */
	uint64_t rip;
};

struct values_thread {
	uint32_t lwpid;
	struct values_slice *slices;
	size_t nslices, cap_slices;
	struct values_snapshot *snapshots;
	size_t nsnapshots, cap_snapshots;
	uint64_t last_pos;	/* the last position a record names */
	uint64_t sync_count;	/* instructions run, at the last sync */
	bool synced;
};

#define VALUES_CHUNK_BYTES (64u << 10)

struct values_chunk {
	size_t offset;		/* first record */
	struct values_base base;	/* before it */
	size_t thread;		/* thread current there (index), or SIZE_MAX */
	size_t slice;		/* its slice */
	uint64_t max_global;	/* of memory records in this and earlier
				 * chunks; 0 with has_memory false */
	bool has_memory;
	bool wide;		/* a record over more lines than the index
				 * keeps: always scanned */
	size_t lines_first;	/* its lines in the index's lines pool */
	size_t nlines;
};

struct values_index {
	const uint8_t *log;	/* mapped */
	size_t size;		/* mapped size */
	unsigned version;	/* of the log (values-format.h) */
	size_t from;		/* the first record indexed: the header's end,
				 * or a restart point (values_index_from) */
	size_t end;		/* end of the last complete record */
	size_t synced_end;	/* end of the last SYNC record */
	bool ended;		/* a SYNC with its end flag: the log is whole */
	bool stopped;		/* the last record is a SYNC of a live stop:
				 * the log is whole up to the live state */
	struct values_thread *threads;
	size_t nthreads;
	struct values_chunk *chunks;	/* in CHUNK_BUF */
	size_t nchunks;
	struct spill_buffer chunk_buf;
	struct values_lines lines;	/* the bytes each chunk writes */
};

/* A record as read. */
struct values_record {
	uint8_t type;
	size_t offset, next;	/* of this record and of the one after */
	uint32_t lwpid;		/* THREAD */
	uint64_t pos, global;	/* THREAD; pos also REGS, STORE, UNKNOWN
				 * (and SYNC: the position before it) */
	uint64_t mask;		/* REGS */
	const uint8_t *values;	/* REGS: the values (encoded: read them with
				 * values_record_register), STORE: the old
				 * bytes */
	uint64_t addr, len;	/* STORE, UNKNOWN */
};

/* Map and index the log NAME in recording directory DIR: 0, or a
 * negative hwtr_error naming the file and offset.  CHECK, when not NULL,
 * is what the finished recording's manifest says of the file (length and
 * CRC-32): checked on the mapped bytes before any record is read. */
int values_index_open(const char *dir, const char *name,
		      const struct hwtr_file_check *check,
		      struct values_index *index);
void values_index_close(struct values_index *index);

/* Map the log NAME in DIR and check its header, indexing nothing yet
 * (values_index_from): 0, or an error naming the file. */
int values_index_map(const char *dir, const char *name,
		     struct values_index *index);

/* Index the mapped log's records from offset FROM to its end (its END
 * sync, or where it was cut off), forgetting any earlier index: FROM is
 * the header's end or a restart point (values-format.h, "Seeking").  The
 * index then knows nothing of the records before FROM: a thread's first
 * slice there is where its known positions start.  0 or an error. */
int values_index_from(struct values_index *index, size_t from,
		      const char *dir, const char *name);

/* The record at OFFSET (< index->end, a record boundary), BASE what the
 * records before it gave (a snapshot's or chunk's base, anything before a
 * THREAD record, then values_base_next after each record): 0 or an
 * error. */
int values_record_read(const struct values_index *index, size_t offset,
		       const struct values_base *base,
		       struct values_record *record);

/* BASE after record R. */
void values_base_next(struct values_base *base,
		      const struct values_record *r);

/* Size of register bit BIT's value (ymm 32 bytes, the FPU state
 * HWTR_VREG_FPU_SIZE, the rest 8). */
unsigned values_reg_size(unsigned bit);

/* The largest of them. */
#define HWTR_VREG_MAX_SIZE HWTR_VREG_FPU_SIZE

/* Register bit BIT's value in REGS record R into VALUE (8-byte registers
 * zero-extended to 32 bytes): true, or false when R does not log it.  In
 * the log 8-byte values are LEB128 numbers, so R->values cannot be indexed
 * directly. */
bool values_record_register(const struct values_record *r, unsigned bit,
			    uint8_t value[HWTR_VREG_MAX_SIZE]);

/* Every register of REGS record R into VALUES[bit] (as
 * values_record_register gives each), in one walk: the mask of those set. */
uint64_t values_record_registers(const struct values_record *r,
				 uint8_t values[][HWTR_VREG_MAX_SIZE]);

/* Whether chunk K's memory records may write a byte of [ADDR, ADDR+SIZE)
 * that OPEN (a byte per byte of the range, non-zero: still wanted) marks;
 * any byte with OPEN NULL.  Exact but for a chunk with a record too wide
 * to index (then true). */
bool values_chunk_may_touch(const struct values_index *index, size_t k,
			    uint64_t addr, uint64_t size, const uint8_t *open);

/* A read looks at one more chunk (values_chunk_may_touch), counting in
 * *WALKED (0 at its start): every so many, the pages of the chunks and
 * their lines it brought back are given back, so that a read at an old
 * position does not bring the whole index back. */
void values_index_walked(const struct values_index *index, size_t *walked);

/* The thread with LWPID, or NULL. */
struct values_thread *values_index_thread(const struct values_index *index,
					  uint32_t lwpid);

/* The offset of THREAD's first THREAD record after OFFSET, or SIZE_MAX.
 * A scan of one thread's records that meets another thread's THREAD
 * record jumps there: the records between are the other threads', and
 * while one thread waits the others can fill most of the log. */
size_t values_thread_resumes_after(const struct values_thread *thread,
				   size_t offset);

#endif
