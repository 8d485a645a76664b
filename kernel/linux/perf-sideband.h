/* perf-sideband.h: perf's sideband records as a recording's events.
 *
 * The kernel tells about a traced process in records beside the trace
 * (MMAP/MMAP2, COMM, FORK, EXIT, AUX, LOST; DESIGN.md section 5); the live
 * source reads them from each event's data ring, `hwtrec import` from
 * perf.data.  Both hand every record to perf_sideband_apply(), which turns
 * those of one process into hwtr_sideband_events for the writer:
 *
 *   MMAP, MMAP2        -> mmap (build-id from MMAP2, or asked for)
 *   COMM with EXEC     -> exec
 *   FORK of a thread   -> thread_start: the caller follows the new thread
 *   EXIT of a thread   -> thread_exit
 *   AUX TRUNCATED, COLLISION, PARTIAL -> loss at the end of that AUX data
 *   LOST               -> loss where the thread's stream is now: records
 *                         were dropped, we cannot tell what they said
 *
 * Times: a record's sample time (perf's clock) becomes a TSC through the
 * event's conversion; without sample times every event gets TSC 0 and the
 * order they came in.  Records of other processes are ignored; other types
 * (ITRACE_START, SWITCH, ...) are left to the caller.
 */
#ifndef HWTR_PERF_SIDEBAND_H
#define HWTR_PERF_SIDEBAND_H

#include "hwtrecord.h"
#include "perf-record.h"
#include "perf-time.h"

#include <stdbool.h>
#include <stdint.h>

struct perf_sideband_ops {
	/* An event for the recording (strings live until the call returns). */
	int (*event)(void *ctx, const struct hwtr_sideband_event *ev);
	/* A thread of the process appeared or ended. */
	int (*thread_start)(void *ctx, uint32_t tid, uint64_t tsc);
	int (*thread_exit)(void *ctx, uint32_t tid, uint64_t tsc);
	/* The stream offset of AUX_OFFSET in thread TID's AUX area (the
	 * live source keeps them equal; an import that dropped bytes maps). */
	uint64_t (*stream_offset)(void *ctx, uint32_t tid, uint64_t aux_offset);
	/* The current end of TID's stream (where a LOST record takes effect). */
	uint64_t (*stream_end)(void *ctx, uint32_t tid);
	/* The build-id of a mapped file when the record has none: lower-case
	 * hex into BUF, or NULL.  May be NULL. */
	const char *(*build_id)(void *ctx, const char *path, char *buf,
				size_t size);
};

struct perf_sideband {
	uint32_t pid;			/* the process recorded */
	bool have_time;			/* records carry sample times */
	struct perf_tsc_conv tc;
	const struct perf_sideband_ops *ops;
	void *ctx;
	uint64_t last_tsc;		/* events never go back in time */
	uint64_t lost_records;		/* sum of LOST records */
};

void perf_sideband_init(struct perf_sideband *sb, uint32_t pid, bool have_time,
			const struct perf_tsc_conv *tc,
			const struct perf_sideband_ops *ops, void *ctx);

/* The TSC of a record (0 without times), never before the last one. */
uint64_t perf_sideband_tsc(struct perf_sideband *sb, const struct perf_rec *rec);

/* Why an AUX record with FLAGS (PERF_AUX_FLAG_*) means lost trace, in
 * words for the loss event; NULL when it does not. */
const char *perf_aux_loss_reason(uint64_t flags);

/* Apply one record; 0, or the first error of a callback. */
int perf_sideband_apply(struct perf_sideband *sb, const struct perf_rec *rec);

#endif
