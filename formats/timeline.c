/* timeline.c: see timeline.h.
 *
 * The history's function segments follow GDB's btrace model: one segment
 * per stretch of a function between calls and returns, the segments of one
 * activation chained by prev/next at the same level.  An activation is one
 * slice, from its first segment's first instruction to its last segment's
 * end, so callees nest inside their callers.  The segments are read in
 * order with a stack of open activations: a segment that continues the
 * activation at its level (its prev is that activation's last segment)
 * ends everything above it; any other segment starts an activation and ends
 * whatever sat at its level or above (a return to a caller the trace never
 * saw call, a tail jump).  A gap ends every open activation: what ran in
 * it is unknown.  Since slices open and close in stack order, they nest by
 * construction, whatever the segments say.
 *
 * Slices are B/E pairs, so they can be written as they close.  With
 * --min-insns an activation is written only once it has reached the bound:
 * its callers are longer than it, so they are written first, and B events
 * written late still come in time order (an activation not yet written
 * holds only activations not yet written above it).
 *
 * Time ("ts") is the thread's instruction number: the library has no
 * per-instruction time yet, so threads do not share a time axis; the file's
 * otherData says so.
 */
#include "timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct activation {
	uint64_t last_segment;	/* the segment that continues it is next */
	int level;
	uint64_t begin;		/* its first instruction number */
	uint64_t first_segment;
	const char *name;	/* owned by the history */
};

struct writer {
	FILE *out;
	bool first_event;
	int64_t pid, tid;
	uint64_t min_insns;
	struct activation *stack;
	size_t depth, cap;
	size_t written;		/* stack[0..written) have their B event out */
	struct timeline_counts *counts;
};

static int put_event(struct writer *w, json_t *ev)
{
	int err = 0;

	if (!ev)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (!w->first_event && fputs(",\n", w->out) == EOF)
		err = -hwtr_err_io;
	w->first_event = false;
	if (!err && json_dumpf(ev, w->out, JSON_COMPACT) < 0)
		err = -hwtr_err_io;
	json_decref(ev);
	return err ? hwtr_fail(hwtr_err_io, "write error: %s", strerror(errno))
		   : 0;
}

static int put_begin(struct writer *w, const struct activation *a)
{
	w->counts->slices++;
	return put_event(w, json_pack("{s:s, s:s, s:I, s:I, s:I, s:{s:I}}",
				      "ph", "B", "name", a->name ? a->name : "??",
				      "pid", w->pid, "tid", w->tid,
				      "ts", (json_int_t)a->begin, "args",
				      "segment", (json_int_t)a->first_segment));
}

static int put_end(struct writer *w, uint64_t at)
{
	return put_event(w, json_pack("{s:s, s:I, s:I, s:I}", "ph", "E",
				      "pid", w->pid, "tid", w->tid,
				      "ts", (json_int_t)at));
}

/* Write the B events of the open activations that have reached min_insns
 * by instruction AT (callers first: they are at least as long). */
static int put_reached(struct writer *w, uint64_t at)
{
	int err = 0;

	while (!err && w->written < w->depth &&
	       at - w->stack[w->written].begin >= w->min_insns)
		err = put_begin(w, &w->stack[w->written++]);
	return err;
}

/* End the innermost activation before instruction AT. */
static int pop(struct writer *w, uint64_t at)
{
	w->depth--;
	if (w->written > w->depth) {
		w->written = w->depth;
		return put_end(w, at);
	}
	w->counts->dropped++;
	return 0;
}

static int push(struct writer *w, const struct hwtr_segment *s)
{
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct activation *p = realloc(w->stack, cap * sizeof(*p));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		w->stack = p;
		w->cap = cap;
	}
	w->stack[w->depth++] = (struct activation){
		.last_segment = s->number, .level = s->level,
		.begin = s->insn_begin, .first_segment = s->number,
		.name = s->function,
	};
	return 0;
}

static int put_gap(struct writer *w, const struct hwtr_segment *s)
{
	const struct hwtr_gap *g = s->gap;
	char name[64];

	w->counts->gaps++;
	snprintf(name, sizeof(name), "gap: %s", g && g->kind ? g->kind : "unknown");
	return put_event(w, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:{s:s, s:s, s:I}}",
				      "ph", "i", "s", "t", "name", name,
				      "pid", w->pid, "tid", w->tid,
				      "ts", (json_int_t)s->insn_begin, "args",
				      "kind", g && g->kind ? g->kind : "unknown",
				      "reason", g && g->message ? g->message : "",
				      "trace_offset", (json_int_t)(g ? g->offset : 0)));
}

