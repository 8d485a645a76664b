/* perf-data.c: perf.data files, read and written (perf-data.h).
 *
 * Reading maps the file and checks every section and record against it
 * before use: a record's size must fit the data section, an AUXTRACE
 * payload must fit after its record, a feature section must lie inside the
 * file.  A data section that runs past the end of the file (perf killed
 * before it wrote its header, or a cut copy) is read up to the last
 * complete record, with a warning.
 *
 * Writing streams records into the data section and writes the feature
 * sections and the header at the end; the layout is header, ids, attrs,
 * data, feature index, feature bodies.
 */
#define _GNU_SOURCE
#include "perf-data.h"
#include "hwtrecord.h"


#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PERF_MAGIC2 UINT64_C(0x32454c4946524550)	/* "PERFILE2" */
#define PERF_MAGIC2_SWAPPED UINT64_C(0x50455246494c4532)
#define PERF_MAGIC1 "PERFFILE"
#define NAME_ALIGN 64
#define FEATURE_WORDS 4

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[FEATURE_WORDS];
};
_Static_assert(sizeof(struct file_header) == 104, "perf.data header is 104 bytes");

struct id_entry {
	uint64_t id;
	size_t attr;
};

struct perf_data {
	char *path;
	FILE *warn;
	const uint8_t *map;
	size_t size;
	struct file_header hdr;
	struct perf_data_attr *attrs;
	uint64_t **attr_ids;	/* owned copies, aligned */
	size_t nattrs;
	struct id_entry *ids;	/* sorted by id */
	size_t nids;
	bool by_identifier;	/* records name their attr by IDENTIFIER */
	struct file_section features[PERF_FEAT_MAX];
	uint64_t data_end;	/* data.offset + readable data size */
};

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Is [offset, offset + size) inside the file? */
static bool in_file(const struct perf_data *pd, uint64_t offset, uint64_t size)
{
	return offset <= pd->size && size <= pd->size - offset;
}

static void warn(const struct perf_data *pd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct perf_data *pd, const char *fmt, ...)
{
	va_list ap;

	if (!pd->warn)
		return;
	fprintf(pd->warn, "%s: warning: ", pd->path);
	va_start(ap, fmt);
	vfprintf(pd->warn, fmt, ap);
	va_end(ap);
	fputc('\n', pd->warn);
}

static bool feature_set(const struct file_header *h, unsigned bit)
{
	return (h->features[bit / 64] >> (bit % 64)) & 1;
}

