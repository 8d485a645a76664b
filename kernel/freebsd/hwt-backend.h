/* hwt-backend.h: the hwt(4) trace backends hwtrecord knows, as a table.
 *
 * A backend has hwt's name for it (ALLOC's backend_name), the module that
 * registers it, the trace format it writes (the manifest's trace_format), and
 * how to build the SET_CONFIG blob that starts user-space branch tracing.
 * "pt" (Intel PT, amd64) is complete.  "coresight" (Arm ETM, arm64) is listed
 * so that the rest of the source carries a backend name rather than assuming
 * PT, but it is not ready: its configuration structure was not read from the
 * kernel, and an ETM recording needs the trace units' ID and configuration
 * registers, which hwt does not give to user space; choosing it says so.
 */
#ifndef HWT_BACKEND_H
#define HWT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

struct hwt_backend {
	const char *name;		/* hwt's backend name */
	const char *module;		/* kldload MODULE */
	const char *trace_format;	/* "intel-pt", "etm4" */
	const char *not_ready;		/* why it cannot be used yet, or NULL */
	/* The SET_CONFIG blob into BUF (SIZE bytes): its size, or 0. */
	size_t (*config)(void *buf, size_t size, int *version);
};

/* The backend named NAME, or NULL. */
const struct hwt_backend *hwt_backend_find(const char *name);
/* The backend for this machine's architecture ("pt" on amd64). */
const struct hwt_backend *hwt_backend_default(void);
/* "pt, coresight", for messages. */
const char *hwt_backend_names(void);

#endif