/* One segment: continue, start or end activations (see the top). */
static int put_segment(struct writer *w, const struct hwtr_segment *s)
{
	uint64_t at = s->insn_begin;
	int err = 0;

	if (s->flags & HWTR_SEG_GAP) {
		while (!err && w->depth)
			err = pop(w, at);
		return err ? err : put_gap(w, s);
	}
	while (!err && w->depth && w->stack[w->depth - 1].level > s->level)
		err = pop(w, at);
	if (err)
		return err;
	if (w->depth && w->stack[w->depth - 1].level == s->level && s->prev &&
	    w->stack[w->depth - 1].last_segment == s->prev) {
		w->stack[w->depth - 1].last_segment = s->number;
	} else {
		while (!err && w->depth && w->stack[w->depth - 1].level >= s->level)
			err = pop(w, at);
		if (!err)
			err = push(w, s);
	}
	return err ? err : put_reached(w, s->insn_end);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "?";
}

static int put_thread(struct writer *w, struct hwtr_thread *th,
		      const char *program)
{
	struct hwtr_thread_stats st;
	struct hwtr_segment s;
	uint64_t n, end = 0;
	char name[128];
	int err;

	if ((err = hwtr_thread_stats(th, &st)))
		return err;
	w->tid = st.tid;
	w->depth = w->written = 0;
	snprintf(name, sizeof(name), "%s %s %" PRIu32, program,
		 st.tid == (uint64_t)w->pid ? "main thread" : "thread", st.tid);
	err = put_event(w, json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "ph", "M",
				     "name", "thread_name", "pid", w->pid,
				     "tid", w->tid, "args", "name", name));
	w->counts->tracks++;
	for (n = 1; !err && n <= st.segments; n++) {
		if (!(err = hwtr_thread_segment(th, n, &s))) {
			err = put_segment(w, &s);
			end = s.insn_end;
		}
	}
	while (!err && w->depth)
		err = pop(w, end);
	if (err)
		hwtr_fail_context(err < 0 ? -err : err, "thread %" PRIu32 ": ", st.tid);
	return err;
}

static int put_closing(struct writer *w, const struct hwtr_recording *rec)
{
	json_t *other = json_pack(
		"{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
		"recording", hwtr_recording_path(rec),
		"time_unit", "instructions",
		"time_note", "ts is the thread's instruction number (one "
		"microsecond shown is one instruction); threads do not share a "
		"time axis",
		"min_insns", (json_int_t)w->min_insns,
		"tracks", (json_int_t)w->counts->tracks,
		"slices", (json_int_t)w->counts->slices,
		"dropped_slices", (json_int_t)w->counts->dropped,
		"gaps", (json_int_t)w->counts->gaps);
	int err = 0;

	if (!other)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (fputs("\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": ", w->out) == EOF ||
	    json_dumpf(other, w->out, JSON_COMPACT) < 0 ||
	    fputs("}\n", w->out) == EOF)
		err = hwtr_fail(hwtr_err_io, "write error: %s", strerror(errno));
	json_decref(other);
	return err;
}

int timeline_write(struct hwtr_history *history,
		   const struct hwtr_recording *rec,
		   const struct timeline_options *opt, FILE *out,
		   struct timeline_counts *counts)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	const char *program = base_name(info->executable);
	struct writer w = {
		.out = out, .first_event = true, .pid = info->pid,
		.min_insns = opt && opt->min_insns > 1 ? opt->min_insns : 1,
		.counts = counts,
	};
	size_t i;
	int err;

	memset(counts, 0, sizeof(*counts));
	if (fputs("{\"traceEvents\": [\n", out) == EOF)
		return hwtr_fail(hwtr_err_io, "write error: %s", strerror(errno));
	err = put_event(&w, json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "ph", "M",
				      "name", "process_name", "pid", w.pid,
				      "tid", w.pid, "args", "name", program));
	for (i = 0; !err && i < hwtr_history_nthreads(history); i++)
		err = put_thread(&w, hwtr_history_thread(history, i), program);
	if (!err)
		err = put_closing(&w, rec);
	free(w.stack);
	return err;
}
