/* export-perf-cs-etm.c: CoreSight ETM's part of the perf.data exporter
 * (export-perf.c): its AUXTRACE_INFO, PMU config and AUX queues, behind
 * struct aux_export_ops. */
#define _GNU_SOURCE
#include "export-perf-format.h"
#include "perf-cs-etm.h"

#include <stdlib.h>
#include <string.h>

/* An ETM recording as perf record -e cs_etm//u --per-thread writes it:
 *   - one AUX queue per stream of the recording (a trace buffer one or
 *     several trace units wrote), its bytes as they are, of the process;
 *   - AUXTRACE_INFO with a block per trace unit: its registers, its CPU
 *     (the recording's, else the next free number);
 *   - AUX records: FORMAT_RAW for a unit's raw (unformatted) trace,
 *     TRUNCATED where the stream has a loss;
 *   - no timestamps: perf decodes each queue on its own (timeless).
 * perf reads a raw stream as raw only through the AUXTRACE index feature,
 * which is not written: perf decodes formatted streams (the usual kind). */

/* The CPU numbers of the recording's trace units: their own where they
 * have one that is free, else the lowest free one. */
static int etm_units(struct export *x, struct cs_etm_info *csi)
{
	const struct hwtr_recording_info *info = x->info;
	size_t t, k;

	csi->cpus = calloc(info->nthreads + 1, sizeof(*csi->cpus));
	if (!csi->cpus)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (t = 0; t < info->nthreads; t++) {
		const struct hwtr_etm_config *e = info->threads[t].etm;
		uint32_t cpu = e && e->cpu >= 0 ? (uint32_t)e->cpu : 0;
		bool free_cpu;

		for (k = 0; e && k < csi->ncpus; k++)
			if ((csi->cpus[k].trctraceidr & 0x7f) == e->trace_id)
				break;
		if (!e || k < csi->ncpus)
			continue;	/* a unit split by context IDs */
		do {
			free_cpu = true;
			for (k = 0; k < csi->ncpus; k++)
				if (csi->cpus[k].cpu == cpu)
					free_cpu = false;
			if (!free_cpu)
				cpu = e->cpu >= 0 && cpu == (uint32_t)e->cpu ? 0 : cpu + 1;
		} while (!free_cpu);
		cs_etm_cpu_from_config(e, cpu, &csi->cpus[csi->ncpus++]);
		if (cpu + 1 > x->ncpus)
			x->ncpus = cpu + 1;
	}
	return 0;
}

static int etm_queues(struct export *x)
{
	const struct hwtr_recording_info *info = x->info;
	size_t t, k;
	int err = 0;

	for (t = 0; t < info->nthreads && !err; t++) {
		const struct hwtr_thread_info *ti = &info->threads[t];
		struct aux_ctx ac = { x, 0, 0, 0, 0 };
		struct queue *q;
		struct perf_rec r;
		const uint8_t *bytes;
		size_t size;

		for (k = 0; k < t && strcmp(info->threads[k].stream, ti->stream); k++)
			;
		if (k < t)
			continue;	/* a stream several units share */
		ac.index = x->nqueues++;
		q = &x->queues[ac.index];
		q->tid = x->pid;
		q->cpu = NO_CPU;
		if ((err = hwtr_recording_trace(x->rec, t, &bytes, &size)))
			return err;
		q->bytes = ti->trace_start < size ? bytes + ti->trace_start : bytes;
		q->size = ti->trace_start < size ? size - ti->trace_start : 0;
		if ((err = export_queue_losses(x, q, ti->stream, 0, ti->trace_start)))
			return err;
		if (ti->etm && !ti->etm->formatted) {
			ac.flags = CS_ETM_AUX_FORMAT_RAW;
			ac.cpu = ti->etm->cpu >= 0 ? (uint32_t)ti->etm->cpu : 0;
		}
		memset(&r, 0, sizeof(r));
		r.type = PERF_RECORD_ITRACE_START;
		r.u.itrace_start.pid = x->pid;
		r.u.itrace_start.tid = x->pid;
		r.sample.pid = x->pid;
		r.sample.tid = x->pid;
		r.sample.cpu = ac.cpu;
		if ((err = export_add_pending(x, 0, 0, ac.index, &r)) ||
		    (err = export_add_pending(x, 0, 2, ac.index, &r)))
			break;
		err = export_queue_chunks(q, export_aux_record, &ac);
	}
	return err;
}

