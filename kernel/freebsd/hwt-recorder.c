/* hwt-recorder.c: recording one process through hwt(4) thread mode.
 *
 * Starting a program (as hwt(8) does, plus one step):
 *   1. socketpair and fork; the child says "+" and waits.
 *   2. ALLOC a thread-mode context for the child, open and map thread 0's
 *      buffer, SET_CONFIG with pause_on_mmap set.
 *   3. Say "!": the child execs the program.  The exec hook queues an
 *      EXECUTABLE record and, because of pause_on_mmap, holds the thread
 *      before the program's first instruction.
 *   4. On the EXECUTABLE record: START (the context is CONFIGURED; START
 *      before SET_CONFIG would crash the kernel, hwt-context.c makes it
 *      impossible), then WAKEUP.  The trace so begins at the program's first
 *      instruction: starting before the exec would trace the child's last
 *      steps in our own code, which no sideband describes.
 * Attaching (-p): ALLOC, SET_CONFIG without pausing, START; the mappings that
 * already exist come from the process's VM map.
 *
 * Then until the process ends: RECORD_GET (waiting; SIGCHLD and a 20 ms
 * timer end the wait), and for each record: THREAD_CREATE opens and maps the
 * new thread's buffer and names it (hwt-lwps.c); BUFFER moves that thread's
 * known write position (the coresight backend sends none: thread 0's buffer
 * is the ETR's, holding every thread's frames under trace ID index + 1, and
 * its write pointer is read with BUFPTR_GET before and after every copy); EXECUTABLE and MMAP refresh the executable mappings
 * from the VM map (the thread that mapped is held until WAKEUP, so the
 * mapping is there to be read; records carry no length or file offset) and
 * release the thread.  After each batch every thread's new bytes are copied
 * out (hwt-drain.c); a copy ends with a RECORD_GET that looks for newer
 * positions, and what that reports is copied before the next round's
 * RECORD_GET: with one traced thread the bytes not yet copied never span
 * more than two fetches' worth of writing (with N threads copied in turn,
 * each copy's RECORD_GET lets the others on: up to N + 1).  When the
 * process has ended, BUFPTR_GET gives each
 * thread's final position and the last bytes are copied.
 *
 * Not done: following fork children (hwt contexts are per process), CPU
 * mode, address-range filters (--from), more than 0x6f threads with the
 * coresight backend (trace IDs from 0x70 are reserved).
 */
#define _GNU_SOURCE
#include "hwt-recorder.h"
#include "hwt-bufpoll.h"
#include "hwt-context.h"
#include "hwt-drain.h"
#include "hwt-lwps.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_RECORDER 125
#define BATCH 1024
#define MAX_LISTED 4096
/* Listings tried for one settled view of the threads (name_threads). */
#define SETTLE_TRIES 8
/* After the exec (the child's end of the socket closed), how long the
 * EXECUTABLE record may take before we conclude there are no hooks. */
#define EXEC_RECORD_TIMEOUT 5.0
/* A TMC-ETR writes CoreSight formatter frames of 16 bytes. */
#define ETR_FRAME 16
/* How often a shared buffer's write pointer is read (hwt-bufpoll.h). */
#define BUFPOLL_US 1000

struct rthread {
	struct recorder *rec;
	int index;
	uint32_t tid;
	bool named;
	struct hwt_drain *drain;	/* NULL: its trace is in thread 0's */
};

enum phase { WAIT_EXEC, RUNNING, ENDED };

/* A loss in a shared buffer: every thread's trace is cut there. */
struct shared_loss {
	uint64_t offset, len;
	char *reason;
};

struct recorder {
	const struct hwt_recorder_options *o;
	const struct hwt_sys *sys;
	const struct hwt_recorder_sink *sink;
	struct hwt_recorder_result *res;
	struct hwt_ctx *ctx;
	struct hwt_lwps *lwps;
	struct rthread **threads;	/* by index */
	size_t nthreads;
	struct hwt_vm_entry *known;	/* executable file mappings reported */
	size_t nknown;
	struct hwt_abi_record *batch;
	uint8_t config[HWT_ABI_MAXCONFIGSIZE];	/* the SET_CONFIG blob */
	size_t config_size;
	int config_version;
	struct hwtr_etm_config etm;	/* ETM backends: the trace unit */
	struct hwt_bufpoll *poll;	/* a shared buffer's write pointer */
	struct shared_loss *losses;	/* a shared buffer's, so far */
	size_t nlosses;
	enum phase phase;
	uint64_t page;
	int failed;			/* sticky: the recording failed */
	bool naming;			/* in name_threads() */
	double t_start;
};

