/* values-index.c: map the data log, check every record once, index it
 * (values-index.h). */
#include "values-index.h"
#include "values-format.h"
#include "error.h"
#include "recording-file.h"
#include "integrity.h"
#include "page-release.h"

#include <hwtrecord.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

unsigned values_reg_size(unsigned bit)
{
	if (bit == HWTR_VREG_FPU)
		return HWTR_VREG_FPU_SIZE;
	return bit >= HWTR_VREG_YMM0 && bit < HWTR_VREG_YMM0 + 16 ? 32 : 8;
}

/* Whether bit BIT's value is its bytes as they are (ymm, the FPU state),
 * not an 8-byte register as a var. */
static bool reg_is_bytes(unsigned bit)
{
	return values_reg_size(bit) != 8;
}

/* N unsigned LEB128 numbers from OFF into V, and AT after them: 0, or 1
 * when the log ends inside them, or an error for one longer than 64 bits. */
static int get_varints(const uint8_t *log, size_t size, size_t off, int n,
		       uint64_t *v, size_t *at, const char *name)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned shift = 0;

		v[i] = 0;
		for (;;) {
			uint8_t b;

			if (off >= size)
				return 1;
			b = log[off++];
			if (shift == 63 && b > 1)
				return hwtr_fail(hwtr_err_format, "%s: offset "
						 "%zu: a number longer than 64 "
						 "bits", name, off - 1);
			v[i] |= (uint64_t)(b & 0x7f) << shift;
			if (!(b & 0x80))
				break;
			shift += 7;
		}
	}
	*at = off;
	return 0;
}

/* The mask of a REGS record in short form (values-format.h) of TYPE:
 * true, or false when TYPE is not one. */
static bool short_regs_mask(uint8_t type, uint64_t *mask)
{
	unsigned bit = type & ~(HWTR_VREC_REGS_ONE | HWTR_VREC_REGS_AND_FLAGS);
	bool flags = type & HWTR_VREC_REGS_AND_FLAGS;

	if (!(type & HWTR_VREC_REGS_ONE) || bit >= HWTR_VREG_COUNT ||
	    (flags && bit == HWTR_VREG_RFLAGS))
		return false;
	*mask = 1ull << bit | (flags ? 1ull << HWTR_VREG_RFLAGS : 0);
	return true;
}

/* R->pos from its dpos D after BASE: 0, or an error when it overflows. */
static int stamp(struct values_record *r, uint64_t base, uint64_t d,
		 const char *name)
{
	if (d > UINT64_MAX - base)
		return hwtr_fail(hwtr_err_format, "%s: offset %zu: position "
				 "%llu + %llu overflows", name, r->offset,
				 (unsigned long long)base,
				 (unsigned long long)d);
	r->pos = base + d;
	return 0;
}

/* The address a daddr Z gives after BASE (zigzag: 0, -1, 1, -2 ... as
 * 0, 1, 2, 3 ...; modulo 2^64). */
static uint64_t unzigzag(uint64_t base, uint64_t z)
{
	return base + ((z >> 1) ^ (0 - (z & 1)));
}

void values_base_next(struct values_base *base, const struct values_record *r)
{
	base->pos = r->pos;
	if (r->type == HWTR_VREC_THREAD)
		base->addr = 0;
	else if (r->type == HWTR_VREC_STORE || r->type == HWTR_VREC_UNKNOWN)
		base->addr = r->addr;
}

/* 0 and the record, or 1 when the log ends inside it (cut off), or an
 * error for a record that cannot be.  BASE: see values_record_read. */
static int read_record(const uint8_t *log, size_t size, size_t off,
		       const struct values_base *base,
		       struct values_record *r, const char *name)
{
	size_t avail = size - off, at = off;
	uint64_t v[3], bits;
	int err;

