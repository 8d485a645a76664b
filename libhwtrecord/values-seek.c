/* values-seek.c: the data log's seek table, read and checked (see the
 * header). */
#include "values-seek.h"
#include "values-format.h"
#include "values-index.h"
#include "error.h"
#include "integrity.h"

#include <hwtrecord.h>
#include <string.h>

void values_seek_entry(const struct values_seek *s, size_t i,
		       struct values_seek_entry *e)
{
	const uint8_t *p = s->entries + i * HWTR_VALUES_SEEK_ENTRY_SIZE;

	e->offset = values_get64(p);
	e->pos = values_get64(p + 8);
	e->lwpid = values_get32(p + 16);
	e->crc = values_get32(p + 20);
}

/* The END sync at s->end_sync, which must end where the table starts. */
static int read_end_sync(struct values_seek *s, const char *path)
{
	const uint8_t *p = s->log + s->end_sync;
	size_t room = s->table - s->end_sync;

	if (room < 6 || p[0] != HWTR_VREC_SYNC || p[1] != HWTR_VALUES_SYNC_END ||
	    (room - 6) / 12 != values_get32(p + 2) || (room - 6) % 12)
		return hwtr_fail(hwtr_err_format, "%s: offset %zu: the seek "
				 "table names no END sync record there",
				 path, s->end_sync);
	s->nthreads = values_get32(p + 2);
	s->end_counts = p + 6;
	return 0;
}

int values_seek_read(const struct values_index *ix, const char *path,
		     struct values_seek *s)
{
	const uint8_t *foot;
	size_t footer, size = ix->size, i;
	uint64_t table, prev = 0;
	uint32_t crc;

	memset(s, 0, sizeof(*s));
	s->log = ix->log;
	if (ix->version < 5)
		return hwtr_fail(hwtr_err_notfound, "%s: data log version %u "
				 "has no seek table", path, ix->version);
	if (size < HWTR_VALUES_HEADER_SIZE + HWTR_VALUES_FOOTER_SIZE ||
	    memcmp(ix->log + size - 8, HWTR_VALUES_SEEK_MAGIC, 8))
		return hwtr_fail(hwtr_err_notfound, "%s: no seek table at the "
				 "end (no %s): the log was cut off, or its "
				 "writer did not finish", path,
				 HWTR_VALUES_SEEK_MAGIC);
	footer = size - HWTR_VALUES_FOOTER_SIZE;
	foot = ix->log + footer;
	table = values_get64(foot);
	crc = values_get32(foot + 8);
	/* Not table + 13 > footer: a table offset near 2^64 wraps. */
	if (table < HWTR_VALUES_HEADER_SIZE || table > footer || footer - table < 13)
		return hwtr_fail(hwtr_err_format, "%s: offset %zu: the footer "
				 "puts the seek table at offset %llu, outside "
				 "the log", path, footer,
				 (unsigned long long)table);
	if (integrity_crc32(0, ix->log + table, footer - table) != crc)
		return hwtr_fail(hwtr_err_format, "%s: offset %llu: the seek "
				 "table does not match its CRC-32 (0x%08x)",
				 path, (unsigned long long)table, crc);
	s->table = (size_t)table;
	s->end_sync = values_get64(ix->log + table + 1);
	s->n = values_get32(ix->log + table + 9);
	s->entries = ix->log + table + 13;
	if (ix->log[table] != HWTR_VREC_SEEK ||
	    (footer - table - 13) / HWTR_VALUES_SEEK_ENTRY_SIZE != s->n ||
	    (footer - table - 13) % HWTR_VALUES_SEEK_ENTRY_SIZE ||
	    s->end_sync < HWTR_VALUES_HEADER_SIZE || s->end_sync >= table)
		return hwtr_fail(hwtr_err_format, "%s: offset %llu: not a seek "
				 "table of %zu entries ending at the footer",
				 path, (unsigned long long)table, s->n);
	for (i = 0; i < s->n; i++) {
		struct values_seek_entry e;

		values_seek_entry(s, i, &e);
		/* The record there is looked at when it is used
		 * (values_seek_check): here it would fault in a page of the
		 * log per entry, all over it. */
		if (e.offset < HWTR_VALUES_HEADER_SIZE || e.offset <= prev ||
		    e.offset >= s->end_sync)
			return hwtr_fail(hwtr_err_format, "%s: offset %llu: "
					 "seek table entry %zu names offset "
					 "%llu, not after the entry before and "
					 "before the END sync", path,
					 (unsigned long long)table, i,
					 (unsigned long long)e.offset);
		prev = e.offset;
	}
	s->checked_from = s->n;
	return read_end_sync(s, path);
}

