/* progress.c: see progress.h. */
#include "progress.h"

#include <inttypes.h>
#include <stdlib.h>

#define INTERVAL_NS 250000000LL	/* at most four lines a second */

/* HWTREC_PROGRESS_MS, else a quarter second: how long before the first
 * line, and between two.  (A log or a test that must see lines for short
 * work sets it lower.) */
static int64_t interval_ns(void)
{
	const char *ms = getenv("HWTREC_PROGRESS_MS");
	char *end;
	long v;

	if (!ms || !*ms)
		return INTERVAL_NS;
	v = strtol(ms, &end, 10);
	if (*end || v < 0 || v > 3600 * 1000)
		return INTERVAL_NS;
	return (int64_t)v * 1000000LL;
}

static int64_t ns_since(const struct timespec *from, const struct timespec *to)
{
	return (int64_t)(to->tv_sec - from->tv_sec) * 1000000000LL +
	       (to->tv_nsec - from->tv_nsec);
}

void progress_start_bytes(struct progress *p, FILE *out, const char *what,
			  uint64_t total_bytes)
{
	*p = (struct progress){ .out = out, .what = what,
				.total_bytes = total_bytes,
				.interval_ns = interval_ns() };
	if (out) {
		clock_gettime(CLOCK_MONOTONIC, &p->start);
		p->last = p->start;
	}
}

void progress_start(struct progress *p, FILE *out, uint64_t total_bytes)
{
	progress_start_bytes(p, out, "building the history", total_bytes);
	p->count_insns = true;
}

void progress_start_insns(struct progress *p, FILE *out, const char *what,
			  uint64_t total_insns)
{
	progress_start_bytes(p, out, what, total_insns);
	p->of_insns = true;
}

/* "12.3 MB" */
static void human_bytes(char *buf, size_t size, uint64_t n)
{
	static const char *const units[] = { "bytes", "KB", "MB", "GB", "TB" };
	double v = (double)n;
	unsigned u = 0;

	while (v >= 1000 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 " bytes", n);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
}

void progress_update(struct progress *p, uint64_t bytes, uint64_t insns)
{
	uint64_t done = p->done_bytes + bytes;
	char have[32], total[32], insns_text[48] = "", left[48] = "";
	struct timespec now;
	int64_t elapsed;

	if (!p->out)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (ns_since(&p->last, &now) < p->interval_ns)
		return;
	p->last = now;
	elapsed = ns_since(&p->start, &now);
	if (done > p->total_bytes)
		done = p->total_bytes;
	if (done && done < p->total_bytes) {
		double secs = (double)elapsed / 1e9 *
			      (double)(p->total_bytes - done) / (double)done;

		if (secs >= 0.5)	/* no "about 0 s" (nor 1 s for a few ms) */
			snprintf(left, sizeof(left), ", about %.0f s left",
				 secs);
	}
	if (p->of_insns) {
		fprintf(p->out, "\rhwtrec: %s: %" PRIu64 " of %" PRIu64
			" instructions (%.0f%%)%s\033[K", p->what, done,
			p->total_bytes, p->total_bytes ? 100.0 * (double)done /
			(double)p->total_bytes : 100.0, left);
		fflush(p->out);
		p->shown = true;
		return;
	}
	human_bytes(have, sizeof(have), done);
	human_bytes(total, sizeof(total), p->total_bytes);
	if (p->count_insns)
		snprintf(insns_text, sizeof(insns_text), ", %" PRIu64
			 " instructions", p->done_insns + insns);
	/* \r and "erase to the end of the line": the line is rewritten. */
	fprintf(p->out, "\rhwtrec: %s: %s of %s of %s (%.0f%%)%s%s\033[K",
		p->what, have, total, p->noun ? p->noun : "trace",
		p->total_bytes ? 100.0 * (double)done / (double)p->total_bytes : 100.0,
		insns_text, left);
	fflush(p->out);
	p->shown = true;
}

void progress_thread_done(struct progress *p, uint64_t bytes, uint64_t insns)
{
	p->done_bytes += bytes;
	p->done_insns += insns;
}

void progress_finish(struct progress *p)
{
	if (p->out && p->shown) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	p->shown = false;
}
