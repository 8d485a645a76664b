/* pt-session.c: per-thread Intel PT events drained into a recording
 * (pt-session.h).
 *
 * Records are copied out of the rings (their strings included) so that the
 * records of all threads can be sorted by time before they are applied:
 * the writer wants the sideband in time order, and each ring alone is.
 */
#include "pt-session.h"
#include "hwtrecord.h"

#include "perf-sideband.h"

#include <stdlib.h>
#include <string.h>

struct copied_rec {
	struct perf_rec rec;
	uint64_t seq;
	char *str;		/* the record's filename or comm */
};

struct pt_session {
	struct hwtr_writer *w;
	uint32_t pid;
	const struct pt_session_ops *ops;
	void *ctx;
	struct pt_session_thread **threads;	/* stable pointers */
	size_t nthreads;
	struct perf_sideband sb;
	bool sb_ready;
	struct copied_rec *recs;
	size_t nrecs, cap_recs;
	uint64_t losses;
};

static struct pt_session_thread *find(struct pt_session *s, uint32_t tid)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i]->tid == tid)
			return s->threads[i];
	return NULL;
}

/* -------------------------------------------------- sideband callbacks */

static int cb_event(void *ctx, const struct hwtr_sideband_event *ev)
{
	struct pt_session *s = ctx;
	struct hwtr_sideband_event e = *ev;
	int err;

	if (e.kind == hwtr_ev_loss)
		s->losses++;
	if (s->ops->event && (err = s->ops->event(s->ctx, &e)))
		return err;
	if ((err = hwtr_writer_event(s->w, &e)))
		return err;
	return 0;
}

static int cb_thread_start(void *ctx, uint32_t tid, uint64_t tsc)
{
	/* A thread the recorder did not stop at its clone: follow it now;
	 * what it ran before its event was open is not in the trace. */
	return pt_session_follow(ctx, tid, tsc, true);
}

static int cb_thread_exit(void *ctx, uint32_t tid, uint64_t tsc)
{
	struct pt_session *s = ctx;
	struct pt_session_thread *t = find(s, tid);
	struct hwtr_sideband_event ev = { .kind = hwtr_ev_thread_exit,
					  .tsc = tsc, .tid = tid };

	if (!t || t->exited)
		return 0;
	t->exited = true;
	return cb_event(s, &ev);
}

static uint64_t cb_stream_offset(void *ctx, uint32_t tid, uint64_t aux_offset)
{
	/* Every AUX byte goes to the stream: offsets are the same. */
	return aux_offset;
}

static uint64_t cb_stream_end(void *ctx, uint32_t tid)
{
	struct pt_session *s = ctx;
	uint64_t size = 0;

	hwtr_writer_trace_size(s->w, tid, &size);
	return size;
}

/* Kernels before 5.12 give no build-id in MMAP2: the file is still
 * there while the program runs. */
static const char *file_build_id(void *ctx, const char *path, char *buf,
				 size_t size)
{
	(void)ctx;
	return path[0] == '/' && hwtr_build_id_of_file(path, buf, size) > 0
		       ? buf : NULL;
}

static const struct perf_sideband_ops session_sideband_ops = {
	.event = cb_event,
	.thread_start = cb_thread_start,
	.thread_exit = cb_thread_exit,
	.stream_offset = cb_stream_offset,
	.stream_end = cb_stream_end,
	.build_id = file_build_id,
};

/* ------------------------------------------------------------ session */

int pt_session_new(struct hwtr_writer *w, uint32_t pid,
		   const struct pt_session_ops *ops, void *ctx,
		   struct pt_session **out)
{
	struct pt_session *s = calloc(1, sizeof(*s));

	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->w = w;
	s->pid = pid;
	s->ops = ops;
	s->ctx = ctx;
	*out = s;
	return 0;
}

uint64_t pt_session_time(struct pt_session *s, uint64_t tsc)
{
	if (tsc < s->sb.last_tsc)
		tsc = s->sb.last_tsc;
	s->sb.last_tsc = tsc;
	return tsc;
}

int pt_session_follow(struct pt_session *s, uint32_t tid, uint64_t tsc,
		      bool enable)
{
	struct pt_session_thread *t, **v;
	int err;

	if (find(s, tid))
		return 0;
	v = realloc(s->threads, (s->nthreads + 1) * sizeof(*v));
	if (!v)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->threads = v;
	t = calloc(1, sizeof(*t));
	if (!t)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	t->tid = tid;
	t->fd = -1;
	if ((err = s->ops->open(s->ctx, t, enable))) {
		free(t);
		return err;
	}
	s->threads[s->nthreads++] = t;
	if (!s->sb_ready) {
		uint64_t last = s->sb.last_tsc;

		/* One clock for all: the first event's conversion. */
		perf_sideband_init(&s->sb, s->pid,
				   (t->data.layout.sample_type & PERF_SAMPLE_TIME) &&
					   t->tc.cap_user_time_zero,
				   &t->tc, &session_sideband_ops, s);
		s->sb.last_tsc = last;
		s->sb_ready = true;
	}
	if ((err = hwtr_writer_add_thread(s->w, tid, pt_session_time(s, tsc))))
		return err;
	return 0;
}

