/* search-skip.c: hwtr-search-skip REC ADDR LO HI: the two searches of
 * reverse-continue and continue to a breakpoint at ADDR across thread 0's
 * whole history, with what the test (search-skip.test) compares against
 * the ptrace single-stepper and the chunks each search had to decode.
 *
 * Prints "name value" lines: chunks; backward_found (0/1) and
 * backward_tail, the instructions at [LO, HI) from the hit to the end (the
 * hit included), backward_searched (chunks the search decoded);
 * forward_found, forward_head (those from the start to the hit, included),
 * forward_searched.  The counts walk every instruction with the cursor,
 * not the search's filters.
 */
#include <hwtrecord.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const char *what)
{
	fprintf(stderr, "hwtr-search-skip: %s: %s\n", what, hwtr_last_error());
	exit(1);
}

/* Instructions at [LO, HI) numbered FROM..TO. */
static uint64_t count_in(struct hwtr_cursor *c, uint64_t from, uint64_t to,
			 uint64_t lo, uint64_t hi)
{
	struct hwtr_insn insn;
	uint64_t n = 0, i;

	for (i = from; i <= to; i++) {
		if (hwtr_cursor_goto(c, i) || hwtr_cursor_insn(c, &insn))
			die("reading the history");
		n += !insn.gap && insn.ip >= lo && insn.ip < hi;
	}
	return n;
}

static uint64_t searched(struct hwtr_thread *t)
{
	struct hwtr_thread_stats s;

	if (hwtr_thread_stats(t, &s))
		die("stats");
	return s.chunks_searched;
}

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_thread *t;
	struct hwtr_thread_stats s;
	struct hwtr_cursor *c;
	uint64_t addr, lo, hi, before, pos;
	int hit;

	if (argc != 5) {
		fprintf(stderr, "usage: hwtr-search-skip REC ADDR LO HI\n");
		return 2;
	}
	addr = strtoull(argv[2], NULL, 0);
	lo = strtoull(argv[3], NULL, 0);
	hi = strtoull(argv[4], NULL, 0);
	if (hwtr_recording_open(argv[1], &rec))
		die(argv[1]);
	if (hwtr_history_build(rec, NULL, &h))
		die("building the history");
	t = hwtr_history_thread(h, 0);
	if (!t || hwtr_thread_stats(t, &s) || hwtr_cursor_alloc(t, &c))
		die("thread 0");
	printf("chunks %" PRIu64 "\n", s.chunks);

	before = searched(t);
	hit = hwtr_cursor_find(c, -1, &addr, 1);	/* from the end */
	if (hit < 0)
		die("backward search");
	pos = hwtr_cursor_position(c);
	printf("backward_searched %" PRIu64 "\n", searched(t) - before);
	printf("backward_found %d\n", hit);
	printf("backward_tail %" PRIu64 "\n",
	       hit ? count_in(c, pos, s.instructions, lo, hi) : 0);

	if (hwtr_cursor_goto(c, 1))
		die("going to the start");
	before = searched(t);
	hit = hwtr_cursor_find(c, 1, &addr, 1);
	if (hit < 0)
		die("forward search");
	pos = hwtr_cursor_position(c);
	printf("forward_searched %" PRIu64 "\n", searched(t) - before);
	printf("forward_found %d\n", hit);
	printf("forward_head %" PRIu64 "\n", hit ? count_in(c, 1, pos, lo, hi) : 0);
	hwtr_cursor_free(c);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	return 0;
}
