/* standin-feed.c: what the hardware and hwt(4)'s hooks do, in the stand-in.
 *
 * The traced program runs under the hwtrec Valgrind tool (the seam's exec),
 * whose event log comes through a FIFO that ALLOC made.  A feeder thread
 * reads it (kernel/valgrind/host/event-reader.c) and acts as the kernel would:
 *   - exec hook: the tool's HELLO is the exec; the EXECUTABLE record is
 *     queued when the new image first runs (by then the mappings the kernel
 *     makes at exec, program and interpreter, are known and need no MMAP
 *     record), and with pause_on_mmap the thread is held until WAKEUP on its
 *     node.  While held, the feeder reads no further: the program is stopped
 *     as far as anything observable goes.
 *   - mmap hook: an executable file mapping after the exec queues an MMAP
 *     record (path and address only, as in the kernel) and holds likewise.
 *   - thread-create hook: a thread id not seen before gets the next hwt
 *     index, a buffer, a node and a THREAD_CREATE record.  The feeder then
 *     waits until the owner has read that record and listed the threads
 *     (or 30 s): the kernel queues the record before the new thread runs, so
 *     an owner that reacts at once sees the thread alive.  With
 *     HWT_STANDIN_THREAD_RACE=1 it does not wait, and short threads end
 *     unseen, as they can on FreeBSD.
 *   - switch-in: a thread is traced once the context is RUNNING and the
 *     configuration has User and BranchEn; its trace starts at the next
 *     TIP.PGE (user-mode entry) with a PSB+, as at the first TraceEn.  The
 *     packets are encoded with kernel/valgrind/host/pt-encoder.c with no TSC (the backend
 *     clears TSCEn), return compression on, a PSB about every 2 KiB.
 *   - ToPA: bytes go into the thread's circular buffer as each event is
 *     encoded, and the buffer overwrites without a trace; each filled page
 *     raises a PMI whose BUFFER record (page and offset read shortly after,
 *     here 32 bytes later or at the end of the write) is queued, and
 *     BUFPTR_GET's position moves then and at switch-out.  After a PMI the
 *     feeder lets go of the lock and yields, so that an owner waiting for
 *     records can run, as it could on another CPU; with HWT_STANDIN_PACED
 *     it waits for the owner to fetch them (see pace()).
 *   - thread exit and process end: the position is flushed.
 * Not modelled: the pause ending on a signal, CPU mode, address filters,
 * the sigcode page of FreeBSD (Linux's signal trampoline is in libc).
 */
#define _GNU_SOURCE
#include "standin.h"
#include "../../kernel/valgrind/host/event-reader.h"
#include "../../kernel/valgrind/event-log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PMI_LATENCY 32
#define LISTING_WAIT 30		/* seconds the thread-create hook waits */

void standin_deadline(struct timespec *ts, int seconds)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += seconds;
}

static void queue_buffer(struct sthread *t)
{
	struct sctx *ctx = t->ctx;
	uint64_t at = t->pos % ctx->bufsize;
	struct hwt_abi_record rec = { .record_type = HWT_ABI_RECORD_BUFFER };

	t->pmi_due = false;
	t->visible = t->pos;
	rec.buf_id = t->index;
	rec.curpage = (int)(at / STANDIN_PAGE);
	rec.offset = at % STANDIN_PAGE;
	t->records++;
	ctx->yield_due = true;
	standin_queue(ctx, &rec);
}

/* HWT_STANDIN_PACED: the feeder does not write while more than one of its
 * BUFFER records is unfetched, so a reader that fetches and copies at once
 * is never lapped: the test of a reader that keeps up, independent of the
 * machine's load.  The bound: after a fetch the writer may go two pages and
 * the next PMI's 32 bytes further; the recorder copies what a copy's recheck
 * fetched before fetching again (hwt-recorder.c, run), so with one traced
 * thread what it has not copied stays within two such spans, 4 pages and 64
 * bytes, below the 6 a 32 KiB buffer allows beside its margin of two pages.  (Had the recorder
 * fetched again first, three spans would pass 6 pages: pressure.test's fast
 * reader, which sleeps after each fetch, lost bytes that way.) */