static volatile sig_atomic_t interrupted;

void hwt_record_interrupt(void)
{
	interrupted = 1;
}

static void on_signal(int sig)
{
	(void)sig;	/* only ends a sleeping RECORD_GET */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(struct recorder *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failed) {
		va_start(ap, fmt);
		vsnprintf(r->res->msg, sizeof(r->res->msg), fmt, ap);
		va_end(ap);
	}
	r->failed = 1;
	return -1;
}

/* ------------------------------------------------------------- threads */

static int thread_bytes(void *ctx, const void *bytes, size_t size)
{
	struct rthread *t = ctx;

	return t->rec->sink->trace(t->rec->sink->ctx, t->tid, bytes, size);
}

/* A shared buffer's loss is every thread's: each gets the loss event
 * (the decoder breaks a thread's trace at its own losses), those named
 * later too (name_threads). */
static int thread_loss(void *ctx, uint64_t offset, uint64_t len,
		       const char *reason)
{
	struct rthread *t = ctx;
	struct recorder *r = t->rec;
	struct shared_loss *v;
	size_t i;
	int err;

	if (!r->o->backend->shared_buffer)
		return r->sink->loss(r->sink->ctx, t->tid, offset, len, reason);
	v = realloc(r->losses, (r->nlosses + 1) * sizeof(*v));
	if (!v)
		return -hwtr_err_nomem;
	r->losses = v;
	v[r->nlosses] = (struct shared_loss){ offset, len, strdup(reason) };
	if (!v[r->nlosses].reason)
		return -hwtr_err_nomem;
	r->nlosses++;
	for (i = 0; i < r->nthreads; i++)
		if (r->threads[i] && r->threads[i]->named &&
		    (err = r->sink->loss(r->sink->ctx, r->threads[i]->tid, offset,
					 len, reason)))
			return err;
	return 0;
}

static int add_thread(struct recorder *r, int index)
{
	struct rthread *t;
	const void *buffer;
	struct hwt_drain_sink ds = {
		.bytes = thread_bytes, .loss = thread_loss,
	};

	if (index < 0)
		return fail(r, "a THREAD_CREATE record names thread %d", index);
	if ((size_t)index < r->nthreads && r->threads[index])
		return 0;
	if ((size_t)index >= r->nthreads) {
		size_t n = (size_t)index + 1;
		struct rthread **v = realloc(r->threads, n * sizeof(*v));

		if (!v)
			return fail(r, "out of memory");
		memset(v + r->nthreads, 0, (n - r->nthreads) * sizeof(*v));
		r->threads = v;
		r->nthreads = n;
	}
	if (r->o->backend->shared_buffer &&
	    HWT_ABI_ETM_TRACE_ID(index) > HWT_ABI_ETM_MAX_TRACE_ID)
		return fail(r, "thread %d would trace under ID 0x%x, which "
			    "CoreSight reserves: hwtrecord cannot tell its trace "
			    "apart", index, HWT_ABI_ETM_TRACE_ID(index));
	t = calloc(1, sizeof(*t));
	if (!t)
		return fail(r, "out of memory");
	t->rec = r;
	t->index = index;
	ds.ctx = t;
	/* A shared buffer is thread 0's; the others' are never written. */
	if (index == 0 || !r->o->backend->shared_buffer) {
		int err;

		if (hwt_ctx_map(r->ctx, index, &buffer) < 0) {
			free(t);
			return fail(r, "%s", hwt_ctx_error(r->ctx));
		}
		err = r->o->backend->shared_buffer
			      ? hwt_drain_new_frames(buffer, hwt_ctx_bufsize(r->ctx),
						     ETR_FRAME, &ds, &t->drain)
			      : hwt_drain_new(buffer, hwt_ctx_bufsize(r->ctx), &ds,
					      &t->drain);
		if (err < 0) {
			free(t);
			return fail(r, "out of memory");
		}
		/* No BUFFER records will say where the ETR writes: follow
		 * its pointer from now on. */
		if (r->o->backend->shared_buffer &&
		    (err = hwt_bufpoll_start(r->sys, hwt_node_fd(r->ctx, index),
					     hwt_ctx_bufsize(r->ctx), BUFPOLL_US,
					     &r->poll))) {
			hwt_drain_free(t->drain);
			free(t);
			return fail(r, "following the trace buffer's write "
				    "pointer (HWT_IOC_BUFPTR_GET): %s",
				    strerror(err));
		}
	}
	r->threads[index] = t;
	if (hwt_lwps_created(r->lwps, index) < 0)
		return fail(r, "out of memory");
	return 0;
}

