/* hwt-context.c: one hwt(4) context in thread mode (see hwt-context.h).
 *
 * The context ioctls go to the node of thread 0 (any node of the context
 * would do: the kernel looks the context up through the node).  Messages say
 * what the errno means for that call in hwt(4)'s code, e.g. ENODEV from ALLOC
 * is a missing backend, which is either a module not loaded or a CPU the
 * backend refused.
 *
 * Not done: CPU mode, SVC_BUF.
 */
#include "hwt-context.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct hwt_node {
	int fd;
	const void *buffer;
};

struct hwt_ctx {
	const struct hwt_sys *sys;
	enum hwt_ctx_state state;
	pid_t pid;
	int ident;
	size_t bufsize;
	char backend[64];
	int devfd;		/* /dev/hwt */
	struct hwt_node *nodes;	/* by thread index */
	size_t nnodes;
	unsigned starts;
	char msg[768];
};

static void say(struct hwt_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct hwt_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
	va_end(ap);
}

const char *hwt_ctx_error(const struct hwt_ctx *ctx)
{
	return ctx->msg;
}

enum hwt_ctx_state hwt_ctx_state(const struct hwt_ctx *ctx)
{
	return ctx->state;
}

int hwt_ctx_ident(const struct hwt_ctx *ctx)
{
	return ctx->ident;
}

size_t hwt_ctx_bufsize(const struct hwt_ctx *ctx)
{
	return ctx->bufsize;
}

unsigned hwt_ctx_starts(const struct hwt_ctx *ctx)
{
	return ctx->starts;
}

/* Why /dev/hwt cannot be opened. */
static void explain_open(struct hwt_ctx *ctx, int err)
{
	const struct hwt_sys *sys = ctx->sys;

	if (err == ENOENT && !sys->module_loaded("hwt"))
		say(ctx, "%s does not exist: the hwt(4) module is not loaded "
		    "(kldload hwt intel_pt; the kernel must also be built with "
		    "options HWT_HOOKS)", HWT_ABI_DEV);
	else if (err == ENOENT)
		say(ctx, "%s does not exist although the hwt module is "
		    "loaded: is devfs mounted on /dev?", HWT_ABI_DEV);
	else if (err == EACCES || err == EPERM)
		say(ctx, "%s: permission denied: hwt(4)'s nodes are "
		    "root:wheel mode 0660; run as root, join group wheel, or "
		    "add a devfs rule (devfs.rules: add path 'hwt*' mode 0660 "
		    "group GROUP)", HWT_ABI_DEV);
	else
		say(ctx, "%s: %s", HWT_ABI_DEV, strerror(err));
}

/* The module that provides BACKEND, for messages. */
static const char *backend_module(const char *backend)
{
	return !strcmp(backend, "pt") ? "intel_pt" : backend;
}

static void explain_alloc(struct hwt_ctx *ctx, int err)
{
	const struct hwt_sys *sys = ctx->sys;
	const char *module = backend_module(ctx->backend);
	struct hwtr_pt_config pt;
	char why[256];

	switch (err) {
	case EINVAL:
		say(ctx, "HWT_IOC_ALLOC: the kernel refused a buffer of %zu "
		    "bytes per thread: it must be a multiple of the page size "
		    "(%ld) and at most 32 GiB (--buffer-size)", ctx->bufsize,
		    sysconf(_SC_PAGESIZE));
		break;
	case ENODEV:
		if (sys->module_loaded(module))
			say(ctx, "HWT_IOC_ALLOC: the kernel has no hwt backend "
			    "named \"%s\" although %s is loaded", ctx->backend,
			    module);
		else if (!sys->cpu(ctx->backend, &pt, why, sizeof(why)))
			say(ctx, "unsupported CPU: %s (hwt's %s backend is not "
			    "there: kldload %s fails with ENXIO on this CPU)",
			    why, ctx->backend, module);
		else
			say(ctx, "HWT_IOC_ALLOC: the %s module is not loaded, so "
			    "hwt(4) has no \"%s\" backend: kldload %s",
			    module, ctx->backend, module);
		break;
	case ENXIO:
		say(ctx, "HWT_IOC_ALLOC: no process %d", (int)ctx->pid);
		break;
	case EPERM:
		say(ctx, "HWT_IOC_ALLOC: permission denied to trace process "
		    "%d: hwt(4) requires this process's effective uid to be one "
		    "of its uids and every one of its groups to be ours (run "
		    "as its user)", (int)ctx->pid);
		break;
	case EEXIST:
		say(ctx, "HWT_IOC_ALLOC: process %d is already traced through "
		    "hwt(4) (by another hwtrec or hwt(8)); there can be one "
		    "context per process", (int)ctx->pid);
		break;
	case ENOMEM:
		say(ctx, "HWT_IOC_ALLOC: the kernel could not allocate %zu "
		    "bytes of wired trace buffer per thread; try a smaller "
		    "--buffer-size", ctx->bufsize);
		break;
	default:
		say(ctx, "HWT_IOC_ALLOC: %s", strerror(err));
	}
}

