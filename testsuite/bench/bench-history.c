/* bench-history.c: how libhwtrecord's history scales (issue 2, DESIGN.md
 * section 6).
 *
 * Writes a synthetic recording of at least --insns instructions over
 * bench-code.S (bench-trace.c), then measures building the index, the index's
 * memory, seeking to random positions and a reverse search over the whole
 * history, and prints them beside the goals.  Figures never fail the run;
 * results do: the history must hold exactly the instructions the generator
 * encoded, without gaps, and the searches must stop where the generator knows
 * the address executed.  Times are given as wall and CPU time: on a shared
 * machine the CPU time is the cost of the work itself.
 *
 * Usage: bench-history [--insns N] [--psb-period BYTES] [--seeks N]
 *                      [--seed N] [--dir DIR] [--keep]
 */
#define _GNU_SOURCE
#include "bench-trace.h"

#include "hwtrecord.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_CODE
#error "BENCH_CODE must name the assembled bench-code"
#endif

/* Goals from issue 2. */
#define GOAL_INDEX_BYTES_PER_INSN 0.5
#define GDB_BTRACE_BYTES_PER_INSN 24.0
#define GOAL_SEEK_MS 10.0
#define GOAL_INSNS_PER_SEC 100e6

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* This thread's CPU time: what a measurement costs on a busy machine. */
static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static long current_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static const char *verdict(int met)
{
	return met ? "meets goal" : "MISSES goal";
}

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "bench-history: WRONG RESULT: %s\n", what);
		failures++;
	}
}