static int keep_record(void *ctx, const struct perf_rec *r)
{
	struct pt_session *s = ctx;
	struct copied_rec *c;
	const char *str = NULL;

	if (s->nrecs == s->cap_recs) {
		size_t cap = s->cap_recs ? 2 * s->cap_recs : 64;
		void *v = realloc(s->recs, cap * sizeof(*s->recs));

		if (!v)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->recs = v;
		s->cap_recs = cap;
	}
	c = &s->recs[s->nrecs];
	c->rec = *r;
	c->seq = s->nrecs;
	c->str = NULL;
	if (r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2)
		str = r->u.mmap.filename;
	else if (r->type == PERF_RECORD_COMM)
		str = r->u.comm.comm;
	if (str && !(c->str = strdup(str)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2)
		c->rec.u.mmap.filename = c->str;
	else if (r->type == PERF_RECORD_COMM)
		c->rec.u.comm.comm = c->str;
	s->nrecs++;
	return 0;
}

static int cmp_copied(const void *a, const void *b)
{
	const struct copied_rec *x = a, *y = b;

	if (x->rec.sample.time != y->rec.sample.time)
		return x->rec.sample.time < y->rec.sample.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct aux_sink {
	struct pt_session *s;
	uint32_t tid;
};

static int to_stream(void *ctx, const void *bytes, size_t size)
{
	struct aux_sink *a = ctx;
	int err = hwtr_writer_trace(a->s->w, a->tid, bytes, size);

	return err;
}


static void close_thread(struct pt_session *s, struct pt_session_thread *t)
{
	if (t->closed)
		return;
	s->ops->close(s->ctx, t);
	t->closed = true;
}

static int drain_aux(struct pt_session *s, struct pt_session_thread *t)
{
	struct aux_sink a = { s, t->tid };
	int64_t got = perf_aux_ring_drain(&t->aux, to_stream, &a);

	return got < 0 ? hwtr_fail_context((int)got, "thread %u: ", t->tid) : 0;
}

/* Trace first, then the records: a record that speaks of the trace (AUX
 * TRUNCATED) or takes effect where the stream is (LOST) then finds every
 * byte the kernel had written before it. */
int pt_session_drain(struct pt_session *s)
{
	size_t i;
	int64_t got;
	int err = 0;

	for (i = 0; i < s->nrecs; i++)
		free(s->recs[i].str);
	s->nrecs = 0;
	for (i = 0; i < s->nthreads && !err; i++)
		if (!s->threads[i]->closed)
			err = drain_aux(s, s->threads[i]);
	for (i = 0; i < s->nthreads && !err; i++) {
		struct pt_session_thread *t = s->threads[i];

		if (t->closed)
			continue;
		got = perf_data_ring_drain(&t->data, keep_record, s);
		if (got < 0)
			err = hwtr_fail_context((int)got, "thread %u: ", t->tid);
	}
	if (err)
		return err;
	if (s->nrecs)
		qsort(s->recs, s->nrecs, sizeof(*s->recs), cmp_copied);
	for (i = 0; i < s->nrecs && !err; i++)
		err = perf_sideband_apply(&s->sb, &s->recs[i].rec);
	/* A thread that exited wrote its last trace before its EXIT. */
	for (i = 0; i < s->nthreads && !err; i++) {
		struct pt_session_thread *t = s->threads[i];

		if (t->exited && !t->closed && !(err = drain_aux(s, t)))
			close_thread(s, t);
	}
	return err;
}

int pt_session_finish(struct pt_session *s)
{
	int err = pt_session_drain(s);
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		close_thread(s, s->threads[i]);
	if (!err)
		err = hwtr_writer_flush(s->w);
	return err;
}

void pt_session_free(struct pt_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nthreads; i++) {
		close_thread(s, s->threads[i]);
		free(s->threads[i]);
	}
	for (i = 0; i < s->nrecs; i++)
		free(s->recs[i].str);
	free(s->recs);
	free(s->threads);
	free(s);
}

size_t pt_session_nthreads(const struct pt_session *s)
{
	return s->nthreads;
}

const struct pt_session_thread *pt_session_thread(const struct pt_session *s,
						  size_t index)
{
	return index < s->nthreads ? s->threads[index] : NULL;
}

uint64_t pt_session_losses(const struct pt_session *s)
{
	return s->losses;
}