static int check_header(struct perf_data *pd)
{
	const struct file_header *h = &pd->hdr;

	if (pd->size >= 8 && !memcmp(pd->map, PERF_MAGIC1, 8))
		return hwtr_fail(hwtr_err_version, "%s: an old-format perf.data "
				 "(PERFFILE, version 1): hwtrec reads version 2 "
				 "(PERFILE2); rewrite it with a newer perf "
				 "(perf inject -i FILE -o NEW)", pd->path);
	if (pd->size < 16)
		return hwtr_fail(hwtr_err_format, "%s: %zu bytes: too short for "
				 "a perf.data header", pd->path, pd->size);
	if (h->magic == PERF_MAGIC2_SWAPPED)
		return hwtr_fail(hwtr_err_version, "%s: written on a machine of "
				 "the other byte order (big-endian); hwtrec reads "
				 "little-endian perf.data only", pd->path);
	if (h->magic != PERF_MAGIC2)
		return hwtr_fail(hwtr_err_format, "%s: not a perf.data file "
				 "(magic 0x%016llx at offset 0)", pd->path,
				 (unsigned long long)h->magic);
	if (h->size == 16)
		return hwtr_fail(hwtr_err_version, "%s: a pipe-mode perf.data "
				 "(perf record -o -): hwtrec reads file mode; "
				 "convert it with perf inject -i FILE -o NEW",
				 pd->path);
	if (h->size != sizeof(*h))
		return hwtr_fail(hwtr_err_version, "%s: header size %llu at "
				 "offset 8: this hwtrec reads the 104-byte "
				 "perf.data header of perf 3.x to 6.x; a newer "
				 "layout is not read", pd->path,
				 (unsigned long long)h->size);
	if (pd->size < sizeof(*h))
		return hwtr_fail(hwtr_err_format, "%s: %zu bytes: the header is "
				 "cut off (104 bytes needed)", pd->path, pd->size);
	if (h->attr_size < PERF_ATTR_SIZE_VER0 + 16 || h->attr_size > 4096 ||
	    h->attr_size % 8)
		return hwtr_fail(hwtr_err_format, "%s: header: attr_size %llu at "
				 "offset 16 is not a perf_event_attr plus its ids "
				 "section", pd->path,
				 (unsigned long long)h->attr_size);
	if (!in_file(pd, h->attrs.offset, h->attrs.size) ||
	    h->attrs.size % h->attr_size)
		return hwtr_fail(hwtr_err_format, "%s: header: attrs section "
				 "[%llu, +%llu) is outside the file (%zu bytes) or "
				 "not a whole number of %llu-byte entries",
				 pd->path, (unsigned long long)h->attrs.offset,
				 (unsigned long long)h->attrs.size, pd->size,
				 (unsigned long long)h->attr_size);
	if (h->attrs.size == 0)
		return hwtr_fail(hwtr_err_format, "%s: no event attributes: "
				 "nothing was recorded", pd->path);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int read_attrs(struct perf_data *pd)
{
	const struct file_header *h = &pd->hdr;
	size_t i, n = h->attrs.size / h->attr_size, attr_bytes = h->attr_size - 16;
	size_t total_ids = 0;

	pd->attrs = calloc(n, sizeof(*pd->attrs));
	pd->attr_ids = calloc(n, sizeof(*pd->attr_ids));
	if (!pd->attrs || !pd->attr_ids)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	pd->nattrs = n;
	for (i = 0; i < n; i++) {
		uint64_t off = h->attrs.offset + i * h->attr_size;
		const uint8_t *p = pd->map + off;
		struct perf_data_attr *a = &pd->attrs[i];
		struct file_section ids;
		uint32_t sz = rd32(p + 4);
		size_t k;

		if (sz == 0)
			sz = PERF_ATTR_SIZE_VER0;
		if (sz > attr_bytes || sz < PERF_ATTR_SIZE_VER0)
			return hwtr_fail(hwtr_err_format, "%s: attr %zu at offset "
					 "%llu: size %u does not fit its %zu-byte "
					 "entry", pd->path, i,
					 (unsigned long long)off, sz, attr_bytes);
		if (sz > sizeof(a->attr)) {
			for (k = sizeof(a->attr); k < sz; k++)
				if (p[k])
					return hwtr_fail(hwtr_err_version,
						"%s: attr %zu at offset %llu: a "
						"%u-byte perf_event_attr from a "
						"newer perf sets fields this hwtrec "
						"does not know (byte %zu); refusing "
						"to misread it", pd->path, i,
						(unsigned long long)off, sz, k);
			sz = sizeof(a->attr);
		}
		memcpy(&a->attr, p, sz);
		a->attr.size = sz;
		memcpy(&ids, p + attr_bytes, sizeof(ids));
		if (!in_file(pd, ids.offset, ids.size) || ids.size % 8)
			return hwtr_fail(hwtr_err_format, "%s: attr %zu at offset "
					 "%llu: its ids [%llu, +%llu) are outside "
					 "the file", pd->path, i,
					 (unsigned long long)off,
					 (unsigned long long)ids.offset,
					 (unsigned long long)ids.size);
		a->nids = ids.size / 8;
		if (a->nids) {
			pd->attr_ids[i] = malloc(ids.size);
			if (!pd->attr_ids[i])
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			memcpy(pd->attr_ids[i], pd->map + ids.offset, ids.size);
		}
		a->ids = pd->attr_ids[i];
		a->layout.sample_type = a->attr.sample_type;
		a->layout.sample_id_all = a->attr.sample_id_all;
		total_ids += a->nids;
	}
	pd->ids = calloc(total_ids + 1, sizeof(*pd->ids));
	if (!pd->ids)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < pd->attrs[i].nids; k++)
			pd->ids[pd->nids++] = (struct id_entry){
				pd->attrs[i].ids[k], i };
	}
	qsort(pd->ids, pd->nids, sizeof(*pd->ids), cmp_id);
	/* With several events of different layouts, a record says whose it is
	 * only through IDENTIFIER (the trailer's last word). */
	for (i = 1; i < n; i++)
		if (pd->attrs[i].layout.sample_type !=
			    pd->attrs[0].layout.sample_type ||
		    pd->attrs[i].layout.sample_id_all !=
			    pd->attrs[0].layout.sample_id_all)
			break;
	if (i < n) {
		for (i = 0; i < n; i++)
			if (!(pd->attrs[i].attr.sample_type &
			      PERF_SAMPLE_IDENTIFIER))
				return hwtr_fail(hwtr_err_format,
					"%s: events of different sample layouts "
					"without PERF_SAMPLE_IDENTIFIER (attr %zu): "
					"records cannot be told apart", pd->path,
					i);
		pd->by_identifier = true;
	} else if (n > 1 && (pd->attrs[0].attr.sample_type &
			     PERF_SAMPLE_IDENTIFIER)) {
		pd->by_identifier = true;
	}
	return 0;
}

