/* values-seek.h: the data log's seek table (values-format.h, "Seeking"),
 * read from the log's end and checked, so that a reader can start at a
 * restart point near the end instead of the log's start.
 *
 * Nothing of the table is believed unchecked: the footer's magic, the
 * table's CRC-32, its record type and size, the END sync it names, entry
 * offsets that only grow and stay before that sync; and before records are
 * read from a restart point, the CRC-32 of every segment from there on
 * (values_seek_check).  A log without a table, or with one that does not
 * check out, gives an error saying why; the caller then reads the log from
 * its start.
 */
#ifndef HWTR_VALUES_SEEK_H
#define HWTR_VALUES_SEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct values_index;

struct values_seek_entry {
	uint64_t offset;	/* of the restart point's THREAD record */
	uint64_t pos;		/* the position it gives */
	uint32_t lwpid;
	uint32_t crc;		/* of the log from OFFSET to the next entry's */
};

struct values_seek {
	const uint8_t *log;
	size_t table;		/* offset of the SEEK record */
	size_t end_sync;	/* offset of the END sync */
	size_t n;		/* entries */
	const uint8_t *entries;	/* n x HWTR_VALUES_SEEK_ENTRY_SIZE */
	/* END sync: its threads' instruction counts, nthreads x (u32 lwpid,
	 * u64 count) */
	const uint8_t *end_counts;
	size_t nthreads;
	size_t checked_from;	/* the first entry whose segments are checked
				 * (n: none) */
};

/* Read and check the seek table of INDEX's mapped log (PATH names it in
 * messages): 0, or an error saying why it cannot be used (version 4, no
 * footer: cut off, a bad CRC ...). */
int values_seek_read(const struct values_index *index, const char *path,
		     struct values_seek *seek);

/* Entry I (< seek->n). */
void values_seek_entry(const struct values_seek *seek, size_t i,
		       struct values_seek_entry *entry);

/* The END sync's count for LWPID: true, or false when it names no such
 * thread. */
bool values_seek_end_count(const struct values_seek *seek, uint32_t lwpid,
			   uint64_t *count);

/* The last entry of LWPID whose position is at most POS, or SIZE_MAX. */
size_t values_seek_restart_before(const struct values_seek *seek,
				  uint32_t lwpid, uint64_t pos);

/* The last entry of LWPID at an offset before OFFSET, or SIZE_MAX. */
size_t values_seek_last_before_offset(const struct values_seek *seek,
				      uint32_t lwpid, uint64_t offset);

/* Check the CRC-32 of the segments from entry FIRST to the table (those
 * not checked yet): 0, or an error naming the segment's offsets. */
int values_seek_check(struct values_seek *seek, size_t first,
		      const char *path);

/* The CRC-32 of the whole log of SIZE bytes at LOG (a finished one, with a
 * seek table that checks out) from its segments' CRCs in the table: only
 * the header, the table and the footer are read.  0, or an error saying
 * why not (the caller then reads the whole file); the recorder's
 * checksum for the manifest, which would otherwise read the log back. */
int values_seek_file_crc(const uint8_t *log, size_t size, const char *path,
			 uint32_t *crc);

#endif