	memset(r, 0, sizeof(*r));
	r->offset = off;
	r->pos = base->pos;
	if (avail < 1)
		return 1;
	r->type = log[off];
	switch (r->type) {
	case HWTR_VREC_THREAD:
		if (avail < 21)
			return 1;
		r->lwpid = values_get32(log + off + 1);
		r->pos = values_get64(log + off + 5);
		r->global = values_get64(log + off + 13);
		r->next = off + 21;
		return 0;
	case HWTR_VREC_REGS:
		if ((err = get_varints(log, size, off + 1, 2, v, &at, name)) ||
		    (err = stamp(r, base->pos, v[0], name)))
			return err;
		r->mask = v[1];
	regs:
		if (r->mask & ~HWTR_VREG_ALL)
			return hwtr_fail(hwtr_err_format, "%s: offset %zu: "
					 "register mask 0x%llx names registers "
					 "this reader does not know", name, off,
					 (unsigned long long)r->mask);
		r->values = log + at;
		for (bits = r->mask; bits; bits &= bits - 1) {
			unsigned bit = (unsigned)__builtin_ctzll(bits);

			if (reg_is_bytes(bit)) {
				if (size - at < values_reg_size(bit))
					return 1;
				at += values_reg_size(bit);
			} else if ((err = get_varints(log, size, at, 1, v, &at,
						      name)))
				return err;
		}
		r->next = at;
		return 0;
	case HWTR_VREC_STORE:
		if ((err = get_varints(log, size, off + 1, 3, v, &at, name)) ||
		    (err = stamp(r, base->pos, v[0], name)))
			return err;
		r->addr = unzigzag(base->addr, v[1]);
		r->len = v[2];
		if (r->len == 0 || r->len > UINT32_MAX ||
		    r->addr + r->len < r->addr)
			return hwtr_fail(hwtr_err_format, "%s: offset %zu: a "
					 "store of %llu bytes at 0x%llx", name,
					 off, (unsigned long long)r->len,
					 (unsigned long long)r->addr);
		if (size - at < r->len)
			return 1;
		r->values = log + at;
		r->next = at + r->len;
		return 0;
	case HWTR_VREC_UNKNOWN:
		if ((err = get_varints(log, size, off + 1, 3, v, &at, name)) ||
		    (err = stamp(r, base->pos, v[0], name)))
			return err;
		r->addr = unzigzag(base->addr, v[1]);
		r->len = v[2];
		if (r->addr + r->len < r->addr)
			r->len = -r->addr;	/* to the top */
		r->next = at;
		return 0;
	case HWTR_VREC_SYNC: {
		uint32_t n;

		if (avail < 6)
			return 1;
		n = values_get32(log + off + 2);
		if ((avail - 6) / 12 < n)
			return 1;
		r->len = n;
		r->mask = log[off + 1];	/* the end flag */
		r->values = log + off + 6;
		r->next = off + 6 + 12 * (size_t)n;
		return 0;
	}
	default:
		if (short_regs_mask(r->type, &r->mask)) {
			if ((err = get_varints(log, size, off + 1, 1, v, &at,
					       name)) ||
			    (err = stamp(r, base->pos, v[0], name)))
				return err;
			r->type = HWTR_VREC_REGS;
			goto regs;
		}
		return hwtr_fail(hwtr_err_format, "%s: offset %zu: unknown "
				 "record type %u", name, off, r->type);
	}
}

bool values_record_register(const struct values_record *r, unsigned bit,
			    uint8_t value[HWTR_VREG_MAX_SIZE])
{
	const uint8_t *p = r->values;
	uint64_t bits, v;

	if (r->type != HWTR_VREC_REGS || !((r->mask >> bit) & 1))
		return false;
	for (bits = r->mask; bits; bits &= bits - 1) {
		unsigned b = (unsigned)__builtin_ctzll(bits);
		unsigned shift = 0;

		if (reg_is_bytes(b)) {
			if (b == bit)
				memcpy(value, p, values_reg_size(b));
			p += values_reg_size(b);
		} else {
			/* read_record checked the numbers: no bound here */
			for (v = 0;; shift += 7) {
				v |= (uint64_t)(*p & 0x7f) << shift;
				if (!(*p++ & 0x80))
					break;
			}
			if (b == bit) {
				memcpy(value, &v, 8);
				memset(value + 8, 0, 24);
			}
		}
		if (b == bit)
			return true;
	}
	return false;
}

