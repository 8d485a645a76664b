/* bench-hwt-drain: how fast the hwt source empties a circular buffer
 * (kernel/freebsd/hwt-drain.c), beside plain memcpy of the same bytes.
 *
 *     bench-hwt-drain [--insns N] [--buffer BYTES] [--every PAGES]
 *
 * A synthetic Intel PT stream of at least N instructions (bench-trace.c) is
 * written into a circular buffer a page at a time, as the PT hardware fills
 * ToPA entries; every PAGES pages the reader gets the write position (as
 * from a BUFFER record) and copies what is new: once with memcpy (the peer:
 * what any reader must at least do), once with the drain into a counting
 * sink (it also cuts the stream at packet boundaries), once with the drain
 * into a recording's stream on disk (libhwtrecord's writer).  The reader
 * always keeps up, so nothing may be lost: a lost or changed byte fails the
 * run; times never do.
 */
#include "bench-trace.h"
#include "hwt-drain.h"
#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u

struct sink {
	const uint8_t *expect;
	uint64_t at;
	struct hwtr_writer *writer;
	int bad;
};

static int sink_bytes(void *ctx, const void *bytes, size_t size)
{
	struct sink *s = ctx;

	if (!s->bad && memcmp(s->expect + s->at, bytes, size))
		s->bad = 1;
	s->at += size;
	if (s->writer)
		return hwtr_writer_trace(s->writer, 1, bytes, size);
	return 0;
}

static int sink_loss(void *ctx, uint64_t offset, uint64_t len,
		     const char *reason)
{
	struct sink *s = ctx;

	fprintf(stderr, "bench-hwt-drain: loss at %llu (%llu bytes): %s\n",
		(unsigned long long)offset, (unsigned long long)len, reason);
	s->bad = 1;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum mode { MEMCPY, DRAIN, DRAIN_TO_FILE };

/* Stream the trace through a ring of SIZE bytes; seconds spent reading. */
static double run(enum mode mode, const uint8_t *trace, size_t n,
		  size_t size, unsigned every, const char *dir, int *bad)
{
	uint8_t *ring = calloc(1, size), *copy = malloc(size);
	struct sink s = { .expect = trace };
	struct hwt_drain_sink ds = { &s, sink_bytes, sink_loss };
	struct hwt_drain *d = NULL;
	struct hwtr_writer_info info = { .source = "bench" };
	uint64_t pos = 0, read = 0;
	double spent = 0;
	unsigned pages = 0;

	if (mode == DRAIN_TO_FILE &&
	    (hwtr_writer_create(dir, &info, &s.writer) ||
	     hwtr_writer_add_thread(s.writer, 1, 0))) {
		fprintf(stderr, "bench-hwt-drain: %s\n", hwtr_last_error());
		exit(1);
	}
	if (mode != MEMCPY && hwt_drain_new(ring, size, &ds, &d) < 0)
		exit(1);
	while (pos < n) {
		size_t k = n - pos < PAGE ? n - pos : PAGE;
		double t;

		memcpy(ring + pos % size, trace + pos, k);	/* the hardware */
		pos += k;
		if (++pages % every && pos < n)
			continue;
		t = now();
		if (mode == MEMCPY) {
			while (read < pos) {
				size_t at = read % size;
				size_t m = size - at < pos - read ? size - at : pos - read;

				memcpy(copy, ring + at, m);
				if (memcmp(copy, trace + read, m))
					s.bad = 1;
				read += m;
			}
		} else {
			hwt_drain_observe(d, pos % size);
			if (hwt_drain_copy(d, 2 * PAGE, NULL, NULL) < 0)
				exit(1);
		}
		spent += now() - t;
	}
	if (d) {
		double t = now();

		hwt_drain_finish(d);
		spent += now() - t;
		if (s.at != n)
			s.bad = 1;
	}
	if (s.writer) {
		struct hwtr_end end = { hwtr_end_exited, 0 };
		double t = now();

		hwtr_writer_finish(s.writer, &end);
		spent += now() - t;
		hwtr_writer_free(s.writer);
	}
	hwt_drain_free(d);
	free(ring);
	free(copy);
	*bad |= s.bad;
	return spent;
}

int main(int argc, char **argv)
{
	uint64_t insns = 20000000;
	size_t size = 16u << 20;
	unsigned every = 1;
	struct bench_trace_facts facts;
	char dir[] = "/tmp/bench-hwt-drain-XXXXXX", path[256], cmd[300];
	uint8_t *trace;
	struct stat st;
	FILE *f;
	int i, bad = 0;
	double t[3];
	static const char *names[] = {
		"memcpy (the peer)", "drain, packet boundaries",
		"drain into a recording",
	};

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--insns"))
			insns = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--buffer"))
			size = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--every"))
			every = (unsigned)strtoul(argv[i + 1], NULL, 0);
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/gen.hwtrec", dir);
	if (bench_trace_write(path, BENCH_CODE, insns, 2048, 1, &facts) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/gen.hwtrec/trace/1.pt", dir);
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st) < 0)
		return 1;
	trace = malloc((size_t)st.st_size);
	if (!trace || fread(trace, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		return 1;
	fclose(f);
	printf("bench-hwt-drain: %llu instructions, %lld bytes of trace, a %zu KiB "
	       "buffer read every %u page(s)\n",
	       (unsigned long long)facts.instructions, (long long)st.st_size,
	       size >> 10, every);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/out%d.hwtrec", dir, i);
		t[i] = run((enum mode)i, trace, (size_t)st.st_size, size, every,
			   path, &bad);
		printf("  %-26s %8.1f MB/s  (%.3f s)\n", names[i],
		       st.st_size / t[i] / 1e6, t[i]);
	}
	printf("  the drain keeps up with %.0f million instructions/s at this "
	       "trace's %.2f bits per instruction\n",
	       facts.instructions / t[1] / 1e6, 8.0 * st.st_size / facts.instructions);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench-hwt-drain: cannot remove %s\n", dir);
	free(trace);
	if (bad)
		fprintf(stderr, "bench-hwt-drain: FAIL: the drained stream differs "
			"from the trace written\n");
	return bad;
}
