/* hwt-backend.h: the hwt(4) trace backends hwtrecord knows, as a table.
 *
 * A backend has hwt's name for it (ALLOC's backend_name), the module that
 * registers it, the trace format it writes (the manifest's trace_format), how
 * to build the SET_CONFIG blob that starts user-space branch tracing, and
 * where its trace lands:
 *   - "pt" (Intel PT, amd64): a buffer per thread, each thread's raw trace,
 *     a BUFFER record at every filled page.
 *   - "coresight" (Arm ETMv4, arm64): every CPU's trace unit feeds one
 *     TMC-ETR through the funnel, and the backend points the ETR at thread
 *     0's buffer: one circular buffer of CoreSight formatter frames holds
 *     every thread, each under its own trace ID (hwt index + 1, programmed at
 *     every switch-in).  No BUFFER records: BUFPTR_GET reads the ETR's write
 *     pointer.  The decoder's view of the trace units (ID registers from the
 *     ETM driver's sysctls, TRCCONFIGR from the configuration) comes from
 *     trace_unit().
 */
#ifndef HWT_BACKEND_H
#define HWT_BACKEND_H

#include "hwt-sys.h"

#include <stdbool.h>
#include <stddef.h>

struct hwt_backend {
	const char *name;		/* hwt's backend name */
	const char *module;		/* kldload MODULE */
	const char *trace_format;	/* "intel-pt", "etm4" */
	const char *arch;		/* the recording's arch */
	/* One buffer (thread 0's) holds every thread's trace, as CoreSight
	 * frames; its write position is only known by asking. */
	bool shared_buffer;
	/* The SET_CONFIG blob into BUF (SIZE bytes): its size, or 0. */
	size_t (*config)(void *buf, size_t size, int *version);
	/* ETM backends: the trace unit as the decoder must see it, under the
	 * configuration CONFIG (SIZE bytes, from config()); trace_id and
	 * trctraceidr are left for each thread.  0, or -1 with WHY. */
	int (*trace_unit)(const struct hwt_sys *sys, const void *config,
			  size_t size, struct hwtr_etm_config *etm, char *why,
			  size_t whysize);
};

/* The backend named NAME, or NULL. */
const struct hwt_backend *hwt_backend_find(const char *name);
/* The backend for this machine's architecture ("pt" on amd64, "coresight"
 * on arm64). */
const struct hwt_backend *hwt_backend_default(void);
/* "pt, coresight", for messages. */
const char *hwt_backend_names(void);

#endif
