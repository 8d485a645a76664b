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
 * Slices are B/E pairs, so they can be written as they close.  Events are
 * formatted here rather than through jansson: millions of them, and a name
 * that is not UTF-8 must become U+FFFD, not a refused event.  With
 * --min-insns an activation is written only once it has reached the bound:
 * its callers are longer than it, so they are written first, and B events
 * written late still come in time order (an activation not yet written
 * holds only activations not yet written above it).
 *
 * Time ("ts") is the trace's clock when every thread's trace has TSC
 * packets: hwtr_thread_insn_time's TSC ticks (interpolated between the
 * TSCs at chunk starts), less the earliest, in thousands with three
 * decimals (exact), so that a second of a GHz TSC shows as about a second
 * rather than as hours; all threads share that axis.  Without TSC, ts is the thread's instruction
 * number and threads do not share an axis.  The file's otherData says
 * which.  Every event also carries its instruction number ("insn"), the
 * history's own position, whatever the unit of ts.
 */
#include "timeline.h"

#include "../libhwtrecord/progress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* TSC ticks per unit of ts (shown as one microsecond). */
#define TICKS_PER_TS 1000

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
	/* Time: TSC ticks less ORIGIN, or (!tsc_time) instruction numbers */
	bool tsc_time;
	uint64_t origin;
	struct hwtr_thread *thread;
	uint64_t ninsns;	/* the thread's */
	uint64_t last_ts;	/* the thread's latest, so time never goes back */
	struct progress progress;	/* instructions of every thread */
	uint64_t total_insns;
};

/* S as a JSON string.  Bytes that are not UTF-8 (a symbol or a path can be
 * anything) become U+FFFD: the file must stay JSON. */
static void put_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', out);
	while (*p) {
		unsigned char c = *p;
		size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
			   (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
		size_t i;

		if (c == '"' || c == '\\') {
			putc('\\', out);
			putc(c, out);
			p++;
			continue;
		}
		if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
			p++;
			continue;
		}
		if (n == 1) {
			putc(c, out);
			p++;
			continue;
		}
		for (i = 1; n && i < n; i++) {
			if ((p[i] & 0xc0) != 0x80) {
				n = 0;
				break;
			}
			cp = cp << 6 | (p[i] & 0x3f);
		}
		/* Overlong forms, surrogates and values past U+10FFFF are not
		 * UTF-8 either. */
		if (n == 0 || (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff)) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		fwrite(p, 1, n, out);
		p += n;
	}
	putc('"', out);
}

/* The ts of instruction INSN of the writer's thread (one past the last:
 * the last's).  Never before the thread's previous event's: the TSCs of a
 * bad trace could go back. */
static uint64_t time_of(struct writer *w, uint64_t insn)
{
	uint64_t tsc, ts = insn;

	if (w->tsc_time) {
		ts = w->last_ts;
		if (insn > w->ninsns)
			insn = w->ninsns;
		if (insn && hwtr_thread_insn_time(w->thread, insn, &tsc) == 0)
			ts = tsc > w->origin ? tsc - w->origin : 0;
	}
	if (ts < w->last_ts)
		ts = w->last_ts;
	w->last_ts = ts;
	return ts;
}

/* Every event starts the same way: {"ph":PH,"pid":P,"tid":T,"ts":TS */
static void put_head(struct writer *w, const char *ph, uint64_t ts)
{
	if (!w->first_event)
		fputs(",\n", w->out);
	w->first_event = false;
	fprintf(w->out, "{\"ph\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		",\"ts\":", ph, w->pid, w->tid);
	if (w->tsc_time)
		fprintf(w->out, "%" PRIu64 ".%03u", ts / TICKS_PER_TS,
			(unsigned)(ts % TICKS_PER_TS));
	else
		fprintf(w->out, "%" PRIu64, ts);
}

static int put_done(struct writer *w)
{
	fputs("}", w->out);
	return ferror(w->out) ? hwtr_fail(hwtr_err_io, "write error: %s",
					  strerror(errno)) : 0;
}

/* A metadata event: NAME (process_name, thread_name) is VALUE. */
static int put_metadata(struct writer *w, const char *name, const char *value)
{
	put_head(w, "M", 0);
	fprintf(w->out, ",\"name\":\"%s\",\"args\":{\"name\":", name);
	put_string(w->out, value);
	fputs("}", w->out);
	return put_done(w);
}

static int put_begin(struct writer *w, const struct activation *a)
{
	w->counts->slices++;
	put_head(w, "B", time_of(w, a->begin));
	fputs(",\"name\":", w->out);
	put_string(w->out, a->name ? a->name : "??");
	fprintf(w->out, ",\"args\":{\"segment\":%" PRIu64 ",\"insn\":%" PRIu64
		"}", a->first_segment, a->begin);
	return put_done(w);
}

