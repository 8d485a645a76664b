/* values-check.c: hwtr-values-check RECORDING ORACLE: compare every
 * register and global byte the oracle (values-oracle.py: GDB single-stepping
 * the program under Valgrind's gdbserver) saw before each instruction with
 * what libhwtrecord's data log (hwtr_values_*) says at the same position of
 * the recording's first thread.
 *
 * Checks: the oracle's instruction count and each PC against the history
 * (the positions line up), each register the log claims to know (a
 * register it does not know is a failure too: the GPRs, eflags and xmm
 * must be known), and each byte of the globals: an old value must be the
 * oracle's, a byte "the same as the end" must equal the oracle's last
 * value, an unknown byte is a failure (the globals are always mapped).
 * Prints the counts compared and every mismatch (the first 20); exit 1 on
 * any.
 *
 * hwtr-values-check --open RECORDING: the library accepts the data log
 * (its instruction counts and snapshot PCs match the history) and knows
 * every thread's registers at both ends of its history.
 *
 * hwtr-values-check --tail BYTES RECORDING: the values of the history of
 * each thread's last BYTES of trace (hwtr_history_build_tail) read from the
 * log's last part only (hwtr_values_load_tail: its seek table) are those of
 * the whole log bound to the whole history (the reader the ORACLE mode
 * checks against GDB), at every instruction of every thread's tail: each
 * register's answer (known or not, and its value) and the memory around
 * the stack pointer (each byte's state and old value).  Prints per thread
 * the positions compared; exit 1 on any difference or when the tail's
 * values are refused.
 *
 * hwtr-values-check --tail-back BYTES RECORDING: the same comparison, the
 * tail's values read first from the thread's last restart point only
 * (hwtr_values_load_tail_back for that thread) and the positions walked
 * from the end back, the part read further back (twice as far at least)
 * whenever a position is before it, as hwtrec-server does: a value from the part
 * must be the whole log's at every position, none unknown that the whole
 * log knows.  Prints per thread where the first part starts and how many
 * times it was read further back.
 */
#include "vgdb-oracle.h"

#include <hwtrecord.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREGS 33		/* 16 GPRs, eflags, xmm0-15 */

static unsigned long mismatches;