static void pace(struct sthread *t)
{
	struct sctx *ctx = t->ctx;
	struct timespec until;

	if (!standin_config.paced || !pthread_equal(pthread_self(), ctx->feeder))
		return;
	standin_deadline(&until, HOLD_LIMIT);
	while (t->records - t->fetched > 1 && !ctx->quit &&
	       pthread_cond_timedwait(&standin_cond, &standin_lock, &until) !=
		       ETIMEDOUT)
		;
}

int standin_write(struct sthread *t, const void *bytes, size_t n)
{
	const uint8_t *p = bytes;
	uint64_t size = t->ctx->bufsize;

	if (t->dump && fwrite(bytes, 1, n, t->dump) != n)
		return -hwtr_err_io;
	while (n) {
		uint64_t at = t->pos % size;
		uint64_t k = STANDIN_PAGE - at % STANDIN_PAGE;

		if (k > n)
			k = n;
		pace(t);
		if (t->pmi_due && t->pmi_at - t->pos < k)
			k = t->pmi_at - t->pos;
		memcpy(t->mem + at, p, (size_t)k);
		t->pos += k;
		p += k;
		n -= k;
		if (t->pmi_due && t->pos >= t->pmi_at)
			queue_buffer(t);
		if (t->pos % STANDIN_PAGE == 0) {
			/* A ToPA entry is full: PMI. */
			t->pmi_due = true;
			t->pmi_at = t->pos + PMI_LATENCY;
		}
	}
	if (t->pmi_due)
		queue_buffer(t);	/* the software interrupt ran */
	return 0;
}

static int write_sink(void *ctx, const void *bytes, size_t size)
{
	return standin_write(ctx, bytes, size);
}

void standin_switch_out(struct sthread *t)
{
	if (!t)
		return;
	if (t->stream)
		encoder_stream_flush(t->stream);
	if (t->dump)
		fflush(t->dump);
	t->visible = t->pos;
}

/* Hold thread INDEX at an exec or mmap until WAKEUP on its node. */
void standin_hold(struct sctx *ctx, int index)
{
	struct timespec until;

	if (!ctx->pause_on_mmap || index < 0)
		return;
	ctx->paused = index;
	standin_deadline(&until, HOLD_LIMIT);
	while (ctx->paused == index && !ctx->quit)
		if (pthread_cond_timedwait(&standin_cond, &standin_lock,
					   &until) == ETIMEDOUT) {
			standin_log("thread %d held %d s without WAKEUP: "
				    "released", index, HOLD_LIMIT);
			break;
		}
	ctx->paused = -1;
}

static struct sthread *thread_of(struct sctx *ctx, uint32_t lwpid)
{
	size_t i;

	for (i = 0; i < ctx->nthreads; i++)
		if (ctx->threads[i]->lwpid == lwpid && !ctx->threads[i]->exited)
			return ctx->threads[i];
	return NULL;
}

/* The exec'ed image runs: EXECUTABLE (and the hold). */
static void executable(struct sctx *ctx)
{
	struct hwt_abi_record rec = { .record_type = HWT_ABI_RECORD_EXECUTABLE };
	struct sthread *t = thread_of(ctx, (uint32_t)ctx->pid);
	const char *interp = NULL;
	size_t i;

	ctx->exec_pending = false;
	snprintf(rec.fullpath, sizeof(rec.fullpath), "%s", ctx->exec_path);
	/* addr: where the program is; baseaddr: the interpreter's base. */
	for (i = 0; i < ctx->nmaps; i++) {
		if (!strcmp(ctx->maps[i].path, ctx->exec_path) && !rec.addr)
			rec.addr = ctx->maps[i].start - ctx->maps[i].offset;
		else if (ctx->maps[i].path[0] && !interp) {
			interp = ctx->maps[i].path;
			rec.baseaddr = ctx->maps[i].start - ctx->maps[i].offset;
		}
	}
	standin_queue(ctx, &rec);
	standin_log("EXECUTABLE %s", ctx->exec_path);
	standin_hold(ctx, t ? t->index : -1);
}