static int get_records(struct recorder *r, bool wait);

/* Name the threads whose THREAD_CREATE came, from the process's thread
 * list; the recording gets each thread once it has a name.  A listing
 * counts only when the records read after it bring no THREAD_CREATE
 * (hwt-lwps.h): under a burst of thread creations, list again a few times,
 * then leave the rest to the next round.  GIVE_UP (the process has ended):
 * what cannot be named is named by index. */
static int name_threads(struct recorder *r, bool give_up)
{
	uint32_t *tids;
	size_t n = 0, i, k;
	int tries, got;

	if (r->naming)
		return 0;	/* a record read below: the loop lists again */
	tids = malloc(MAX_LISTED * sizeof(*tids));
	if (!tids)
		return fail(r, "out of memory");
	r->naming = true;
	for (tries = 0; tries < SETTLE_TRIES && !r->failed; tries++) {
		/* A process that is gone has no threads to list. */
		if (r->sys->threads(r->res->pid, tids, MAX_LISTED, &n) < 0)
			n = 0;
		if (hwt_lwps_listed(r->lwps, tids, n) < 0) {
			fail(r, "out of memory");
			break;
		}
		got = get_records(r, false);
		if (got < 0)
			break;
		if (got < BATCH && hwt_lwps_settle(r->lwps))
			break;
	}
	r->naming = false;
	free(tids);
	if (r->failed)
		return -1;
	if (give_up)
		hwt_lwps_give_up(r->lwps);
	for (i = 0; i < r->nthreads; i++) {
		struct rthread *t = r->threads[i];
		struct hwtr_etm_config etm = r->etm;

		if (!t || t->named || !hwt_lwps_name(r->lwps, t->index, &t->tid))
			continue;
		t->named = true;
		r->res->threads++;
		/* What the backend writes to TRCTRACEIDR at its switch-in. */
		etm.trace_id = (uint8_t)HWT_ABI_ETM_TRACE_ID(t->index);
		etm.trctraceidr = etm.trace_id;
		if (r->sink->thread(r->sink->ctx, t->tid,
				    r->o->backend->trace_unit ? &etm : NULL) < 0)
			return fail(r, "%s", hwtr_last_error());
		/* The shared buffer's losses so far cut its trace too. */
		for (k = 0; k < r->nlosses; k++)
			if (r->sink->loss(r->sink->ctx, t->tid, r->losses[k].offset,
					  r->losses[k].len, r->losses[k].reason) < 0)
				return fail(r, "%s", hwtr_last_error());
	}
	return 0;
}

/* ------------------------------------------------------------ mappings */

static bool same_mapping(const struct hwt_vm_entry *a,
			 const struct hwt_vm_entry *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && !strcmp(a->path, b->path);
}

/* Report the executable file mappings that are new since the last look,
 * and the end of those that are gone. */
static int refresh_mappings(struct recorder *r)
{
	struct hwt_vm_entry *v = NULL, *keep;
	size_t n = 0, nkeep = 0, i, j;

	if (r->sys->vmmap(r->res->pid, &v, &n) < 0)
		return 0;	/* the process is gone: nothing more runs */
	keep = calloc(n + 1, sizeof(*keep));
	if (!keep) {
		free(v);
		return fail(r, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!(v[i].prot & HWTR_PROT_EXEC) || !v[i].path[0])
			continue;
		for (j = 0; j < r->nknown; j++)
			if (same_mapping(&r->known[j], &v[i]))
				break;
		if (j == r->nknown && r->sink->mmap(r->sink->ctx, &v[i]) < 0) {
			free(v);
			free(keep);
			return fail(r, "%s", hwtr_last_error());
		}
		keep[nkeep++] = v[i];
	}
	for (j = 0; j < r->nknown; j++) {
		for (i = 0; i < nkeep; i++)
			if (same_mapping(&r->known[j], &keep[i]))
				break;
		if (i == nkeep &&
		    r->sink->munmap(r->sink->ctx, r->known[j].start,
				    r->known[j].end - r->known[j].start) < 0) {
			free(v);
			free(keep);
			return fail(r, "%s", hwtr_last_error());
		}
	}
	free(r->known);
	free(v);
	r->known = keep;
	r->nknown = nkeep;
	return 0;
}

