/* export-perf.c: a recording as perf.data (export-perf.h).
 *
 * The file is what `perf record -e intel_pt//u` writes, so that perf's own
 * Intel PT decoder reads it (`perf script --itrace=...`): two events, the
 * intel_pt event and the dummy:u tracking event that carries the sideband
 * (MMAP2, COMM, FORK, EXIT, SWITCH_CPU_WIDE); AUXTRACE_INFO with Intel PT's
 * private words; TIME_CONV; AUXTRACE records with the trace; and the feature
 * sections perf reads (CPUID for errata, EVENT_DESC for names, BUILD_ID).
 *
 * Layouts:
 *   - per-thread: one AUX queue per thread, the thread's stream as it is
 *     (split at losses, which become AUX records with TRUNCATED).
 *   - per-CPU: the threads' time slices (each from its TIP.PGE to its
 *     TIP.PGD) are laid onto NCPUS CPU streams in time order, with
 *     ITRACE_START and SWITCH_CPU_WIDE records at the slices' TSC, as the
 *     kernel writes them.  A slice's IP packets are re-encoded in full so
 *     that they do not depend on another thread's last IP; each CPU stream
 *     starts with a PSB+.  Needs timestamps.
 *   - snapshot: per-thread, AUX records with OVERWRITE, SNAPSHOT_MODE set.
 *   - without TSC: TSC packets are taken out of the trace (a trace recorded
 *     without tsc=1 has none), no TIME in samples: perf decodes timeless.
 *
 * CoreSight ETM recordings are written as perf record -e cs_etm//u
 * --per-thread writes them (export-perf-cs-etm.c).  Each format is a struct
 * aux_export_ops (export-perf-format.h); the rest never asks which it has.
 *
 * Mappings: perf has no munmap record; a mapping ends when another
 * replaces it.  Saved objects (the vDSO) are named by their absolute path
 * inside the recording, so perf reads them as files.  Not exported yet:
 * loss events of per-CPU exports, core files, non-executable mappings.
 */
#define _GNU_SOURCE
#include "export-perf.h"
#include "export-perf-format.h"
#include "hwtrecord.h"

#include "perf-cs-etm.h"
#include "perf-data.h"
#include "perf-intel-pt.h"
#include "pt-packets.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int export_add_pending(struct export *x, uint64_t tsc, int which,
		       unsigned index, const struct perf_rec *r)
{
	struct pending *p;

	if (x->npend == x->cap_pend) {
		size_t cap = x->cap_pend ? 2 * x->cap_pend : 256;
		void *v = realloc(x->pend, cap * sizeof(*x->pend));

		if (!v)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		x->pend = v;
		x->cap_pend = cap;
	}
	p = &x->pend[x->npend];
	p->tsc = tsc;
	p->seq = x->npend++;
	p->which = which;
	p->index = index;
	p->rec = *r;
	return 0;
}