static void read_features(struct perf_data *pd)
{
	const struct file_header *h = &pd->hdr;
	uint64_t pos = h->data.offset + h->data.size;
	unsigned bit;

	for (bit = 0; bit < PERF_FEAT_MAX; bit++) {
		struct file_section s;

		if (!feature_set(h, bit))
			continue;
		if (!in_file(pd, pos, sizeof(s))) {
			warn(pd, "the feature index at offset %llu is cut off; "
			     "features from bit %u on are ignored",
			     (unsigned long long)pos, bit);
			return;
		}
		memcpy(&s, pd->map + pos, sizeof(s));
		if (!in_file(pd, s.offset, s.size))
			warn(pd, "feature %u at offset %llu: section [%llu, "
			     "+%llu) is outside the file; ignored", bit,
			     (unsigned long long)pos,
			     (unsigned long long)s.offset,
			     (unsigned long long)s.size);
		else
			pd->features[bit] = s;
		pos += sizeof(s);
	}
}

int perf_data_open(const char *path, FILE *warnf, struct perf_data **out)
{
	struct perf_data *pd = calloc(1, sizeof(*pd));
	struct stat st;
	int fd, err;

	*out = NULL;
	if (!pd || !(pd->path = strdup(path))) {
		free(pd);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	pd->warn = warnf;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = hwtr_fail(hwtr_err_io, "%s: not a regular file", path);
		goto fail;
	}
	pd->size = (size_t)st.st_size;
	if (pd->size) {
		void *m = mmap(NULL, pd->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			err = hwtr_fail(hwtr_err_io, "%s: cannot map: %s", path,
					strerror(errno));
			goto fail;
		}
		pd->map = m;
	}
	close(fd);
	fd = -1;
	if (pd->size)	/* an empty file is not mapped */
		memcpy(&pd->hdr, pd->map, pd->size < sizeof(pd->hdr)
					  ? pd->size : sizeof(pd->hdr));
	if ((err = check_header(pd)) || (err = read_attrs(pd)))
		goto fail;
	if (pd->hdr.data.offset > pd->size) {
		err = hwtr_fail(hwtr_err_format, "%s: header: the data section "
				"starts at offset %llu, past the end of the file "
				"(%zu bytes)", path,
				(unsigned long long)pd->hdr.data.offset, pd->size);
		goto fail;
	}
	pd->data_end = pd->hdr.data.offset + pd->hdr.data.size;
	if (!in_file(pd, pd->hdr.data.offset, pd->hdr.data.size)) {
		warn(pd, "the data section [%llu, +%llu) runs past the end of "
		     "the file (%zu bytes): the file is truncated; reading the "
		     "records up to its end", (unsigned long long)pd->hdr.data.offset,
		     (unsigned long long)pd->hdr.data.size, pd->size);
		pd->data_end = pd->size;
	} else {
		read_features(pd);
	}
	*out = pd;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	perf_data_close(pd);
	return err;
}

void perf_data_close(struct perf_data *pd)
{
	size_t i;

	if (!pd)
		return;
	if (pd->map)
		munmap((void *)pd->map, pd->size);
	for (i = 0; i < pd->nattrs; i++)
		free(pd->attr_ids[i]);
	free(pd->attr_ids);
	free(pd->attrs);
	free(pd->ids);
	free(pd->path);
	free(pd);
}

const char *perf_data_path(const struct perf_data *pd)
{
	return pd->path;
}

