/* perf-record.c: perf_event records from and to bytes (perf-record.h).
 *
 * Bounds are checked field by field against the record's own size, never
 * against the buffer beyond it, so a record that lies about its size cannot
 * make the parser read outside it.  Strings must end inside their record.
 */
#include "perf-record.h"
#include "hwtrecord.h"


#include <string.h>

/* A reader over one record's body. */
struct cursor {
	const uint8_t *p;
	size_t pos, end;
	bool short_read;
};

static uint64_t get_u64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->pos < 8) {
		c->short_read = true;
		c->pos = c->end;
		return 0;
	}
	memcpy(&v, c->p + c->pos, 8);
	c->pos += 8;
	return v;
}

static uint32_t get_u32(struct cursor *c)
{
	uint32_t v = 0;

	if (c->end - c->pos < 4) {
		c->short_read = true;
		c->pos = c->end;
		return 0;
	}
	memcpy(&v, c->p + c->pos, 4);
	c->pos += 4;
	return v;
}

static void get_bytes(struct cursor *c, void *out, size_t n)
{
	if (c->end - c->pos < n) {
		c->short_read = true;
		c->pos = c->end;
		memset(out, 0, n);
		return;
	}
	memcpy(out, c->p + c->pos, n);
	c->pos += n;
}

/* A NUL-terminated string that ends inside the body, or NULL. */
static const char *get_string(struct cursor *c)
{
	const char *s = (const char *)c->p + c->pos;
	const void *nul;

	if (c->pos >= c->end) {
		c->short_read = true;
		return NULL;
	}
	nul = memchr(s, 0, c->end - c->pos);
	if (!nul) {
		c->short_read = true;
		return NULL;
	}
	c->pos = c->end;	/* padding to 8 bytes follows */
	return s;
}

size_t perf_rec_trailer_size(const struct perf_rec_layout *l)
{
	uint64_t t = l->sample_type;
	size_t n = 0;

	if (!l->sample_id_all)
		return 0;
	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

static void parse_trailer(struct cursor *c, uint64_t t, struct perf_sample_id *s)
{
	memset(s, 0, sizeof(*s));
	if (t & PERF_SAMPLE_TID) {
		s->pid = get_u32(c);
		s->tid = get_u32(c);
		s->has_tid = true;
	}
	if (t & PERF_SAMPLE_TIME) {
		s->time = get_u64(c);
		s->has_time = true;
	}
	if (t & PERF_SAMPLE_ID) {
		s->id = get_u64(c);
		s->has_id = true;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		s->stream_id = get_u64(c);
		s->has_stream_id = true;
	}
	if (t & PERF_SAMPLE_CPU) {
		s->cpu = get_u32(c);
		get_u32(c);
		s->has_cpu = true;
	}
	if (t & PERF_SAMPLE_IDENTIFIER) {
		s->id = get_u64(c);
		s->has_id = true;
	}
}

static void parse_body(struct cursor *c, struct perf_rec *r)
{
	r->known = true;
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct perf_rec_mmap *m = &r->u.mmap;

		m->pid = get_u32(c);
		m->tid = get_u32(c);
		m->addr = get_u64(c);
		m->len = get_u64(c);
		m->pgoff = get_u64(c);
		if (r->type == PERF_RECORD_MMAP2) {
			if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t sz[4];

				get_bytes(c, sz, 4);
				m->build_id_size = sz[0];
				get_bytes(c, m->build_id, PERF_BUILD_ID_MAX);
			} else {
				m->maj = get_u32(c);
				m->min = get_u32(c);
				m->ino = get_u64(c);
				m->ino_generation = get_u64(c);
			}
			m->prot = get_u32(c);
			m->flags = get_u32(c);
		}
		m->filename = get_string(c);
		break;
	}
	case PERF_RECORD_COMM:
		r->u.comm.pid = get_u32(c);
		r->u.comm.tid = get_u32(c);
		r->u.comm.comm = get_string(c);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r->u.task.pid = get_u32(c);
		r->u.task.ppid = get_u32(c);
		r->u.task.tid = get_u32(c);
		r->u.task.ptid = get_u32(c);
		r->u.task.time = get_u64(c);
		break;
	case PERF_RECORD_LOST:
		r->u.lost.id = get_u64(c);
		r->u.lost.lost = get_u64(c);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->u.lost.lost = get_u64(c);
		break;
	case PERF_RECORD_AUX:
		r->u.aux.aux_offset = get_u64(c);
		r->u.aux.aux_size = get_u64(c);
		r->u.aux.flags = get_u64(c);
		break;
	case PERF_RECORD_ITRACE_START:
		r->u.itrace_start.pid = get_u32(c);
		r->u.itrace_start.tid = get_u32(c);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		r->u.hw_id = get_u64(c);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		r->u.sw.out = r->misc & PERF_RECORD_MISC_SWITCH_OUT;
		r->u.sw.preempt = r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
		if (r->type == PERF_RECORD_SWITCH_CPU_WIDE) {
			r->u.sw.next_prev_pid = get_u32(c);
			r->u.sw.next_prev_tid = get_u32(c);
		}
		break;
	default:
		r->known = false;
		break;
	}
}