static int start(struct recorder *r)
{
	if (hwt_ctx_start(r->ctx) < 0)
		return fail(r, "%s", hwt_ctx_error(r->ctx));
	r->phase = RUNNING;
	r->res->traced = true;
	r->t_start = now();
	return 0;
}

/* Release whichever thread is held at an mmap or exec (records do not say
 * which; waking one that is not held does nothing). */
static void wake_all(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nthreads; i++)
		if (r->threads[i])
			hwt_ctx_wakeup(r->ctx, (int)i);
}

/* ------------------------------------------------------------- records */

static int process(struct recorder *r, const struct hwt_abi_record *recs,
		   int n)
{
	bool names = false, wake = false;
	int i;

	for (i = 0; i < n && !r->failed; i++) {
		const struct hwt_abi_record *rec = &recs[i];

		r->res->records++;
		switch (rec->record_type) {
		case HWT_ABI_RECORD_THREAD_CREATE:
			add_thread(r, rec->thread_id);
			names = true;
			break;
		case HWT_ABI_RECORD_BUFFER:
			if (rec->buf_id >= 0 && (size_t)rec->buf_id < r->nthreads &&
			    r->threads[rec->buf_id] && r->threads[rec->buf_id]->drain)
				hwt_drain_observe(r->threads[rec->buf_id]->drain,
						  (uint64_t)rec->curpage * r->page +
							  rec->offset);
			break;
		case HWT_ABI_RECORD_EXECUTABLE: {
			char path[HWT_ABI_MAXPATHLEN + 1];

			memcpy(path, rec->fullpath, HWT_ABI_MAXPATHLEN);
			path[HWT_ABI_MAXPATHLEN] = 0;
			wake = true;
			if (r->phase == WAIT_EXEC && start(r) < 0)
				break;
			if (r->sink->exec(r->sink->ctx, path) < 0) {
				fail(r, "%s", hwtr_last_error());
				break;
			}
			r->nknown = 0;	/* the exec ended every mapping */
			refresh_mappings(r);
			break;
		}
		case HWT_ABI_RECORD_MMAP:
			wake = true;
			if (r->phase != WAIT_EXEC)
				refresh_mappings(r);
			break;
		default:	/* KERNEL, MUNMAP, THREAD_SET_NAME: none here */
			break;
		}
	}
	if (names && !r->failed)
		name_threads(r, false);
	if (wake)
		wake_all(r);
	return r->failed ? -1 : 0;
}

/* One RECORD_GET and what it brought: how many records, or -1. */
static int get_records(struct recorder *r, bool wait)
{
	int n = hwt_ctx_records(r->ctx, r->batch, BATCH, wait);

	if (n < 0)
		return fail(r, "%s", hwt_ctx_error(r->ctx));
	if (process(r, r->batch, n) < 0)
		return -1;
	return n;
}

static void recheck(void *ctx)
{
	get_records(ctx, false);
}

/* A shared buffer's write position: the ETR's write pointer, read now and
 * counted by the poller, which has followed it round the buffer. */
static void observe_bufptr(struct recorder *r, struct rthread *t)
{
	int err = hwt_bufpoll_now(r->poll);

	if (err)
		fail(r, "HWT_IOC_BUFPTR_GET on thread 0's node: %s",
		     strerror(err));
	else
		hwt_drain_observe_written(t->drain,
					  hwt_bufpoll_written(r->poll, NULL));
}

static void recheck_bufptr(void *ctx)
{
	struct recorder *r = ctx;

	observe_bufptr(r, r->threads[0]);
}

/* Copy every thread's new bytes; MARGIN as hwt_drain_copy's.  A shared
 * buffer is exact (the write pointer itself): no margin, but its position is
 * read before the copy and again after it. */