/* PMU config bits of perf's cs_etm format (ETM_OPT_*) that the first unit's
 * TRCCONFIGR says were on. */
static uint64_t etm_pmu_config(const struct cs_etm_info *csi)
{
	uint64_t c = csi->ncpus ? csi->cpus[0].trcconfigr : 0, config = 0;

	if (c & (1u << 4))
		config |= UINT64_C(1) << 12;	/* cycacc */
	if (c & (1u << 6))
		config |= UINT64_C(1) << 14;	/* contextid */
	if (c & (1u << 11))
		config |= UINT64_C(1) << 28;	/* timestamp */
	if (c & (1u << 12))
		config |= UINT64_C(1) << 29;	/* retstack */
	return config;
}

static int export_cs_etm(struct export *x, const char *path)
{
	const struct export_options *opt = x->opt;
	struct perf_data_writer_attr attrs[2];
	struct cs_etm_info csi = { .pmu_type = EXPORT_CS_ETM_PMU_TYPE };
	uint64_t *ids = NULL, *priv = NULL;
	size_t npriv;
	int err;

	if (opt->layout == EXPORT_PER_CPU || opt->snapshot || opt->tsc)
		return hwtr_fail(hwtr_err_invalid, "%s: an ETM recording is "
				 "exported per thread, without timestamps and not "
				 "in snapshot mode", hwtr_recording_path(x->rec));
	x->queues = calloc(x->info->nthreads + 1, sizeof(*x->queues));
	ids = calloc(2 * (x->info->nthreads + 1), sizeof(*ids));
	if (!x->queues || !ids) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	if ((err = etm_units(x, &csi)))
		goto out;
	npriv = cs_etm_info_encode(&csi, NULL);
	priv = calloc(npriv, sizeof(*priv));
	if (!priv) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	cs_etm_info_encode(&csi, priv);
	x->layout.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	x->layout.sample_id_all = true;
	/* The sideband before the queues (perf looks a queue's thread up
	 * when its trace arrives); the queues before the attrs (which have an
	 * id per queue). */
	if ((err = export_sideband_records(x)) || (err = etm_queues(x)))
		goto out;
	export_make_attrs(x, attrs, ids);
	attrs[0].attr.type = EXPORT_CS_ETM_PMU_TYPE;
	attrs[0].attr.config = etm_pmu_config(&csi);
	if ((err = perf_data_writer_create(path, attrs, 2, &x->w)) ||
	    (err = perf_data_write_auxtrace_info(x->w, PERF_AUXTRACE_CS_ETM,
						 priv, npriv)) ||
	    (err = export_write_pending(x)) ||
	    (err = perf_data_write_finished_round(x->w)) ||
	    (err = export_features(x, attrs)))
		goto out;
	err = perf_data_writer_finish(x->w);
	x->w = NULL;
out:
	cs_etm_info_release(&csi);
	free(priv);
	free(ids);
	return err;
}

/* ------------------------------------------------------------ the table */

static unsigned cs_nrcpus(const struct export *x)
{
	return x->ncpus;
}

static bool cs_cpuid(const struct export *x, char *buf, size_t size)
{
	return false;
}

static const char *const cs_etm_formats[] = { "etm4", "ete", NULL };

/* CoreSight ETM as perf record -e cs_etm//u --per-thread writes it. */
const struct aux_export_ops perf_export_cs_etm = {
	.trace_formats = cs_etm_formats,
	.event = "cs_etm//u",
	.arch = "aarch64",
	.threads_are_trace_units = true,
	.nrcpus = cs_nrcpus,
	.cpuid = cs_cpuid,
	.write = export_cs_etm,
};
