/* import-perf.c: a perf.data of Intel PT or CoreSight ETM as a recording
 * (import-perf.h).
 *
 * Reading: perf-data.c walks the file; AUXTRACE records are queued by their
 * idx (one AUX area each), kernel records are kept, sorted by sample time
 * and handed to perf-sideband.c (the live source's converter).  Only the
 * process of the first traced thread is imported (a recording holds one).
 *
 * Trace, per-thread files (perf record --per-thread): each queue is one
 * thread's AUX area; its AUXTRACE payloads are laid end to end in offset
 * order.  A jump forward in offsets is trace perf did not save (a loss
 * event); an overlap (snapshots of a ring that had not moved on) is cut.
 *
 * Trace, per-CPU files (perf's default): a CPU's trace holds the threads
 * that ran on it.  With user-mode tracing the trace is disabled (TIP.PGD)
 * whenever the CPU enters the kernel, hence at every context switch, so the
 * CPU's trace is cut into pieces after each TIP.PGD; a piece goes to the
 * thread that ITRACE_START and SWITCH_CPU_WIDE records say ran on that CPU
 * at the piece's first TSC packet (or the last TSC before it, when the piece
 * has none).  The precision is therefore that of the TSC packets: a piece is
 * misattributed only if the switch fell between its TSC and its start,
 * which needs a TSC older than the previous TIP.PGD (MTC/CYC timing, which
 * would narrow that, is not used).  Each piece gets its IPs re-encoded in
 * full and, unless it starts with one, a PSB+ (PSB, TSC, PSBEND) in front,
 * so that it decodes in its thread's stream on its own; all other packets
 * are kept as recorded.
 *
 * Losses: AUX records with TRUNCATED, COLLISION or PARTIAL, LOST records,
 * jumps in AUXTRACE offsets and undecodable bytes become loss events; the
 * history shows them as gaps.
 *
 * Binaries: each executable mapping is looked for at its path, then by
 * build-id in perf's build-id cache and /usr/lib/debug; one found only in a
 * cache is copied into the recording (objects/BUILDID).  Missing ones are
 * named in a warning and in the recording.
 *
 * CoreSight ETM (AUXTRACE_INFO of type CS_ETM): import-perf-cs-etm.c; the
 * sideband and the binaries are found as for Intel PT.  What differs
 * between the two is in their struct aux_import_ops (import-perf-format.h);
 * the rest never asks which format it has.
 *
 * Not done: other processes of the file (children perf followed), AUXTRACE
 * types other than Intel PT and CoreSight ETM, a core file (perf.data has
 * none), exit codes (perf does not record them).
 */
#define _GNU_SOURCE
#include "import-perf.h"
#include "import-perf-format.h"
#include "hwtrecord.h"

#include "etm-contexts.h"
#include "perf-cs-etm.h"
#include "perf-data.h"
#include "perf-intel-pt.h"
#include "pt-packets.h"
#include "../kernel/linux/perf-sideband.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct aux_import_ops *aux_import_for(uint32_t auxtrace_type);

void import_warn(struct imp *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->opt->warn)
		return;
	progress_finish(&m->progress);	/* the warning on a line of its own */
	fprintf(m->opt->warn, "hwtrec import: %s: ", m->path);
	va_start(ap, fmt);
	vfprintf(m->opt->warn, fmt, ap);
	va_end(ap);
	fputc('\n', m->opt->warn);
}

void import_progress(struct imp *m, uint64_t bytes)
{
	m->progress_done += bytes;
	progress_update(&m->progress, m->progress_done, 0);
}

void import_progress_phase(struct imp *m, const char *what, uint64_t total)
{
	progress_finish(&m->progress);
	progress_start_bytes(&m->progress, m->opt->progress, what, total);
	m->progress_done = 0;
}

/* The AUXTRACE payloads' bytes, all queues. */
static uint64_t aux_bytes(const struct imp *m)
{
	uint64_t n = 0;
	size_t qi, i;

	for (qi = 0; qi < m->nqueues; qi++)
		for (i = 0; i < m->queues[qi].n; i++)
			n += m->queues[qi].bufs[i].size;
	return n;
}

/* ------------------------------------------------------------ reading */

static struct aqueue *queue_for(struct imp *m, uint32_t idx, uint32_t tid,
				uint32_t cpu)
{
	struct aqueue *q;
	size_t i;

	for (i = 0; i < m->nqueues; i++)
		if (m->queues[i].idx == idx)
			return &m->queues[i];
	q = realloc(m->queues, (m->nqueues + 1) * sizeof(*q));
	if (!q)
		return NULL;
	m->queues = q;
	q = &m->queues[m->nqueues++];
	memset(q, 0, sizeof(*q));
	q->idx = idx;
	q->tid = tid;
	q->cpu = cpu;
	return q;
}

/* CoreSight's AUXTRACE_INFO: the trace units of the CPUs. */
/* AUXTRACE_INFO's private words, all of them (an Intel PT address filter
 * string makes them as long as it needs), given to the format's parser. */
static int auxtrace_info_read(struct imp *m, const struct perf_data_item *item)
{
	size_t n = item->u.auxtrace_info.npriv;
	uint64_t *priv = malloc((n ? n : 1) * sizeof(*priv));
	int err;

	if (!priv)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	n = perf_data_auxtrace_priv(item, priv, n);
	m->aux = aux_import_for(item->u.auxtrace_info.type);
	err = m->aux->parse_info(m, priv, n);
	free(priv);
	if (err)
		return hwtr_fail_context(err, "%s: offset %llu: ", m->path,
					 (unsigned long long)item->offset);
	return 0;
}