size_t perf_data_nattrs(const struct perf_data *pd)
{
	return pd->nattrs;
}

const struct perf_data_attr *perf_data_attr(const struct perf_data *pd,
					    size_t index)
{
	return index < pd->nattrs ? &pd->attrs[index] : NULL;
}

const uint8_t *perf_data_feature(const struct perf_data *pd, unsigned bit,
				 size_t *size)
{
	if (bit >= PERF_FEAT_MAX || !pd->features[bit].size)
		return NULL;
	*size = pd->features[bit].size;
	return pd->map + pd->features[bit].offset;
}

const char *perf_data_feature_string(const struct perf_data *pd, unsigned bit,
				     char *buf, size_t size)
{
	size_t n;
	const uint8_t *p = perf_data_feature(pd, bit, &n);
	uint32_t len;

	if (!p || n < 4 || !size)
		return NULL;
	len = rd32(p);
	if (len > n - 4)
		return NULL;
	snprintf(buf, size, "%.*s", (int)strnlen((const char *)p + 4, len),
		 (const char *)p + 4);
	return buf;
}

int perf_data_build_ids(const struct perf_data *pd,
			int (*fn)(void *ctx, const struct perf_build_id_entry *e),
			void *ctx)
{
	size_t n, pos = 0;
	const uint8_t *p = perf_data_feature(pd, PERF_FEAT_BUILD_ID, &n);

	/* Entries: perf_event_header, s32 pid, build_id[20], u8 size,
	 * 3 reserved, filename padded (perf_record_header_build_id). */
	while (p && pos < n) {
		struct perf_build_id_entry e = { 0 };
		struct perf_event_header h;
		const char *name;
		int err;

		if (n - pos < 36)
			return hwtr_fail(hwtr_err_format, "%s: BUILD_ID feature at "
					 "offset %llu: entry cut off", pd->path,
					 (unsigned long long)(pd->features[
						 PERF_FEAT_BUILD_ID].offset + pos));
		memcpy(&h, p + pos, sizeof(h));
		if (h.size < 37 || h.size > n - pos)
			return hwtr_fail(hwtr_err_format, "%s: BUILD_ID feature at "
					 "offset %llu: entry size %u does not fit",
					 pd->path,
					 (unsigned long long)(pd->features[
						 PERF_FEAT_BUILD_ID].offset + pos),
					 h.size);
		e.pid = rd32(p + pos + 8);
		e.misc = h.misc;
		memcpy(e.build_id, p + pos + 12, PERF_BUILD_ID_MAX);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid;
		 * older perf wrote 20-byte ids without it. */
		e.size = (h.misc & (1 << 15)) ? p[pos + 32] : PERF_BUILD_ID_MAX;
		if (e.size > PERF_BUILD_ID_MAX)
			e.size = PERF_BUILD_ID_MAX;
		name = (const char *)p + pos + 36;
		if (!memchr(name, 0, h.size - 36))
			return hwtr_fail(hwtr_err_format, "%s: BUILD_ID feature at "
					 "offset %llu: file name not terminated",
					 pd->path,
					 (unsigned long long)(pd->features[
						 PERF_FEAT_BUILD_ID].offset + pos));
		e.filename = name;
		if ((err = fn(ctx, &e)))
			return err;
		pos += h.size;
	}
	return 0;
}

void perf_data_iter_init(struct perf_data *pd, struct perf_data_iter *it)
{
	it->pd = pd;
	it->pos = pd->hdr.data.offset;
	it->end = pd->data_end;
}

static const struct perf_data_attr *attr_by_id(const struct perf_data *pd,
					       uint64_t id)
{
	size_t lo = 0, hi = pd->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pd->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pd->nids && pd->ids[lo].id == id
		       ? &pd->attrs[pd->ids[lo].attr] : NULL;
}

/* Whose is the kernel record at P (SIZE bytes)? */
static const struct perf_data_attr *record_attr(const struct perf_data *pd,
						const uint8_t *p, size_t size,
						uint32_t type)
{
	uint64_t id;

	if (!pd->by_identifier)
		return &pd->attrs[0];
	/* IDENTIFIER: first word of a SAMPLE, last word of the others. */
	if (size < 16)
		return NULL;
	if (type != PERF_RECORD_SAMPLE && !pd->attrs[0].layout.sample_id_all)
		return &pd->attrs[0];
	id = rd64(type == PERF_RECORD_SAMPLE ? p + 8 : p + size - 8);
	/* Id 0 is the first event's, as perf reads it (evlist__id2evsel):
	 * the kernel writes it for records of no event (synthesized MMAPs). */
	return id ? attr_by_id(pd, id) : &pd->attrs[0];
}

