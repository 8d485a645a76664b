/* history-walk.c: see history-walk.h. */
#include "history-walk.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longer histories are walked at their two ends only, to keep executions
 * per second high; the search check then needs the full walk and is skipped. */
#define WALK_MAX 20000u
#define LIST_MAX 40u

static FILE *devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

#define REQUIRE(cond, ...)                                                    \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "history-walk: broken promise: " __VA_ARGS__); \
			fprintf(stderr, " [%s]\n", #cond);                    \
			abort();                                              \
		}                                                             \
	} while (0)

static int in_probes(uint64_t ip, const uint64_t *probes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (probes[i] == ip)
			return 1;
	return 0;
}

/* One position: the instruction, its segment and call stack. */
static int visit(struct hwtr_cursor *c, uint64_t pos, struct hwtr_insn *insn)
{
	struct hwtr_segment seg, stack[8];
	int n;

	REQUIRE(hwtr_cursor_goto(c, pos) == 0, "goto %" PRIu64 " failed", pos);
	REQUIRE(hwtr_cursor_position(c) == pos, "goto %" PRIu64, pos);
	if (hwtr_cursor_insn(c, insn) < 0) {
		/* On-demand decoding may fail (it said so), but never by
		 * disagreeing with the index pass over the same bytes. */
		REQUIRE(!strstr(hwtr_last_error(), "on demand, the index has"),
			"%s", hwtr_last_error());
		return -1;
	}
	REQUIRE(insn->number == pos, "insn at %" PRIu64 " has number %" PRIu64,
		pos, insn->number);
	/* Size 0 is a gap, or an instruction whose length is unknown (the
	 * last of a block that could not be decoded: history.c). */
	REQUIRE(!insn->gap || insn->size == 0,
		"insn %" PRIu64 ": gap with size %u", pos, insn->size);
	REQUIRE(insn->size || insn->gap || insn->iclass == hwtr_ic_unknown,
		"insn %" PRIu64 ": size 0, no gap, class %d", pos,
		(int)insn->iclass);
	REQUIRE(hwtr_cursor_segment(c, &seg) == 0, "segment at %" PRIu64, pos);
	REQUIRE(seg.insn_begin <= pos && pos < seg.insn_end,
		"segment %" PRIu64 " [%" PRIu64 ",%" PRIu64 ") holds %" PRIu64,
		seg.number, seg.insn_begin, seg.insn_end, pos);
	n = hwtr_cursor_callstack(c, stack, 8);
	REQUIRE(n >= 1 && stack[0].number == seg.number,
		"callstack at %" PRIu64 " (%d frames)", pos, n);
	return 0;
}