static void set_mapping(struct sctx *ctx, const struct vg_event *ev, bool add)
{
	size_t i = 0;

	/* What the new mapping covers is no longer what it was. */
	while (i < ctx->nmaps) {
		struct smapping *m = &ctx->maps[i];

		if (m->start < ev->addr + ev->len && ev->addr < m->end)
			*m = ctx->maps[--ctx->nmaps];
		else
			i++;
	}
	if (add && ev->len) {
		struct smapping *v = realloc(ctx->maps, (ctx->nmaps + 1) * sizeof(*v));

		if (!v)
			return;
		ctx->maps = v;
		v += ctx->nmaps++;
		memset(v, 0, sizeof(*v));
		v->start = ev->addr;
		v->end = ev->addr + ev->len;
		v->offset = ev->pgoff;
		v->prot = ev->prot;
		snprintf(v->path, sizeof(v->path), "%.*s", (int)ev->path_len,
			 ev->path);
	}
}

/* A thread id not seen before: the thread-create hook. */
static struct sthread *new_thread(struct sctx *ctx, uint32_t lwpid)
{
	struct hwt_abi_record rec = {
		.record_type = HWT_ABI_RECORD_THREAD_CREATE,
	};
	struct sthread *t = standin_thread_new(ctx, lwpid);
	struct timespec until;

	if (!t)
		return NULL;
	rec.thread_id = t->index;
	standin_queue(ctx, &rec);
	ctx->creates_made++;
	if (standin_config.thread_race)
		return t;
	standin_deadline(&until, LISTING_WAIT);
	while (ctx->creates_listed < ctx->creates_made && !ctx->quit &&
	       pthread_cond_timedwait(&standin_cond, &standin_lock, &until) !=
		       ETIMEDOUT)
		;
	return t;
}

static bool tracing(const struct sctx *ctx)
{
	uint64_t need = HWT_ABI_RTIT_CTL_USER | HWT_ABI_RTIT_CTL_BRANCHEN;

	return ctx->state == SCTX_RUNNING &&
	       (ctx->config.rtit_ctl & need) == need;
}

static int trace(struct sctx *ctx, const struct vg_event *ev)
{
	struct sthread *t = ctx->cur;
	struct record_options opt = {
		.psb_period = 2048, .ret_compression = true, .no_tsc = true,
	};

	if (!t || !tracing(ctx))
		return 0;
	if (!t->stream) {
		/* Tracing begins where the thread enters user mode. */
		if (ev->type != HWTREC_EV_PGE)
			return 0;
		if (encoder_stream_new_sink(write_sink, t, t->lwpid, &opt, 0,
				       &t->stream) < 0)
			return 0;
	}
	vg_event_encode(t->stream, ev);
	/* The hardware writes as it goes, not in encoder-sized chunks; after
	 * a PMI the owner may run (it may be waiting for that record). */
	encoder_stream_flush(t->stream);
	if (ctx->yield_due) {
		ctx->yield_due = false;
		pthread_mutex_unlock(&standin_lock);
		sched_yield();
		pthread_mutex_lock(&standin_lock);
	}
	return 0;
}

static int on_event(void *arg, const struct vg_event *ev)
{
	struct sctx *ctx = arg;
	struct sthread *t;
	size_t i;

	if (!standin_config.hooks || ctx->quit)
		return 0;	/* no hooks: nothing is seen, nothing traced */
	if (ctx->exec_pending &&
	    (ev->type == HWTREC_EV_SWITCH || vg_event_is_trace(ev)))
		executable(ctx);
	if (vg_event_is_trace(ev))
		return trace(ctx, ev);
	switch (ev->type) {
	case HWTREC_EV_HELLO:
		ctx->exec_pending = true;
		ctx->fed = true;
		snprintf(ctx->exec_path, sizeof(ctx->exec_path), "%.*s",
			 (int)ev->path_len, ev->path);
		ctx->nmaps = 0;
		/* The exec leaves the process one thread. */
		for (i = 0; i < ctx->nthreads; i++)
			if (ctx->threads[i]->lwpid != (uint32_t)ctx->pid &&
			    !ctx->threads[i]->exited) {
				standin_switch_out(ctx->threads[i]);
				ctx->threads[i]->exited = true;
			}
		break;
	case HWTREC_EV_SWITCH:
		t = thread_of(ctx, ev->tid);
		if (!t)
			t = new_thread(ctx, ev->tid);
		if (t != ctx->cur)
			standin_switch_out(ctx->cur);
		ctx->cur = t;
		break;
	case HWTREC_EV_MMAP:
		set_mapping(ctx, ev, true);
		if (!ctx->exec_pending && (ev->prot & HWTR_PROT_EXEC) &&
		    ev->path_len) {
			struct hwt_abi_record rec = {
				.record_type = HWT_ABI_RECORD_MMAP,
			};

			snprintf(rec.fullpath, sizeof(rec.fullpath), "%.*s",
				 (int)ev->path_len, ev->path);
			rec.addr = ev->addr;
			standin_queue(ctx, &rec);
			standin_hold(ctx, ctx->cur ? ctx->cur->index : -1);
		}
		break;
	case HWTREC_EV_MUNMAP:
		set_mapping(ctx, ev, false);
		break;
	case HWTREC_EV_THREAD_EXIT:
		t = thread_of(ctx, ev->tid);
		if (t) {
			standin_switch_out(t);
			t->exited = true;
			if (ctx->cur == t)
				ctx->cur = NULL;
		}
		break;
	}
	return 0;
}

