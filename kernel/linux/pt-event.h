/* pt-event.h: the intel_pt event of one thread: its attr, perf_event_open
 * and the mmaps of its data ring and AUX area.
 *
 * This is the only file that calls perf_event_open and mmap on a perf
 * event; it cannot run on a machine without the intel_pt PMU, so the attr
 * it builds is a function of its own (pt_event_attr, tested over fake sysfs
 * trees) and everything it maps is handed to pt-session.c, which is tested
 * over rings in memory.
 */
#ifndef HWTR_PT_EVENT_H
#define HWTR_PT_EVENT_H

#include "pmu.h"
#include "pt-session.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

struct pt_event_config {
	struct perf_pmu pmu;	/* intel_pt, from perf_pmu_read */
	bool ret_compression;	/* clear: noretcomp=1 */
	uint32_t psb_period;	/* wanted bytes between PSBs (0: default) */
	size_t data_pages;	/* data ring pages, a power of two */
	size_t aux_bytes;	/* AUX area, a power of two (halved when the
				 * mlock limit refuses it) */
};

/* The attr of a thread's event: the PMU's type; pt, branch, tsc (and
 * noretcomp, psb_period when asked and supported) placed by its format
 * files; user mode only; MMAP2/COMM/FORK/EXIT sideband with sample times.
 * ENABLE false: disabled until the next exec (enable_on_exec). */
int pt_event_attr(const struct pt_event_config *cfg, bool enable,
		  struct perf_event_attr *attr);

/* Open and map thread T->tid's event (the pt_session_ops open/close). */
int pt_event_open(const struct pt_event_config *cfg,
		  struct pt_session_thread *t, bool enable);
void pt_event_close(struct pt_session_thread *t);

#endif