/* Time one reverse search from the end for IP; it must stop at EXPECT. */
static double time_find(struct hwtr_thread *t, uint64_t ip, uint64_t expect,
			const char *what, double *cpu_ms)
{
	struct hwtr_cursor *c;
	double t0, t1, c0;
	int found;
	char msg[256];

	if (hwtr_cursor_alloc(t, &c) < 0)
		return -1;
	t0 = now();
	c0 = thread_cpu();
	found = hwtr_cursor_find(c, -1, &ip, 1);
	*cpu_ms = (thread_cpu() - c0) * 1e3;
	t1 = now();
	snprintf(msg, sizeof(msg),
		 "reverse find of %s (0x%" PRIx64 ") returned %d at %" PRIu64
		 ", generator says %" PRIu64, what, ip, found,
		 hwtr_cursor_position(c), expect);
	check(found == 1 && hwtr_cursor_position(c) == expect, msg);
	if (found < 0)
		fprintf(stderr, "  %s\n", hwtr_last_error());
	hwtr_cursor_free(c);
	return (t1 - t0) * 1e3;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-history [--insns N] [--psb-period BYTES] "
		"[--seeks N] [--seed N] [--dir DIR] [--keep]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t min_insns = 100000000, seed = 0x9e3779b97f4a7c15ULL, rng;
	unsigned psb_period = 4096, nseeks = 1000, i;
	const char *dir = NULL;
	char tmpl[] = "/tmp/hwtr-bench-XXXXXX", recdir[300], cmd[400];
	int keep = 0;
	struct bench_trace_facts facts;
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_thread *thread;
	struct hwtr_thread_stats st;
	struct hwtr_cursor *cursor;
	double t0, t1, c0, c1, build_s, build_cpu, *seek_ms, *seek_cpu, find_cpu;
	double mb, bytes_per_insn, insn_per_s, insn_per_cpu_s, minsns;
	long rss_before;

	for (i = 1; i < (unsigned)argc; i++) {
		const char *a = argv[i], *v = i + 1 < (unsigned)argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--keep")) {
			keep = 1;
			continue;
		}
		if (!v)
			usage();
		if (!strcmp(a, "--insns"))
			min_insns = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--psb-period"))
			psb_period = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--seeks"))
			nseeks = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--dir"))
			dir = v;
		else
			usage();
		i++;
	}
	if (psb_period < 256 || nseeks == 0)
		usage();
	if (!dir) {
		if (!mkdtemp(tmpl)) {
			perror("mkdtemp");
			return 1;
		}
		snprintf(recdir, sizeof(recdir), "%s/bench.hwtrec", tmpl);
		dir = recdir;
	}

	printf("hwtrecord history benchmark: %s\n", dir);
	t0 = now();
	if (bench_trace_write(dir, BENCH_CODE, min_insns, psb_period, seed,
			      &facts) < 0)
		return 1;
	t1 = now();
	printf("  generated         %.2f s (libipt encoder over %s)\n", t1 - t0,
	       BENCH_CODE);

	if (hwtr_recording_open(dir, &rec) < 0) {
		fprintf(stderr, "bench-history: %s\n", hwtr_last_error());
		return 1;
	}
	rss_before = current_rss_kb();
	t0 = now();
	c0 = cpu_seconds();
	if (hwtr_history_build(rec, NULL, &history) < 0) {
		fprintf(stderr, "bench-history: %s\n", hwtr_last_error());
		return 1;
	}
	c1 = cpu_seconds();
	t1 = now();
	build_s = t1 - t0;
	build_cpu = c1 - c0;
	thread = hwtr_history_thread(history, 0);
	hwtr_thread_stats(thread, &st);

	check(st.instructions == facts.instructions,
	      "the history's instruction count differs from the generator's");
	check(st.gaps == 0, "the history has gaps; the trace has none");

	minsns = (double)st.instructions / 1e6;
	mb = (double)facts.trace_bytes / 1e6;
	bytes_per_insn = (double)st.index_bytes / (double)st.instructions;
	insn_per_s = (double)st.instructions / build_s;
	insn_per_cpu_s = (double)st.instructions / build_cpu;

	printf("  instructions      %" PRIu64 " (generator: %" PRIu64 ")%s\n",
	       st.instructions, facts.instructions,
	       st.instructions == facts.instructions ? "" : "  WRONG");
	printf("                    %" PRIu64 " calls, %" PRIu64 " returns, %"
	       PRIu64 " conditional, %" PRIu64 " indirect (generator)\n",
	       facts.calls, facts.returns, facts.conditional, facts.indirect);
	printf("  trace             %.2f MB, %.3f bits/instruction, %" PRIu64
	       " PSBs (every %u bytes)\n", mb,
	       8.0 * (double)facts.trace_bytes / (double)st.instructions,
	       facts.psbs, psb_period);
	printf("  history           %" PRIu64 " chunks, %" PRIu64
	       " function segments (%.0f per M insn), %" PRIu64 " gaps\n",
	       st.chunks, st.segments, (double)st.segments / minsns, st.gaps);
	printf("  index build       %.3f s wall, %.3f s CPU: %.1f M insn/s "
	       "(%.1f M per CPU-s), %.1f MB/s   goal >= %.0f M insn/s per core: %s\n",
	       build_s, build_cpu, insn_per_s / 1e6, insn_per_cpu_s / 1e6,
	       mb / build_s, GOAL_INSNS_PER_SEC / 1e6,
	       verdict(insn_per_cpu_s >= GOAL_INSNS_PER_SEC));
	printf("  index memory      %.2f MB = %.3f bytes/insn (%.0f KB per M insn)"
	       "   goal < %.1f (GDB btrace ~%.0f): %s\n",
	       (double)st.index_bytes / 1e6, bytes_per_insn,
	       (double)st.index_bytes / 1024.0 / minsns,
	       GOAL_INDEX_BYTES_PER_INSN, GDB_BTRACE_BYTES_PER_INSN,
	       verdict(bytes_per_insn < GOAL_INDEX_BYTES_PER_INSN));
	printf("  peak RSS          %.1f MB = %.0f KB per M insn (%.1f MB before "
	       "the build, trace mapped read-only counts when touched)\n",
	       (double)peak_rss_kb() / 1024.0,
	       (double)peak_rss_kb() / minsns, (double)rss_before / 1024.0);

	/* Seeks: goto + insn at random positions (cache mostly cold). */
	seek_ms = calloc(nseeks, sizeof(*seek_ms));
	seek_cpu = calloc(nseeks, sizeof(*seek_cpu));
	if (!seek_ms || !seek_cpu || hwtr_cursor_alloc(thread, &cursor) < 0)
		return 1;
	rng = seed;
	for (i = 0; i < nseeks; i++) {
		struct hwtr_insn insn;
		uint64_t pos;
		int err;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		pos = 1 + rng % st.instructions;
		t0 = now();
		c0 = thread_cpu();
		err = hwtr_cursor_goto(cursor, pos);
		if (!err)
			err = hwtr_cursor_insn(cursor, &insn);
		seek_cpu[i] = (thread_cpu() - c0) * 1e3;
		t1 = now();
		seek_ms[i] = (t1 - t0) * 1e3;
		if (err < 0 || insn.number != pos || insn.size == 0) {
			fprintf(stderr, "  seek to %" PRIu64 ": %s\n", pos,
				err < 0 ? hwtr_last_error() : "wrong instruction");
			check(0, "a seek failed");
			break;
		}
	}
	hwtr_cursor_free(cursor);
	qsort(seek_ms, i, sizeof(*seek_ms), cmp_double);
	qsort(seek_cpu, i, sizeof(*seek_cpu), cmp_double);
	if (i) {
		printf("  seek              %u random positions (goto + insn), wall: "
		       "min %.3f / median %.3f / max %.3f ms\n",
		       i, seek_ms[0], seek_ms[i / 2], seek_ms[i - 1]);
		printf("                    CPU: min %.3f / median %.3f / max %.3f ms"
		       "   goal < %.0f ms: %s\n", seek_cpu[0], seek_cpu[i / 2],
		       seek_cpu[i - 1], GOAL_SEEK_MS,
		       verdict(seek_cpu[i - 1] < GOAL_SEEK_MS));
	}
	free(seek_ms);
	free(seek_cpu);

	/* Reverse searches over the whole history for code run only at the
	 * start: on its own page (the chunk filters can skip the rest), and on
	 * the hot loop's page (every chunk must be decoded). */
	t0 = time_find(thread, facts.init_ip, facts.init_position, "init",
		       &find_cpu);
	printf("  reverse find      whole history, address on a page of its own: "
	       "%.1f ms wall, %.1f ms CPU\n", t0, find_cpu);
	t0 = time_find(thread, facts.after_init_ip, facts.after_init_position,
		       "after_init", &find_cpu);
	printf("  reverse find      whole history, address on the hot page "
	       "(no chunk can be skipped): %.1f ms wall, %.1f ms CPU\n", t0,
	       find_cpu);
	/* With many more chunks than the cache holds (64 by default), that
	 * search decoded nearly every chunk on demand. */
	if (st.chunks > 256)
		printf("  on-demand decode  %.1f M insn per CPU-s (a seek decodes "
		       "one chunk: %.0f instructions on average)\n",
		       (double)st.instructions / (find_cpu * 1e-3) / 1e6,
		       (double)st.instructions / (double)st.chunks);

	hwtr_history_free(history);
	hwtr_recording_close(rec);
	if (!keep && dir == recdir) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
		if (system(cmd) != 0)
			fprintf(stderr, "bench-history: cannot remove %s\n", tmpl);
	}
	if (failures)
		printf("  %d WRONG RESULT(S): see above\n", failures);
	return failures ? 1 : 0;
}