static int read_records(struct imp *m)
{
	struct perf_data_iter it;
	struct perf_data_item item;
	int status;

	perf_data_iter_init(m->pd, &it);
	while ((status = perf_data_next(&it, &item)) > 0) {
		struct perf_rec *r = &item.rec;
		int err;

		if (r->type == PERF_DATA_AUXTRACE_INFO) {
			if (m->have_info) {
				import_warn(m, "offset %llu: a second AUXTRACE_INFO, ignored",
				     (unsigned long long)item.offset);
				continue;
			}
			m->have_info = true;
			if (!aux_import_for(item.u.auxtrace_info.type)) {
				static const char *const names[] = {
					"unknown", "Intel PT", "Intel BTS",
					"CoreSight ETM", "Arm SPE", "S390 CPUMSF",
					"HiSilicon PTT" };
				uint32_t t = item.u.auxtrace_info.type;

				return hwtr_fail(hwtr_err_invalid, "%s: offset %llu: "
						 "AUXTRACE_INFO of type %u (%s): hwtrec "
						 "imports Intel PT (type 1) and CoreSight "
						 "ETM (type 3) only",
						 m->path,
						 (unsigned long long)item.offset, t,
						 t < 7 ? names[t] : "unknown");
			}
			if ((err = auxtrace_info_read(m, &item)))
				return err;
		} else if (r->type == PERF_DATA_TIME_CONV) {
			m->tc = item.u.time_conv;
			m->have_tc = true;
		} else if (r->type == PERF_DATA_AUXTRACE) {
			struct aqueue *q = queue_for(m, item.u.auxtrace.idx,
						     item.u.auxtrace.tid,
						     item.u.auxtrace.cpu);
			struct abuf *b;

			if (!q)
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			if ((err = hwtr_array_grow((void **)&q->bufs, &q->cap, q->n,
						   sizeof(*q->bufs))))
				return err;
			b = &q->bufs[q->n++];
			b->offset = item.u.auxtrace.offset;
			b->size = item.u.auxtrace.size;
			b->reference = item.u.auxtrace.reference;
			b->data = item.u.auxtrace.data;
			b->file_offset = item.offset;
		} else if (r->type < 64 && r->known) {
			struct kept_rec *k;

			if ((err = hwtr_array_grow((void **)&m->recs, &m->cap_recs,
						   m->nrecs, sizeof(*m->recs))))
				return err;
			k = &m->recs[m->nrecs++];
			k->rec = *r;
			k->file_offset = item.offset;
		} else if (!r->known) {
			unsigned t = r->type < 128 ? r->type : 127;

			if (!m->skipped_types[t]++)
				m->skipped_first[t] = item.offset;
		}
	}
	return status;
}

static void report_skipped(struct imp *m)
{
	unsigned t;

	for (t = 0; t < 128; t++) {
		/* Records of no use to a recording: samples, perf's own
		 * bookkeeping.  Skipped silently. */
		switch (t) {
		case PERF_RECORD_SAMPLE: case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE: case PERF_RECORD_READ:
		case PERF_RECORD_KSYMBOL: case PERF_RECORD_BPF_EVENT:
		case PERF_RECORD_CGROUP: case PERF_RECORD_NAMESPACES:
		case PERF_RECORD_TEXT_POKE: case PERF_RECORD_AUX_OUTPUT_HW_ID:
		case PERF_DATA_ID_INDEX: case PERF_DATA_THREAD_MAP:
		case PERF_DATA_CPU_MAP: case 75: case 76: case 77: case 78:
		case PERF_DATA_HEADER_FEATURE: case PERF_DATA_AUXTRACE_ERROR:
		case PERF_DATA_HEADER_BUILD_ID: case 66:
			continue;
		}
		if (m->skipped_types[t] && t == 127)
			import_warn(m, "%llu record%s of types 127 and above, the first "
			     "at offset %llu, skipped: not types this hwtrec "
			     "knows", (unsigned long long)m->skipped_types[t],
			     m->skipped_types[t] > 1 ? "s" : "",
			     (unsigned long long)m->skipped_first[t]);
		else if (m->skipped_types[t])
			import_warn(m, "%llu record%s of type %u (%s), the first at offset "
			     "%llu, skipped: not a type this hwtrec knows",
			     (unsigned long long)m->skipped_types[t],
			     m->skipped_types[t] > 1 ? "s" : "", t,
			     perf_rec_type_name(t),
			     (unsigned long long)m->skipped_first[t]);
	}
}

/* ----------------------------------------------------------- binaries */

struct build_id_search {
	const char *path;
	char *out;
	size_t size;
	bool found;
};

static int match_build_id(void *ctx, const struct perf_build_id_entry *e)
{
	struct build_id_search *s = ctx;
	size_t i;

	if (s->found || strcmp(e->filename, s->path))
		return 0;
	for (i = 0; i < e->size && 2 * i + 2 < s->size; i++)
		snprintf(s->out + 2 * i, 3, "%02x", e->build_id[i]);
	s->found = e->size > 0;
	return 0;
}

/* The BUILD_ID feature's id for PATH (perf's default: MMAP2 records carry
 * inode numbers, the ids are in the header). */
static const char *feature_build_id(void *ctx, const char *path, char *buf,
				    size_t size)
{
	struct imp *m = ctx;
	struct build_id_search s = { path, buf, size, false };

	buf[0] = 0;
	if (perf_data_build_ids(m->pd, match_build_id, &s) < 0)
		return NULL;
	return s.found ? buf : NULL;
}