static void flush_all(struct sctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nthreads; i++)
		if (ctx->threads[i]->stream)
			encoder_stream_flush(ctx->threads[i]->stream);
}

static void *feeder(void *arg)
{
	struct sctx *ctx = arg;
	bool dead = false;

	pthread_mutex_lock(&standin_lock);
	while (!ctx->quit) {
		ssize_t n = event_reader_read(ctx->reader, ctx->fifo_fd,
					      on_event, ctx);

		flush_all(ctx);
		if (n > 0)
			continue;
		if (n < 0) {
			standin_log("reading %s: %s", ctx->fifo, strerror(errno));
			break;
		}
		if (dead)
			break;		/* and read to the end after death */
		dead = standin_real_gone(ctx);
		if (!dead) {
			struct pollfd pfd = { .fd = ctx->fifo_fd, .events = POLLIN };

			pthread_mutex_unlock(&standin_lock);
			poll(&pfd, 1, 10);
			pthread_mutex_lock(&standin_lock);
		}
	}
	/* The process has ended: its threads are switched out for good. */
	for (size_t i = 0; i < ctx->nthreads; i++)
		standin_switch_out(ctx->threads[i]);
	ctx->feed_done = true;
	pthread_cond_broadcast(&standin_cond);
	pthread_mutex_unlock(&standin_lock);
	return NULL;
}

int standin_fifo_open(struct sctx *ctx)
{
	snprintf(ctx->fifo, sizeof(ctx->fifo), "%s/fifo.%d", standin_config.dir,
		 (int)ctx->pid);
	unlink(ctx->fifo);
	if (mkfifo(ctx->fifo, 0600) < 0 ||
	    (ctx->fifo_fd = open(ctx->fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -1;
	return 0;
}

int standin_feed_start(struct sctx *ctx)
{
	if (standin_fifo_open(ctx) < 0)
		return -1;
	fcntl(ctx->fifo_fd, F_SETPIPE_SZ, 1 << 20);	/* best effort */
	if (event_reader_new(&ctx->reader) < 0)
		return -1;
	if (pthread_create(&ctx->feeder, NULL, feeder, ctx))
		return -1;
	ctx->feeder_running = true;
	return 0;
}

void standin_feed_settle(struct sctx *ctx)
{
	while (ctx->feeder_running && !ctx->feed_done && !ctx->quit)
		pthread_cond_wait(&standin_cond, &standin_lock);
}

void standin_feed_stop(struct sctx *ctx)
{
	size_t i;

	pthread_mutex_lock(&standin_lock);
	ctx->quit = true;
	pthread_cond_broadcast(&standin_cond);
	pthread_mutex_unlock(&standin_lock);
	if (ctx->feeder_running)
		pthread_join(ctx->feeder, NULL);
	ctx->feeder_running = false;
	if (ctx->fifo_fd >= 0) {
		close(ctx->fifo_fd);
		unlink(ctx->fifo);
	}
	event_reader_free(ctx->reader);
	for (i = 0; i < ctx->nthreads; i++) {
		encoder_stream_free(ctx->threads[i]->stream);
		ctx->threads[i]->stream = NULL;
	}
}