static int user_record(struct perf_data_iter *it, const uint8_t *p,
		       struct perf_data_item *item, uint64_t *advance)
{
	struct perf_data *pd = it->pd;
	struct perf_rec *r = &item->rec;

	switch (r->type) {
	case PERF_DATA_AUXTRACE_INFO:
		if (r->size < 16)
			goto short_record;
		item->u.auxtrace_info.type = rd32(p + 8);
		item->u.auxtrace_info.priv = p + 16;
		item->u.auxtrace_info.npriv = (r->size - 16) / 8;
		r->known = true;
		break;
	case PERF_DATA_AUXTRACE: {
		uint64_t left;

		if (r->size < 48)
			goto short_record;
		item->u.auxtrace.size = rd64(p + 8);
		item->u.auxtrace.offset = rd64(p + 16);
		item->u.auxtrace.reference = rd64(p + 24);
		item->u.auxtrace.idx = rd32(p + 32);
		item->u.auxtrace.tid = rd32(p + 36);
		item->u.auxtrace.cpu = rd32(p + 40);
		item->u.auxtrace.data = p + r->size;
		left = it->end - it->pos - r->size;
		if (item->u.auxtrace.size > left)
			return hwtr_fail(hwtr_err_format, "%s: AUXTRACE record at "
					 "offset %llu: its payload of %llu bytes "
					 "runs past the end of the data (%llu bytes "
					 "left)", pd->path,
					 (unsigned long long)it->pos,
					 (unsigned long long)item->u.auxtrace.size,
					 (unsigned long long)left);
		*advance += item->u.auxtrace.size;
		r->known = true;
		break;
	}
	case PERF_DATA_TIME_CONV: {
		struct perf_tsc_conv *tc = &item->u.time_conv;

		if (r->size < 32)
			goto short_record;
		memset(tc, 0, sizeof(*tc));
		tc->time_shift = (uint16_t)rd64(p + 8);
		tc->time_mult = (uint32_t)rd64(p + 16);
		tc->time_zero = rd64(p + 24);
		tc->cap_user_time_zero = true;
		if (r->size >= 56) {
			tc->time_cycles = rd64(p + 32);
			tc->time_mask = rd64(p + 40);
			tc->cap_user_time_zero = p[48];
			tc->cap_user_time_short = p[49];
		}
		r->known = true;
		break;
	}
	case PERF_DATA_COMPRESSED:
		return hwtr_fail(hwtr_err_version, "%s: compressed records at "
				 "offset %llu (perf record -z): decompress first "
				 "with perf inject -i FILE -o NEW", pd->path,
				 (unsigned long long)it->pos);
	default:
		r->known = r->type == PERF_DATA_FINISHED_ROUND ||
			   r->type == PERF_DATA_FINISHED_INIT;
		break;
	}
	return 0;
short_record:
	return hwtr_fail(hwtr_err_format, "%s: %s record at offset %llu: size "
			 "%u is too short", pd->path, perf_rec_type_name(r->type),
			 (unsigned long long)it->pos, r->size);
}