int perf_rec_parse(const uint8_t *bytes, size_t avail,
		   const struct perf_rec_layout *layout, struct perf_rec *r)
{
	struct perf_event_header h;
	struct cursor c;
	size_t trailer;

	memset(r, 0, sizeof(*r));
	if (avail < sizeof(h))
		return hwtr_fail(hwtr_err_format, "record header cut off (%zu "
				 "of 8 bytes)", avail);
	memcpy(&h, bytes, sizeof(h));
	r->type = h.type;
	r->misc = h.misc;
	r->size = h.size;
	if (h.size < sizeof(h))
		return hwtr_fail(hwtr_err_format, "%s record: size %u is less "
				 "than its header", perf_rec_type_name(h.type),
				 h.size);
	if (h.size > avail)
		return hwtr_fail(hwtr_err_format, "%s record: size %u but only "
				 "%zu bytes left", perf_rec_type_name(h.type),
				 h.size, avail);
	/* perf.data's own types (64 and up) have no kernel body or trailer;
	 * SAMPLE has no trailer but its own layout, which we do not read. */
	if (h.type >= 64 || h.type == PERF_RECORD_SAMPLE)
		return 0;
	trailer = perf_rec_trailer_size(layout);
	if (h.size - sizeof(h) < trailer)
		return hwtr_fail(hwtr_err_format, "%s record: size %u is too "
				 "short for its %zu-byte sample_id",
				 perf_rec_type_name(h.type), h.size, trailer);
	c = (struct cursor){ .p = bytes, .pos = sizeof(h),
			     .end = h.size - trailer };
	parse_body(&c, r);
	if (c.short_read)
		return hwtr_fail(hwtr_err_format, "%s record: size %u is too "
				 "short for its fields%s",
				 perf_rec_type_name(h.type), h.size,
				 (r->type == PERF_RECORD_MMAP ||
				  r->type == PERF_RECORD_MMAP2 ||
				  r->type == PERF_RECORD_COMM)
					 ? " or its name is not terminated" : "");
	if (r->type == PERF_RECORD_MMAP2 &&
	    r->u.mmap.build_id_size > PERF_BUILD_ID_MAX)
		return hwtr_fail(hwtr_err_format, "MMAP2 record: build-id size "
				 "%u is over %d", r->u.mmap.build_id_size,
				 PERF_BUILD_ID_MAX);
	if (trailer) {
		c = (struct cursor){ .p = bytes, .pos = h.size - trailer,
				     .end = h.size };
		parse_trailer(&c, layout->sample_type, &r->sample);
		r->has_sample_id = true;
	}
	return 0;
}

/* ------------------------------------------------------------- encoding */

struct out {
	uint8_t *p;
	size_t pos, cap;
	bool full;
};

static void put(struct out *o, const void *v, size_t n)
{
	if (o->cap - o->pos < n) {
		o->full = true;
		o->pos = o->cap;
		return;
	}
	memcpy(o->p + o->pos, v, n);
	o->pos += n;
}

static void put_u64(struct out *o, uint64_t v) { put(o, &v, 8); }
static void put_u32(struct out *o, uint32_t v) { put(o, &v, 4); }

/* The string, NUL-terminated and padded with NULs to 8 bytes. */
static void put_string(struct out *o, const char *s)
{
	static const uint8_t zeros[8];
	size_t n = strlen(s ? s : "") + 1;

	put(o, s ? s : "", n - 1);
	put(o, zeros, 1);
	if (n % 8)
		put(o, zeros, 8 - n % 8);
}