static void walk_thread(struct hwtr_thread *t, const uint64_t *probes,
			size_t nprobes)
{
	struct hwtr_thread_stats st;
	struct hwtr_cursor *c = NULL;
	struct hwtr_insn insn;
	uint64_t n, pos, first_hit = 0, last_hit = 0, seg;
	int failures = 0, found;
	int full;

	REQUIRE(hwtr_thread_stats(t, &st) == 0, "stats");
	n = st.instructions;
	if (n == 0) {
		REQUIRE(hwtr_cursor_alloc(t, &c) < 0, "cursor on empty history");
		return;
	}
	REQUIRE(hwtr_cursor_alloc(t, &c) == 0, "cursor alloc");
	REQUIRE(hwtr_cursor_position(c) == n, "cursor starts at %" PRIu64, n);
	full = n <= WALK_MAX;
	for (pos = 1; pos <= n; pos++) {
		if (!full && pos > WALK_MAX / 2 && pos <= n - WALK_MAX / 2)
			pos = n - WALK_MAX / 2 + 1;
		if (visit(c, pos, &insn) < 0) {
			failures++;
			continue;
		}
		if (!insn.gap && in_probes(insn.ip, probes, nprobes)) {
			if (pos > 1 && !first_hit)
				first_hit = pos;
			if (pos < n)
				last_hit = pos;
		}
	}

	/* Searches against the linear walk (the oracle here). */
	if (full && !failures && nprobes) {
		REQUIRE(hwtr_cursor_goto(c, n) == 0, "goto end");
		found = hwtr_cursor_find(c, -1, probes, nprobes);
		REQUIRE(found == (last_hit != 0), "backward find returned %d", found);
		REQUIRE(hwtr_cursor_position(c) == (last_hit ? last_hit : n),
			"backward find stopped at %" PRIu64 ", walk saw %" PRIu64,
			hwtr_cursor_position(c), last_hit);
		REQUIRE(hwtr_cursor_goto(c, 1) == 0, "goto 1");
		found = hwtr_cursor_find(c, 1, probes, nprobes);
		REQUIRE(found == (first_hit != 0), "forward find returned %d", found);
		REQUIRE(hwtr_cursor_position(c) == (first_hit ? first_hit : 1),
			"forward find stopped at %" PRIu64 ", walk saw %" PRIu64,
			hwtr_cursor_position(c), first_hit);
	} else if (nprobes) {
		hwtr_cursor_goto(c, n);
		hwtr_cursor_find(c, -1, probes, nprobes);
		hwtr_cursor_goto(c, 1);
		hwtr_cursor_find(c, 1, probes, nprobes);
	}

	/* Steps stop at the ends. */
	REQUIRE(hwtr_cursor_goto(c, n) == 0, "goto end");
	REQUIRE(hwtr_cursor_step(c, -(int64_t)(n - 1)) == 0, "step to 1");
	REQUIRE(hwtr_cursor_position(c) == 1, "step to 1");
	REQUIRE(hwtr_cursor_step(c, -1) < 0 && hwtr_cursor_position(c) == 1,
		"step before 1");
	REQUIRE(hwtr_cursor_step(c, INT64_MAX) < 0 && hwtr_cursor_position(c) == n,
		"step past the end");
	REQUIRE(hwtr_cursor_goto(c, 0) < 0 && hwtr_cursor_goto(c, n + 1) < 0,
		"goto outside");
	hwtr_cursor_free(c);

	for (seg = 1; seg <= st.segments && seg <= WALK_MAX; seg++) {
		struct hwtr_segment s;

		REQUIRE(hwtr_thread_segment(t, seg, &s) == 0, "segment %" PRIu64, seg);
		REQUIRE(s.number == seg && s.insn_begin < s.insn_end &&
				s.insn_end <= n + 1,
			"segment %" PRIu64 " [%" PRIu64 ",%" PRIu64 ")", seg,
			s.insn_begin, s.insn_end);
		REQUIRE(!(s.flags & HWTR_SEG_GAP) || s.gap, "gap segment %" PRIu64
			" without gap", seg);
	}

	/* Listings, both ends, every modifier, both formats. */
	{
		uint64_t last = n < LIST_MAX ? n : LIST_MAX;
		uint64_t slast = st.segments < LIST_MAX ? st.segments : LIST_MAX;
		unsigned flags[] = { 0, HWTR_INSN_RAW | HWTR_INSN_SOURCE,
				     HWTR_INSN_NO_FUNCTION | HWTR_INSN_OMIT_PC };
		size_t i;

		for (i = 0; i < 3; i++) {
			hwtr_list_insns(t, 1, last, flags[i], i == 1,
					nprobes ? probes[0] : 0,
					devnull());
			hwtr_list_insns(t, n - last + 1, n, flags[i], i == 2, 0,
					devnull());
		}
		if (slast) {
			hwtr_list_calls(t, 1, slast, 0, false, devnull());
			hwtr_list_calls(t, 1, slast, HWTR_CALL_LINES | HWTR_CALL_INSNS |
					HWTR_CALL_INDENT, false, devnull());
			hwtr_list_calls(t, st.segments - slast + 1, st.segments,
					HWTR_CALL_INSNS, true, devnull());
		}
	}
}