uint64_t values_record_registers(const struct values_record *r,
				 uint8_t values[][HWTR_VREG_MAX_SIZE])
{
	const uint8_t *p = r->values;
	uint64_t bits, v;

	if (r->type != HWTR_VREC_REGS)
		return 0;
	for (bits = r->mask; bits; bits &= bits - 1) {
		unsigned b = (unsigned)__builtin_ctzll(bits);
		unsigned shift = 0;

		if (reg_is_bytes(b)) {
			memcpy(values[b], p, values_reg_size(b));
			p += values_reg_size(b);
			continue;
		}
		/* read_record checked the numbers: no bound here */
		for (v = 0;; shift += 7) {
			v |= (uint64_t)(*p & 0x7f) << shift;
			if (!(*p++ & 0x80))
				break;
		}
		memcpy(values[b], &v, 8);
		memset(values[b] + 8, 0, 24);
	}
	return r->mask;
}

int values_record_read(const struct values_index *index, size_t offset,
		       const struct values_base *base,
		       struct values_record *record)
{
	int err = read_record(index->log, index->end, offset, base, record,
			      "values");

	return err > 0 ? hwtr_fail(hwtr_err_format, "values: offset %zu: cut "
				   "off", offset) : err;
}

struct values_thread *values_index_thread(const struct values_index *index,
					  uint32_t lwpid)
{
	size_t i;

	for (i = 0; i < index->nthreads; i++)
		if (index->threads[i].lwpid == lwpid)
			return &index->threads[i];
	return NULL;
}

