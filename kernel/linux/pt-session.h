/* pt-session.h: recording one process's Intel PT through perf_event.
 *
 * One event per thread (perf_event_open(attr, tid, cpu=-1)): per-thread
 * events cannot inherit into new threads with their own buffers, so every
 * new thread gets its own event, opened when the thread appears (the
 * recorder sees clone stops through ptrace; a FORK record in a ring does the
 * same for threads it did not see).  Each event has a data ring (sideband)
 * and an AUX area (trace) in normal mode, so nothing is overwritten
 * silently.
 *
 * pt_session_drain() copies every thread's new AUX bytes into its stream,
 * then reads every thread's data ring, puts the records of all threads in
 * time order and hands them to perf-sideband.c (mappings, exec, thread
 * start/exit, losses).  Opening and mapping an event are ops, so that all
 * of this runs in tests over rings in memory; the real ops
 * (perf_event_open, mmap) live with the recorder (perf-source.c).
 */
#ifndef HWTR_PT_SESSION_H
#define HWTR_PT_SESSION_H

#include "hwtrecord.h"
#include "aux-ring.h"
#include "data-ring.h"
#include "perf-time.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pt_session_thread {
	uint32_t tid;
	int fd;				/* the event (the ops' business) */
	struct perf_aux_ring aux;
	struct perf_data_ring data;
	struct perf_tsc_conv tc;	/* from the event's mmap page */
	void *opaque;			/* the ops' own state */
	bool exited;			/* its EXIT record was seen */
	bool closed;
};

struct pt_session_ops {
	/* Open thread T->tid's event and fill T's rings, layout and time
	 * conversion.  ENABLE: trace from now (otherwise from the next exec,
	 * enable_on_exec). */
	int (*open)(void *ctx, struct pt_session_thread *t, bool enable);
	void (*close)(void *ctx, struct pt_session_thread *t);
	/* Optional: see (and amend) each event before it is written, e.g. to
	 * attach the saved vDSO to its mapping. */
	int (*event)(void *ctx, struct hwtr_sideband_event *ev);
};

struct pt_session;

int pt_session_new(struct hwtr_writer *writer, uint32_t pid,
		   const struct pt_session_ops *ops, void *ctx,
		   struct pt_session **out);

/* Trace thread TID from now (or from exec: ENABLE false); TSC is when it
 * appeared (0: it was there before).  Following a thread twice is fine. */
int pt_session_follow(struct pt_session *s, uint32_t tid, uint64_t tsc,
		      bool enable);

/* Events go to the recording in time order.  An event the caller writes
 * itself (the vDSO it saved) takes its time from here: TSC, or the time of
 * the last event if that is later; later events do not go before it. */
uint64_t pt_session_time(struct pt_session *s, uint64_t tsc);

/* Drain every ring once (see above); threads whose EXIT was seen are
 * closed after their last bytes are drained. */
int pt_session_drain(struct pt_session *s);

/* Drain a last time and close every event. */
int pt_session_finish(struct pt_session *s);

void pt_session_free(struct pt_session *s);

size_t pt_session_nthreads(const struct pt_session *s);
const struct pt_session_thread *pt_session_thread(const struct pt_session *s,
						  size_t index);
/* Sums for the summary line. */
uint64_t pt_session_losses(const struct pt_session *s);

#endif
