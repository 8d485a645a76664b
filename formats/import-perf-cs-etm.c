/* import-perf-cs-etm.c: CoreSight ETM's part of the perf.data importer
 * (import-perf.c): its AUXTRACE_INFO, its AUX queues as streams and its
 * trace units as threads, behind struct aux_import_ops. */
#define _GNU_SOURCE
#include "import-perf-format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CoreSight's trace is not split between threads here: each AUX queue's
 * trace becomes one stream of the recording, as it is (CoreSight frames, in
 * which every trace unit that wrote to the sink has its trace ID; or one
 * trace unit's raw trace where AUX records say FORMAT_RAW), and each trace
 * unit whose trace can be in a stream becomes a thread with that stream
 * (tid: its trace ID), as for an OpenCSD snapshot; a trace unit tracing
 * context IDs is split into one thread per context ID (etm-contexts.c).
 * Losses (AUX records with TRUNCATED..., jumps in AUXTRACE offsets) are loss
 * events of every thread of their stream. */

static int stream_lost(struct imp *m, void *ctx, uint64_t tsc, uint64_t offset,
		       uint64_t len, const char *reason)
{
	struct etm_stream *st = ctx;
	struct etm_loss *l = realloc(st->losses,
				     (st->nlosses + 1) * sizeof(*st->losses));

	if (!l)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	st->losses = l;
	l[st->nlosses++] = (struct etm_loss){ tsc, offset, len, reason };
	return 0;
}

/* Is R an AUX record of queue Q's event? */
static bool aux_of_queue(const struct perf_rec *r, const struct aqueue *q)
{
	if (r->type != PERF_RECORD_AUX)
		return false;
	if (q->cpu != NO_CPU)
		return r->sample.has_cpu && r->sample.cpu == q->cpu;
	return r->sample.has_tid && r->sample.tid == q->tid;
}

/* perf pads each AUXTRACE payload to 8 bytes and counts the padding in its
 * size; the AUX records say where the trace ends.  Zeros after a raw
 * ETMv4 trace would read as a packet cut short: they go. */
static void trim_padding(struct imp *m, struct aqueue *q)
{
	size_t b, i;

	for (b = 0; b < q->n; b++) {
		struct abuf *buf = &q->bufs[b];
		uint64_t end = buf->offset + buf->size, last = 0;

		for (i = 0; i < m->nrecs; i++) {
			const struct perf_rec *r = &m->recs[i].rec;
			uint64_t e = r->u.aux.aux_offset + r->u.aux.aux_size;

			if (aux_of_queue(r, q) && r->u.aux.aux_offset < end &&
			    e > buf->offset && e <= end && e > last)
				last = e;
		}
		if (last && end - last < 8)
			buf->size = last - buf->offset;
	}
}

static int etm_streams(struct imp *m)
{
	size_t qi, i;
	int err = 0;

	m->estreams = calloc(m->nqueues, sizeof(*m->estreams));
	if (!m->estreams)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (qi = 0; qi < m->nqueues && !err; qi++) {
		struct aqueue *q = &m->queues[qi];
		struct etm_stream *st = &m->estreams[m->nestreams++];

		st->queue = q;
		pt_out_init(&st->bytes);
		if (q->cpu != NO_CPU)
			snprintf(st->name, sizeof(st->name), "cpu%u", q->cpu);
		else
			snprintf(st->name, sizeof(st->name), "queue%u", q->idx);
		trim_padding(m, q);
		err = import_assemble_queue(m, q, &st->bytes, &st->segs, &st->nsegs,
				     stream_lost, st);
		for (i = 0; i < m->nrecs && !err; i++) {
			const struct perf_rec *r = &m->recs[i].rec;
			const char *why;
			uint64_t at;

			if (!aux_of_queue(r, q))
				continue;
			if ((r->u.aux.flags & CS_ETM_AUX_FORMAT_RAW) && !st->raw) {
				st->raw = true;
				st->raw_cpu = r->sample.has_cpu ? r->sample.cpu : q->cpu;
			}
			why = perf_aux_loss_reason(r->u.aux.flags);
			at = import_segment_map(st->segs, st->nsegs,
					 r->u.aux.aux_offset + r->u.aux.aux_size);
			if (why && at < st->bytes.len)
				err = stream_lost(m, st, m->have_time
						  ? perf_time_to_tsc(&m->tc, r->sample.time)
						  : 0, at, 0, why);
		}
		if (!err && st->raw && st->raw_cpu == NO_CPU)
			err = hwtr_fail(hwtr_err_format, "%s: AUX queue %u holds "
					"raw (unformatted) trace, but no record says "
					"of which CPU", m->path, q->idx);
	}
	return err;
}

/* The trace ID of CPU block C: its TRCTRACEIDR, or (perf 6.3 and later)
 * the AUX_OUTPUT_HW_ID record of its CPU; 0 when there is none. */
static uint8_t cpu_trace_id(struct imp *m, const struct cs_etm_cpu *c)
{
	uint8_t id = 0;
	size_t i;

	if (!(c->trctraceidr & CS_ETM_TRACE_ID_UNUSED))
		id = (uint8_t)(c->trctraceidr & 0x7f);
	for (i = 0; i < m->nrecs; i++) {
		const struct perf_rec *r = &m->recs[i].rec;

		if (r->type == PERF_RECORD_AUX_OUTPUT_HW_ID && r->sample.has_cpu &&
		    r->sample.cpu == c->cpu && CS_ETM_HW_ID_VERSION(r->u.hw_id) <= 1)
			id = CS_ETM_HW_ID_TRACE_ID(r->u.hw_id);
	}
	return id >= 1 && id < 0x70 ? id : 0;
}

/* Whether OpenCSD here decodes CPU C's trace unit (ETE needs a newer one
 * than Debian 12's). */
static bool cpu_decodable(const struct cs_etm_cpu *c, uint8_t id)
{
	struct hwtr_etm_config e;

	cs_etm_cpu_to_config(c, &e);
	e.trace_id = id;
	return hwtr_etm_decodable(&e) == 0;
}

static int etm_sources(struct imp *m)
{
	size_t si, k, i, n = m->csi.ncpus * (m->nestreams ? m->nestreams : 1);
	bool renumbered = false;

	m->esources = calloc(n ? n : 1, sizeof(*m->esources));
	if (!m->esources)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (k = 0; k < m->csi.ncpus; k++) {
		const struct cs_etm_cpu *c = &m->csi.cpus[k];

		if (c->protocol == CS_ETM_V3)
			import_warn(m, "CPU %u has an ETMv3/PTM trace unit: only ETMv4 and "
			     "ETE are decoded; its trace is left out", c->cpu);
		else if (!cpu_trace_id(m, c))
			import_warn(m, "CPU %u: its trace unit has no trace ID (TRCTRACEIDR "
			     "0x%llx, no AUX_OUTPUT_HW_ID record): its trace is "
			     "left out", c->cpu, (unsigned long long)c->trctraceidr);
		else if (!cpu_decodable(c, cpu_trace_id(m, c)))
			import_warn(m, "CPU %u: %s; its trace is left out", c->cpu,
			     hwtr_last_error());
	}
	for (si = 0; si < m->nestreams; si++) {
		const struct etm_stream *st = &m->estreams[si];

		for (k = 0; k < m->csi.ncpus; k++) {
			const struct cs_etm_cpu *c = &m->csi.cpus[k];
			struct etm_source *src;
			uint8_t id = c->protocol == CS_ETM_V3 ? 0 : cpu_trace_id(m, c);

			if (!id || (st->raw && c->cpu != st->raw_cpu) ||
			    !cpu_decodable(c, id))
				continue;
			src = &m->esources[m->nesources++];
			src->stream = si;
			cs_etm_cpu_to_config(c, &src->etm);
			src->etm.trace_id = id;
			if (st->raw) {
				src->etm.formatted = false;
				src->etm.frame_flags = 0;
			}
			snprintf(src->core, sizeof(src->core), "cpu_%u", c->cpu);
			src->tid = id;
			/* A trace ID in a second queue: a thread of its own. */
			for (i = 0; i + 1 < m->nesources; i++)
				if (m->esources[i].tid == src->tid) {
					src->tid = (uint32_t)(si + 1) << 8 | id;
					renumbered = true;
				}
		}
	}
	if (renumbered)
		import_warn(m, "trace IDs appear in several AUX queues: the threads of "
		     "the later queues are numbered (queue << 8) | trace ID");
	if (!m->nesources)
		return hwtr_fail(hwtr_err_format, "%s: AUXTRACE_INFO names no ETMv4 "
				 "or ETE trace unit with a trace ID: nothing to "
				 "decode", m->path);
	return 0;
}

/* The recording at OUT_DIR: the sideband events, the streams, a thread per
 * source (or per context ID) and the losses of its stream. */
static int etm_write(struct imp *m, const char *out_dir)
{
	const char **paths = calloc(m->nestreams + 1, sizeof(*paths));
	uint64_t total = 0;
	size_t i, k, l;
	int err;

	if (!paths)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if ((err = import_create_writer(m, out_dir)))
		goto out;
	if (m->nitems)
		qsort(m->items, m->nitems, sizeof(*m->items), import_cmp_item);
	for (i = 0; i < m->nitems && !err; i++)
		err = hwtr_writer_event(m->w, &m->items[i].ev);
	for (i = 0; i < m->nestreams; i++)
		total += m->estreams[i].bytes.len;
	import_progress_phase(m, "writing the recording", total);
	for (i = 0; i < m->nestreams && !err; i++) {
		const struct etm_stream *st = &m->estreams[i];

		err = hwtr_writer_save_trace(m->w, st->name,
					     st->bytes.buf ? (const void *)st->bytes.buf
							   : "",
					     st->bytes.len, &paths[i]);
		import_progress(m, st->bytes.len);
	}
	for (i = 0; i < m->nesources && !err; i++) {
		const struct etm_source *src = &m->esources[i];
		const struct etm_stream *st = &m->estreams[src->stream];
		size_t nthreads = src->contexts.ids ? src->contexts.n : 1;

		for (k = 0; k < nthreads && !err; k++) {
			struct hwtr_etm_config e = src->etm;
			uint32_t tid = src->tid;

			e.core = src->core;
			if (src->contexts.ids) {
				e.has_context_id = true;
				e.context_id = tid = src->contexts.ids[k];
			}
			err = hwtr_writer_add_source(m->w, tid, 0, paths[src->stream],
						     &e);
			for (l = 0; l < st->nlosses && !err; l++) {
				struct hwtr_sideband_event ev = {
					.kind = hwtr_ev_loss, .tsc = st->losses[l].tsc,
					.tid = tid, .offset = st->losses[l].offset,
					.len = st->losses[l].len,
					.reason = st->losses[l].reason,
				};

				err = hwtr_writer_event(m->w, &ev);
			}
		}
	}
	if (!err)
		err = hwtr_writer_finish(m->w, &(struct hwtr_end){
			.state = hwtr_end_running });
out:
	hwtr_writer_free(m->w);
	m->w = NULL;
	free(paths);
	return err;
}

/* Write the recording once; where a trace unit traces context IDs, learn
 * them first from its stream in memory, for a thread per context ID. */
static int etm_import(struct imp *m, const char *out_dir)
{
	struct etm_source_trace *traces = NULL;
	struct etm_context_ids *ids = NULL;
	uint64_t **losses = NULL;
	size_t i, l;
	int err = 0;

	traces = calloc(m->nesources + 1, sizeof(*traces));
	ids = calloc(m->nesources + 1, sizeof(*ids));
	losses = calloc(m->nesources + 1, sizeof(*losses));
	if (!traces || !ids || !losses) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	for (i = 0; i < m->nesources && !err; i++) {
		const struct etm_stream *st = &m->estreams[m->esources[i].stream];

		traces[i] = (struct etm_source_trace){
			.etm = &m->esources[i].etm, .stream = st->bytes.buf,
			.size = st->bytes.len, .nlosses = st->nlosses,
		};
		if (st->nlosses &&
		    !(losses[i] = calloc(st->nlosses, sizeof(*losses[i])))) {
			err = hwtr_fail(hwtr_err_nomem, "out of memory");
			break;
		}
		for (l = 0; l < st->nlosses; l++)
			losses[i][l] = st->losses[l].offset;
		traces[i].losses = losses[i];
	}
	if (!err && (err = etm_context_ids(traces, m->nesources, ids)))
		hwtr_fail_context(err, "%s: ", m->path);
	for (i = 0; i < m->nesources && !err; i++)
		if (ids[i].ids) {
			m->esources[i].contexts = ids[i];
			ids[i].ids = NULL;
			import_warn(m, "the trace unit of %s traces %zu context IDs: a "
			     "thread for each", m->esources[i].core,
			     m->esources[i].contexts.n);
		}
	if (!err)
		err = etm_write(m, out_dir);
out:
	if (ids)
		etm_context_ids_release(ids, m->nesources);
	for (i = 0; losses && i < m->nesources; i++)
		free(losses[i]);
	free(losses);
	free(ids);
	free(traces);
	return err;
}

/* ------------------------------------------------------------ the table */

static int cs_parse_info(struct imp *m, const uint64_t *priv, size_t n)
{
	return cs_etm_info_parse(priv, n, &m->csi);
}

static uint32_t cs_pmu_type(const struct imp *m)
{
	return m->csi.pmu_type;
}

static int cs_check(struct imp *m)
{
	m->snapshot = m->csi.snapshot;
	/* Trace units split the trace by their trace IDs; sideband times
	 * only order the events. */
	m->have_tc = m->have_tc && m->tc.time_mult;
	m->have_time = (m->pt_attr->attr.sample_type & PERF_SAMPLE_TIME) &&
		       m->have_tc;
	return 0;
}

static int cs_trace(struct imp *m, const char *out_dir)
{
	return etm_streams(m);
}

static void cs_writer_format(struct imp *m, const char *cpuid,
			     struct hwtr_writer_info *wi)
{
	size_t i;
	bool all_ete = m->nesources > 0;

	for (i = 0; i < m->nesources; i++)
		all_ete = all_ete && m->esources[i].etm.ete;
	wi->trace_format = all_ete ? "ete" : "etm4";
	wi->arch = "aarch64";
}

static int cs_write(struct imp *m, const char *out_dir)
{
	int err = etm_sources(m);

	return err ? err : etm_import(m, out_dir);
}

/* CoreSight ETM: each AUX queue's trace is a stream, each trace unit (or
 * context ID) a thread (see "CoreSight ETM" above). */
const struct aux_import_ops perf_import_cs_etm = {
	.auxtrace_type = PERF_AUXTRACE_CS_ETM,
	.parse_info = cs_parse_info,
	.pmu_type = cs_pmu_type,
	.check = cs_check,
	.trace = cs_trace,
	.writer_format = cs_writer_format,
	.write = cs_write,
	.threads_are_trace_units = true,
	.places_aux_records = true,
};
