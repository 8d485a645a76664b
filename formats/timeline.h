/* timeline.h: a history as a Chrome / Perfetto trace-event file (the JSON
 * "Trace Event Format"), to look at in ui.perfetto.dev or chrome://tracing.
 * One track per thread, each function activation a B/E slice named by its
 * symbol, nested as the calls were; gaps and trace losses are instant
 * events that carry their reason.  Written as it goes: memory holds the
 * open activations of one thread, not the file. */
#ifndef HWTREC_TIMELINE_H
#define HWTREC_TIMELINE_H

#include "hwtrecord.h"

#include <stdint.h>
#include <stdio.h>

struct timeline_options {
	/* Activations of fewer instructions (callees included) are left
	 * out; 0 or 1 keeps every one. */
	uint64_t min_insns;
	/* A terminal for the progress line ("writing the timeline"), or
	 * NULL: none. */
	FILE *progress;
};

/* What was written, for the caller to report. */
struct timeline_counts {
	uint64_t tracks;	/* threads */
	uint64_t slices;	/* activations written */
	uint64_t dropped;	/* activations below min_insns */
	uint64_t gaps;		/* instant events */
};

/* Write HISTORY (of REC) to OUT.  Returns 0 or a negative hwtr_error with
 * hwtr_last_error() naming what failed. */
int timeline_write(struct hwtr_history *history,
		   const struct hwtr_recording *rec,
		   const struct timeline_options *opt, FILE *out,
		   struct timeline_counts *counts);

#endif