void history_walk(struct hwtr_history *h, const uint64_t *probes, size_t nprobes)
{
	size_t i;

	for (i = 0; i < hwtr_history_nproblems(h); i++)
		REQUIRE(hwtr_history_problem(h, i) != NULL, "problem %zu", i);
	for (i = 0; i < hwtr_history_nthreads(h); i++)
		walk_thread(hwtr_history_thread(h, i), probes, nprobes);
}

/* Compare what the public API shows of two histories of the same bytes
 * (segments, gaps, instructions up to WALK_MAX per thread, where both
 * decode them). */
void history_same(struct hwtr_history *a, struct hwtr_history *b)
{
	size_t i;

	REQUIRE(hwtr_history_nthreads(a) == hwtr_history_nthreads(b),
		"%zu threads, a build has %zu", hwtr_history_nthreads(a),
		hwtr_history_nthreads(b));
	for (i = 0; i < hwtr_history_nthreads(a); i++) {
		struct hwtr_thread *ta = hwtr_history_thread(a, i);
		struct hwtr_thread *tb = hwtr_history_thread(b, i);
		struct hwtr_thread_stats sa, sb;
		struct hwtr_cursor *ca = NULL, *cb = NULL;
		uint64_t n;

		REQUIRE(hwtr_thread_stats(ta, &sa) == 0 &&
			hwtr_thread_stats(tb, &sb) == 0, "stats");
		REQUIRE(sa.tid == sb.tid && sa.instructions == sb.instructions &&
			sa.segments == sb.segments && sa.gaps == sb.gaps &&
			sa.chunks == sb.chunks,
			"thread %u: extended %" PRIu64 " instructions, %" PRIu64
			" segments, %" PRIu64 " gaps, %" PRIu64 " chunks; built %"
			PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64, sa.tid,
			sa.instructions, sa.segments, sa.gaps, sa.chunks,
			sb.instructions, sb.segments, sb.gaps, sb.chunks);
		for (n = 1; n <= sa.segments && n <= WALK_MAX; n++) {
			struct hwtr_segment x, y;

			REQUIRE(hwtr_thread_segment(ta, n, &x) == 0 &&
				hwtr_thread_segment(tb, n, &y) == 0, "segment");
			REQUIRE(x.up == y.up && x.prev == y.prev && x.next == y.next &&
				x.level == y.level && x.flags == y.flags &&
				x.insn_begin == y.insn_begin && x.insn_end == y.insn_end &&
				x.function_start == y.function_start &&
				!x.gap == !y.gap,
				"thread %u segment %" PRIu64 " differs from a build",
				sa.tid, n);
		}
		if (!sa.instructions || hwtr_cursor_alloc(ta, &ca) < 0 ||
		    hwtr_cursor_alloc(tb, &cb) < 0) {
			hwtr_cursor_free(ca);
			continue;
		}
		for (n = 1; n <= sa.instructions && n <= WALK_MAX; n++) {
			struct hwtr_insn x, y;
			int ra, rb;

			hwtr_cursor_goto(ca, n);
			hwtr_cursor_goto(cb, n);
			ra = hwtr_cursor_insn(ca, &x);
			rb = hwtr_cursor_insn(cb, &y);
			/* On-demand decoding of code that is not code (fuzzed
			 * bytes) can go either way: libipt's block cache, warm
			 * in one history and cold in the other, shapes the
			 * blocks our lengths are checked against. */
			if (ra < 0 || rb < 0)
				continue;
			REQUIRE(x.ip == y.ip && x.size == y.size && !x.gap == !y.gap &&
				x.iclass == y.iclass,
				"thread %u instruction %" PRIu64 ": 0x%" PRIx64
				", a build has 0x%" PRIx64, sa.tid, n, x.ip, y.ip);
		}
		hwtr_cursor_free(ca);
		hwtr_cursor_free(cb);
	}
}