static int put_end(struct writer *w, uint64_t at)
{
	put_head(w, "E", time_of(w, at));
	fprintf(w->out, ",\"args\":{\"insn\":%" PRIu64 "}", at);
	return put_done(w);
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
	const char *kind = g && g->kind ? g->kind : "unknown";
	char name[128];

	w->counts->gaps++;
	snprintf(name, sizeof(name), "gap: %s", kind);
	put_head(w, "i", time_of(w, s->insn_begin));
	fputs(",\"s\":\"t\",\"name\":", w->out);
	put_string(w->out, name);
	fputs(",\"args\":{\"kind\":", w->out);
	put_string(w->out, kind);
	fputs(",\"reason\":", w->out);
	put_string(w->out, g && g->message ? g->message : "");
	fprintf(w->out, ",\"trace_offset\":%" PRIu64 ",\"insn\":%" PRIu64 "}",
		g ? g->offset : 0, s->insn_begin);
	return put_done(w);
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
	w->thread = th;
	w->ninsns = st.instructions;
	w->last_ts = 0;
	snprintf(name, sizeof(name), "%s %s %" PRIu32, program,
		 st.tid == (uint64_t)w->pid ? "main thread" : "thread", st.tid);
	err = put_metadata(w, "thread_name", name);
	w->counts->tracks++;
	for (n = 1; !err && n <= st.segments; n++) {
		if (!(err = hwtr_thread_segment(th, n, &s))) {
			err = put_segment(w, &s);
			end = s.insn_end;
			progress_update(&w->progress, end, 0);
		}
	}
	progress_thread_done(&w->progress, st.instructions, 0);
	while (!err && w->depth)
		err = pop(w, end);
	if (err)
		hwtr_fail_context(err < 0 ? -err : err, "thread %" PRIu32 ": ", st.tid);
	return err;
}

/* Whether every thread with instructions has times (TSC), and the earliest
 * of them: the time axis's origin; and the instructions of all threads. */
static int choose_time(struct writer *w, struct hwtr_history *history)
{
	size_t i;

	w->tsc_time = true;
	w->origin = UINT64_MAX;
	for (i = 0; i < hwtr_history_nthreads(history); i++) {
		struct hwtr_thread *th = hwtr_history_thread(history, i);
		struct hwtr_thread_stats st;
		uint64_t tsc;
		int err;

		if ((err = hwtr_thread_stats(th, &st)))
			return err;
		w->total_insns += st.instructions;
		if (!st.instructions || !w->tsc_time)
			continue;
		err = hwtr_thread_insn_time(th, 1, &tsc);
		if (err == -hwtr_err_notfound) {
			w->tsc_time = false;
			continue;
		}
		if (err)
			return err;
		if (tsc < w->origin)
			w->origin = tsc;
	}
	if (w->origin == UINT64_MAX)
		w->tsc_time = false;
	return 0;
}

/* The file's otherData: what the times mean and what was left out. */
static int put_closing(struct writer *w, const struct hwtr_recording *rec)
{
	FILE *out = w->out;

	fputs("\n],\n\"otherData\": {\"recording\":", out);
	put_string(out, hwtr_recording_path(rec));
	if (w->tsc_time)
		fprintf(out, ",\"time_unit\":\"tsc\",\"tsc_origin\":%" PRIu64
			",\"tsc_ticks_per_ts\":%d,\"time_note\":\"ts is "
			"thousands of TSC ticks since tsc_origin (one microsecond "
			"shown is 1000 ticks; the recording gives no TSC "
			"frequency), shared by all threads; exact at the TSC "
			"packets of each PSB, interpolated by instruction count "
			"between them\",", w->origin, TICKS_PER_TS);
	else
		fputs(",\"time_unit\":\"instructions\",\"time_note\":\"ts is "
		      "the thread's instruction number (one microsecond shown is "
		      "one instruction); the trace has no TSC, so threads do not "
		      "share a time axis\",", out);
	fprintf(out, "\"min_insns\":%" PRIu64 ",\"tracks\":%" PRIu64 ",\"slices\":%"
		PRIu64 ",\"dropped_slices\":%" PRIu64 ",\"gaps\":%" PRIu64 "}}\n",
		w->min_insns, w->counts->tracks, w->counts->slices,
		w->counts->dropped, w->counts->gaps);
	return ferror(out) ? hwtr_fail(hwtr_err_io, "write error: %s",
				       strerror(errno)) : 0;
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
	if ((err = choose_time(&w, history)))
		return err;
	progress_start_insns(&w.progress, opt ? opt->progress : NULL,
			     "writing the timeline", w.total_insns);
	fputs("{\"traceEvents\": [\n", out);
	w.tid = w.pid;
	err = put_metadata(&w, "process_name", program);
	for (i = 0; !err && i < hwtr_history_nthreads(history); i++)
		err = put_thread(&w, hwtr_history_thread(history, i), program);
	if (!err)
		err = put_closing(&w, rec);
	progress_finish(&w.progress);
	free(w.stack);
	return err;
}