int perf_data_next(struct perf_data_iter *it, struct perf_data_item *item)
{
	struct perf_data *pd = it->pd;
	const uint8_t *p = pd->map + it->pos;
	uint64_t left = it->end - it->pos, advance;
	struct perf_event_header h;
	int err;

	memset(item, 0, sizeof(*item));
	if (it->pos >= it->end)
		return 0;
	item->offset = it->pos;
	if (left < sizeof(h)) {
		if (it->end < pd->hdr.data.offset + pd->hdr.data.size) {
			warn(pd, "offset %llu: a record cut off by the end of the "
			     "file; reading stops there", (unsigned long long)it->pos);
			it->pos = it->end;
			return 0;
		}
		return hwtr_fail(hwtr_err_format, "%s: offset %llu: %llu bytes "
				 "left in the data section, less than a record "
				 "header", pd->path, (unsigned long long)it->pos,
				 (unsigned long long)left);
	}
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 ||
	    (h.size > left && it->end == pd->hdr.data.offset + pd->hdr.data.size))
		return hwtr_fail(hwtr_err_format, "%s: offset %llu: %s record "
				 "of size %u: %s", pd->path,
				 (unsigned long long)it->pos,
				 perf_rec_type_name(h.type), h.size,
				 h.size > left ? "runs past the end of the data "
						 "section"
					       : "not a multiple of 8 at least "
						 "8 bytes long");
	if (h.size > left) {
		warn(pd, "offset %llu: a %s record cut off by the end of the "
		     "file; reading stops there", (unsigned long long)it->pos,
		     perf_rec_type_name(h.type));
		it->pos = it->end;
		return 0;
	}
	advance = h.size;
	if (h.type >= 64) {
		item->rec.type = h.type;
		item->rec.misc = h.misc;
		item->rec.size = h.size;
		err = user_record(it, p, item, &advance);
	} else {
		item->attr = record_attr(pd, p, h.size, h.type);
		if (!item->attr)
			return hwtr_fail(hwtr_err_format, "%s: offset %llu: %s "
					 "record names event id %llu, which no "
					 "attr has", pd->path,
					 (unsigned long long)it->pos,
					 perf_rec_type_name(h.type),
					 (unsigned long long)(h.size >= 16
						? rd64(p + h.size - 8) : 0));
		err = perf_rec_parse(p, h.size, &item->attr->layout, &item->rec);
		if (err)
			return hwtr_fail_context(err, "%s: offset %llu: ", pd->path,
						 (unsigned long long)it->pos);
	}
	if (err)
		return err;
	it->pos += advance;
	return 1;
}

size_t perf_data_auxtrace_priv(const struct perf_data_item *item,
			       uint64_t *words, size_t max)
{
	size_t n = item->u.auxtrace_info.npriv;

	memcpy(words, item->u.auxtrace_info.priv, 8 * (n < max ? n : max));
	return n;
}

/* ------------------------------------------------------------- writing */

struct perf_data_writer {
	char *path;
	FILE *f;
	struct file_header hdr;
	uint64_t pos;		/* end of what is written */
	uint8_t *feat[PERF_FEAT_MAX];
	size_t feat_size[PERF_FEAT_MAX];
	int last_feature;
	bool failed;
};

static int wr(struct perf_data_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -hwtr_err_io;
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->failed = true;
		return hwtr_fail(hwtr_err_io, "%s: write failed: %s", w->path,
				 strerror(errno));
	}
	w->pos += n;
	return 0;
}

int perf_data_writer_create(const char *path,
			    const struct perf_data_writer_attr *attrs,
			    size_t nattrs, struct perf_data_writer **out)
{
	struct perf_data_writer *w = calloc(1, sizeof(*w));
	uint64_t *id_offsets = calloc(nattrs + 1, sizeof(*id_offsets));
	size_t i;
	int err = 0;

	*out = NULL;
	if (!w || !id_offsets || !(w->path = strdup(path))) {
		free(w);
		free(id_offsets);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	w->last_feature = -1;
	w->f = fopen(path, "wb");
	if (!w->f) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
		goto fail;
	}
	w->hdr.magic = PERF_MAGIC2;
	w->hdr.size = sizeof(w->hdr);
	w->hdr.attr_size = sizeof(struct perf_event_attr) + 16;
	if ((err = wr(w, &w->hdr, sizeof(w->hdr))))
		goto fail;
	for (i = 0; i < nattrs; i++) {
		id_offsets[i] = w->pos;
		if ((err = wr(w, attrs[i].ids, attrs[i].nids * 8)))
			goto fail;
	}
	w->hdr.attrs.offset = w->pos;
	w->hdr.attrs.size = nattrs * w->hdr.attr_size;
	for (i = 0; i < nattrs; i++) {
		struct perf_event_attr a = attrs[i].attr;
		struct file_section ids = { id_offsets[i], attrs[i].nids * 8 };

		a.size = sizeof(a);
		if ((err = wr(w, &a, sizeof(a))) ||
		    (err = wr(w, &ids, sizeof(ids))))
			goto fail;
	}
	w->hdr.data.offset = w->pos;
	free(id_offsets);
	*out = w;
	return 0;
fail:
	free(id_offsets);
	perf_data_writer_free(w);
	return err;
}

