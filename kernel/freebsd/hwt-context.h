/* hwt-context.h: one hwt(4) context in thread mode, seen from its owner.
 *
 * The context's life is a state machine, and hwt_ctx_start() is the only
 * place that issues HWT_IOC_START: it refuses unless the context is
 * CONFIGURED, which only a successful HWT_IOC_SET_CONFIG with a non-empty
 * configuration makes it.  START without SET_CONFIG crashes a FreeBSD kernel
 * (pt_backend_configure reads ctx->config without a NULL check at the first
 * switch-in), so it must be impossible here, not merely avoided.
 *
 *   NONE -alloc-> ALLOCATED -configure-> CONFIGURED -start-> RUNNING
 *                                  ^ configure (again) |        | stop
 *                                  +-------------------+     STOPPED
 *
 * Every failing call leaves a message in hwt_ctx_error() that names the call
 * and the cause in the terms of the user's system (module not loaded,
 * permission, no such process, another tracer ...).
 */
#ifndef HWT_CONTEXT_H
#define HWT_CONTEXT_H

#include "hwt-abi.h"
#include "hwt-sys.h"

#include <stdbool.h>
#include <stddef.h>

enum hwt_ctx_state {
	HWT_CTX_NONE,
	HWT_CTX_ALLOCATED,
	HWT_CTX_CONFIGURED,
	HWT_CTX_RUNNING,
	HWT_CTX_STOPPED,
};

struct hwt_ctx;

/* Open /dev/hwt and allocate a thread-mode context for PID with BUFSIZE bytes
 * per thread on BACKEND.  On failure *ctx is NULL and MSG says why. */
int hwt_ctx_alloc(const struct hwt_sys *sys, pid_t pid, size_t bufsize,
		  const char *backend, struct hwt_ctx **ctx, char *msg,
		  size_t msgsize);
void hwt_ctx_free(struct hwt_ctx *ctx);

const char *hwt_ctx_error(const struct hwt_ctx *ctx);
enum hwt_ctx_state hwt_ctx_state(const struct hwt_ctx *ctx);
int hwt_ctx_ident(const struct hwt_ctx *ctx);
size_t hwt_ctx_bufsize(const struct hwt_ctx *ctx);

/* Open and map thread INDEX's buffer (read-only, shared, whole); once. */
int hwt_ctx_map(struct hwt_ctx *ctx, int index, const void **buffer);
bool hwt_ctx_mapped(const struct hwt_ctx *ctx, int index);

/* HWT_IOC_SET_CONFIG: CONFIG (SIZE bytes, 1..page) is the backend's. */
int hwt_ctx_configure(struct hwt_ctx *ctx, bool pause_on_mmap,
		      const void *config, size_t size, int version);
/* HWT_IOC_START, from CONFIGURED only. */
int hwt_ctx_start(struct hwt_ctx *ctx);
int hwt_ctx_stop(struct hwt_ctx *ctx);

/* HWT_IOC_RECORD_GET into RECORDS (room for MAX, 1..1024): how many, or -1.
 * With WAIT it sleeps until there are records or a signal arrives. */
int hwt_ctx_records(struct hwt_ctx *ctx, struct hwt_abi_record *records,
		    int max, bool wait);
/* HWT_IOC_BUFPTR_GET: thread INDEX's write position as a buffer offset. */
int hwt_ctx_bufptr(struct hwt_ctx *ctx, int index, uint64_t *position);
/* Thread INDEX's open node, or -1. */
int hwt_node_fd(const struct hwt_ctx *ctx, int index);
/* HWT_IOC_BUFPTR_GET on node FD, touching no context (for another thread
 * of the owner): 0, or the errno. */
int hwt_node_bufptr(const struct hwt_sys *sys, int fd, uint64_t *position);
/* HWT_IOC_WAKEUP: release thread INDEX if it is paused at an mmap or exec. */
int hwt_ctx_wakeup(struct hwt_ctx *ctx, int index);

/* How many HWT_IOC_START the context issued (tests check it). */
unsigned hwt_ctx_starts(const struct hwt_ctx *ctx);

#endif