static int copy_all(struct recorder *r, uint64_t margin, bool final)
{
	bool shared = r->o->backend->shared_buffer;
	size_t i;

	for (i = 0; i < r->nthreads && !r->failed; i++) {
		struct rthread *t = r->threads[i];

		if (!t || !t->named || !t->drain)
			continue;
		if (shared && !final)
			observe_bufptr(r, t);
		if (r->failed || !hwt_drain_pending(t->drain))
			continue;
		if (hwt_drain_copy(t->drain, shared ? 0 : margin,
				   final ? NULL : shared ? recheck_bufptr : recheck,
				   r) < 0)
			return fail(r, "thread %u: writing its trace failed: %s",
				    t->tid, hwtr_last_error());
	}
	return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------- process */

/* The child: wait for "!", then become the program.  On failure it sends
 * 'e' and errno, and exits as a shell would. */
static void child(const struct hwt_recorder_options *o, int fd)
{
	char c = 0;
	int err;

	if (write(fd, "+", 1) != 1 || read(fd, &c, 1) != 1 || c != '!')
		_exit(EXIT_RECORDER);
	o->sys->exec(o->program, o->argv);
	err = errno;
	if (write(fd, "e", 1) == 1 && write(fd, &err, sizeof(err)) < 0)
		err = errno;	/* the recorder will not know why */
	_exit(err == ENOENT ? 127 : 126);
}

static pid_t spawn(struct recorder *r, int *sock)
{
	int sv[2];
	pid_t pid;
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		fail(r, "socketpair: %s", strerror(errno));
		return -1;
	}
	fcntl(sv[0], F_SETFD, FD_CLOEXEC);
	fcntl(sv[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fail(r, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		child(r->o, sv[1]);
	}
	close(sv[1]);
	if (read(sv[0], &c, 1) != 1 || c != '+') {
		fail(r, "the child process did not start");
		close(sv[0]);
		r->sys->waitpid(pid, NULL, 0);
		return -1;
	}
	*sock = sv[0];
	return pid;
}

/* What the child says after "!": 0 nothing yet, 1 it exec'ed (its end of
 * the socket closed), -1 the exec failed (errno in *err). */
static int child_news(int sock, int *err)
{
	char c;
	ssize_t n = recv(sock, &c, 1, MSG_DONTWAIT);

	if (n == 0)
		return 1;
	if (n < 0)
		return 0;
	if (c == 'e' && recv(sock, err, sizeof(*err), MSG_WAITALL) ==
				(ssize_t)sizeof(*err))
		return -1;
	return 1;
}

static bool process_gone(struct recorder *r, bool child_of_ours)
{
	uint32_t tid;
	size_t n = 0;

	if (child_of_ours) {
		pid_t p = r->sys->waitpid(r->res->pid, &r->res->status, WNOHANG);

		if (p == r->res->pid) {
			r->res->ended = true;
			return true;
		}
		return false;
	}
	return r->sys->threads(r->res->pid, &tid, 1, &n) < 0 || n == 0;
}

static int configure(struct recorder *r, bool pause_on_mmap)
{
	if (hwt_ctx_configure(r->ctx, pause_on_mmap, r->config, r->config_size,
			      r->config_version) < 0)
		return fail(r, "%s", hwt_ctx_error(r->ctx));
	return 0;
}

static int alloc(struct recorder *r, pid_t pid)
{
	const struct hwt_backend *b = r->o->backend;
	struct hwtr_pt_config pt;
	char msg[768];

	memset(&pt, 0, sizeof(pt));
	if (!r->sys->cpu(b->name, &pt, msg, sizeof(msg)))
		return fail(r, "unsupported CPU: %s", msg);
	r->config_size = b->config(r->config, sizeof(r->config),
				   &r->config_version);
	if (!r->config_size)
		return fail(r, "the %s backend has no configuration", b->name);
	if (hwt_ctx_alloc(r->sys, pid, r->o->bufsize, b->name, &r->ctx, msg,
			  sizeof(msg)) < 0)
		return fail(r, "%s", msg);
	/* The decoder's view of the trace units under that configuration
	 * (after ALLOC, which says best when the backend is missing). */
	if (b->trace_unit && b->trace_unit(r->sys, r->config, r->config_size,
					   &r->etm, msg, sizeof(msg)) < 0)
		return fail(r, "%s", msg);
	if (r->sink->begin(r->sink->ctx, pid, b, &pt) < 0)
		return fail(r, "%s", hwtr_last_error());
	return 0;
}

/* Wait for the program's exec; START happens in process(). */
static int await_exec(struct recorder *r, int sock)
{
	double exec_at = 0;
	int err = 0;

	while (r->phase == WAIT_EXEC && !r->failed) {
		int news;

		if (get_records(r, true) < 0)
			return -1;
		if (r->phase != WAIT_EXEC)
			break;
		news = exec_at ? 0 : child_news(sock, &err);
		if (news < 0) {
			r->sys->waitpid(r->res->pid, &r->res->status, 0);
			r->res->exec_errno = err;
			return fail(r, "%s: %s", r->o->program, strerror(err));
		}
		if (news > 0)
			exec_at = now();
		if (process_gone(r, true))
			return fail(r, "the program ran and ended, but no "
				    "EXECUTABLE record came from its exec: the "
				    "kernel was built without options HWT_HOOKS "
				    "(hwt(4) cannot trace threads without it)");
		if (exec_at && now() - exec_at > EXEC_RECORD_TIMEOUT) {
			kill(r->res->pid, SIGKILL);
			r->sys->waitpid(r->res->pid, &r->res->status, 0);
			r->res->ended = true;
			return fail(r, "no EXECUTABLE record %.0f s after the "
				    "program's exec: the kernel was built "
				    "without options HWT_HOOKS (hwt(4) cannot "
				    "trace threads without it); the program "
				    "was killed", EXEC_RECORD_TIMEOUT);
		}
	}
	return r->failed ? -1 : 0;
}

/* A thread buffer's bytes that a copy's recheck reported and no copy has
 * taken yet.  (A shared buffer's position is read at each copy instead.) */
static bool reported_uncopied(struct recorder *r)
{
	size_t i;

	if (r->o->backend->shared_buffer)
		return false;
	for (i = 0; i < r->nthreads; i++) {
		struct rthread *t = r->threads[i];

		if (t && t->named && t->drain && hwt_drain_pending(t->drain))
			return true;
	}
	return false;
}

static int run(struct recorder *r)
{
	bool ours = !r->o->attach;

	while (!r->failed) {
		/* Bytes the last copy's recheck reported are copied before
		 * anything else is fetched: each fetch lets the writer on, and
		 * what is not copied must stay within the buffer. */
		if (!reported_uncopied(r)) {
			int n = get_records(r, true);

			if (n < 0)
				return -1;
			if (n == BATCH)
				continue;	/* more queued: read them first */
		}
		if (copy_all(r, 2 * r->page, false) < 0)
			return -1;
		/* A burst of thread creations can outlast name_threads()'s
		 * tries; the threads it left waiting are listed again each
		 * round, not only when the next THREAD_CREATE comes (which may
		 * be after they ended).  Its fetches wait, as the loop's do,
		 * until what a recheck reported is copied. */
		if (hwt_lwps_waiting(r->lwps) && !reported_uncopied(r) &&
		    name_threads(r, false) < 0)
			return -1;
		if (process_gone(r, ours))
			break;
		if (interrupted && !ours) {
			if (hwt_ctx_stop(r->ctx) < 0)
				return fail(r, "%s", hwt_ctx_error(r->ctx));
			break;
		}
	}
	return r->failed ? -1 : 0;
}

/* The process has ended (or was let go): the last records and bytes. */
static int finish(struct recorder *r)
{
	size_t i;

	while (!r->failed && get_records(r, false) == BATCH)
		;
	for (i = 0; i < r->nthreads && !r->failed; i++) {
		struct rthread *t = r->threads[i];
		uint64_t pos;

		if (!t)
			continue;
		if (!t->named) {
			/* Its THREAD_CREATE came after the last listing. */
			name_threads(r, true);
			if (!t->named)
				continue;
		}
		if (!t->drain)
			continue;
		if (r->poll) {
			observe_bufptr(r, t);
			continue;
		}
		if (hwt_ctx_bufptr(r->ctx, t->index, &pos) < 0)
			return fail(r, "%s", hwt_ctx_error(r->ctx));
		hwt_drain_observe(t->drain, pos);
	}
	if (copy_all(r, 0, true) < 0)
		return -1;
	r->res->seconds = r->t_start ? now() - r->t_start : 0;
	for (i = 0; i < r->nthreads; i++) {
		struct rthread *t = r->threads[i];
		struct hwt_drain_stats st;

		if (!t || !t->named || !t->drain)
			continue;
		if (!r->failed && hwt_drain_finish(t->drain) < 0)
			fail(r, "thread %u: %s", t->tid, hwtr_last_error());
		hwt_drain_stats(t->drain, &st);
		r->res->written += st.written;
		r->res->kept += st.kept;
		r->res->lost += st.lost;
		r->res->losses += st.losses;
	}
	r->res->unnamed = hwt_lwps_unnamed(r->lwps);
	return r->failed ? -1 : 0;
}

static void cleanup(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nthreads; i++)
		if (r->threads[i]) {
			hwt_drain_free(r->threads[i]->drain);
			free(r->threads[i]);
		}
	hwt_bufpoll_stop(r->poll);
	for (i = 0; i < r->nlosses; i++)
		free(r->losses[i].reason);
	free(r->losses);
	free(r->threads);
	free(r->known);
	free(r->batch);
	hwt_lwps_free(r->lwps);
	hwt_ctx_free(r->ctx);
}

int hwt_record(const struct hwt_recorder_options *o,
	       const struct hwt_recorder_sink *sink,
	       struct hwt_recorder_result *res)
{
	struct recorder r = {
		.o = o, .sys = o->sys, .sink = sink, .res = res,
		.page = (uint64_t)sysconf(_SC_PAGESIZE),
	};
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	struct sigaction old_chld, old_alrm;
	struct itimerval tick = { { 0, 20000 }, { 0, 20000 } }, old_tick;
	int sock = -1;

	memset(res, 0, sizeof(*res));
	interrupted = 0;
	r.batch = calloc(BATCH, sizeof(*r.batch));
	if (!r.batch || hwt_lwps_new(&r.lwps) < 0) {
		free(r.batch);
		snprintf(res->msg, sizeof(res->msg), "out of memory");
		return -1;
	}
	/* SIGCHLD and the tick end a sleeping RECORD_GET (msleep with
	 * PCATCH); the tick also covers a SIGCHLD that came just before. */
	sigaction(SIGCHLD, &sa, &old_chld);
	sigaction(SIGALRM, &sa, &old_alrm);
	if (o->attach) {
		const void *buffer0;

		res->pid = o->attach;
		/* SET_CONFIG goes through thread 0's node: map it first. */
		if (alloc(&r, o->attach) == 0 &&
		    (hwt_ctx_map(r.ctx, 0, &buffer0) == 0 ||
		     fail(&r, "%s", hwt_ctx_error(r.ctx)) == 0) &&
		    configure(&r, false) == 0 && start(&r) == 0) {
			res->started = true;
			refresh_mappings(&r);
		}
	} else {
		const void *buffer0;

		res->pid = spawn(&r, &sock);
		if (res->pid > 0 && (alloc(&r, res->pid) < 0 ||
				     hwt_ctx_map(r.ctx, 0, &buffer0) < 0 ||
				     configure(&r, true) < 0)) {
			if (!r.failed)
				fail(&r, "%s", hwt_ctx_error(r.ctx));
			kill(res->pid, SIGKILL);
			r.sys->waitpid(res->pid, NULL, 0);
		} else if (res->pid > 0) {
			setitimer(ITIMER_REAL, &tick, &old_tick);
			if (write(sock, "!", 1) == 1) {
				res->started = true;
				await_exec(&r, sock);
			} else {
				fail(&r, "the child process went away");
			}
		}
	}
	if (res->started && !r.failed) {
		if (o->attach)
			setitimer(ITIMER_REAL, &tick, &old_tick);
		run(&r);
		if (!r.failed || r.phase == RUNNING) {
			bool failed = r.failed;

			r.failed = 0;
			finish(&r);
			r.failed |= failed;
		}
	}
	if (res->started)
		setitimer(ITIMER_REAL, &old_tick, NULL);
	if (!o->attach && res->started && !res->ended && r.failed &&
	    res->pid > 0 && !res->exec_errno) {
		/* The recording failed; the program runs on untraced. */
		r.sys->waitpid(res->pid, &res->status, 0);
		res->ended = true;
	}
	sigaction(SIGCHLD, &old_chld, NULL);
	sigaction(SIGALRM, &old_alrm, NULL);
	if (sock >= 0)
		close(sock);
	cleanup(&r);
	return r.failed ? -1 : 0;
}
