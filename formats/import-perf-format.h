/* import-perf-format.h: what the perf.data importer (import-perf.c) shares
 * with the files of its AUX formats (import-perf-cs-etm.c): the import's
 * state, the format's ops table and the helpers both use.  Internal to
 * formats/; the importer's interface is import-perf.h. */
#ifndef HWTREC_IMPORT_PERF_FORMAT_H
#define HWTREC_IMPORT_PERF_FORMAT_H

#include "import-perf.h"
#include "hwtrecord.h"
#include "etm-contexts.h"
#include "perf-cs-etm.h"
#include "perf-data.h"
#include "perf-intel-pt.h"
#include "pt-packets.h"
#include "../kernel/linux/perf-sideband.h"
#include "../libhwtrecord/progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NO_TID UINT32_MAX
#define NO_CPU UINT32_MAX

struct abuf {
	uint64_t offset, size, reference;
	const uint8_t *data;
	uint64_t file_offset;
};

struct aqueue {
	uint32_t idx, tid, cpu;
	struct abuf *bufs;
	size_t n, cap;
};

struct kept_rec {
	struct perf_rec rec;
	uint64_t file_offset;
};

/* An event for the writer, in time order. */
struct item {
	uint64_t tsc, seq;
	enum { IT_EVENT, IT_THREAD_START } kind;
	struct hwtr_sideband_event ev;	/* strings owned below */
	char *path, *build_id, *saved, *reason;
};

/* A piece of a CPU's trace that belongs to one thread. */
struct piece {
	uint32_t tid;
	uint32_t cpu;
	uint64_t tsc, seq;
	uint8_t *bytes;
	size_t len;
	bool after_break;	/* trace before it on its CPU was lost */
};

struct segment {
	uint64_t aux_begin, aux_end, stream_begin;
};

struct ithread {
	uint32_t tid;
	uint64_t start_tsc;
	bool started;		/* has a thread_start item */
	struct pt_out trace;	/* assembled stream */
	struct segment *segs;	/* per-thread: AUX offset -> stream offset */
	size_t nsegs;
};

struct binary {
	char *path, *build_id;
	char *saved;		/* relative path in the recording, or NULL */
};

/* CoreSight: an AUX queue's trace as one stream of the recording. */
struct etm_stream {
	struct aqueue *queue;
	struct pt_out bytes;
	struct segment *segs;	/* AUX offset -> stream offset */
	size_t nsegs;
	bool raw;		/* one source's raw trace, not frames */
	uint32_t raw_cpu;	/* that source's CPU */
	char name[32];		/* trace/NAME */
	struct etm_loss {
		uint64_t tsc, offset, len;
		const char *reason;	/* static */
	} *losses;
	size_t nlosses;
};

/* CoreSight: a trace unit whose trace is in a stream: one thread, or one
 * per context ID. */
struct etm_source {
	size_t stream;
	struct hwtr_etm_config etm;
	char core[16];		/* "cpu_N" */
	uint32_t tid;
	struct etm_context_ids contexts;
};

struct timeline_entry {
	uint32_t cpu;
	uint64_t tsc, seq;
	uint32_t tid;
};

struct aux_import_ops;

struct imp {
	const struct import_options *opt;
	struct perf_data *pd;
	const char *path;
	struct hwtr_writer *w;
	struct intel_pt_info pti;
	bool have_info;
	const struct aux_import_ops *aux;	/* the AUXTRACE_INFO's format */
	struct cs_etm_info csi;
	bool snapshot;			/* snapshot mode (AUX overwrite) */
	struct etm_stream *estreams;
	size_t nestreams;
	struct etm_source *esources;
	size_t nesources;
	struct perf_tsc_conv tc;
	bool have_tc;
	const struct perf_data_attr *pt_attr;
	bool have_time, per_cpu;
	uint32_t pid;
	struct aqueue *queues;
	size_t nqueues;
	struct kept_rec *recs;
	size_t nrecs, cap_recs;
	struct item *items;
	size_t nitems, cap_items;
	struct ithread *threads;
	size_t nthreads;
	struct binary *bins;
	size_t nbins;
	struct timeline_entry *timeline;
	size_t ntimeline, cap_timeline;
	struct piece *pieces;
	size_t npieces, cap_pieces;
	struct perf_sideband sb;
	uint64_t skipped_types[128];	/* counts of skipped record types */
	uint64_t skipped_first[128];	/* the first offset of each */
	uint64_t unattributed;		/* per-CPU bytes with no thread */
	uint64_t undecodable;		/* bytes that were not packets */
	struct progress progress;	/* on opt->progress */
	uint64_t progress_done;		/* bytes of the current phase */
};

/* A new phase of the progress line, WHAT (static storage) over TOTAL
 * bytes of trace; the line of the phase before is erased. */
void import_progress_phase(struct imp *m, const char *what, uint64_t total);
/* BYTES more of the phase's trace are done: the line, when it is due. */
void import_progress(struct imp *m, uint64_t bytes);

/* What differs between AUX formats when a perf.data becomes a recording:
 * the AUXTRACE_INFO words, how the trace becomes the recording's threads and
 * how the recording is written.  Records, binaries and the sideband are the
 * same for all; another format (Arm SPE) is one more file holding its table,
 * listed in aux_imports (import-perf.c). */
struct aux_import_ops {
	uint32_t auxtrace_type;		/* PERF_AUXTRACE_* */
	/* Read AUXTRACE_INFO's private words into M. */
	int (*parse_info)(struct imp *m, const uint64_t *priv, size_t n);
	/* The PMU type the trace event must have. */
	uint32_t (*pmu_type)(const struct imp *m);
	/* After the common checks: snapshot mode, times, the layout. */
	int (*check)(struct imp *m);
	/* The trace into the recording's streams, before the sideband (whose
	 * losses need stream offsets). */
	int (*trace)(struct imp *m, const char *out_dir);
	/* The recording's manifest words that say which trace it holds. */
	void (*writer_format)(struct imp *m, const char *cpuid,
			      struct hwtr_writer_info *wi);
	/* After the sideband: write the recording. */
	int (*write)(struct imp *m, const char *out_dir);
	/* The recording's threads are trace units, not the process's threads
	 * (sideband thread starts, exits and losses are not theirs). */
	bool threads_are_trace_units;
	/* AUX records' truncations are placed in the streams by trace(). */
	bool places_aux_records;
};

/* The AUX formats other than Intel PT (whose table is in import-perf.c). */
extern const struct aux_import_ops perf_import_cs_etm;

/* A warning naming the file, when the caller asked for warnings. */
void import_warn(struct imp *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* qsort order of items: time, then the order they came in. */
int import_cmp_item(const void *a, const void *b);

/* Told of trace perf did not save: LEN bytes at stream OFFSET. */
typedef int (*lost_fn)(struct imp *m, void *ctx, uint64_t tsc, uint64_t offset,
		       uint64_t len, const char *reason);

/* Queue Q's AUXTRACE payloads laid end to end in OUT, in offset order, with
 * the map from AUX offsets to OUT's in SEGS. */
int import_assemble_queue(struct imp *m, struct aqueue *q, struct pt_out *out,
			  struct segment **segs, size_t *nsegs, lost_fn lost,
			  void *ctx);

/* The stream offset of AUX_OFFSET through SEGS. */
uint64_t import_segment_map(const struct segment *segs, size_t n,
			    uint64_t aux_offset);

/* The recording's writer at OUT_DIR, with the process and the format. */
int import_create_writer(struct imp *m, const char *out_dir);

#endif /* HWTREC_IMPORT_PERF_FORMAT_H */