int perf_data_write(struct perf_data_writer *w, const void *bytes, size_t size)
{
	return wr(w, bytes, size);
}

int perf_data_write_rec(struct perf_data_writer *w, const struct perf_rec *rec,
			const struct perf_rec_layout *layout)
{
	uint8_t buf[UINT16_MAX];
	int n = perf_rec_encode(rec, layout, buf, sizeof(buf));

	return n < 0 ? n : wr(w, buf, (size_t)n);
}

int perf_data_write_auxtrace_info(struct perf_data_writer *w, uint32_t type,
				  const uint64_t *priv, size_t npriv)
{
	struct perf_event_header h = {
		.type = PERF_DATA_AUXTRACE_INFO,
		.size = (uint16_t)(16 + 8 * npriv),
	};
	uint32_t words[2] = { type, 0 };
	int err;

	if (16 + 8 * npriv > UINT16_MAX)
		return hwtr_fail(hwtr_err_invalid, "AUXTRACE_INFO too large");
	if ((err = wr(w, &h, sizeof(h))) || (err = wr(w, words, sizeof(words))))
		return err;
	return wr(w, priv, 8 * npriv);
}

int perf_data_write_auxtrace(struct perf_data_writer *w, uint32_t idx,
			     uint32_t tid, uint32_t cpu, uint64_t offset,
			     uint64_t reference, const void *data,
			     uint64_t size)
{
	static const uint8_t zeros[8];
	struct perf_event_header h = { .type = PERF_DATA_AUXTRACE, .size = 48 };
	uint64_t padded = (size + 7) & ~UINT64_C(7);
	uint64_t words[3] = { padded, offset, reference };
	uint32_t ids[4] = { idx, tid, cpu, 0 };
	int err;

	/* perf pads the payload to 8 bytes and says so in size. */
	if ((err = wr(w, &h, sizeof(h))) || (err = wr(w, words, sizeof(words))) ||
	    (err = wr(w, ids, sizeof(ids))) || (err = wr(w, data, size)))
		return err;
	return wr(w, zeros, padded - size);
}

int perf_data_write_time_conv(struct perf_data_writer *w,
			      const struct perf_tsc_conv *tc)
{
	struct perf_event_header h = { .type = PERF_DATA_TIME_CONV, .size = 56 };
	uint64_t words[5] = { tc->time_shift, tc->time_mult, tc->time_zero,
			      tc->time_cycles, tc->time_mask };
	uint8_t caps[8] = { tc->cap_user_time_zero, tc->cap_user_time_short };
	int err;

	/* 56 bytes: the two capability bytes and padding end it. */
	if ((err = wr(w, &h, sizeof(h))) || (err = wr(w, words, sizeof(words))))
		return err;
	return wr(w, caps, sizeof(caps));
}

int perf_data_write_finished_round(struct perf_data_writer *w)
{
	struct perf_event_header h = { .type = PERF_DATA_FINISHED_ROUND,
				       .size = 8 };

	return wr(w, &h, sizeof(h));
}

int perf_data_add_feature(struct perf_data_writer *w, unsigned bit,
			  const void *bytes, size_t size)
{
	if (bit >= PERF_FEAT_MAX || (int)bit <= w->last_feature)
		return hwtr_fail(hwtr_err_invalid, "feature %u out of order", bit);
	w->feat[bit] = malloc(size ? size : 1);
	if (!w->feat[bit])
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	memcpy(w->feat[bit], bytes, size);
	w->feat_size[bit] = size;
	w->hdr.features[bit / 64] |= UINT64_C(1) << (bit % 64);
	w->last_feature = (int)bit;
	return 0;
}

static int grow_append(uint8_t **bytes, size_t *size, const void *p, size_t n)
{
	uint8_t *b = realloc(*bytes, *size + n);

	if (!b)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	memcpy(b + *size, p, n);
	*bytes = b;
	*size += n;
	return 0;
}