static bool has_build_id(const char *file, const char *id)
{
	char got[130];

	return hwtr_build_id_of_file(file, got, sizeof(got)) > 0 &&
	       !strcmp(got, id);
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A file in DIR/.build-id/xx/rest: the file itself (a debug tree), or in
 * perf's cache a directory holding "elf" (or "vdso"). */
static char *in_cache(const char *dir, const char *id)
{
	static const char *const names[] = { "", "/elf", "/vdso" };
	size_t i;

	if (strlen(id) < 3)
		return NULL;
	for (i = 0; i < 3; i++) {
		char *p = NULL;

		if (asprintf(&p, "%s/.build-id/%.2s/%s%s", dir, id, id + 2,
			     names[i]) < 0)
			return NULL;
		if (is_file(p) && has_build_id(p, id))
			return p;
		free(p);
	}
	return NULL;
}

static int save_copy(struct imp *m, struct binary *b, const char *file)
{
	const char *rel = NULL;
	FILE *f = fopen(file, "rb");
	uint8_t *bytes = NULL;
	long size;
	int err;

	if (!f)
		return hwtr_fail(hwtr_err_io, "%s: %s", file, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(bytes = malloc(size ? size : 1)) ||
	    fread(bytes, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(bytes);
		return hwtr_fail(hwtr_err_io, "%s: cannot read", file);
	}
	fclose(f);
	err = hwtr_writer_save_object(m->w, b->build_id, bytes, (size_t)size,
				      &rel);
	free(bytes);
	if (err)
		return err;
	b->saved = strdup(rel);
	return b->saved ? 0 : hwtr_fail(hwtr_err_nomem, "out of memory");
}

/* Where the code of PATH (build-id ID) is: nothing to do when it is at its
 * path; a copy in the recording when only a cache has it. */
static int locate_binary(struct imp *m, const char *path, const char *id,
			 const char **saved)
{
	const char *const *dirs = m->opt->debug_dirs;
	struct binary *b;
	size_t i;
	int err = 0;

	*saved = NULL;
	for (i = 0; i < m->nbins; i++)
		if (!strcmp(m->bins[i].path, path) &&
		    !strcmp(m->bins[i].build_id, id ? id : "")) {
			*saved = m->bins[i].saved;
			return 0;
		}
	b = realloc(m->bins, (m->nbins + 1) * sizeof(*b));
	if (!b)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	m->bins = b;
	b = &m->bins[m->nbins];
	memset(b, 0, sizeof(*b));
	b->path = strdup(path);
	b->build_id = strdup(id ? id : "");
	if (!b->path || !b->build_id) {
		free(b->path);
		free(b->build_id);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	m->nbins++;
	if (path[0] == '/' && is_file(path) && (!id || has_build_id(path, id)))
		return 0;
	for (i = 0; id && dirs && dirs[i]; i++) {
		char *file = in_cache(dirs[i], id);

		if (file) {
			err = save_copy(m, b, file);
			free(file);
			*saved = b->saved;
			return err;
		}
	}
	if (!strcmp(path, "[vdso]") && !id)
		return 0;
	if (id)
		import_warn(m, "missing binary %s (build-id %s): %s, and not in the "
		     "build-id caches; the history has a gap where it ran",
		     path, id, is_file(path) ? "the file at that path differs"
					     : "no file at that path");
	else
		import_warn(m, "missing binary %s (no build-id recorded): the history "
		     "has a gap where it ran", path);
	return 0;
}

/* ------------------------------------------------------------- events */

static struct ithread *thread_of(struct imp *m, uint32_t tid, bool create)
{
	struct ithread *t;
	size_t i;

	for (i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == tid)
			return &m->threads[i];
	if (!create)
		return NULL;
	t = realloc(m->threads, (m->nthreads + 1) * sizeof(*t));
	if (!t)
		return NULL;
	m->threads = t;
	t = &m->threads[m->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

static int add_item(struct imp *m, uint64_t tsc, int kind,
		    const struct hwtr_sideband_event *ev)
{
	struct item *it;
	bool oom = false;
	int err;

	if ((err = hwtr_array_grow((void **)&m->items, &m->cap_items, m->nitems,
				   sizeof(*m->items))))
		return err;
	it = &m->items[m->nitems];
	memset(it, 0, sizeof(*it));
	/* A recording's times are signed 64-bit numbers; a file's can be
	 * anything. */
	if (tsc > INT64_MAX)
		tsc = INT64_MAX;
	it->tsc = tsc;
	it->seq = m->nitems;
	it->kind = kind;
	it->ev = *ev;
	it->ev.tsc = tsc;
	it->path = dup_or_null(ev->path, &oom);
	it->build_id = dup_or_null(ev->build_id, &oom);
	it->saved = dup_or_null(ev->saved, &oom);
	it->reason = dup_or_null(ev->reason, &oom);
	it->ev.path = it->path;
	it->ev.build_id = it->build_id;
	it->ev.saved = it->saved;
	it->ev.reason = it->reason;
	m->nitems++;
	return oom ? hwtr_fail(hwtr_err_nomem, "out of memory") : 0;
}

static int cb_event(void *ctx, const struct hwtr_sideband_event *ev)
{
	struct imp *m = ctx;
	struct hwtr_sideband_event e = *ev;
	int err;

	/* CoreSight losses are placed by the stream (etm_streams); a LOST
	 * record's sideband loss has no place in a trace unit's stream. */
	if (m->aux->threads_are_trace_units && e.kind == hwtr_ev_loss)
		return 0;
	if (e.kind == hwtr_ev_mmap && (e.prot & HWTR_PROT_EXEC) && e.path &&
	    (err = locate_binary(m, e.path, e.build_id, &e.saved)))
		return err;
	return add_item(m, e.tsc, IT_EVENT, &e);
}

static int cb_thread_start(void *ctx, uint32_t tid, uint64_t tsc)
{
	struct imp *m = ctx;
	struct ithread *t;
	struct hwtr_sideband_event ev = { .kind = hwtr_ev_thread_start,
					  .tsc = tsc, .tid = tid };

	if (m->aux->threads_are_trace_units)
		return 0;
	t = thread_of(m, tid, true);
	if (!t)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (t->started)
		return 0;
	t->started = true;
	t->start_tsc = tsc;
	return add_item(m, tsc, IT_THREAD_START, &ev);
}

static int cb_thread_exit(void *ctx, uint32_t tid, uint64_t tsc)
{
	struct imp *m = ctx;
	struct hwtr_sideband_event ev = { .kind = hwtr_ev_thread_exit,
					  .tsc = tsc, .tid = tid };

	if (m->aux->threads_are_trace_units || !thread_of(m, tid, false))
		return 0;
	return add_item(m, tsc, IT_EVENT, &ev);
}

static uint64_t cb_stream_offset(void *ctx, uint32_t tid, uint64_t aux_offset)
{
	struct imp *m = ctx;
	struct ithread *t = thread_of(m, tid, false);

	return t ? import_segment_map(t->segs, t->nsegs, aux_offset) : 0;
}

static uint64_t cb_stream_end(void *ctx, uint32_t tid)
{
	struct imp *m = ctx;
	struct ithread *t = thread_of(m, tid, false);

	return t ? t->trace.len : 0;
}

static const struct perf_sideband_ops sideband_ops = {
	.event = cb_event,
	.thread_start = cb_thread_start,
	.thread_exit = cb_thread_exit,
	.stream_offset = cb_stream_offset,
	.stream_end = cb_stream_end,
	.build_id = feature_build_id,
};

static int cmp_rec(const void *a, const void *b)
{
	const struct kept_rec *x = a, *y = b;
	uint64_t tx = x->rec.sample.time, ty = y->rec.sample.time;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x->file_offset < y->file_offset ? -1 : 1;
}

int import_cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---------------------------------------------------- per-thread trace */

/* perf record pads each AUXTRACE payload with zeros to 8 bytes and starts
 * the next one at the unpadded end: an overlap of under 8 bytes over zeros
 * is that padding, not data seen twice.  The padding is dropped (the
 * stream is then the trace the hardware wrote, byte for byte) and the next
 * payload taken whole. */
static bool padding_overlap(const struct abuf *prev, uint64_t expect,
			    const struct abuf *b)
{
	uint64_t n = expect - b->offset, k;

	if (prev->offset + prev->size != expect || n >= 8 || n > prev->size)
		return false;
	for (k = prev->size - n; k < prev->size; k++)
		if (prev->data[k])
			return false;
	return true;
}

static int cmp_abuf(const void *a, const void *b)
{
	const struct abuf *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->file_offset < y->file_offset ? -1 : 1;
}

static int loss_item(struct imp *m, uint32_t tid, uint64_t tsc, uint64_t offset,
		     uint64_t len, const char *reason)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_loss, .tsc = tsc, .tid = tid, .offset = offset,
		.len = len, .reason = reason,
	};

	return add_item(m, tsc, IT_EVENT, &ev);
}

/* Told of trace perf did not save, at OFFSET of the stream being laid. */

/* Lay Q's AUXTRACE payloads end to end in offset order into OUT, with the
 * map from AUX offsets to OUT's in SEGS.  A jump forward in offsets is
 * trace perf did not save (LOST is told); an overlap (snapshots of a ring
 * that had not moved on) is cut. */
int import_assemble_queue(struct imp *m, struct aqueue *q, struct pt_out *out,
			  struct segment **segs, size_t *nsegs, lost_fn lost,
			  void *ctx)
{
	uint64_t expect = 0;
	size_t i;
	int err = 0;

	if (q->n)
		qsort(q->bufs, q->n, sizeof(*q->bufs), cmp_abuf);
	for (i = 0; i < q->n && !err; i++) {
		const struct abuf *b = &q->bufs[i];
		uint64_t skip = 0;
		struct segment *s;

		import_progress(m, b->size);
		if (i && b->offset < expect &&
		    padding_overlap(&q->bufs[i - 1], expect, b) &&
		    out->len >= expect - b->offset && *nsegs) {
			out->len -= expect - b->offset;
			(*segs)[*nsegs - 1].aux_end = b->offset;
		} else if (i && b->offset < expect) {
			/* Overlap: a snapshot of data we have. */
			skip = expect - b->offset;
			if (skip >= b->size)
				continue;
		} else if ((i && b->offset > expect) || (!i && out->len)) {
			err = lost(m, ctx, b->reference, out->len,
				   i ? b->offset - expect : 0,
				   m->snapshot
				   ? "trace between two snapshots is not in perf.data"
				   : "perf.data lacks this part of the AUX area "
				     "(AUXTRACE offsets jump)");
			if (err)
				break;
		}
		s = realloc(*segs, (*nsegs + 1) * sizeof(*s));
		if (!s)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		*segs = s;
		s[(*nsegs)++] = (struct segment){ b->offset + skip,
						  b->offset + b->size, out->len };
		err = pt_out_bytes(out, b->data + skip, b->size - skip);
		expect = b->offset + b->size;
	}
	return err;
}

/* The stream offset of AUX_OFFSET through SEGS (in AUX order: a binary
 * search, as every AUX record asks). */
uint64_t import_segment_map(const struct segment *segs, size_t n,
			    uint64_t aux_offset)
{
	size_t lo = 0, hi = n;
	uint64_t in, len;

	while (lo < hi) {	/* the first segment that begins after it */
		size_t mid = lo + (hi - lo) / 2;

		if (segs[mid].aux_begin <= aux_offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	in = aux_offset - segs[lo - 1].aux_begin;
	len = segs[lo - 1].aux_end - segs[lo - 1].aux_begin;
	return segs[lo - 1].stream_begin + (in < len ? in : len);
}

static int thread_lost(struct imp *m, void *ctx, uint64_t tsc, uint64_t offset,
		       uint64_t len, const char *reason)
{
	return loss_item(m, ((struct ithread *)ctx)->tid, tsc, offset, len,
			 reason);
}

static int per_thread_trace(struct imp *m)
{
	size_t qi;
	int err = 0;

	for (qi = 0; qi < m->nqueues && !err; qi++) {
		struct aqueue *q = &m->queues[qi];
		struct ithread *t;

		if (q->tid == NO_TID)
			continue;
		t = thread_of(m, q->tid, true);
		if (!t)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		err = import_assemble_queue(m, q, &t->trace, &t->segs, &t->nsegs,
				     thread_lost, t);
	}
	return err;
}

/* ------------------------------------------------------- per-CPU trace */

static int cmp_timeline(const void *a, const void *b)
{
	const struct timeline_entry *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int timeline_add(struct imp *m, uint32_t cpu, uint64_t tsc, uint32_t tid)
{
	int err = hwtr_array_grow((void **)&m->timeline, &m->cap_timeline,
				  m->ntimeline, sizeof(*m->timeline));

	if (err)
		return err;
	m->timeline[m->ntimeline] = (struct timeline_entry){
		cpu, tsc, m->ntimeline, tid };
	m->ntimeline++;
	return 0;
}

/* The thread on CPU at TSC: the latest switch in at or before it. */
static uint32_t running_at(const struct imp *m, uint32_t cpu, uint64_t tsc)
{
	size_t lo = 0, hi = m->ntimeline;
	uint32_t tid = NO_TID;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct timeline_entry *e = &m->timeline[mid];

		if (e->cpu < cpu || (e->cpu == cpu && e->tsc <= tsc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && m->timeline[lo - 1].cpu == cpu)
		tid = m->timeline[lo - 1].tid;
	return tid;
}

struct splitter {
	struct imp *m;
	uint32_t cpu, queue_tid;
	struct pt_out cur;
	bool cur_has_tsc, cur_psb, after_break;
	uint64_t cur_tsc, last_tsc;
	bool has_last_tsc;
	int err;
};

static int piece_end(struct splitter *s)
{
	struct imp *m = s->m;
	uint64_t tsc = s->cur_has_tsc ? s->cur_tsc : s->last_tsc;
	uint32_t tid;
	struct piece *p;
	struct pt_out out;
	int err;

	if (!s->cur.len)
		return 0;
	tid = running_at(m, s->cpu, tsc);
	if (tid == NO_TID)
		tid = s->queue_tid;
	if (tid == NO_TID || !thread_of(m, tid, false)) {
		m->unattributed += s->cur.len;
		s->cur.len = 0;
		s->after_break = true;
		return 0;
	}
	/* A PSB+ in front, so that the piece decodes on its own. */
	pt_out_init(&out);
	if (!s->cur_psb) {
		struct pt_packet pk;

		memset(&pk, 0, sizeof(pk));
		pk.type = ppt_psb;
		if ((err = pt_out_packet(&out, &pk)))
			goto fail;
		if (s->cur_has_tsc || s->has_last_tsc) {
			memset(&pk, 0, sizeof(pk));
			pk.type = ppt_tsc;
			pk.payload.tsc.tsc = tsc;
			if ((err = pt_out_packet(&out, &pk)))
				goto fail;
		}
		memset(&pk, 0, sizeof(pk));
		pk.type = ppt_psbend;
		if ((err = pt_out_packet(&out, &pk)))
			goto fail;
	}
	if ((err = pt_out_bytes(&out, s->cur.buf, s->cur.len)) ||
	    (err = hwtr_array_grow((void **)&m->pieces, &m->cap_pieces,
				   m->npieces, sizeof(*m->pieces))))
		goto fail;
	p = &m->pieces[m->npieces];
	p->tid = tid;
	p->cpu = s->cpu;
	p->tsc = tsc;
	p->seq = m->npieces++;
	p->bytes = out.buf;
	p->len = out.len;
	p->after_break = s->after_break;
	out.buf = NULL;
	pt_out_release(&out);
	s->cur.len = 0;
	s->cur_has_tsc = false;
	s->cur_psb = false;
	s->after_break = false;
	return 0;
fail:
	pt_out_release(&out);
	return err;
}

static int split_packet(void *ctx, const struct pt_pkt_view *v)
{
	struct splitter *s = ctx;
	int err;

	if (v->garbage) {
		/* Not packets (a snapshot starting mid-packet): lost. */
		s->m->undecodable += v->size;
		if ((err = piece_end(s)))
			return err;
		s->after_break = true;
		return 0;
	}
	if (!s->cur.len && v->packet.type == ppt_psb)
		s->cur_psb = true;
	if (v->packet.type == ppt_tsc) {
		if (!s->cur_has_tsc) {
			s->cur_has_tsc = true;
			s->cur_tsc = v->packet.payload.tsc.tsc;
		}
		s->last_tsc = v->packet.payload.tsc.tsc;
		s->has_last_tsc = true;
	}
	if ((err = pt_out_view(&s->cur, v, true)))
		return err;
	return v->packet.type == ppt_tip_pgd ? piece_end(s) : 0;
}

/* Split a run of a CPU's trace that has no hole. */
static int split_run(struct splitter *s, const uint8_t *bytes, size_t size)
{
	int err = pt_packets_walk(bytes, size, split_packet, s);

	if (!err)
		err = piece_end(s);
	s->after_break = true;	/* whatever follows is not contiguous */
	return err;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* AUX data lost on CPU at AUX offset OFF (TRUNCATED and friends). */
static bool truncated_at(const struct imp *m, uint32_t cpu, uint64_t begin,
			 uint64_t end, uint64_t *off)
{
	size_t i;

	for (i = 0; i < m->nrecs; i++) {
		const struct perf_rec *r = &m->recs[i].rec;
		uint64_t at = r->u.aux.aux_offset + r->u.aux.aux_size;

		if (r->type == PERF_RECORD_AUX && r->sample.has_cpu &&
		    r->sample.cpu == cpu &&
		    perf_aux_loss_reason(r->u.aux.flags) &&
		    at > begin && at < end) {
			*off = at;
			return true;
		}
	}
	return false;
}

static int per_cpu_trace(struct imp *m)
{
	size_t qi, i;
	int err = 0;

	if (m->ntimeline)
		qsort(m->timeline, m->ntimeline, sizeof(*m->timeline), cmp_timeline);
	for (qi = 0; qi < m->nqueues && !err; qi++) {
		struct aqueue *q = &m->queues[qi];
		struct splitter s = { .m = m, .cpu = q->cpu,
				      .queue_tid = q->tid };
		struct pt_out run;	/* AUXTRACE payloads joined up to a hole:
					 * a packet may span two of them */
		uint64_t expect = 0;

		pt_out_init(&s.cur);
		pt_out_init(&run);
		if (q->n)
			qsort(q->bufs, q->n, sizeof(*q->bufs), cmp_abuf);
		for (i = 0; i < q->n && !err; i++) {
			const struct abuf *b = &q->bufs[i];
			uint64_t skip = 0, begin, cut;

			import_progress(m, b->size);
			if (i && b->offset < expect &&
			    padding_overlap(&q->bufs[i - 1], expect, b) &&
			    run.len >= expect - b->offset) {
				run.len -= expect - b->offset;
			} else if (i && b->offset < expect) {
				skip = expect - b->offset;
				if (skip >= b->size)
					continue;
			}
			if (i && b->offset > expect) {
				err = split_run(&s, run.buf, run.len);
				run.len = 0;
			}
			begin = b->offset + skip;
			/* Runs without holes: cut at truncations. */
			while (!err && truncated_at(m, q->cpu, begin,
						    b->offset + b->size, &cut)) {
				if (!(err = pt_out_bytes(&run, b->data + (begin - b->offset),
							 cut - begin)))
					err = split_run(&s, run.buf, run.len);
				run.len = 0;
				begin = cut;
			}
			if (!err)
				err = pt_out_bytes(&run, b->data + (begin - b->offset),
						   b->offset + b->size - begin);
			expect = b->offset + b->size;
		}
		if (!err && run.len)
			err = split_run(&s, run.buf, run.len);
		pt_out_release(&run);
		pt_out_release(&s.cur);
	}
	if (err)
		return err;
	/* Each thread's pieces in time order, from all CPUs. */
	if (m->npieces)
		qsort(m->pieces, m->npieces, sizeof(*m->pieces), cmp_piece);
	for (i = 0; i < m->npieces && !err; i++) {
		struct piece *p = &m->pieces[i];
		struct ithread *t = thread_of(m, p->tid, false);

		if (p->after_break && t->trace.len)
			err = loss_item(m, p->tid, p->tsc, t->trace.len, 0,
					"trace lost on a CPU before this (perf's "
					"AUX buffer full, or a snapshot boundary)");
		if (!err)
			err = pt_out_bytes(&t->trace, p->bytes, p->len);
	}
	if (m->unattributed)
		import_warn(m, "%llu bytes of CPU trace ran before any thread of "
		     "process %u was known on their CPU; not imported",
		     (unsigned long long)m->unattributed, m->pid);
	return err;
}

/* ----------------------------------------------------------- process */

/* The process: the first traced thread's (ITRACE_START, or the first
 * per-thread queue's thread). */
static int find_process(struct imp *m)
{
	size_t i;
	uint32_t tid = NO_TID;

	for (i = 0; i < m->nrecs; i++)
		if (m->recs[i].rec.type == PERF_RECORD_ITRACE_START) {
			m->pid = m->recs[i].rec.u.itrace_start.pid;
			return 0;
		}
	for (i = 0; i < m->nqueues; i++)
		if (m->queues[i].tid != NO_TID) {
			tid = m->queues[i].tid;
			break;
		}
	if (tid == NO_TID)
		return hwtr_fail(hwtr_err_format, "%s: no ITRACE_START record and "
				 "no per-thread trace: cannot tell which process "
				 "was traced", m->path);
	m->pid = tid;
	for (i = 0; i < m->nrecs; i++) {
		const struct perf_rec *r = &m->recs[i].rec;

		if (r->sample.has_tid && r->sample.tid == tid) {
			m->pid = r->sample.pid;
			break;
		}
	}
	return 0;
}

/* The process of thread TID, as the records say (ours if none does). */
static uint32_t process_of(const struct imp *m, uint32_t tid)
{
	size_t i;

	for (i = 0; i < m->nrecs; i++) {
		const struct perf_rec *r = &m->recs[i].rec;

		if (r->sample.has_tid && r->sample.tid == tid)
			return r->sample.pid;
		if (r->type == PERF_RECORD_ITRACE_START &&
		    r->u.itrace_start.tid == tid)
			return r->u.itrace_start.pid;
	}
	return m->pid;
}

/* Threads: per-thread queues, ITRACE_START and switches of the process. */
static int find_threads(struct imp *m)
{
	size_t i;
	int err;

	for (i = 0; i < m->nqueues; i++) {
		uint32_t tid = m->queues[i].tid, pid;

		if (tid == NO_TID || m->per_cpu)
			continue;
		pid = process_of(m, tid);	/* a scan of the records */
		if (pid != m->pid) {
			/* A child perf followed: another process. */
			import_warn(m, "the trace of thread %u (process %u) is not "
			     "imported: a recording holds one process (%u)", tid,
			     pid, m->pid);
			m->queues[i].tid = NO_TID;
			continue;
		}
		if (!thread_of(m, tid, true))
			return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < m->nrecs; i++) {
		const struct perf_rec *r = &m->recs[i].rec;
		uint32_t cpu = r->sample.has_cpu ? r->sample.cpu : 0;
		uint64_t tsc = m->have_time && r->sample.time
				       ? perf_time_to_tsc(&m->tc, r->sample.time)
				       : 0;

		if (r->type == PERF_RECORD_ITRACE_START &&
		    r->u.itrace_start.pid == m->pid) {
			if (!thread_of(m, r->u.itrace_start.tid, true))
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			if (m->per_cpu &&
			    (err = timeline_add(m, cpu, tsc, r->u.itrace_start.tid)))
				return err;
		} else if (r->type == PERF_RECORD_SWITCH_CPU_WIDE && m->per_cpu) {
			/* Switch in: this thread now; switch out: nobody we
			 * know until the next switch in. */
			bool ours = r->sample.pid == m->pid;
			uint32_t tid = ours && !r->u.sw.out ? r->sample.tid : NO_TID;

			if (tid != NO_TID && !thread_of(m, tid, true))
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			if (ours && (err = timeline_add(m, cpu, tsc, tid)))
				return err;
		} else if (r->type == PERF_RECORD_SWITCH && m->per_cpu &&
			   r->sample.pid == m->pid) {
			if ((err = timeline_add(m, cpu, tsc, r->u.sw.out ? NO_TID
							     : r->sample.tid)))
				return err;
		}
	}
	return 0;
}

static const char *executable_of(struct imp *m)
{
	size_t i;

	for (i = 0; i < m->nrecs; i++) {
		const struct perf_rec *r = &m->recs[i].rec;
		const struct perf_rec_mmap *mm = &r->u.mmap;

		if ((r->type == PERF_RECORD_MMAP2 &&
		     (mm->prot & 4 /* PROT_EXEC */)) ||
		    (r->type == PERF_RECORD_MMAP &&
		     !(r->misc & PERF_RECORD_MISC_MMAP_DATA)))
			if (mm->pid == m->pid && mm->filename &&
			    mm->filename[0] == '/')
				return mm->filename;
	}
	return NULL;
}

static const char *comm_of(struct imp *m)
{
	size_t i;

	for (i = 0; i < m->nrecs; i++)
		if (m->recs[i].rec.type == PERF_RECORD_COMM &&
		    m->recs[i].rec.u.comm.pid == m->pid &&
		    (m->recs[i].rec.misc & PERF_RECORD_MISC_COMM_EXEC))
			return m->recs[i].rec.u.comm.comm;
	for (i = 0; i < m->nrecs; i++)
		if (m->recs[i].rec.type == PERF_RECORD_COMM &&
		    m->recs[i].rec.u.comm.pid == m->pid)
			return m->recs[i].rec.u.comm.comm;
	return "unknown";
}

/* The traced program's arguments: perf's command line after "--". */
static size_t program_args(struct imp *m, char **argv, size_t max,
			   char *buf, size_t bufsize)
{
	size_t n, pos = 4, k = 0, used = 0;
	const uint8_t *p = perf_data_feature(m->pd, PERF_FEAT_CMDLINE, &n);
	uint32_t nr, i;
	bool after = false;

	if (!p || n < 4)
		return 0;
	memcpy(&nr, p, 4);
	for (i = 0; i < nr && pos + 4 <= n; i++) {
		uint32_t len;
		size_t sl;

		memcpy(&len, p + pos, 4);
		pos += 4;
		if (len > n - pos)
			break;
		sl = strnlen((const char *)p + pos, len);
		if (after && k < max && used + sl + 1 <= bufsize) {
			memcpy(buf + used, p + pos, sl);
			buf[used + sl] = 0;
			argv[k++] = buf + used;
			used += sl + 1;
		}
		if (sl == 2 && !memcmp(p + pos, "--", 2))
			after = true;
		pos += len;
	}
	return k;
}

int import_create_writer(struct imp *m, const char *out_dir)
{
	struct hwtr_writer_info wi = { .source = "perf-import" };
	char cpuid[128], argbuf[4096];
	char *argv[64];
	const char *cpu = perf_data_feature_string(m->pd, PERF_FEAT_CPUID, cpuid,
						   sizeof(cpuid));
	size_t argc;

	m->aux->writer_format(m, cpu, &wi);
	wi.pid = (int32_t)m->pid;
	wi.executable = executable_of(m);
	argc = program_args(m, argv, 64, argbuf, sizeof(argbuf));
	if (!argc) {
		argv[0] = (char *)comm_of(m);
		argc = 1;
	}
	wi.argc = argc;
	wi.argv = (const char *const *)argv;
	if (!wi.executable)
		wi.executable = argv[0];
	return hwtr_writer_create(out_dir, &wi, &m->w);
}

/* ---------------------------------------------------------------- main */

const char *const *import_default_debug_dirs(void)
{
	static char cache[PATH_MAX];
	static const char *dirs[3];
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	size_t n = 0;

	if (env && env[0])
		snprintf(cache, sizeof(cache), "%s", env);
	else if (home)
		snprintf(cache, sizeof(cache), "%s/.debug", home);
	if (cache[0])
		dirs[n++] = cache;
	dirs[n++] = "/usr/lib/debug";
	dirs[n] = NULL;
	return dirs;
}

static int check_file(struct imp *m)
{
	size_t i;

	uint32_t pmu_type;

	if (!m->have_info)
		return hwtr_fail(hwtr_err_format, "%s: no AUXTRACE_INFO record: "
				 "this perf.data holds no hardware trace (record "
				 "with perf record -e intel_pt//u or -e cs_etm//u)",
				 m->path);
	pmu_type = m->aux->pmu_type(m);
	for (i = 0; i < perf_data_nattrs(m->pd); i++)
		if (perf_data_attr(m->pd, i)->attr.type == pmu_type)
			m->pt_attr = perf_data_attr(m->pd, i);
	if (!m->pt_attr)
		return hwtr_fail(hwtr_err_format, "%s: AUXTRACE_INFO names PMU "
				 "type %u, but no event of the file has that type",
				 m->path, pmu_type);
	if (!m->nqueues)
		return hwtr_fail(hwtr_err_format, "%s: no AUXTRACE record: the "
				 "file holds no trace", m->path);
	return m->aux->check(m);
}

static int pt_check(struct imp *m)
{
	size_t i;

	m->snapshot = m->pti.snapshot_mode;
	if (!m->have_tc) {
		m->tc = m->pti.tc;
		m->have_tc = m->pti.tc.cap_user_time_zero;
	}
	m->have_time = (m->pt_attr->attr.sample_type & PERF_SAMPLE_TIME) &&
		       m->have_tc && m->tc.time_mult;
	m->per_cpu = m->pti.per_cpu_mmaps;
	for (i = 0; i < m->nqueues; i++)
		if (m->queues[i].tid == NO_TID)
			m->per_cpu = true;
	if (m->per_cpu && !m->have_time)
		return hwtr_fail(hwtr_err_format, "%s: per-CPU trace without "
				 "timestamps: the trace cannot be split between "
				 "threads (record with --per-thread, or with tsc)",
				 m->path);
	return 0;
}

/* The trace is written this much at a time. */
#define WRITE_PIECE ((size_t)1 << 22)

static int write_recording(struct imp *m)
{
	uint64_t total = 0;
	size_t i;
	int err = 0;

	size_t first = m->nitems;

	/* Threads that were there before perf started come first, the
	 * process's main thread before the others. */
	for (i = 0; i < m->nthreads && !err; i++)
		if (!m->threads[i].started && m->threads[i].tid == m->pid)
			err = cb_thread_start(m, m->threads[i].tid, 0);
	for (i = 0; i < m->nthreads && !err; i++)
		if (!m->threads[i].started)
			err = cb_thread_start(m, m->threads[i].tid, 0);
	if (err)
		return err;
	for (i = first; i < m->nitems; i++)
		m->items[i].seq = i - first;
	for (i = 0; i < first; i++)
		m->items[i].seq += m->nitems;
	if (m->nitems)
		qsort(m->items, m->nitems, sizeof(*m->items), import_cmp_item);
	for (i = 0; i < m->nitems; i++) {
		const struct item *it = &m->items[i];

		err = it->kind == IT_THREAD_START
			      ? hwtr_writer_add_thread(m->w, it->ev.tid, it->tsc)
			      : hwtr_writer_event(m->w, &it->ev);
		if (err)
			return err;
	}
	for (i = 0; i < m->nthreads; i++)
		total += m->threads[i].trace.len;
	import_progress_phase(m, "writing the recording", total);
	for (i = 0; i < m->nthreads; i++) {
		struct ithread *t = &m->threads[i];
		size_t at, n;

		/* In pieces, for the progress line. */
		for (at = 0; at < t->trace.len; at += n) {
			n = t->trace.len - at < WRITE_PIECE ? t->trace.len - at
							    : WRITE_PIECE;
			if ((err = hwtr_writer_trace(m->w, t->tid,
						     t->trace.buf + at, n)))
				return err;
			import_progress(m, n);
		}
	}
	if ((err = hwtr_writer_finish(m->w, &(struct hwtr_end){
			.state = hwtr_end_running })))
		return err;
	return 0;
}

/* ---------------------------------------------------- the AUX formats */

static int pt_parse_info(struct imp *m, const uint64_t *priv, size_t n)
{
	intel_pt_info_release(&m->pti);
	return intel_pt_info_parse(priv, n, &m->pti);
}

static uint32_t pt_pmu_type(const struct imp *m)
{
	return m->pti.pmu_type;
}

static int pt_trace(struct imp *m, const char *out_dir)
{
	int err;

	if ((err = find_threads(m)) || (err = import_create_writer(m, out_dir)))
		return err;
	return m->per_cpu ? per_cpu_trace(m) : per_thread_trace(m);
}

static void pt_writer_format(struct imp *m, const char *cpuid,
			     struct hwtr_writer_info *wi)
{
	intel_pt_info_to_config(&m->pti, m->pt_attr->attr.config, cpuid,
				&wi->pt);
}

static int pt_write(struct imp *m, const char *out_dir)
{
	return write_recording(m);
}

/* Intel PT: the trace is split between the process's threads. */
static const struct aux_import_ops intel_pt_import = {
	.auxtrace_type = PERF_AUXTRACE_INTEL_PT,
	.parse_info = pt_parse_info,
	.pmu_type = pt_pmu_type,
	.check = pt_check,
	.trace = pt_trace,
	.writer_format = pt_writer_format,
	.write = pt_write,
};


static const struct aux_import_ops *const aux_imports[] = {
	&intel_pt_import, &perf_import_cs_etm,
};

/* The format of an AUXTRACE_INFO of type AUXTRACE_TYPE, or NULL. */
static const struct aux_import_ops *aux_import_for(uint32_t auxtrace_type)
{
	size_t i;

	for (i = 0; i < sizeof(aux_imports) / sizeof(aux_imports[0]); i++)
		if (aux_imports[i]->auxtrace_type == auxtrace_type)
			return aux_imports[i];
	return NULL;
}

static void release(struct imp *m)
{
	size_t i;

	intel_pt_info_release(&m->pti);
	for (i = 0; i < m->nqueues; i++)
		free(m->queues[i].bufs);
	free(m->queues);
	free(m->recs);
	for (i = 0; i < m->nitems; i++) {
		free(m->items[i].path);
		free(m->items[i].build_id);
		free(m->items[i].saved);
		free(m->items[i].reason);
	}
	free(m->items);
	for (i = 0; i < m->nthreads; i++) {
		pt_out_release(&m->threads[i].trace);
		free(m->threads[i].segs);
	}
	free(m->threads);
	for (i = 0; i < m->nbins; i++) {
		free(m->bins[i].path);
		free(m->bins[i].build_id);
		free(m->bins[i].saved);
	}
	free(m->bins);
	for (i = 0; i < m->nestreams; i++) {
		pt_out_release(&m->estreams[i].bytes);
		free(m->estreams[i].segs);
		free(m->estreams[i].losses);
	}
	free(m->estreams);
	for (i = 0; i < m->nesources; i++)
		etm_context_ids_release(&m->esources[i].contexts, 1);
	free(m->esources);
	cs_etm_info_release(&m->csi);
	free(m->timeline);
	for (i = 0; i < m->npieces; i++)
		free(m->pieces[i].bytes);
	free(m->pieces);
	hwtr_writer_free(m->w);
	perf_data_close(m->pd);
}

int import_perf(const char *perf_path, const char *out_dir,
		const struct import_options *opt)
{
	struct imp m = { .opt = opt, .path = perf_path };
	size_t i;
	int err;

	if ((err = perf_data_open(perf_path, opt->warn, &m.pd)))
		return err;
	if ((err = read_records(&m)) || (err = check_file(&m)))
		goto out;
	report_skipped(&m);
	if ((err = find_process(&m)))
		goto out;
	import_progress_phase(&m, "reading the trace", aux_bytes(&m));
	/* Trace first: losses in the sideband need the stream offsets. */
	if ((err = m.aux->trace(&m, out_dir)))
		goto out;
	if (m.nrecs)
		qsort(m.recs, m.nrecs, sizeof(*m.recs), cmp_rec);
	perf_sideband_init(&m.sb, m.pid, m.have_time, &m.tc, &sideband_ops, &m);
	for (i = 0; i < m.nrecs && !err; i++) {
		const struct perf_rec *r = &m.recs[i].rec;

		/* Per-CPU and CoreSight truncations are placed already. */
		if ((m.per_cpu || m.aux->places_aux_records) &&
		    r->type == PERF_RECORD_AUX)
			continue;
		/* Only the trace event's AUX records speak of our trace. */
		err = perf_sideband_apply(&m.sb, r);
	}
	if (err)
		goto out;
	if (m.undecodable)
		import_warn(&m, "%llu bytes of trace were not packets (a snapshot "
		     "starting inside a packet, or damage) and were skipped",
		     (unsigned long long)m.undecodable);
	if (m.sb.lost_records)
		import_warn(&m, "perf lost %llu sideband records: mappings may be "
		     "missing", (unsigned long long)m.sb.lost_records);
	err = m.aux->write(&m, out_dir);
out:
	progress_finish(&m.progress);
	release(&m);
	return err;
}
