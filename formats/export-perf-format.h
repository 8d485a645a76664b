/* export-perf-format.h: what the perf.data exporter (export-perf.c) shares
 * with the files of its AUX formats (export-perf-cs-etm.c): the export's
 * state, the format's ops table and the helpers both use.  Internal to
 * formats/; the exporter's interface is export-perf.h. */
#ifndef HWTREC_EXPORT_PERF_FORMAT_H
#define HWTREC_EXPORT_PERF_FORMAT_H

#include "export-perf.h"
#include "hwtrecord.h"
#include "perf-data.h"
#include "pt-packets.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ID_PT 1000
#define ID_DUMMY 2000
#define AUXTRACE_CHUNK (1u << 20)	/* bytes per AUXTRACE record */
#define NO_CPU UINT32_MAX
/* perf looks code up in a process's maps: a recording that names no
 * process (an OpenCSD snapshot) is exported as this one. */
#define STANDIN_PID 1

/* A record to write, or (queue) the place of an AUX queue's trace. */
struct pending {
	uint64_t tsc;
	uint64_t seq;
	int which;		/* 0: the intel_pt event, 1: dummy, 2: a queue */
	unsigned index;		/* thread index (per-thread) or CPU */
	struct perf_rec rec;
};

/* An AUX queue: a thread's or a CPU's trace, cut into AUXTRACE records at
 * AUXTRACE_CHUNK bytes (between packets if WHOLE_PACKETS) and at losses
 * (CUTS). */
struct queue {
	uint32_t tid;		/* per-thread, else UINT32_MAX */
	uint32_t cpu;		/* per-CPU, else NO_CPU */
	const uint8_t *bytes;
	size_t size;
	struct pt_out rewritten;	/* BYTES when the trace was rewritten */
	bool whole_packets;	/* PT: records end between packets */
	uint64_t *cuts;		/* loss offsets, sorted, once each */
	size_t ncuts;
	uint64_t reference;	/* AUXTRACE reference: a TSC at or after the
				 * trace's (perf completes the 7-byte TSC
				 * packets from it) */
};

struct aux_export_ops;

struct export {
	const struct hwtr_recording *rec;
	const struct hwtr_recording_info *info;
	uint32_t pid;		/* the recording's, or STANDIN_PID */
	const struct aux_export_ops *aux;	/* the recording's trace format */
	const struct export_options *opt;
	FILE *err;
	struct perf_data_writer *w;
	struct perf_rec_layout layout;
	struct perf_tsc_conv tc;
	unsigned nqueues;	/* threads or CPUs (ETM: streams) */
	unsigned ncpus;		/* ETM: CPU numbers given to trace units */
	struct queue *queues;
	struct pending *pend;
	size_t npend, cap_pend;
	char **owned;		/* strings the pending records point to */
	size_t nowned;
};

/* What differs between AUX formats when a recording becomes a perf.data:
 * the event perf names, the machine the file says it comes from, and the
 * writing of the trace (AUXTRACE_INFO, queues); the sideband, the pending
 * records and the features are the same for all.  Another format (Arm SPE)
 * is one more file holding its table, listed in aux_exports (export-perf.c). */
struct aux_export_ops {
	const char *const *trace_formats;	/* the manifest's, NULL-ended */
	const char *event;			/* perf's event name */
	const char *arch;			/* PERF_FEAT_ARCH */
	/* The recording's threads are trace units, not the process's threads
	 * (their starts and exits are not written; their records keep the
	 * unit's CPU). */
	bool threads_are_trace_units;
	/* NRCPUS: the CPUs the file's trace ran on. */
	unsigned (*nrcpus)(const struct export *x);
	/* CPUID into BUF, or false when the file has none. */
	bool (*cpuid)(const struct export *x, char *buf, size_t size);
	/* Write the file at PATH. */
	int (*write)(struct export *x, const char *path);
};

/* The AUX formats other than Intel PT (whose table is in export-perf.c). */
extern const struct aux_export_ops perf_export_cs_etm;

/* Record R to be written at TSC: WHICH 0 the trace event's, 1 the dummy
 * event's, 2 the place of queue INDEX's trace. */
int export_add_pending(struct export *x, uint64_t tsc, int which,
		       unsigned index, const struct perf_rec *r);

/* The pending records in time order, each queue's trace at its place. */
int export_write_pending(struct export *x);

/* The recording's sideband as pending records. */
int export_sideband_records(struct export *x);

/* Q's cuts: the loss events, as stream offsets from START, of thread TID
 * or (STREAM not NULL) of every thread whose trace is in STREAM. */
int export_queue_losses(const struct export *x, struct queue *q,
			const char *stream, uint32_t tid, uint64_t start);

/* Calls FN for each AUXTRACE record of Q: offset, size, truncated. */
int export_queue_chunks(const struct queue *q,
			int (*fn)(void *ctx, uint64_t off, uint64_t size,
				  bool truncated), void *ctx);

/* An AUX queue's place in the pending records, for export_aux_record. */
struct aux_ctx {
	struct export *x;
	unsigned index;
	uint64_t tsc;
	uint64_t flags;		/* PERF_AUX_FLAG_* every record has */
	uint32_t cpu;		/* the sample's CPU */
};

/* The AUX record the kernel writes for each piece of trace it adds (a
 * queue_chunks FN over a struct aux_ctx). */
int export_aux_record(void *ctx, uint64_t off, uint64_t size, bool truncated);

/* The two events' attributes (the trace event, dummy:u) with IDS. */
void export_make_attrs(const struct export *x, struct perf_data_writer_attr *a,
		       uint64_t *ids);

/* The feature sections perf reads. */
int export_features(struct export *x, const struct perf_data_writer_attr *attrs);

#endif /* HWTREC_EXPORT_PERF_FORMAT_H */
