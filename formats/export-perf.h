/* export-perf.h: a recording as a perf.data file that Linux perf decodes
 * (Intel PT: perf record -e intel_pt//u; CoreSight ETM: -e cs_etm//u). */
#ifndef HWTREC_EXPORT_PERF_H
#define HWTREC_EXPORT_PERF_H

#include "hwtrecord.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum export_layout {
	EXPORT_PER_THREAD,	/* perf record --per-thread: one AUX area per thread */
	EXPORT_PER_CPU,		/* perf's default: one per CPU, with switch events */
};

struct export_options {
	enum export_layout layout;
	bool tsc;		/* timestamps (TSC packets, TIME_CONV, sample times) */
	bool snapshot;		/* snapshot mode (perf record -S, AUX overwrite) */
	unsigned ncpus;		/* per-CPU: CPUs the time slices are spread over */
};

/* The defaults for REC: per-thread, with timestamps when it has them. */
void export_options_default(const struct hwtr_recording *rec,
			    struct export_options *opt);

/* Write PATH.  Messages (errors and warnings) go to ERR; returns 0 or a
 * negative hwtr_error. */
int export_perf(const struct hwtr_recording *rec, const char *path,
		const struct export_options *opt, FILE *err);

/* The PMU type we give the intel_pt event (real machines have their own;
 * perf reads it from the file, not from this machine). */
#define EXPORT_PT_PMU_TYPE 8
#define EXPORT_CS_ETM_PMU_TYPE 9

#endif