static void mismatch(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#include <stdarg.h>
static void mismatch(const char *fmt, ...)
{
	va_list ap;

	if (mismatches++ < 20) {
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
}

/* --open: the data log opens (the library found it consistent with the
 * history) and every thread's registers are known at its first and last
 * instruction; prints a line per thread. */
static int check_open(const char *path)
{
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_values *values;
	size_t t;
	int bad = 0;

	if (hwtr_recording_open(path, &rec) ||
	    hwtr_history_build(rec, NULL, &history) ||
	    hwtr_values_open(history, &values)) {
		fprintf(stderr, "%s: %s\n", path, hwtr_last_error());
		return 1;
	}
	if (!values) {
		fprintf(stderr, "%s: the recording has no data log\n", path);
		return 1;
	}
	for (t = 0; t < hwtr_history_nthreads(history); t++) {
		struct hwtr_thread *thread = hwtr_history_thread(history, t);
		struct hwtr_thread_stats stats;
		uint64_t first = 1, last, rsp;
		uint8_t byte, state;

		if (hwtr_thread_stats(thread, &stats) || !stats.instructions)
			continue;
		last = stats.instructions;
		if (hwtr_values_register(values, thread, first, hwtr_amd64_rsp,
					 &rsp, 8) != 8 ||
		    hwtr_values_register(values, thread, last, hwtr_amd64_rsp,
					 &rsp, 8) != 8) {
			printf("thread %u: rsp not known at 1 or %" PRIu64 "\n",
			       stats.tid, last);
			bad = 1;
			continue;
		}
		hwtr_values_memory(values, thread, 1, rsp, &byte, &state, 1);
		printf("thread %u: %" PRIu64 " instructions, %" PRIu64 " gaps, "
		       "registers known at both ends, memory %s\n", stats.tid,
		       stats.instructions, stats.gaps,
		       state == hwtr_value_unknown ? "not known" : "known");
	}
	hwtr_values_free(values);
	hwtr_history_free(history);
	hwtr_recording_close(rec);
	return bad;
}

/* --tail: one register REGNO of the tail's position N and the whole's
 * position N + BASE. */
static void compare_register(struct hwtr_values *part, struct hwtr_thread *tt,
			     struct hwtr_values *whole, struct hwtr_thread *wt,
			     uint64_t n, uint64_t base, unsigned regno)
{
	uint8_t a[16] = { 0 }, b[16] = { 0 };
	int ra = hwtr_values_register(part, tt, n, regno, a, sizeof(a));
	int rb = hwtr_values_register(whole, wt, n + base, regno, b, sizeof(b));

	if (ra != rb || (ra > 0 && memcmp(a, b, (size_t)ra)))
		mismatch("tail position %" PRIu64 " (whole %" PRIu64 "): "
			 "register %u: the log's last part gives %d, the whole "
			 "log %d (or other bytes)\n", n, n + base, regno, ra, rb);
}

#define STACK_BYTES 256

static void compare_stack(struct hwtr_values *part, struct hwtr_thread *tt,
			  struct hwtr_values *whole, struct hwtr_thread *wt,
			  uint64_t n, uint64_t base, unsigned long *bytes)
{
	uint8_t a[STACK_BYTES], b[STACK_BYTES], sa[STACK_BYTES], sb[STACK_BYTES];
	uint64_t rsp;
	size_t i;

	if (hwtr_values_register(whole, wt, n + base, hwtr_amd64_rsp, &rsp,
				 8) != 8)
		return;
	rsp -= STACK_BYTES / 2;
	if (hwtr_values_memory(part, tt, n, rsp, a, sa, STACK_BYTES) ||
	    hwtr_values_memory(whole, wt, n + base, rsp, b, sb, STACK_BYTES)) {
		mismatch("tail position %" PRIu64 ": memory: %s\n", n,
			 hwtr_last_error());
		return;
	}
	for (i = 0; i < STACK_BYTES; i++) {
		if (sa[i] != sb[i] || (sa[i] == hwtr_value_old && a[i] != b[i]))
			mismatch("tail position %" PRIu64 " (whole %" PRIu64
				 "): byte at 0x%" PRIx64 ": state %u value 0x%02x "
				 "from the last part, %u 0x%02x from the whole "
				 "log\n", n, n + base, rsp + i, sa[i], a[i], sb[i],
				 b[i]);
		*bytes += sb[i] == hwtr_value_old;
	}
}

/* --tail-back: PART holds tail position N of TT: read the log's last
 * part for TT further back when it does not, as hwtrec-server does (at
 * least twice as far each time, at last the whole tail's part); counts the
 * reads in *LOADS. */
static int reach_back(struct hwtr_history *tail, struct hwtr_thread *tt,
		      uint64_t n, uint64_t instructions, uint64_t *back,
		      struct hwtr_values **part, unsigned *loads)
{
	uint64_t first;

	while (hwtr_values_first_known(*part, tt, &first) == 0 && n < first &&
	       *back != UINT64_MAX) {
		*back = *back >= instructions / 2 ? UINT64_MAX : 2 * *back;
		if (*back < instructions - n + 1)
			*back = instructions - n + 1;
		hwtr_values_free(*part);
		*part = NULL;
		if (hwtr_values_load_tail_back(tail, *back == UINT64_MAX ? NULL
					       : tt, *back, part) || !*part)
			return -1;
		++*loads;
	}
	return 0;
}

static int check_tail(const char *bytes_arg, const char *path, bool back_steps)
{
	struct hwtr_recording *rec;
	struct hwtr_history *history, *tail;
	struct hwtr_values *whole, *part = NULL;
	size_t t;

	if (hwtr_recording_open(path, &rec) ||
	    hwtr_history_build(rec, NULL, &history) ||
	    hwtr_history_build_tail(rec, NULL, strtoull(bytes_arg, NULL, 10),
				    &tail) ||
	    hwtr_values_open(history, &whole)) {
		fprintf(stderr, "%s: %s\n", path, hwtr_last_error());
		return 1;
	}
	if ((back_steps ? hwtr_values_load_tail_back(tail, NULL, 1, &part)
			: hwtr_values_load_tail(tail, &part)) || !part || !whole) {
		fprintf(stderr, "%s: the tail's values are refused: %s\n", path,
			hwtr_last_error());
		return 1;
	}
	for (t = 0; t < hwtr_history_nthreads(tail); t++) {
		struct hwtr_thread *tt = hwtr_history_thread(tail, t);
		struct hwtr_thread *wt = hwtr_history_thread(history, t);
		struct hwtr_thread_stats stats;
		unsigned long old_bytes = 0, compared;
		uint64_t base, n, i, back = 1, first = 0;
		unsigned regno, loads = 1;

		if (hwtr_thread_stats(tt, &stats) ||
		    hwtr_thread_tail_base(tt, wt, &base)) {
			fprintf(stderr, "%s: %s\n", path, hwtr_last_error());
			return 1;
		}
		/* Every position near the tail's start (the restart point's
		 * side), then about 150 spread: a register read scans up
		 * to a snapshot period of the log. */
		if (back_steps) {
			hwtr_values_free(part);
			part = NULL;
			if (hwtr_values_load_tail_back(tail, tt, 1, &part) || !part ||
			    hwtr_values_first_known(part, tt, &first)) {
				fprintf(stderr, "%s: thread %u: the log's last "
					"restart point gives nothing: %s\n", path,
					stats.tid, hwtr_last_error());
				return 1;
			}
		}
		/* With BACK_STEPS from the end backwards, as GDB walks back
		 * (the part read further back on the way). */
		for (i = 1, compared = 0; i <= stats.instructions;
		     i += i < 64 ? 1 : stats.instructions / 150 + 1) {
			n = back_steps ? stats.instructions + 1 - i : i;
			if (back_steps &&
			    reach_back(tail, tt, n, stats.instructions, &back,
				       &part, &loads)) {
				fprintf(stderr, "%s: thread %u: the log cannot "
					"be read back %" PRIu64 " instructions: "
					"%s\n", path, stats.tid, back,
					hwtr_last_error());
				return 1;
			}
			for (regno = 0; regno <= hwtr_amd64_mxcsr; regno++)
				compare_register(part, tt, whole, wt, n, base,
						 regno);
			compare_stack(part, tt, whole, wt, n, base, &old_bytes);
			compared++;
		}
		if (back_steps)
			printf("thread %u: the last part first (from tail "
			       "position %" PRIu64 "), read back %u times\n",
			       stats.tid, first, loads - 1);
		printf("thread %u: %lu of tail positions 1 to %" PRIu64
		       " (whole %" PRIu64 " to %" PRIu64 "), every register "
		       "and %d stack bytes each, %lu old bytes\n", stats.tid,
		       compared, stats.instructions, base + 1,
		       base + stats.instructions, STACK_BYTES, old_bytes);
	}
	printf("%lu differences\n", mismatches);
	hwtr_values_free(part);
	hwtr_values_free(whole);
	hwtr_history_free(tail);
	hwtr_history_free(history);
	hwtr_recording_close(rec);
	return mismatches != 0;
}

int main(int argc, char **argv)
{
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_values *values;
	struct hwtr_thread *thread;
	struct hwtr_thread_stats stats;
	struct hwtr_cursor *cursor;
	struct oracle o;
	const struct oracle_step *steps;
	size_t n, i, g, k;
	unsigned long regs = 0, bytes = 0, old_bytes = 0;
	uint64_t number = 0;	/* history number of steps[i] */

	if (argc == 3 && !strcmp(argv[1], "--open"))
		return check_open(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "--tail"))
		return check_tail(argv[2], argv[3], false);
	if (argc == 4 && !strcmp(argv[1], "--tail-back"))
		return check_tail(argv[2], argv[3], true);
	if (argc != 3) {
		fprintf(stderr, "usage: hwtr-values-check RECORDING ORACLE\n"
			"       hwtr-values-check --open RECORDING\n"
			"       hwtr-values-check --tail BYTES RECORDING\n"
			"       hwtr-values-check --tail-back BYTES RECORDING\n");
		return 2;
	}
	if (oracle_read(argv[2], &o))
		return 2;
	steps = o.steps;
	n = o.nsteps;
	if (!n || o.end != n) {
		fprintf(stderr, "%s: no complete oracle\n", argv[2]);
		return 2;
	}
	if (hwtr_recording_open(argv[1], &rec) ||
	    hwtr_history_build(rec, NULL, &history) ||
	    hwtr_values_open(history, &values) ||
	    !(thread = hwtr_history_thread(history, 0)) ||
	    hwtr_thread_stats(thread, &stats) ||
	    hwtr_cursor_alloc(thread, &cursor)) {
		fprintf(stderr, "%s: %s\n", argv[1], hwtr_last_error());
		return 1;
	}
	if (!values) {
		fprintf(stderr, "%s: the recording has no data log\n", argv[1]);
		return 1;
	}
	if (stats.instructions - stats.gaps != n)
		mismatch("instruction count: history %" PRIu64 " (and %" PRIu64
			 " gaps), oracle %zu\n", stats.instructions - stats.gaps,
			 stats.gaps, n);
	for (i = 0; i < n; i++) {
		const struct oracle_step *s = &steps[i];
		struct hwtr_insn insn;
		unsigned r;

		/* The oracle's k-th instruction is the history's k-th that is
		 * not a gap (a gap takes a number of its own). */
		do {
			if (++number > stats.instructions ||
			    hwtr_cursor_goto(cursor, number) ||
			    hwtr_cursor_insn(cursor, &insn))
				goto done;
		} while (insn.gap);
		if (insn.ip != s->pc) {
			mismatch("position %" PRIu64 " (oracle %" PRIu64 "): "
				 "history pc 0x%" PRIx64 ", oracle 0x%" PRIx64
				 "\n", number, s->pos, insn.ip, s->pc);
			continue;
		}
		for (r = 0; r < NREGS; r++) {
			unsigned regno = r < 16 ? r : r == 16 ? hwtr_amd64_eflags
				       : hwtr_amd64_xmm0 + (r - 17);
			uint64_t buf[2] = { 0, 0 }, want[2];
			int rc = hwtr_values_register(values, thread, number,
						      regno, buf, sizeof(buf));

			if (r < 16) {
				want[0] = s->reg[r];
				want[1] = 0;
			} else if (r == 16) {
				/* Valgrind's gdbserver leaves out IF and bit
				 * 1, which user code always runs with. */
				want[0] = (s->reg[ORACLE_EFLAGS] | 0x202) & 0xffffffff;
				want[1] = 0;
			} else {
				want[0] = s->xmm[r - 17][0];
				want[1] = s->xmm[r - 17][1];
			}
			regs++;
			if (rc < 0)
				mismatch("position %" PRIu64 " (pc 0x%" PRIx64
					 "): register %u not known: %s\n",
					 number, s->pc, regno, hwtr_errstr(-rc));
			else if (buf[0] != want[0] || buf[1] != want[1])
				mismatch("position %" PRIu64 " (pc 0x%" PRIx64
					 "): register %u is 0x%" PRIx64 ":%016"
					 PRIx64 ", oracle 0x%" PRIx64 ":%016"
					 PRIx64 "\n", s->pos, s->pc, regno,
					 buf[1], buf[0], want[1], want[0]);
		}
		for (g = 0; g < o.nglobals; g++) {
			size_t size = o.globals[g].size;
			uint8_t val[1024], st[1024];
			const uint8_t *last = steps[n - 1].mem[g];

			if (!s->mem[g] || size > sizeof(val))
				continue;
			if (hwtr_values_memory(values, thread, number,
					       o.globals[g].addr, val, st, size)) {
				mismatch("position %" PRIu64 ": %s: %s\n",
					 s->pos, o.globals[g].name,
					 hwtr_last_error());
				continue;
			}
			for (k = 0; k < size; k++) {
				uint8_t got = st[k] == hwtr_value_old ? val[k]
								      : last[k];

				bytes++;
				old_bytes += st[k] == hwtr_value_old;
				if (st[k] == hwtr_value_unknown ||
				    got != s->mem[g][k])
					mismatch("position %" PRIu64 " (pc 0x%"
						 PRIx64 "): %s+%zu is %s0x%02x, "
						 "oracle 0x%02x\n", s->pos,
						 s->pc, o.globals[g].name, k,
						 st[k] == hwtr_value_unknown
						 ? "unknown, " : st[k] ==
						 hwtr_value_same ? "(end) " : "",
						 got, s->mem[g][k]);
			}
		}
	}
done:
	if (i < n)
		mismatch("the history ends before the oracle's position %zu\n",
			 i + 1);
	printf("values-check: %zu positions, %lu registers, %lu global bytes "
	       "(%lu from the undo log) compared: %lu mismatches\n", n, regs,
	       bytes, old_bytes, mismatches);
	hwtr_cursor_free(cursor);
	hwtr_values_free(values);
	hwtr_history_free(history);
	hwtr_recording_close(rec);
	oracle_free(&o);
	return mismatches ? 1 : 0;
}
