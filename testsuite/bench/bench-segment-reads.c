/* bench-segment-reads.c: reading function segments of a recording's
 * history (hwtr_thread_segment), as a reverse step or `bt` does one at a
 * time and `record function-call-history` or `hwtrec dump --calls` does
 * all of them, from the saved index (history.idx) when the recording has
 * one.
 *
 * Usage: bench-segment-reads REC.hwtrec [SPAN [READS]]
 *
 * Prints, for the first thread: the open (hwtr_history_build), READS
 * (default 1,000,000) random single reads among the first SPAN segments
 * (default 1,000,000) first at their first read (a saved group is checked
 * then) and again (groups checked already, not in the cache), then one
 * pass over every segment in order.  Each figure is wall time per read;
 * a checksum of what was read makes builds comparable (it must be the
 * same for the same recording).  Figures only: it fails only when the
 * recording does not open. */
#define _GNU_SOURCE
#include "hwtrecord.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* READS random reads among segments 1..SPAN (the same ones each time, from
 * the same seed): seconds; their checksum into *SUM. */
static double random_reads(const struct hwtr_thread *t, uint64_t span,
			   uint64_t reads, uint64_t *sum)
{
	struct hwtr_segment seg;
	double start = now();
	uint64_t i;

	rng = 0x9e3779b97f4a7c15ull;
	for (i = 0; i < reads; i++) {
		hwtr_thread_segment(t, next_random() % span + 1, &seg);
		*sum += seg.insn_begin + seg.level;
	}
	return now() - start;
}

int main(int argc, char **argv)
{
	uint64_t span = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
	uint64_t reads = argc > 3 ? strtoull(argv[3], NULL, 0) : 1000000;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_thread_stats st;
	const struct hwtr_thread *t;
	struct hwtr_segment seg;
	uint64_t sum = 0, n;
	double start, first, again, all;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-segment-reads REC.hwtrec [SPAN [READS]]\n");
		return 2;
	}
	start = now();
	if (hwtr_recording_open(argv[1], &rec) < 0 ||
	    hwtr_history_build(rec, NULL, &h) < 0 ||
	    !(t = hwtr_history_thread(h, 0)) || hwtr_thread_stats(t, &st) < 0) {
		fprintf(stderr, "bench-segment-reads: %s: %s\n", argv[1], hwtr_last_error());
		return 1;
	}
	printf("open: %.3f s, index %s, %" PRIu64 " segments\n", now() - start,
	       hwtr_history_index_source(h) == hwtr_index_saved ? "saved" : "built",
	       st.segments);
	if (span > st.segments)
		span = st.segments;
	first = random_reads(t, span, reads, &sum);
	again = random_reads(t, span, reads, &sum);
	start = now();
	for (n = 1; n <= st.segments; n++) {
		hwtr_thread_segment(t, n, &seg);
		sum += seg.insn_begin + seg.next;
	}
	all = now() - start;
	printf("random reads among %" PRIu64 ": first %.0f ns, again %.0f ns; "
	       "all in order: %.1f ns a segment (%.2f s); checksum %" PRIx64 "\n",
	       span, first / (double)reads * 1e9, again / (double)reads * 1e9,
	       all / (double)st.segments * 1e9, all, sum);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	return 0;
}