/* A context ioctl on thread INDEX's node. */
static int node_ioctl(struct hwt_ctx *ctx, int index, unsigned long request,
		      void *arg)
{
	int fd = (size_t)index < ctx->nnodes ? ctx->nodes[index].fd : -1;
	int err;

	if (fd < 0) {
		say(ctx, "%s: thread %d's node is not open",
		    hwt_abi_ioctl_name(request), index);
		errno = EBADF;
		return -1;
	}
	if (ctx->sys->ioctl(fd, request, arg) == 0)
		return 0;
	err = errno;
	if (err == EPERM)
		say(ctx, "%s on " HWT_ABI_NODE_FMT ": the context belongs to "
		    "another process (only the process that allocated it may "
		    "use it)", hwt_abi_ioctl_name(request), ctx->ident, index);
	else if (err == ENXIO)
		say(ctx, "%s on " HWT_ABI_NODE_FMT ": ENXIO (hwt(4) says so "
		    "when this process owns no context, or when the call does "
		    "not fit the context's state)", hwt_abi_ioctl_name(request),
		    ctx->ident, index);
	else
		say(ctx, "%s on " HWT_ABI_NODE_FMT ": %s",
		    hwt_abi_ioctl_name(request), ctx->ident, index,
		    strerror(err));
	errno = err;
	return -1;
}

int hwt_ctx_alloc(const struct hwt_sys *sys, pid_t pid, size_t bufsize,
		  const char *backend, struct hwt_ctx **out, char *msg,
		  size_t msgsize)
{
	struct hwt_ctx *ctx = calloc(1, sizeof(*ctx));
	struct hwt_abi_alloc alloc = {
		.bufsize = bufsize, .mode = HWT_ABI_MODE_THREAD, .pid = pid,
		.backend_name = backend, .kqueue_fd = -1,
	};

	*out = NULL;
	if (!ctx) {
		snprintf(msg, msgsize, "out of memory");
		return -1;
	}
	ctx->sys = sys;
	ctx->pid = pid;
	ctx->bufsize = bufsize;
	ctx->devfd = -1;
	snprintf(ctx->backend, sizeof(ctx->backend), "%s", backend);
	ctx->devfd = sys->open(HWT_ABI_DEV, O_RDWR);
	if (ctx->devfd < 0) {
		explain_open(ctx, errno);
		goto fail;
	}
	alloc.ident = &ctx->ident;
	if (sys->ioctl(ctx->devfd, HWT_ABI_IOC_ALLOC, &alloc) < 0) {
		explain_alloc(ctx, errno);
		goto fail;
	}
	ctx->state = HWT_CTX_ALLOCATED;
	*out = ctx;
	return 0;
fail:
	snprintf(msg, msgsize, "%s", ctx->msg);
	hwt_ctx_free(ctx);
	return -1;
}

void hwt_ctx_free(struct hwt_ctx *ctx)
{
	size_t i;

	if (!ctx)
		return;
	for (i = 0; i < ctx->nnodes; i++) {
		if (ctx->nodes[i].buffer)
			ctx->sys->munmap((void *)ctx->nodes[i].buffer,
					 ctx->bufsize);
		if (ctx->nodes[i].fd >= 0)
			ctx->sys->close(ctx->nodes[i].fd);
	}
	free(ctx->nodes);
	if (ctx->devfd >= 0)
		ctx->sys->close(ctx->devfd);
	free(ctx);
}

bool hwt_ctx_mapped(const struct hwt_ctx *ctx, int index)
{
	return index >= 0 && (size_t)index < ctx->nnodes &&
	       ctx->nodes[index].buffer;
}

