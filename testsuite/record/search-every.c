/* search-every.c: hwtr-search-every REC: no instruction of a history is
 * missed by the search that reverse-continue and continue make
 * (hwtr_cursor_find), whatever the chunk filters say (search-every.test).
 *
 * For every instruction N of every thread at address A (hwtrec dump
 * --insn's listing, through the public cursor): a forward search for A from
 * N - 1 must stop at N, and a backward search from N + 1 must stop at N.
 * A chunk whose code ranges or line filter wrongly refused A would send
 * the search past N.  Prints "name value" lines: instructions (checked),
 * distinct addresses, chunks, and misses (0 for a right history); the
 * first few misses on stderr.
 */
#include <hwtrecord.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const char *what)
{
	fprintf(stderr, "hwtr-search-every: %s: %s\n", what, hwtr_last_error());
	exit(2);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A search from FROM in DIRECTION for ADDR: where it stopped, or 0. */
static uint64_t search(struct hwtr_cursor *c, uint64_t from, int direction,
		       uint64_t addr)
{
	int hit;

	if (hwtr_cursor_goto(c, from))
		die("goto");
	hit = hwtr_cursor_find(c, direction, &addr, 1);
	if (hit < 0)
		die("search");
	return hit ? hwtr_cursor_position(c) : 0;
}

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	uint64_t checked = 0, misses = 0, chunks = 0, distinct = 0;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: hwtr-search-every REC\n");
		return 2;
	}
	if (hwtr_recording_open(argv[1], &rec))
		die(argv[1]);
	if (hwtr_history_build(rec, NULL, &h))
		die("building the history");
	for (i = 0; i < hwtr_history_nthreads(h); i++) {
		struct hwtr_thread *t = hwtr_history_thread(h, i);
		struct hwtr_thread_stats s;
		struct hwtr_cursor *at, *c;
		uint64_t n, k = 0, *ips;

		if (hwtr_thread_stats(t, &s))
			die("stats");
		chunks += s.chunks;
		if (s.instructions == 0)
			continue;
		if (hwtr_cursor_alloc(t, &at) || hwtr_cursor_alloc(t, &c))
			die("cursor");
		ips = calloc(s.instructions, sizeof(*ips));
		if (!ips)
			die("memory");
		for (n = 1; n <= s.instructions; n++) {
			struct hwtr_insn insn;
			uint64_t fwd = n, back = n;

			if (hwtr_cursor_goto(at, n) || hwtr_cursor_insn(at, &insn))
				die("reading the history");
			if (insn.gap)
				continue;
			ips[k++] = insn.ip;
			checked++;
			if (n > 1)
				fwd = search(c, n - 1, 1, insn.ip);
			if (n < s.instructions)
				back = search(c, n + 1, -1, insn.ip);
			if (fwd != n || back != n) {
				if (misses++ < 10)
					fprintf(stderr, "thread %u instruction %" PRIu64
						" at %#" PRIx64 ": forward search stopped "
						"at %" PRIu64 ", backward at %" PRIu64 "\n",
						s.tid, n, insn.ip, fwd, back);
			}
		}
		qsort(ips, k, sizeof(*ips), cmp_u64);
		for (n = 0; n < k; n++)
			distinct += n == 0 || ips[n] != ips[n - 1];
		free(ips);
		hwtr_cursor_free(c);
		hwtr_cursor_free(at);
	}
	printf("instructions %" PRIu64 "\n", checked);
	printf("distinct_addresses %" PRIu64 "\n", distinct);
	printf("chunks %" PRIu64 "\n", chunks);
	printf("misses %" PRIu64 "\n", misses);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	return misses ? 1 : 0;
}