static void put_trailer(struct out *o, const struct perf_rec_layout *l,
			const struct perf_sample_id *s)
{
	uint64_t t = l->sample_type;

	if (!l->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		put_u32(o, s->pid);
		put_u32(o, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		put_u64(o, s->time);
	if (t & PERF_SAMPLE_ID)
		put_u64(o, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(o, s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		put_u32(o, s->cpu);
		put_u32(o, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(o, s->id);
}

int perf_rec_encode(const struct perf_rec *r, const struct perf_rec_layout *l,
		    uint8_t *buf, size_t cap)
{
	struct out o = { .p = buf, .pos = sizeof(struct perf_event_header),
			 .cap = cap };
	struct perf_event_header h = { .type = r->type, .misc = r->misc };

	if (cap < sizeof(h))
		return hwtr_fail(hwtr_err_invalid, "record buffer too small");
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const struct perf_rec_mmap *m = &r->u.mmap;

		put_u32(&o, m->pid);
		put_u32(&o, m->tid);
		put_u64(&o, m->addr);
		put_u64(&o, m->len);
		put_u64(&o, m->pgoff);
		if (r->type == PERF_RECORD_MMAP2) {
			if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t sz[4] = { m->build_id_size };

				put(&o, sz, 4);
				put(&o, m->build_id, PERF_BUILD_ID_MAX);
			} else {
				put_u32(&o, m->maj);
				put_u32(&o, m->min);
				put_u64(&o, m->ino);
				put_u64(&o, m->ino_generation);
			}
			put_u32(&o, m->prot);
			put_u32(&o, m->flags);
		}
		put_string(&o, m->filename);
		break;
	}
	case PERF_RECORD_COMM:
		put_u32(&o, r->u.comm.pid);
		put_u32(&o, r->u.comm.tid);
		put_string(&o, r->u.comm.comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		put_u32(&o, r->u.task.pid);
		put_u32(&o, r->u.task.ppid);
		put_u32(&o, r->u.task.tid);
		put_u32(&o, r->u.task.ptid);
		put_u64(&o, r->u.task.time);
		break;
	case PERF_RECORD_LOST:
		put_u64(&o, r->u.lost.id);
		put_u64(&o, r->u.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		put_u64(&o, r->u.lost.lost);
		break;
	case PERF_RECORD_AUX:
		put_u64(&o, r->u.aux.aux_offset);
		put_u64(&o, r->u.aux.aux_size);
		put_u64(&o, r->u.aux.flags);
		break;
	case PERF_RECORD_ITRACE_START:
		put_u32(&o, r->u.itrace_start.pid);
		put_u32(&o, r->u.itrace_start.tid);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		put_u64(&o, r->u.hw_id);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put_u32(&o, r->u.sw.next_prev_pid);
		put_u32(&o, r->u.sw.next_prev_tid);
		break;
	default:
		return hwtr_fail(hwtr_err_invalid, "cannot encode a %s record",
				 perf_rec_type_name(r->type));
	}
	put_trailer(&o, l, &r->sample);
	if (o.full || o.pos > UINT16_MAX)
		return hwtr_fail(hwtr_err_invalid, "%s record does not fit in "
				 "%zu bytes", perf_rec_type_name(r->type), cap);
	h.size = (uint16_t)o.pos;
	memcpy(buf, &h, sizeof(h));
	return (int)o.pos;
}

const char *perf_rec_type_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	/* perf.data's own records (tools/perf/util/event.h). */
	static const char *const user[] = {
		[0] = "HEADER_ATTR", [1] = "HEADER_EVENT_TYPE",
		[2] = "HEADER_TRACING_DATA", [3] = "HEADER_BUILD_ID",
		[4] = "FINISHED_ROUND", [5] = "ID_INDEX", [6] = "AUXTRACE_INFO",
		[7] = "AUXTRACE", [8] = "AUXTRACE_ERROR", [9] = "THREAD_MAP",
		[10] = "CPU_MAP", [11] = "STAT_CONFIG", [12] = "STAT",
		[13] = "STAT_ROUND", [14] = "EVENT_UPDATE", [15] = "TIME_CONV",
		[16] = "HEADER_FEATURE", [17] = "COMPRESSED",
		[18] = "FINISHED_INIT",
	};

	if (type < sizeof(kernel) / sizeof(kernel[0]) && kernel[type])
		return kernel[type];
	if (type >= 64 && type - 64 < sizeof(user) / sizeof(user[0]) &&
	    user[type - 64])
		return user[type - 64];
	return type >= 64 ? "unknown perf.data" : "unknown kernel";
}