size_t values_thread_resumes_after(const struct values_thread *thread,
				   size_t offset)
{
	size_t lo = 0, hi = thread->nslices;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (thread->slices[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < thread->nslices ? thread->slices[lo].offset : SIZE_MAX;
}

static int grow(void **array, size_t *cap, size_t n, size_t elem)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	p = realloc(*array, c * elem);
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	*array = p;
	*cap = c;
	return 0;
}

static size_t thread_of(struct values_index *ix, uint32_t lwpid, int *err)
{
	struct values_thread *t;
	size_t i;

	for (i = 0; i < ix->nthreads; i++)
		if (ix->threads[i].lwpid == lwpid)
			return i;
	t = realloc(ix->threads, (ix->nthreads + 1) * sizeof(*t));
	if (!t) {
		*err = hwtr_fail(hwtr_err_nomem, "out of memory");
		return SIZE_MAX;
	}
	ix->threads = t;
	memset(&t[ix->nthreads], 0, sizeof(*t));
	t[ix->nthreads].lwpid = lwpid;
	return ix->nthreads++;
}

bool values_chunk_may_touch(const struct values_index *ix, size_t k,
			    uint64_t addr, uint64_t size, const uint8_t *open)
{
	const struct values_chunk *c = &ix->chunks[k];

	if (!c->has_memory)
		return false;
	if (c->wide)
		return true;
	return values_lines_touch(&ix->lines, c->lines_first, c->nlines, addr,
				  size, open);
}

static int chunk_note(struct values_index *ix, struct values_chunk *c,
		      uint64_t addr, uint64_t len, uint64_t global,
		      uint64_t prev_max)
{
	uint64_t last = (addr + len - 1) >> VALUES_LINE_SHIFT;

	if (!c->has_memory) {
		c->has_memory = true;
		c->max_global = prev_max;
	}
	if (global > c->max_global)
		c->max_global = global;
	if (last - (addr >> VALUES_LINE_SHIFT) >= VALUES_LINES_MAX_PER_RECORD) {
		c->wide = true;
		return 0;
	}
	return values_lines_note(&ix->lines, addr, len);
}

/* The last chunk is complete: its lines go to the pool. */
static int chunk_finish(struct values_index *ix)
{
	struct values_chunk *c;

	if (!ix->nchunks)
		return 0;
	c = &ix->chunks[ix->nchunks - 1];
	return values_lines_finish(&ix->lines, &c->lines_first, &c->nlines);
}

/* Chunks a read may look at before it gives their pages back: 600 KB of
 * chunks and about as much of their lines. */
#define WALK_RELEASE 8192

void values_index_walked(const struct values_index *ix, size_t *walked)
{
	/* The bytes stay the same (in the file): only pages go. */
	struct values_index *mut = (struct values_index *)ix;

	if (++*walked < WALK_RELEASE)
		return;
	*walked = 0;
	spill_release(&mut->chunk_buf, ix->nchunks * sizeof(*ix->chunks));
	values_lines_release(&mut->lines);
}

/* Forget what index_records found (not the mapping). */
static void forget_records(struct values_index *ix)
{
	size_t i;

	for (i = 0; i < ix->nthreads; i++) {
		free(ix->threads[i].slices);
		free(ix->threads[i].snapshots);
	}
	free(ix->threads);
	if (ix->chunk_buf.bytes)	/* else perhaps never initialised */
		spill_free(&ix->chunk_buf);
	values_lines_free(&ix->lines);
	ix->threads = NULL;
	ix->nthreads = 0;
	ix->chunks = NULL;
	ix->nchunks = 0;
	ix->end = ix->from = HWTR_VALUES_HEADER_SIZE;
	ix->synced_end = 0;
	ix->ended = ix->stopped = false;
}

/* A full snapshot R (BASE before it) of thread T.  One of the same
 * position as T's last replaces it: the instruction that had the first
 * faulted, did not run, and the next one restates the snapshot
 * (values-format.h, HWTR_VREC_REGS). */
static int note_snapshot(struct values_thread *t,
			 const struct values_record *r,
			 const struct values_base *base)
{
	uint8_t rip[HWTR_VREG_MAX_SIZE];
	int err;

	if (!t->nsnapshots || t->snapshots[t->nsnapshots - 1].pos != r->pos) {
		if ((err = grow((void **)&t->snapshots, &t->cap_snapshots,
				t->nsnapshots, sizeof(*t->snapshots))))
			return err;
		t->nsnapshots++;
	}
	values_record_register(r, HWTR_VREG_RIP, rip);
	t->snapshots[t->nsnapshots - 1] = (struct values_snapshot){
		r->pos, r->offset, *base, values_get64(rip) };
	return 0;
}

/* One pass over the records from FROM (the header's end or a THREAD
 * record: what the records give relative to the one before starts
 * afresh there): check them and build the index. */
static int index_records(struct values_index *ix, size_t from,
			 const char *name)
{
	size_t off = from, cur = SIZE_MAX;
	uint64_t max_global = 0;
	struct values_base base = { 0, 0 };
	struct values_record r;
	/* The log is a read-only file mapping: what this one pass has read
	 * goes back to the page cache as it goes, so that a log of gigabytes
	 * is not kept resident for the lookups' few chunks. */
	struct page_release pass = { 0 };
	int err = 0;

	while (off < ix->size) {
		struct values_thread *t;
		struct values_chunk *c;

		if (!ix->nchunks || off - ix->chunks[ix->nchunks - 1].offset >=
				    VALUES_CHUNK_BYTES) {
			page_release_before(&pass, ix->log, ix->log + off);
			if ((err = chunk_finish(ix)))
				return err;
			if (!spill_reserve(&ix->chunk_buf, (ix->nchunks + 1) *
							   sizeof(*ix->chunks)))
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			ix->chunks = (struct values_chunk *)ix->chunk_buf.bytes;
			/* those before the last are written */
			spill_written(&ix->chunk_buf,
				      ix->nchunks * sizeof(*ix->chunks));
			c = &ix->chunks[ix->nchunks++];
			memset(c, 0, sizeof(*c));
			c->offset = off;
			c->base = base;
			c->thread = cur;
			c->slice = cur == SIZE_MAX ? 0
				   : ix->threads[cur].nslices - 1;
			c->max_global = max_global;
		}
		c = &ix->chunks[ix->nchunks - 1];
		err = read_record(ix->log, ix->size, off, &base, &r, name);
		if (err < 0)
			return err;
		if (err > 0)
			break;		/* cut off: the log ends before */
		if (r.type != HWTR_VREC_THREAD && r.type != HWTR_VREC_SYNC &&
		    cur == SIZE_MAX)
			return hwtr_fail(hwtr_err_format, "%s: offset %zu: a "
					 "record before any thread record",
					 name, off);
		t = cur == SIZE_MAX ? NULL : &ix->threads[cur];
		switch (r.type) {
		case HWTR_VREC_THREAD:
			cur = thread_of(ix, r.lwpid, &err);
			if (err)
				return err;
			t = &ix->threads[cur];
			if (t->nslices &&
			    (r.pos + 1 < t->slices[t->nslices - 1].pos))
				return hwtr_fail(hwtr_err_format, "%s: offset "
						 "%zu: thread %u goes back from "
						 "position %llu to %llu", name,
						 off, r.lwpid,
						 (unsigned long long)
						 t->slices[t->nslices - 1].pos,
						 (unsigned long long)r.pos);
			if ((err = grow((void **)&t->slices, &t->cap_slices,
					t->nslices, sizeof(*t->slices))))
				return err;
			t->slices[t->nslices++] = (struct values_slice){
				r.pos, r.global, off };
			break;
		case HWTR_VREC_REGS:
			if ((r.mask & HWTR_VREG_ALL) == HWTR_VREG_ALL &&
			    (err = note_snapshot(t, &r, &base)))
				return err;
			break;
		case HWTR_VREC_STORE:
		case HWTR_VREC_UNKNOWN: {
			const struct values_slice *s =
				&t->slices[t->nslices - 1];

			if (r.len &&
			    (err = chunk_note(ix, c, r.addr, r.len,
					      s->global + (r.pos - s->pos),
					      max_global)))
				return err;
			max_global = c->max_global;
			break;
		}
		case HWTR_VREC_SYNC: {
			uint32_t i;

			for (i = 0; i < r.len; i++) {
				size_t k = thread_of(ix, values_get32(r.values + 12 * i),
						     &err);

				if (err)
					return err;
				ix->threads[k].sync_count =
					values_get64(r.values + 12 * i + 4);
				ix->threads[k].synced = true;
			}
			/* thread_of may have moved the array */
			ix->synced_end = r.next;
			ix->stopped = r.mask == HWTR_VALUES_SYNC_STOPPED;
			if (r.mask && !ix->stopped) {
				ix->ended = true;
				ix->end = r.next;
				return chunk_finish(ix);
			}
			break;
		}
		}
		if (r.type != HWTR_VREC_SYNC)
			ix->stopped = false;	/* it ran on after the stop */
		if (r.type != HWTR_VREC_SYNC && r.type != HWTR_VREC_THREAD &&
		    r.pos > ix->threads[cur].last_pos)
			ix->threads[cur].last_pos = r.pos;
		if (r.type == HWTR_VREC_THREAD && r.pos > t->last_pos)
			t->last_pos = r.pos;
		off = r.next;
		values_base_next(&base, &r);
		ix->end = off;
	}
	return chunk_finish(ix);
}

int values_index_map(const char *dir, const char *name,
		     struct values_index *ix)
{
	struct stat st;
	void *map;
	int fd, err;

	memset(ix, 0, sizeof(*ix));
	spill_init(&ix->chunk_buf, NULL);
	values_lines_init(&ix->lines, NULL);
	if ((err = recording_file_open(dir, name, &fd, &st)))
		return err;
	if ((size_t)st.st_size < HWTR_VALUES_HEADER_SIZE) {
		close(fd);
		return hwtr_fail(hwtr_err_format, "%s/%s: %lld bytes: too "
				 "short for a data log header", dir, name,
				 (long long)st.st_size);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return hwtr_fail(hwtr_err_io, "%s/%s: %s", dir, name,
				 strerror(errno));
	ix->log = map;
	ix->size = (size_t)st.st_size;
	ix->end = ix->from = HWTR_VALUES_HEADER_SIZE;
	if (memcmp(ix->log, HWTR_VALUES_MAGIC, 8)) {
		values_index_close(ix);
		return hwtr_fail(hwtr_err_format, "%s/%s: offset 0: not a "
				 "data log (no %s)", dir, name,
				 HWTR_VALUES_MAGIC);
	}
	ix->version = values_get32(ix->log + 8);
	if (ix->version < HWTR_VALUES_OLDEST_VERSION ||
	    ix->version > HWTR_VALUES_VERSION) {
		err = hwtr_fail(hwtr_err_version, "%s/%s: offset 8: data log "
				"version %u; this reader reads versions %d to %d",
				dir, name, ix->version,
				HWTR_VALUES_OLDEST_VERSION, HWTR_VALUES_VERSION);
		values_index_close(ix);
		return err;
	}
	if (values_get32(ix->log + 12) != HWTR_VALUES_HEADER_SIZE) {
		err = hwtr_fail(hwtr_err_format, "%s/%s: offset 12: a data log "
				"header of %u bytes; version %u's has %d", dir,
				name, values_get32(ix->log + 12), ix->version,
				HWTR_VALUES_HEADER_SIZE);
		values_index_close(ix);
		return err;
	}
	return 0;
}

int values_index_from(struct values_index *ix, size_t from, const char *dir,
		      const char *name)
{
	int err;

	forget_records(ix);
	if (from < HWTR_VALUES_HEADER_SIZE || from >= ix->size)
		return hwtr_fail(hwtr_err_invalid, "%s/%s: offset %zu: outside "
				 "the data log", dir, name, from);
	ix->from = ix->end = from;
	/* The spill files are made beside the log (a disk, not a tmpfs),
	 * while DIR is known to live. */
	ix->chunk_buf.dir = ix->lines.pool.dir = dir;
	err = index_records(ix, from, name);
	ix->chunk_buf.dir = ix->lines.pool.dir = NULL;
	if (err) {
		hwtr_fail_context(-err, "%s/", dir);
		forget_records(ix);
	}
	return err;
}

int values_index_open(const char *dir, const char *name,
		      const struct hwtr_file_check *check,
		      struct values_index *ix)
{
	int err;

	if ((err = values_index_map(dir, name, ix)))
		return err;
	if (check) {
		char *path = hwtr_path_join(dir, name), field[300];

		snprintf(field, sizeof(field), "files.\"%s\"", check->name);
		err = path ? integrity_check_mapped(path, field, ix->log,
						    ix->size, check->size,
						    check->crc32)
			   : hwtr_fail(hwtr_err_nomem, "out of memory");
		free(path);
		if (err) {
			values_index_close(ix);
			return err;
		}
	}
	err = values_index_from(ix, HWTR_VALUES_HEADER_SIZE, dir, name);
	if (err)
		values_index_close(ix);
	return err;
}

void values_index_close(struct values_index *ix)
{
	if (ix->log)
		munmap((void *)ix->log, ix->size);
	forget_records(ix);
	memset(ix, 0, sizeof(*ix));
}