static const char *keep(struct export *x, char *s)
{
	char **v;

	if (!s)
		return NULL;
	v = realloc(x->owned, (x->nowned + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return NULL;
	}
	x->owned = v;
	x->owned[x->nowned++] = s;
	return s;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static unsigned thread_index(const struct export *x, uint32_t tid)
{
	size_t i;

	for (i = 0; i < x->info->nthreads; i++)
		if (x->info->threads[i].tid == tid)
			return (unsigned)i;
	return 0;
}

/* Cuts Q's bytes up to END into AUXTRACE records from C->pos: at the loss
 * offsets (truncated) and otherwise as given. */
struct chunker {
	const struct queue *q;
	int (*fn)(void *ctx, uint64_t off, uint64_t size, bool truncated);
	void *ctx;
	uint64_t pos;
	size_t li;
};

static int chunk_to(struct chunker *c, uint64_t end)
{
	int err = 0;

	while (c->pos < end && !err) {
		uint64_t stop = end;
		bool truncated = false;

		while (c->li < c->q->ncuts && c->q->cuts[c->li] <= c->pos)
			c->li++;
		if (c->li < c->q->ncuts && c->q->cuts[c->li] < stop) {
			stop = c->q->cuts[c->li];
			truncated = true;
		}
		err = c->fn(c->ctx, c->pos, stop - c->pos, truncated);
		c->pos = stop;
	}
	return err;
}

/* A record ends before the packet that would take it past AUXTRACE_CHUNK:
 * perf's decoder (64-bit) does not join a packet split across two AUXTRACE
 * records; it reports "Bad packet" there and loses the trace up to the
 * next PSB. */
static int chunk_packet(void *ctx, const struct pt_pkt_view *v)
{
	struct chunker *c = ctx;

	if (v->offset > c->pos && v->offset + v->size - c->pos > AUXTRACE_CHUNK)
		return chunk_to(c, v->offset);
	return 0;
}

/* Calls FN for each AUXTRACE record of Q: offset, size, truncated. */
int export_queue_chunks(const struct queue *q,
			int (*fn)(void *ctx, uint64_t off, uint64_t size,
				  bool truncated), void *ctx)
{
	struct chunker c = { q, fn, ctx, 0, 0 };
	int err = 0;

	if (q->whole_packets) {
		err = pt_packets_walk(q->bytes, q->size, chunk_packet, &c);
	} else {
		while (q->size - c.pos > AUXTRACE_CHUNK && !err)
			err = chunk_to(&c, c.pos + AUXTRACE_CHUNK);
	}
	return err ? err : chunk_to(&c, q->size);
}

struct chunk_ctx {
	struct export *x;
	unsigned index;
};

static int write_chunk(void *ctx, uint64_t off, uint64_t size, bool truncated)
{
	struct chunk_ctx *c = ctx;
	const struct queue *q = &c->x->queues[c->index];

	return perf_data_write_auxtrace(c->x->w, c->index, q->tid, q->cpu, off,
					q->reference, q->bytes + off, size);
}

/* Records in time order; a queue's trace goes in after a FINISHED_ROUND at
 * its place, as perf record writes it: perf sets a queue up (and looks up
 * its thread) when its first AUXTRACE arrives, so the thread's COMM or FORK
 * must have been delivered by then. */
static int max_tsc(void *ctx, const struct pt_pkt_view *v)
{
	uint64_t *max = ctx;

	if (!v->garbage && v->packet.type == ppt_tsc &&
	    v->packet.payload.tsc.tsc > *max)
		*max = v->packet.payload.tsc.tsc;
	return 0;
}

int export_write_pending(struct export *x)
{
	size_t i;
	int err;

	if (x->npend)
		qsort(x->pend, x->npend, sizeof(*x->pend), cmp_pending);
	for (i = 0; i < x->npend; i++) {
		struct pending *p = &x->pend[i];

		if (p->which == 2) {
			struct chunk_ctx cc = { x, p->index };
			struct queue *q = &x->queues[p->index];

			if (x->opt->tsc)
				pt_packets_walk(q->bytes, q->size, max_tsc,
						&q->reference);

			if ((err = perf_data_write_finished_round(x->w)) ||
			    (err = export_queue_chunks(&x->queues[p->index], write_chunk,
						&cc)))
				return err;
			continue;
		}
		p->rec.sample.time = x->opt->tsc ? perf_tsc_to_time(&x->tc, p->tsc)
						 : 0;
		p->rec.sample.id = (p->which ? ID_DUMMY : ID_PT) + p->index;
		if (x->opt->layout == EXPORT_PER_THREAD &&
		    !x->aux->threads_are_trace_units)
			p->rec.sample.cpu = 0;
		if ((err = perf_data_write_rec(x->w, &p->rec, &x->layout)))
			return hwtr_fail_context(err, "perf.data: ");
	}
	return 0;
}

/* --------------------------------------------------------- sideband */

static int hex_to_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (hex && hex[0] && hex[1] && n < max) {
		unsigned v;

		if (sscanf(hex, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return (int)n;
}

static const char *comm_of(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	return base ? base + 1 : path ? path : "unknown";
}

int export_sideband_records(struct export *x)
{
	const struct hwtr_recording *rec = x->rec;
	size_t n = hwtr_recording_nevents(rec), i;
	uint32_t pid = x->pid;
	char comm[16];
	struct perf_rec r;
	bool started = false;
	int err;

	/* The process's name before anything happens (perf synthesizes it
	 * for an existing process; the kernel writes it at exec). */
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_COMM;
	r.misc = PERF_RECORD_MISC_USER;
	snprintf(comm, sizeof(comm), "%s", comm_of(x->info->executable));
	r.u.comm.pid = pid;
	r.u.comm.tid = pid;
	r.u.comm.comm = keep(x, strdup(comm));
	r.sample.pid = pid;
	r.sample.tid = pid;
	if ((err = export_add_pending(x, 0, 1, 0, &r)))
		return err;
	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		unsigned tix = thread_index(x, ev->tid ? ev->tid : pid);
		/* What the process had before its first thread started is its
		 * initial state, which perf synthesizes at time 0 (the trace may
		 * start before the recorder stamped those mappings). */
		uint64_t tsc = started ? ev->tsc : 0;

		if (ev->kind == hwtr_ev_thread_start)
			started = true;
		if (x->aux->threads_are_trace_units && (ev->kind == hwtr_ev_thread_start ||
			       ev->kind == hwtr_ev_thread_exit))
			continue;
		memset(&r, 0, sizeof(r));
		r.sample.pid = pid;
		r.sample.tid = ev->tid ? ev->tid : pid;
		switch (ev->kind) {
		case hwtr_ev_mmap: {
			const char *name = ev->path;

			if (!(ev->prot & HWTR_PROT_EXEC))
				continue;
			if (ev->saved) {
				char *full = NULL;

				if (asprintf(&full, "%s/%s", hwtr_recording_path(rec),
					     ev->saved) < 0)
					return hwtr_fail(hwtr_err_nomem,
							 "out of memory");
				name = keep(x, realpath(full, NULL));
				if (!name)
					name = keep(x, full);
				else
					free(full);
			}
			if (!name || !name[0]) {
				fprintf(x->err, "hwtrec export: warning: the "
					"anonymous executable mapping at 0x%llx "
					"has no file; perf cannot decode code "
					"there\n", (unsigned long long)ev->addr);
				continue;
			}
			r.type = PERF_RECORD_MMAP2;
			r.misc = PERF_RECORD_MISC_USER;
			r.u.mmap.pid = pid;
			r.u.mmap.tid = pid;
			r.sample.tid = pid;
			r.u.mmap.addr = ev->addr;
			r.u.mmap.len = ev->len;
			r.u.mmap.pgoff = ev->pgoff;
			r.u.mmap.prot = PROT_EXEC |
					((ev->prot & HWTR_PROT_READ) ? PROT_READ : 0) |
					((ev->prot & HWTR_PROT_WRITE) ? PROT_WRITE : 0);
			r.u.mmap.flags = MAP_PRIVATE;
			r.u.mmap.filename = name;
			if (ev->build_id) {
				int k = hex_to_bytes(ev->build_id,
						     r.u.mmap.build_id,
						     PERF_BUILD_ID_MAX);

				if (k > 0) {
					r.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
					r.u.mmap.build_id_size = (uint8_t)k;
				}
			}
			break;
		}
		case hwtr_ev_exec:
			r.type = PERF_RECORD_COMM;
			r.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_COMM_EXEC;
			snprintf(comm, sizeof(comm), "%s", comm_of(ev->path));
			r.u.comm.pid = pid;
			r.u.comm.tid = r.sample.tid;
			r.u.comm.comm = keep(x, strdup(comm));
			break;
		case hwtr_ev_thread_start:
			if (ev->tid == pid)
				continue;
			r.type = PERF_RECORD_FORK;
			r.u.task = (struct perf_rec_task){
				.pid = pid, .ppid = pid, .tid = ev->tid,
				.ptid = pid,
				.time = x->opt->tsc ? perf_tsc_to_time(&x->tc, ev->tsc)
						    : 0 };
			r.sample.tid = ev->tid;
			break;
		case hwtr_ev_thread_exit:
			r.type = PERF_RECORD_EXIT;
			r.u.task = (struct perf_rec_task){
				.pid = pid, .ppid = pid, .tid = ev->tid,
				.ptid = pid,
				.time = x->opt->tsc ? perf_tsc_to_time(&x->tc, ev->tsc)
						    : 0 };
			break;
		default:	/* munmap: perf has none; loss: with the trace */
			continue;
		}
		if ((err = export_add_pending(x, tsc, 1,
				       x->opt->layout == EXPORT_PER_THREAD &&
				       !x->aux->threads_are_trace_units
				       ? tix : 0, &r)))
			return err;
	}
	return 0;
}

/* ------------------------------------------------------------ trace */

/* A thread's kept trace, without TSC packets when the export has none. */
static int drop_tsc(void *ctx, const struct pt_pkt_view *v)
{
	if (!v->garbage && v->packet.type == ppt_tsc)
		return 0;
	return pt_out_view(ctx, v, false);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Q's cuts: the loss events, as stream offsets from START, of thread TID
 * or (STREAM not NULL) of every thread whose trace is in STREAM; sorted,
 * once each. */
int export_queue_losses(const struct export *x, struct queue *q,
			const char *stream, uint32_t tid, uint64_t start)
{
	size_t n = hwtr_recording_nevents(x->rec), i, t, k = 0, cap = 0;

	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(x->rec, i);
		bool ours = !stream && ev->tid == tid;

		if (ev->kind != hwtr_ev_loss || ev->offset < start)
			continue;
		for (t = 0; stream && !ours && t < x->info->nthreads; t++)
			ours = x->info->threads[t].tid == ev->tid &&
			       !strcmp(x->info->threads[t].stream, stream);
		if (!ours)
			continue;
		if (k == cap) {
			uint64_t *v = realloc(q->cuts, (cap ? 2 * cap : 8) *
						       sizeof(*v));

			if (!v)
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			q->cuts = v;
			cap = cap ? 2 * cap : 8;
		}
		q->cuts[k++] = ev->offset - start;
	}
	if (k)
		qsort(q->cuts, k, sizeof(*q->cuts), cmp_u64);
	for (i = 0, q->ncuts = 0; i < k; i++)
		if (!q->ncuts || q->cuts[q->ncuts - 1] != q->cuts[i])
			q->cuts[q->ncuts++] = q->cuts[i];
	return 0;
}

/* The AUX record the kernel writes for each piece of trace it adds. */
int export_aux_record(void *ctx, uint64_t off, uint64_t size, bool truncated)
{
	struct aux_ctx *a = ctx;
	const struct queue *q = &a->x->queues[a->index];
	struct perf_rec r;

	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_AUX;
	r.u.aux.aux_offset = off;
	r.u.aux.aux_size = size;
	r.u.aux.flags = (truncated ? PERF_AUX_FLAG_TRUNCATED : 0) |
			(a->x->opt->snapshot ? PERF_AUX_FLAG_OVERWRITE : 0) |
			a->flags;
	r.sample.pid = a->x->pid;
	r.sample.tid = q->tid;
	r.sample.cpu = a->cpu;
	return export_add_pending(a->x, a->tsc, 0, a->index, &r);
}

static uint64_t thread_start_tsc(const struct export *x, uint32_t tid)
{
	size_t n = hwtr_recording_nevents(x->rec), i;

	if (tid == x->pid)
		return 0;
	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(x->rec, i);

		if (ev->kind == hwtr_ev_thread_start && ev->tid == tid)
			return ev->tsc;
	}
	return 0;
}

static int per_thread_trace(struct export *x)
{
	size_t nev = hwtr_recording_nevents(x->rec), t;
	uint64_t tsc_end = nev ? hwtr_recording_event(x->rec, nev - 1)->tsc : 0;
	int err = 0;

	for (t = 0; t < x->info->nthreads && !err; t++) {
		const struct hwtr_thread_info *ti = &x->info->threads[t];
		struct queue *q = &x->queues[t];
		uint64_t start_tsc;
		struct aux_ctx ac = { x, (unsigned)t, tsc_end, 0, 0 };
		struct perf_rec r;
		const uint8_t *bytes;
		size_t size;

		q->tid = ti->tid;
		q->cpu = NO_CPU;
		q->whole_packets = true;
		if ((err = hwtr_recording_trace(x->rec, t, &bytes, &size)))
			return err;
		if (ti->trace_start < size) {
			bytes += ti->trace_start;
			size -= ti->trace_start;
		} else {
			size = 0;
		}
		if (!x->opt->tsc) {
			if ((err = pt_packets_walk(bytes, size, drop_tsc,
						   &q->rewritten)))
				break;
			bytes = q->rewritten.buf;
			size = q->rewritten.len;
		}
		q->bytes = bytes;
		q->size = size;
		/* Loss offsets hold where the bytes are the recording's. */
		if (x->opt->tsc &&
		    (err = export_queue_losses(x, q, NULL, ti->tid, ti->trace_start)))
			break;
		memset(&r, 0, sizeof(r));
		r.type = PERF_RECORD_ITRACE_START;
		r.u.itrace_start.pid = x->pid;
		r.u.itrace_start.tid = ti->tid;
		r.sample.pid = x->pid;
		r.sample.tid = ti->tid;
		start_tsc = thread_start_tsc(x, ti->tid);
		if ((err = export_add_pending(x, start_tsc, 0, (unsigned)t, &r)) ||
		    (err = export_add_pending(x, start_tsc, 2, (unsigned)t, &r)))
			break;
		err = export_queue_chunks(q, export_aux_record, &ac);
	}
	return err;
}

/* Per-CPU: the threads' time slices on CPU streams.  Each thread's trace is
 * first rewritten with every IP in full (one walk, which knows the thread's
 * last IP); a slice is then a range of those bytes, from the packet after a
 * TIP.PGD to the next TIP.PGD, that decodes wherever it lands. */
struct slice {
	uint32_t tid;
	unsigned thread;
	uint64_t begin, end;	/* offsets in the thread's rewritten trace */
	uint64_t tsc;		/* its first TSC packet */
};

struct slicer {
	struct slice *v;
	size_t n, cap;
	struct pt_out *out;	/* the thread's rewritten trace */
	uint32_t tid;
	unsigned thread;
	uint64_t begin;
	bool has_tsc;
	uint64_t tsc, last_tsc;
};

static int slice_end(struct slicer *s)
{
	uint64_t end = s->out->len;
	struct slice *c;

	if (end <= s->begin)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		void *v = realloc(s->v, cap * sizeof(*s->v));

		if (!v)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->v = v;
		s->cap = cap;
	}
	c = &s->v[s->n++];
	c->tid = s->tid;
	c->thread = s->thread;
	c->begin = s->begin;
	c->end = end;
	c->tsc = s->has_tsc ? s->tsc : s->last_tsc;
	s->begin = end;
	s->has_tsc = false;
	return 0;
}

static int slice_packet(void *ctx, const struct pt_pkt_view *v)
{
	struct slicer *s = ctx;
	int err;

	if (v->garbage)		/* bytes before the first PSB: not placed */
		return 0;
	if (v->packet.type == ppt_tsc) {
		if (!s->has_tsc) {
			s->has_tsc = true;
			s->tsc = v->packet.payload.tsc.tsc;
		}
		s->last_tsc = v->packet.payload.tsc.tsc;
	}
	if ((err = pt_out_view(s->out, v, true)))
		return err;
	return v->packet.type == ppt_tip_pgd ? slice_end(s) : 0;
}

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

struct cpu_stream {
	struct pt_out out;
	uint32_t tid;		/* running now, 0 for idle */
	bool *started;		/* per thread: ITRACE_START written */
};

/* PSB, TSC, PSBEND: where a decoder can start on a CPU stream. */
static int cpu_psb(struct pt_out *o, uint64_t tsc)
{
	struct pt_packet p;
	int err;

	memset(&p, 0, sizeof(p));
	p.type = ppt_psb;
	if ((err = pt_out_packet(o, &p)))
		return err;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = tsc;
	if ((err = pt_out_packet(o, &p)))
		return err;
	memset(&p, 0, sizeof(p));
	p.type = ppt_psbend;
	return pt_out_packet(o, &p);
}

static int switch_records(struct export *x, struct cpu_stream *c, unsigned cpu,
			  const struct slice *s)
{
	uint32_t pid = x->pid;
	struct perf_rec r;
	int err;

	/* Just before the slice's first TSC: the decoder meets that TSC
	 * after the switch, and the previous slice's packets before it. */
	if (c->tid) {
		memset(&r, 0, sizeof(r));
		r.type = PERF_RECORD_SWITCH_CPU_WIDE;
		r.misc = PERF_RECORD_MISC_SWITCH_OUT;
		r.u.sw.next_prev_pid = pid;
		r.u.sw.next_prev_tid = s->tid;
		r.sample.pid = pid;
		r.sample.tid = c->tid;
		r.sample.cpu = cpu;
		if ((err = export_add_pending(x, s->tsc - 8, 1, cpu, &r)))
			return err;
	}
	if (!c->started[s->thread]) {
		c->started[s->thread] = true;
		memset(&r, 0, sizeof(r));
		r.type = PERF_RECORD_ITRACE_START;
		r.u.itrace_start.pid = pid;
		r.u.itrace_start.tid = s->tid;
		r.sample.pid = pid;
		r.sample.tid = s->tid;
		r.sample.cpu = cpu;
		if ((err = export_add_pending(x, s->tsc - 6, 0, cpu, &r)))
			return err;
	}
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_SWITCH_CPU_WIDE;
	r.u.sw.next_prev_pid = c->tid ? pid : 0;
	r.u.sw.next_prev_tid = c->tid;
	r.sample.pid = pid;
	r.sample.tid = s->tid;
	r.sample.cpu = cpu;
	c->tid = s->tid;
	return export_add_pending(x, s->tsc - 4, 1, cpu, &r);
}

static int per_cpu_trace(struct export *x)
{
	size_t nthreads = x->info->nthreads, t, i;
	struct slicer sl = { 0 };
	struct pt_out *threads = calloc(nthreads + 1, sizeof(*threads));
	struct cpu_stream *cpus = calloc(x->nqueues, sizeof(*cpus));
	unsigned ncpus = x->nqueues, cpu = 0, k;
	uint32_t last_tid = 0;
	int err = 0;

	if (!threads || !cpus) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	for (t = 0; t < nthreads && !err; t++) {
		uint64_t base = x->info->threads[t].trace_start;
		const uint8_t *bytes;
		size_t size;

		if ((err = hwtr_recording_trace(x->rec, t, &bytes, &size)))
			break;
		pt_out_init(&threads[t]);
		sl.out = &threads[t];
		sl.tid = x->info->threads[t].tid;
		sl.thread = (unsigned)t;
		sl.begin = 0;
		sl.has_tsc = false;
		sl.last_tsc = 0;
		if (base < size) {
			err = pt_packets_walk(bytes + base, size - base,
					      slice_packet, &sl);
			if (!err)
				err = slice_end(&sl);
		}
	}
	for (k = 0; k < ncpus && !err; k++) {
		pt_out_init(&cpus[k].out);
		cpus[k].started = calloc(nthreads + 1, sizeof(bool));
		if (!cpus[k].started)
			err = hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	if (!err && sl.n)
		qsort(sl.v, sl.n, sizeof(*sl.v), cmp_slice);
	for (i = 0; i < sl.n && !err; i++) {
		const struct slice *s = &sl.v[i];
		struct cpu_stream *c;

		/* A thread stays on its CPU until another one runs; then the
		 * next CPU takes over (threads migrate, as on a real machine). */
		if (i && s->tid != last_tid)
			cpu = (cpu + 1) % ncpus;
		last_tid = s->tid;
		c = &cpus[cpu];
		if (c->tid != s->tid && (err = switch_records(x, c, cpu, s)))
			break;
		/* The CPU's trace goes in after its first switch records. */
		if (!c->out.len && ((err = cpu_psb(&c->out, s->tsc - 2)) ||
				    (err = export_add_pending(x, s->tsc - 3, 2, cpu,
						       &(struct perf_rec){ 0 }))))
			break;
		err = pt_out_bytes(&c->out, threads[s->thread].buf + s->begin,
				   s->end - s->begin);
	}
	for (k = 0; k < ncpus && !err; k++) {
		struct queue *q = &x->queues[k];

		q->tid = UINT32_MAX;
		q->cpu = k;
		q->whole_packets = true;
		q->rewritten = cpus[k].out;
		memset(&cpus[k].out, 0, sizeof(cpus[k].out));
		q->bytes = q->rewritten.buf;
		q->size = q->rewritten.len;
	}
out:
	for (k = 0; cpus && k < ncpus; k++) {
		pt_out_release(&cpus[k].out);
		free(cpus[k].started);
	}
	for (t = 0; threads && t < nthreads; t++)
		pt_out_release(&threads[t]);
	free(threads);
	free(cpus);
	free(sl.v);
	return err;
}

/* ---------------------------------------------------------- features */

static int add_string_feature(struct perf_data_writer *w, unsigned bit,
			      const char *s)
{
	uint8_t *b;
	size_t n;
	int err = perf_feature_string(s, &b, &n);

	if (!err)
		err = perf_data_add_feature(w, bit, b, n);
	free(b);
	return err;
}

static int build_id_feature(struct export *x)
{
	size_t n = hwtr_recording_nevents(x->rec), i;
	uint8_t *b = NULL;
	size_t size = 0;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(x->rec, i);
		uint8_t id[PERF_BUILD_ID_MAX];
		int k;

		if (ev->kind != hwtr_ev_mmap || !(ev->prot & HWTR_PROT_EXEC) ||
		    !ev->build_id || !ev->path || ev->saved)
			continue;
		k = hex_to_bytes(ev->build_id, id, sizeof(id));
		if (k > 0)
			err = perf_feature_append_build_id(&b, &size,
				x->pid, PERF_RECORD_MISC_USER,
				id, (uint8_t)k, ev->path);
	}
	if (!err && size)
		err = perf_data_add_feature(x->w, PERF_FEAT_BUILD_ID, b, size);
	free(b);
	return err;
}

int export_features(struct export *x, const struct perf_data_writer_attr *attrs)
{
	const char *const names[] = { x->aux->event, "dummy:u" };
	unsigned cpus = x->aux->nrcpus(x);
	uint32_t nrcpus[2] = { cpus, cpus };
	char cpuid[64];
	bool have_cpuid = x->aux->cpuid(x, cpuid, sizeof(cpuid));
	uint8_t *b;
	size_t n;
	int err;

	if ((err = build_id_feature(x)) ||
	    (err = add_string_feature(x->w, PERF_FEAT_HOSTNAME, "hwtrec-export")) ||
	    (err = add_string_feature(x->w, PERF_FEAT_OSRELEASE, "unknown")) ||
	    (err = add_string_feature(x->w, PERF_FEAT_VERSION, "6.1")) ||
	    (err = add_string_feature(x->w, PERF_FEAT_ARCH, x->aux->arch)) ||
	    (err = perf_data_add_feature(x->w, PERF_FEAT_NRCPUS, nrcpus,
					 sizeof(nrcpus))) ||
	    (have_cpuid &&
	     (err = add_string_feature(x->w, PERF_FEAT_CPUID, cpuid))))
		return err;
	if ((err = perf_feature_event_desc(attrs, names, 2, &b, &n)))
		return err;
	err = perf_data_add_feature(x->w, PERF_FEAT_EVENT_DESC, b, n);
	free(b);
	return err;
}

/* ------------------------------------------------------------- main */

void export_options_default(const struct hwtr_recording *rec,
			    struct export_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->layout = EXPORT_PER_THREAD;
	opt->tsc = hwtr_recording_info(rec)->pt.tsc;
	opt->ncpus = 2;
}

void export_make_attrs(const struct export *x, struct perf_data_writer_attr *a,
		       uint64_t *ids)
{
	const struct hwtr_pt_config *pt = &x->info->pt;
	unsigned i, psb = 0;

	for (i = 0; i < x->nqueues; i++) {
		ids[i] = ID_PT + i;
		ids[x->nqueues + i] = ID_DUMMY + i;
	}
	while (psb < 15 && (2048u << psb) < pt->psb_period)
		psb++;
	memset(a, 0, 2 * sizeof(*a));
	a[0].attr.type = EXPORT_PT_PMU_TYPE;
	a[0].attr.config = INTEL_PT_CFG_PT | INTEL_PT_CFG_BRANCH |
			   ((uint64_t)psb << 24) |
			   (x->opt->tsc ? INTEL_PT_CFG_TSC : 0) |
			   (pt->return_compression ? 0 : INTEL_PT_CFG_NORETCOMP);
	a[0].attr.sample_period = 1;
	a[0].ids = ids;
	a[0].nids = x->nqueues;
	a[1].attr.type = PERF_TYPE_SOFTWARE;
	a[1].attr.config = PERF_COUNT_SW_DUMMY;
	a[1].attr.mmap = 1;
	a[1].attr.mmap2 = 1;
	a[1].attr.comm = 1;
	a[1].attr.comm_exec = 1;
	a[1].attr.task = 1;
	a[1].attr.context_switch = x->opt->layout == EXPORT_PER_CPU;
	a[1].ids = ids + x->nqueues;
	a[1].nids = x->nqueues;
	for (i = 0; i < 2; i++) {
		a[i].attr.size = sizeof(a[i].attr);
		a[i].attr.sample_type = x->layout.sample_type;
		a[i].attr.sample_id_all = 1;
		a[i].attr.disabled = 1;
		a[i].attr.enable_on_exec = 1;
		a[i].attr.exclude_kernel = 1;
		a[i].attr.exclude_hv = 1;
		a[i].attr.inherit = x->opt->layout == EXPORT_PER_CPU;
	}
}

/* ------------------------------------------------------- Intel PT */

static unsigned pt_nrcpus(const struct export *x)
{
	return x->opt->layout == EXPORT_PER_THREAD ? 1 : x->nqueues;
}

static bool pt_cpuid(const struct export *x, char *buf, size_t size)
{
	const struct hwtr_pt_config *pt = &x->info->pt;

	snprintf(buf, size, "GenuineIntel,%u,%u,%u", pt->family, pt->model,
		 pt->stepping);
	return true;
}

static int export_intel_pt(struct export *x, const char *path)
{
	const struct export_options *opt = x->opt;
	struct perf_data_writer_attr attrs[2];
	struct intel_pt_info pti;
	uint64_t *ids = NULL, *priv = NULL;
	size_t npriv;
	int err;

	if (opt->tsc && !x->info->pt.tsc)
		return hwtr_fail(hwtr_err_invalid, "%s: the trace has no "
				 "timestamps; export it with --no-tsc",
				 hwtr_recording_path(x->rec));
	if (opt->layout == EXPORT_PER_CPU && (!opt->tsc || opt->snapshot))
		return hwtr_fail(hwtr_err_invalid, "the per-CPU layout needs "
				 "timestamps and is not written in snapshot mode");
	x->nqueues = opt->layout == EXPORT_PER_CPU
			     ? (opt->ncpus ? opt->ncpus : 1)
			     : (unsigned)(x->info->nthreads ? x->info->nthreads : 1);
	/* The recording's TSC rate: nominal ratio x 100 MHz, else 2 GHz. */
	perf_tsc_conv_for_freq(&x->tc, x->info->pt.nom_freq
				       ? (uint64_t)x->info->pt.nom_freq * 100000000u
				       : 2000000000u);
	x->layout.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				(opt->tsc ? PERF_SAMPLE_TIME : 0) |
				PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	x->layout.sample_id_all = true;
	ids = calloc(2 * x->nqueues, sizeof(*ids));
	if (!ids)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	export_make_attrs(x, attrs, ids);
	err = perf_data_writer_create(path, attrs, 2, &x->w);
	if (err)
		goto out;
	memset(&pti, 0, sizeof(pti));
	pti.pmu_type = EXPORT_PT_PMU_TYPE;
	pti.tc = x->tc;
	pti.tc.cap_user_time_zero = opt->tsc;
	pti.tsc_bit = INTEL_PT_CFG_TSC;
	pti.noretcomp_bit = INTEL_PT_CFG_NORETCOMP;
	pti.have_sched_switch = opt->layout == EXPORT_PER_CPU ? 2 : 0;
	pti.snapshot_mode = opt->snapshot;
	pti.per_cpu_mmaps = opt->layout == EXPORT_PER_CPU;
	pti.mtc_bit = INTEL_PT_CFG_MTC;
	pti.mtc_freq_bits = INTEL_PT_CFG_MTC_PERIOD;
	pti.tsc_ctc_n = x->info->pt.cpuid_0x15_ebx;
	pti.tsc_ctc_d = x->info->pt.cpuid_0x15_eax;
	pti.cyc_bit = INTEL_PT_CFG_CYC;
	pti.max_nonturbo_ratio = x->info->pt.nom_freq;
	/* The recording's address filter, as perf wrote it (borrowed: pti
	 * is not released). */
	pti.filter = (char *)x->info->pt.address_filter;
	priv = calloc(intel_pt_info_words(&pti), sizeof(*priv));
	if (!priv) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	npriv = intel_pt_info_encode(&pti, priv);
	if (opt->tsc && (err = perf_data_write_time_conv(x->w, &x->tc)))
		goto out;
	if ((err = perf_data_write_auxtrace_info(x->w, PERF_AUXTRACE_INTEL_PT,
						 priv, npriv)))
		goto out;
	x->queues = calloc(x->nqueues, sizeof(*x->queues));
	if (!x->queues) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	if ((err = export_sideband_records(x)))
		goto out;
	err = opt->layout == EXPORT_PER_CPU ? per_cpu_trace(x)
					    : per_thread_trace(x);
	if (err || (err = export_write_pending(x)) ||
	    (err = perf_data_write_finished_round(x->w)) ||
	    (err = export_features(x, attrs)))
		goto out;
	err = perf_data_writer_finish(x->w);
	x->w = NULL;
out:
	free(priv);
	free(ids);
	return err;
}

/* ------------------------------------------------------- the formats */

static const char *const intel_pt_formats[] = { "intel-pt", NULL };

/* Intel PT as perf record -e intel_pt//u writes it, per thread or per CPU. */
static const struct aux_export_ops intel_pt_export = {
	.trace_formats = intel_pt_formats,
	.event = "intel_pt//u",
	.arch = "x86_64",
	.nrcpus = pt_nrcpus,
	.cpuid = pt_cpuid,
	.write = export_intel_pt,
};


static const struct aux_export_ops *const aux_exports[] = {
	&intel_pt_export, &perf_export_cs_etm,
};

/* The format that writes a recording of TRACE_FORMAT, or NULL. */
static const struct aux_export_ops *aux_export_for(const char *trace_format)
{
	size_t i, k;

	for (i = 0; i < sizeof(aux_exports) / sizeof(aux_exports[0]); i++)
		for (k = 0; aux_exports[i]->trace_formats[k]; k++)
			if (!strcmp(aux_exports[i]->trace_formats[k], trace_format))
				return aux_exports[i];
	return NULL;
}

int export_perf(const struct hwtr_recording *rec, const char *path,
		const struct export_options *opt, FILE *errf)
{
	struct export x = { .rec = rec, .opt = opt, .err = errf };
	size_t i;
	int err;

	x.info = hwtr_recording_info(rec);
	x.pid = x.info->pid > 0 ? (uint32_t)x.info->pid : STANDIN_PID;
	x.aux = aux_export_for(x.info->trace_format);
	if (!x.aux)
		return hwtr_fail(hwtr_err_invalid, "%s: the trace is %s; perf.data "
				 "export writes Intel PT and CoreSight ETM only",
				 hwtr_recording_path(rec), x.info->trace_format);
	err = x.aux->write(&x, path);
	perf_data_writer_free(x.w);
	for (i = 0; i < x.nowned; i++)
		free(x.owned[i]);
	free(x.owned);
	for (i = 0; x.queues && i < x.nqueues; i++) {
		pt_out_release(&x.queues[i].rewritten);
		free(x.queues[i].cuts);
	}
	free(x.queues);
	free(x.pend);
	return err;
}