int hwt_ctx_map(struct hwt_ctx *ctx, int index, const void **buffer)
{
	char path[64];
	void *p;
	int fd;

	if (index < 0) {
		say(ctx, "thread index %d is not a thread", index);
		return -1;
	}
	if (hwt_ctx_mapped(ctx, index)) {
		*buffer = ctx->nodes[index].buffer;
		return 0;
	}
	if ((size_t)index >= ctx->nnodes) {
		size_t n = (size_t)index + 1, i;
		struct hwt_node *v = realloc(ctx->nodes, n * sizeof(*v));

		if (!v) {
			say(ctx, "out of memory");
			return -1;
		}
		for (i = ctx->nnodes; i < n; i++)
			v[i] = (struct hwt_node){ .fd = -1 };
		ctx->nodes = v;
		ctx->nnodes = n;
	}
	snprintf(path, sizeof(path), HWT_ABI_NODE_FMT, ctx->ident, index);
	fd = ctx->sys->open(path, O_RDONLY);
	if (fd < 0) {
		say(ctx, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The only mapping the node allows: its whole buffer, read-only. */
	p = ctx->sys->mmap(NULL, ctx->bufsize, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		say(ctx, "mmap of %s (%zu bytes, read-only, shared): %s",
		    path, ctx->bufsize, strerror(errno));
		ctx->sys->close(fd);
		return -1;
	}
	ctx->nodes[index].fd = fd;
	ctx->nodes[index].buffer = p;
	*buffer = p;
	return 0;
}

int hwt_ctx_configure(struct hwt_ctx *ctx, bool pause_on_mmap,
		      const void *config, size_t size, int version)
{
	struct hwt_abi_set_config sc = {
		.pause_on_mmap = pause_on_mmap, .config = (void *)config,
		.config_size = size, .config_version = version,
	};

	if (ctx->state != HWT_CTX_ALLOCATED && ctx->state != HWT_CTX_CONFIGURED &&
	    ctx->state != HWT_CTX_STOPPED) {
		say(ctx, "HWT_IOC_SET_CONFIG: the context is running");
		return -1;
	}
	/* Size 0 is a silent no-op in the kernel: it would leave the context
	 * without a configuration, which START must never see. */
	if (!config || size == 0) {
		say(ctx, "HWT_IOC_SET_CONFIG: an empty configuration");
		return -1;
	}
	if (node_ioctl(ctx, 0, HWT_ABI_IOC_SET_CONFIG, &sc) < 0) {
		if (errno == EFBIG)
			say(ctx, "HWT_IOC_SET_CONFIG: a configuration of %zu "
			    "bytes is over the kernel's limit (a page)", size);
		return -1;
	}
	ctx->state = HWT_CTX_CONFIGURED;
	return 0;
}

int hwt_ctx_start(struct hwt_ctx *ctx)
{
	struct hwt_abi_reserved r = { 0 };

	if (ctx->state != HWT_CTX_CONFIGURED) {
		say(ctx, "internal error: HWT_IOC_START without a successful "
		    "HWT_IOC_SET_CONFIG first (it would crash the kernel); "
		    "not issued");
		return -1;
	}
	ctx->starts++;
	if (node_ioctl(ctx, 0, HWT_ABI_IOC_START, &r) < 0)
		return -1;
	ctx->state = HWT_CTX_RUNNING;
	return 0;
}

int hwt_ctx_stop(struct hwt_ctx *ctx)
{
	struct hwt_abi_reserved r = { 0 };

	if (ctx->state != HWT_CTX_RUNNING)
		return 0;
	if (node_ioctl(ctx, 0, HWT_ABI_IOC_STOP, &r) < 0)
		return -1;
	ctx->state = HWT_CTX_STOPPED;
	return 0;
}

int hwt_ctx_records(struct hwt_ctx *ctx, struct hwt_abi_record *records,
		    int max, bool wait)
{
	struct hwt_abi_record_get get = {
		.records = records, .nentries = &max, .wait = wait,
	};

	if (max < 1 || max > HWT_ABI_RECORD_GET_MAX) {
		say(ctx, "HWT_IOC_RECORD_GET: %d records asked (1..%d)", max,
		    HWT_ABI_RECORD_GET_MAX);
		return -1;
	}
	if (node_ioctl(ctx, 0, HWT_ABI_IOC_RECORD_GET, &get) < 0)
		return -1;
	return max;
}

static struct hwt_abi_bufptr_get bufptr_args(int *page, uintptr_t *offset,
					     uint64_t *data)
{
	return (struct hwt_abi_bufptr_get){
		.ident = page, .offset = offset, .data = data,
	};
}

int hwt_ctx_bufptr(struct hwt_ctx *ctx, int index, uint64_t *position)
{
	int page = 0;
	uintptr_t offset = 0;
	uint64_t data = 0;
	struct hwt_abi_bufptr_get get = bufptr_args(&page, &offset, &data);

	if (node_ioctl(ctx, index, HWT_ABI_IOC_BUFPTR_GET, &get) < 0)
		return -1;
	*position = (uint64_t)page * (uint64_t)sysconf(_SC_PAGESIZE) + offset;
	return 0;
}

int hwt_node_fd(const struct hwt_ctx *ctx, int index)
{
	return (size_t)index < ctx->nnodes ? ctx->nodes[index].fd : -1;
}

int hwt_node_bufptr(const struct hwt_sys *sys, int fd, uint64_t *position)
{
	int page = 0;
	uintptr_t offset = 0;
	uint64_t data = 0;
	struct hwt_abi_bufptr_get get = bufptr_args(&page, &offset, &data);

	if (sys->ioctl(fd, HWT_ABI_IOC_BUFPTR_GET, &get) < 0)
		return errno;
	*position = (uint64_t)page * (uint64_t)sysconf(_SC_PAGESIZE) + offset;
	return 0;
}

int hwt_ctx_wakeup(struct hwt_ctx *ctx, int index)
{
	struct hwt_abi_reserved r = { 0 };

	return node_ioctl(ctx, index, HWT_ABI_IOC_WAKEUP, &r);
}