/* perf's string: u32 length (padded to NAME_ALIGN), the string, NULs. */
static int append_string(uint8_t **bytes, size_t *size, const char *s)
{
	static const uint8_t zeros[NAME_ALIGN];
	size_t olen = strlen(s) + 1;
	uint32_t len = (uint32_t)((olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN);
	int err;

	if ((err = grow_append(bytes, size, &len, 4)) ||
	    (err = grow_append(bytes, size, s, olen)))
		return err;
	return grow_append(bytes, size, zeros, len - olen);
}

int perf_feature_string(const char *s, uint8_t **bytes, size_t *size)
{
	*bytes = NULL;
	*size = 0;
	return append_string(bytes, size, s);
}

int perf_feature_append_build_id(uint8_t **bytes, size_t *size, uint32_t pid,
				 uint16_t misc, const uint8_t *id,
				 uint8_t id_size, const char *filename)
{
	static const uint8_t zeros[NAME_ALIGN];
	size_t olen = strlen(filename) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	struct perf_event_header h = {
		.misc = misc | (1 << 15),	/* PERF_RECORD_MISC_BUILD_ID_SIZE */
		.size = (uint16_t)(36 + len),
	};
	uint8_t body[28] = { 0 };
	int err;

	memcpy(body, &pid, 4);
	memcpy(body + 4, id, id_size > PERF_BUILD_ID_MAX ? PERF_BUILD_ID_MAX
							 : id_size);
	body[24] = id_size;
	if ((err = grow_append(bytes, size, &h, sizeof(h))) ||
	    (err = grow_append(bytes, size, body, sizeof(body))) ||
	    (err = grow_append(bytes, size, filename, olen)))
		return err;
	return grow_append(bytes, size, zeros, len - olen);
}

int perf_feature_event_desc(const struct perf_data_writer_attr *attrs,
			    const char *const *names, size_t nattrs,
			    uint8_t **bytes, size_t *size)
{
	uint32_t head[2] = { (uint32_t)nattrs, sizeof(struct perf_event_attr) };
	size_t i;
	int err;

	*bytes = NULL;
	*size = 0;
	if ((err = grow_append(bytes, size, head, sizeof(head))))
		return err;
	for (i = 0; i < nattrs; i++) {
		struct perf_event_attr a = attrs[i].attr;
		uint32_t nids = (uint32_t)attrs[i].nids;

		a.size = sizeof(a);
		if ((err = grow_append(bytes, size, &a, sizeof(a))) ||
		    (err = grow_append(bytes, size, &nids, 4)) ||
		    (err = append_string(bytes, size, names[i])) ||
		    (err = grow_append(bytes, size, attrs[i].ids, 8 * nids)))
			return err;
	}
	return 0;
}

int perf_data_writer_finish(struct perf_data_writer *w)
{
	struct file_section index[PERF_FEAT_MAX];
	uint64_t at;
	unsigned bit, n = 0;
	int err;

	w->hdr.data.size = w->pos - w->hdr.data.offset;
	/* Feature index, then the bodies in bit order. */
	for (bit = 0; bit < PERF_FEAT_MAX; bit++)
		if (w->feat[bit])
			n++;
	at = w->pos + n * sizeof(struct file_section);
	n = 0;
	for (bit = 0; bit < PERF_FEAT_MAX; bit++) {
		if (!w->feat[bit])
			continue;
		index[n].offset = at;
		index[n].size = w->feat_size[bit];
		at += w->feat_size[bit];
		n++;
	}
	if ((err = wr(w, index, n * sizeof(index[0]))))
		return err;
	for (bit = 0; bit < PERF_FEAT_MAX; bit++)
		if (w->feat[bit] &&
		    (err = wr(w, w->feat[bit], w->feat_size[bit])))
			return err;
	if (fseeko(w->f, 0, SEEK_SET) < 0 ||
	    fwrite(&w->hdr, sizeof(w->hdr), 1, w->f) != 1 || fflush(w->f) == EOF)
		return hwtr_fail(hwtr_err_io, "%s: write failed: %s", w->path,
				 strerror(errno));
	err = fclose(w->f) == EOF ? hwtr_fail(hwtr_err_io, "%s: %s", w->path,
					      strerror(errno)) : 0;
	w->f = NULL;
	perf_data_writer_free(w);
	return err;
}

void perf_data_writer_free(struct perf_data_writer *w)
{
	unsigned bit;

	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	for (bit = 0; bit < PERF_FEAT_MAX; bit++)
		free(w->feat[bit]);
	free(w->path);
	free(w);
}