bool values_seek_end_count(const struct values_seek *s, uint32_t lwpid,
			   uint64_t *count)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (values_get32(s->end_counts + 12 * i) == lwpid) {
			*count = values_get64(s->end_counts + 12 * i + 4);
			return true;
		}
	return false;
}

size_t values_seek_restart_before(const struct values_seek *s, uint32_t lwpid,
				  uint64_t pos)
{
	struct values_seek_entry e;
	size_t i;

	/* Positions of a thread grow with the offset: the last fitting one
	 * is found from the end (the tail's are near it). */
	for (i = s->n; i-- > 0;) {
		values_seek_entry(s, i, &e);
		if (e.lwpid == lwpid && e.pos <= pos)
			return i;
	}
	return SIZE_MAX;
}

size_t values_seek_last_before_offset(const struct values_seek *s,
				      uint32_t lwpid, uint64_t offset)
{
	struct values_seek_entry e;
	size_t i;

	for (i = s->n; i-- > 0;) {
		values_seek_entry(s, i, &e);
		if (e.lwpid == lwpid && e.offset < offset)
			return i;
	}
	return SIZE_MAX;
}

int values_seek_check(struct values_seek *s, size_t first, const char *path)
{
	size_t i;

	for (i = first; i < s->checked_from; i++) {
		struct values_seek_entry e, next;
		size_t end;

		values_seek_entry(s, i, &e);
		if (i + 1 < s->n) {
			values_seek_entry(s, i + 1, &next);
			end = (size_t)next.offset;
		} else {
			end = s->table;
		}
		if (end - e.offset < 21 || s->log[e.offset] != HWTR_VREC_THREAD ||
		    values_get32(s->log + e.offset + 1) != e.lwpid ||
		    values_get64(s->log + e.offset + 5) != e.pos)
			return hwtr_fail(hwtr_err_format, "%s: offset %llu: no "
					 "thread record of thread %u at position "
					 "%llu, as seek table entry %zu says",
					 path, (unsigned long long)e.offset,
					 e.lwpid, (unsigned long long)e.pos, i);
		if (integrity_crc32(0, s->log + e.offset, end - e.offset) != e.crc)
			return hwtr_fail(hwtr_err_format, "%s: offsets %llu to "
					 "%zu do not match the seek table's "
					 "CRC-32 (0x%08x): the log was changed "
					 "after recording", path,
					 (unsigned long long)e.offset, end,
					 e.crc);
	}
	if (first < s->checked_from)
		s->checked_from = first;
	return 0;
}

int values_seek_file_crc(const uint8_t *log, size_t size, const char *path,
			 uint32_t *crc)
{
	struct values_index ix = { .log = log, .size = size };
	struct values_seek s;
	struct values_seek_entry e, next;
	size_t footer, i, done;
	uint32_t c;
	int err;

	if (size < HWTR_VALUES_HEADER_SIZE)
		return hwtr_fail(hwtr_err_format, "%s: no header", path);
	ix.version = values_get32(log + 8);
	if ((err = values_seek_read(&ix, path, &s)) < 0)
		return err;
	footer = size - HWTR_VALUES_FOOTER_SIZE;
	/* The header and what precedes the first restart point, read. */
	done = s.n ? 0 : s.table;
	if (s.n) {
		values_seek_entry(&s, 0, &e);
		done = (size_t)e.offset;
	}
	c = integrity_crc32(0, log, done);
	/* Each segment, to the next restart point or the table: its CRC. */
	for (i = 0; i < s.n; i++) {
		values_seek_entry(&s, i, &e);
		if (i + 1 < s.n)
			values_seek_entry(&s, i + 1, &next);
		else
			next.offset = s.table;
		c = integrity_crc32_combine(c, e.crc, next.offset - e.offset);
		done = (size_t)next.offset;
	}
	/* The table, whose CRC the footer holds (values_seek_read checked
	 * it), then the footer. */
	c = integrity_crc32_combine(c, values_get32(log + footer + 8),
				    footer - done);
	*crc = integrity_crc32(c, log + footer, HWTR_VALUES_FOOTER_SIZE);
	return 0;
}
