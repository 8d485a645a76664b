/* test-history: instruction history, function segments, chunks and gaps
 * rebuilt from traces of fixture-code.S, checked against the assembler's
 * labels and the path the trace encodes. */
#include "fixture.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opened {
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_thread *thread;
	struct hwtr_thread_stats stats;
};

static void open_history(struct opened *o, const uint8_t *trace, size_t size,
			 const char *path, const char *build_id)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording(dir, trace, size, path, build_id);
	ck_assert_int_eq(hwtr_recording_open(dir, &o->rec), 0);
	ck_assert_msg(hwtr_history_build(o->rec, NULL, &o->history) == 0, "%s",
		      hwtr_last_error());
	ck_assert_uint_eq(hwtr_history_nthreads(o->history), 1);
	o->thread = hwtr_history_thread(o->history, 0);
	ck_assert_int_eq(hwtr_thread_stats(o->thread, &o->stats), 0);
}

static void close_history(struct opened *o)
{
	hwtr_history_free(o->history);
	hwtr_recording_close(o->rec);
	fixture_cleanup();
}

static void open_main_path(struct opened *o)
{
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);
	open_history(o, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
}

/* The IP of every instruction number, read through a cursor. */
static void read_ips(struct hwtr_thread *th, uint64_t *ips, bool *gaps,
		     uint64_t n)
{
	struct hwtr_cursor *c;
	uint64_t i;

	ck_assert_int_eq(hwtr_cursor_alloc(th, &c), 0);
	for (i = 1; i <= n; i++) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ck_assert_uint_eq(insn.number, i);
		ips[i - 1] = insn.ip;
		gaps[i - 1] = insn.gap != NULL;
	}
	hwtr_cursor_free(c);
}

START_TEST(instruction_history_follows_the_assembled_path)
{
	uint64_t ips[29];
	bool gaps[29];
	struct opened o;
	size_t i;

	open_main_path(&o);
	ck_assert_uint_eq(o.stats.instructions, 29);
	ck_assert_uint_eq(o.stats.gaps, 0);
	ck_assert_uint_eq(o.stats.chunks, 2);
	read_ips(o.thread, ips, gaps, 29);
	for (i = 0; i < 29; i++) {
		ck_assert_msg(!gaps[i], "instruction %zu is a gap", i + 1);
		ck_assert_msg(ips[i] == fixture_symbol(main_path_labels[i]),
			      "instruction %zu: 0x%llx, expected %s = 0x%llx", i + 1,
			      (unsigned long long)ips[i], main_path_labels[i],
			      (unsigned long long)fixture_symbol(main_path_labels[i]));
	}
	close_history(&o);
}
END_TEST

START_TEST(instruction_classes_sizes_and_bytes)
{
	struct hwtr_cursor *c;
	struct hwtr_insn insn;
	struct opened o;

	open_main_path(&o);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
	ck_assert_int_eq(hwtr_cursor_goto(c, 2), 0);	/* call leaf */
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_int_eq(insn.iclass, hwtr_ic_call);
	ck_assert_uint_eq(insn.size, fixture_symbol("i5") - fixture_symbol("i2"));
	ck_assert_uint_eq(insn.raw[0], 0xe8);
	ck_assert_int_eq(hwtr_cursor_goto(c, 4), 0);	/* ret */
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_int_eq(insn.iclass, hwtr_ic_return);
	ck_assert_uint_eq(insn.raw[0], 0xc3);
	ck_assert_int_eq(hwtr_cursor_goto(c, 7), 0);	/* jne */
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_int_eq(insn.iclass, hwtr_ic_cond_jump);
	ck_assert_int_eq(hwtr_cursor_goto(c, 27), 0);	/* jmp *%rax */
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_int_eq(insn.iclass, hwtr_ic_jump);
	ck_assert_uint_eq(insn.size, 2);
	ck_assert_int_eq(hwtr_cursor_goto(c, 6), 0);	/* cmp: inside a block */
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_int_eq(insn.iclass, hwtr_ic_other);
	ck_assert_uint_eq(insn.size, 3);
	hwtr_cursor_free(c);
	close_history(&o);
}
END_TEST

START_TEST(function_segments_follow_gdb_btrace)
{
	struct opened o;
	size_t i, n = sizeof(main_path_segments) / sizeof(main_path_segments[0]);

	open_main_path(&o);
	ck_assert_uint_eq(o.stats.segments, n);
	for (i = 0; i < n; i++) {
		const struct fixture_segment *e = &main_path_segments[i];
		struct hwtr_segment s;

		ck_assert_int_eq(hwtr_thread_segment(o.thread, i + 1, &s), 0);
		ck_assert_msg(s.function && !strcmp(s.function, e->function),
			      "segment %zu: %s, expected %s", i + 1,
			      s.function ? s.function : "(none)", e->function);
		ck_assert_uint_eq(s.insn_begin, e->begin);
		ck_assert_uint_eq(s.insn_end, e->end + 1);
		/* Levels are normalised to start at 0; the table counts from 1
		 * only to read as "depth". */
		ck_assert_msg(s.level == e->level - 1, "segment %zu: level %d, "
			      "expected %d", i + 1, s.level, e->level - 1);
		ck_assert_uint_eq(s.up, e->up);
		ck_assert_uint_eq(s.prev, e->prev);
		ck_assert_uint_eq(s.next, e->next);
		ck_assert_uint_eq(s.flags, e->flags);
		ck_assert_uint_eq(s.function_start, fixture_symbol(e->function));
	}
	ck_assert_int_eq(hwtr_thread_segment(o.thread, n + 1, &(struct hwtr_segment){ 0 }),
			 -hwtr_err_range);
	close_history(&o);
}
END_TEST

static char *capture_calls(struct hwtr_thread *th, uint64_t first,
			   uint64_t last, unsigned flags, bool json)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ck_assert_int_eq(hwtr_list_calls(th, first, last, flags, json, f), 0);
	fclose(f);
	return text;
}

START_TEST(function_call_history_in_gdb_format)
{
	struct opened o;
	char *text;

	open_main_path(&o);
	text = capture_calls(o.thread, 1, 12, HWTR_CALL_INDENT | HWTR_CALL_INSNS,
			     false);
	ck_assert_str_eq(text,
			 "1\t_start\tinst 1,2\n"
			 "2\t  leaf\tinst 3,4\n"
			 "3\t_start\tinst 5,8\n"
			 "4\t  leaf\tinst 9,10\n"
			 "5\t_start\tinst 11,14\n"
			 "6\t  leaf\tinst 15,16\n"
			 "7\t_start\tinst 17,20\n"
			 "8\t  outer\tinst 21,21\n"
			 "9\t    leaf\tinst 22,23\n"
			 "10\t  outer\tinst 24,24\n"
			 "11\t    tail\tinst 25,25\n"
			 "12\t_start\tinst 26,29\n");
	free(text);
	text = capture_calls(o.thread, 8, 9, 0, true);
	ck_assert_str_eq(text,
			 "{\"thread\":1,\"number\":8,\"level\":1,\"insn_begin\":21,"
			 "\"insn_end\":21,\"function\":\"outer\",\"up\":7,\"next\":10}\n"
			 "{\"thread\":1,\"number\":9,\"level\":2,\"insn_begin\":22,"
			 "\"insn_end\":23,\"function\":\"leaf\",\"up\":8}\n");
	free(text);
	close_history(&o);
}
END_TEST

START_TEST(instruction_history_in_gdb_format)
{
	char *text = NULL, expected[512];
	struct opened o;
	size_t size = 0;
	FILE *f;

	open_main_path(&o);
	f = open_memstream(&text, &size);
	ck_assert_int_eq(hwtr_list_insns(o.thread, 20, 22, HWTR_INSN_RAW, false,
					 fixture_symbol("i21"), f), 0);
	fclose(f);
	snprintf(expected, sizeof(expected),
		 "20\t   0x%016llx <_start+%llu>:\te8 12 00 00 00\tcall   0x%llx <outer>\n"
		 "21\t=> 0x%016llx <outer+0>:\te8 f9 ff ff ff\tcall   0x%llx <leaf>\n"
		 "22\t   0x%016llx <leaf+0>:\t90\tnop\n",
		 (unsigned long long)fixture_symbol("i20"),
		 (unsigned long long)(fixture_symbol("i20") - fixture_symbol("_start")),
		 (unsigned long long)fixture_symbol("outer"),
		 (unsigned long long)fixture_symbol("i21"),
		 (unsigned long long)fixture_symbol("leaf"),
		 (unsigned long long)fixture_symbol("i3"));
	ck_assert_str_eq(text, expected);
	free(text);
	close_history(&o);
}
END_TEST

START_TEST(cursor_steps_seeks_and_finds)
{
	struct hwtr_segment stack[8];
	struct hwtr_cursor *c;
	struct opened o;
	uint64_t leaf_nop = fixture_symbol("i3"), addrs[2];

	open_main_path(&o);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
	ck_assert_uint_eq(hwtr_cursor_position(c), 29);	/* starts at the end */
	ck_assert_int_eq(hwtr_cursor_step(c, -5), 0);
	ck_assert_uint_eq(hwtr_cursor_position(c), 24);
	ck_assert_int_eq(hwtr_cursor_step(c, 100), -hwtr_err_eos);
	ck_assert_uint_eq(hwtr_cursor_position(c), 29);
	ck_assert_int_eq(hwtr_cursor_step(c, -28), 0);
	ck_assert_uint_eq(hwtr_cursor_position(c), 1);
	ck_assert_int_eq(hwtr_cursor_step(c, -1), -hwtr_err_eos);
	ck_assert_int_eq(hwtr_cursor_goto(c, 30), -hwtr_err_range);
	ck_assert_int_eq(hwtr_cursor_goto(c, 0), -hwtr_err_range);

	/* reverse-continue from the end to a breakpoint in leaf: the latest hit */
	ck_assert_int_eq(hwtr_cursor_goto(c, 29), 0);
	ck_assert_int_eq(hwtr_cursor_find(c, -1, &leaf_nop, 1), 1);
	ck_assert_uint_eq(hwtr_cursor_position(c), 22);
	ck_assert_int_eq(hwtr_cursor_find(c, -1, &leaf_nop, 1), 1);
	ck_assert_uint_eq(hwtr_cursor_position(c), 15);	/* across the chunk */
	ck_assert_int_eq(hwtr_cursor_find(c, -1, &leaf_nop, 1), 1);
	ck_assert_uint_eq(hwtr_cursor_position(c), 9);
	ck_assert_int_eq(hwtr_cursor_find(c, -1, &leaf_nop, 1), 1);
	ck_assert_uint_eq(hwtr_cursor_position(c), 3);
	ck_assert_int_eq(hwtr_cursor_find(c, -1, &leaf_nop, 1), 0);
	ck_assert_uint_eq(hwtr_cursor_position(c), 3);	/* stays */
	/* forward, with a set of two addresses */
	addrs[0] = fixture_symbol("i25");
	addrs[1] = fixture_symbol("i24");
	ck_assert_int_eq(hwtr_cursor_find(c, 1, addrs, 2), 1);
	ck_assert_uint_eq(hwtr_cursor_position(c), 24);
	ck_assert_int_eq(hwtr_cursor_find(c, 1, addrs, 2), 1);
	ck_assert_uint_eq(hwtr_cursor_position(c), 25);
	ck_assert_int_eq(hwtr_cursor_find(c, 1, addrs, 2), 0);

	/* the call stack inside leaf called from outer */
	ck_assert_int_eq(hwtr_cursor_goto(c, 23), 0);
	ck_assert_int_eq(hwtr_cursor_callstack(c, stack, 8), 3);
	ck_assert_str_eq(stack[0].function, "leaf");
	ck_assert_uint_eq(stack[0].number, 9);
	ck_assert_str_eq(stack[1].function, "outer");
	ck_assert_uint_eq(stack[1].number, 8);
	ck_assert_str_eq(stack[2].function, "_start");
	ck_assert_uint_eq(stack[2].number, 7);
	ck_assert_int_eq(hwtr_cursor_segment(c, &stack[0]), 0);
	ck_assert_uint_eq(stack[0].number, 9);
	hwtr_cursor_free(c);
	close_history(&o);
}
END_TEST

/* ------------------------------------------------------------ error cases */

static const struct hwtr_gap *gap_at(struct hwtr_thread *th, uint64_t n)
{
	struct hwtr_cursor *c;
	struct hwtr_insn insn;

	ck_assert_int_eq(hwtr_cursor_alloc(th, &c), 0);
	ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	hwtr_cursor_free(c);
	return insn.gap;
}

START_TEST(overflow_becomes_a_gap_and_decoding_resumes)
{
	uint64_t ips[30];
	bool gaps[30];
	struct opened o;
	struct trace t;
	char *text;
	size_t i;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	enc_ovf(&t);
	enc_fup(&t, fixture_symbol("loop"));	/* trace resumes here */
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	open_history(&o, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
	ck_assert_uint_eq(o.stats.instructions, 30);
	ck_assert_uint_eq(o.stats.gaps, 1);
	read_ips(o.thread, ips, gaps, 30);
	for (i = 0; i < 30; i++) {
		size_t label = i < 13 ? i : i - 1;

		if (i == 13) {
			ck_assert(gaps[i]);
			continue;
		}
		ck_assert(!gaps[i]);
		ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[label]));
	}
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 14)->message, "overflow"));
	text = capture_calls(o.thread, 5, 7, 0, false);
	ck_assert_str_eq(text, "5\t_start\n6\t[overflow]\n7\t_start\n");
	free(text);
	close_history(&o);
}
END_TEST

/* Trace bytes with no PSB at all (a --max-size ring smaller than the PSB
 * period keeps such bytes): nothing decodes, and the history is one gap
 * that says so, not an empty history that looks like no trace. */
START_TEST(bytes_without_any_psb_are_one_gap)
{
	struct opened o;
	struct trace t;
	size_t size;

	trace_begin(&t);
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	size = trace_size(&t);
	open_history(&o, t.buf, size, NULL, NULL);
	trace_end(&t);
	ck_assert_uint_eq(o.stats.instructions, 1);
	ck_assert_uint_eq(o.stats.gaps, 1);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 1)->message, "cannot be decoded"));
	ck_assert_uint_eq(gap_at(o.thread, 1)->offset, 0);
	close_history(&o);
}
END_TEST

START_TEST(garbage_is_a_gap_then_decoding_resyncs_at_the_next_psb)
{
	uint64_t ips[64];
	bool gaps[64];
	size_t psb2, i, n;
	struct opened o;
	struct trace t;
	const struct hwtr_gap *gap = NULL;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "11");
	/* bytes that make no sense: an unknown extended opcode */
	t.buf[trace_size(&t)] = 0x02;
	t.buf[trace_size(&t) + 1] = 0xd7;
	pt_enc_sync_set(t.encoder, trace_size(&t) + 2);
	psb2 = trace_size(&t);
	enc_psb(&t, fixture_symbol("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	open_history(&o, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
	n = o.stats.instructions;
	ck_assert_uint_eq(o.stats.gaps, 1);
	ck_assert_uint_ge(n, 17);
	read_ips(o.thread, ips, gaps, n);
	/* the history continues exactly with the second PSB's 16 instructions */
	for (i = 0; i < 16; i++) {
		ck_assert(!gaps[n - 16 + i]);
		ck_assert_uint_eq(ips[n - 16 + i],
				  fixture_symbol(main_path_labels[13 + i]));
	}
	/* before it: the first instructions, then the gap */
	for (i = 0; i < n - 16; i++)
		if (gaps[i])
			gap = gap_at(o.thread, i + 1);
		else
			ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[i]));
	ck_assert_ptr_nonnull(gap);
	ck_assert_int_eq(gap->pt_error, pte_bad_opc);
	ck_assert_uint_lt(gap->offset, psb2 + 1);
	ck_assert_ptr_nonnull(strstr(gap->message, "offset"));
	close_history(&o);
}
END_TEST

/* O: the history of trace T over the fixture, with a loss event at stream
 * offset LOSS for REASON; T is released. */
static void open_with_loss(struct opened *o, struct trace *t, uint64_t loss,
			   const char *reason)
{
	struct hwtr_sideband_event ev[2];
	char dir[512];

	fixture_mapping(fixture_path(), 0, &ev[0]);
	ev[0].build_id = fixture_build_id();
	memset(&ev[1], 0, sizeof(ev[1]));
	ev[1].kind = hwtr_ev_loss;
	ev[1].tsc = 150;
	ev[1].tid = 1;
	ev[1].offset = loss;
	ev[1].reason = reason;
	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording_with(dir, t->buf, trace_size(t), ev, 2);
	trace_end(t);
	ck_assert_int_eq(hwtr_recording_open(dir, &o->rec), 0);
	ck_assert_msg(hwtr_history_build(o->rec, NULL, &o->history) == 0, "%s",
		      hwtr_last_error());
	o->thread = hwtr_history_thread(o->history, 0);
	ck_assert_int_eq(hwtr_thread_stats(o->thread, &o->stats), 0);
}

/* The thread's N instructions are the main path with one gap at index GAP;
 * after it, instruction I is the path's I - BACK. */
static void assert_path_with_gap(struct hwtr_thread *th, size_t n, size_t gap,
				 size_t back)
{
	uint64_t ips[64];
	bool gaps[64];
	size_t i;

	ck_assert_uint_le(n, 64);
	read_ips(th, ips, gaps, n);
	for (i = 0; i < n; i++) {
		if (i == gap) {
			ck_assert(gaps[i]);
			continue;
		}
		ck_assert(!gaps[i]);
		ck_assert_uint_eq(ips[i], fixture_symbol(
			main_path_labels[i < gap ? i : i - back]));
	}
}

/* A source that knows it lost trace (perf's AUX TRUNCATED) logs a loss
 * event: the packets after it must not be read as a continuation. */
START_TEST(a_loss_event_is_a_gap_and_decoding_resumes_at_the_next_psb)
{
	struct opened o;
	struct trace t;
	size_t loss;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	loss = trace_size(&t);
	/* What followed the loss: valid packets that belong elsewhere; read
	 * as a continuation they would steer the decoder wrong. */
	enc_tnt(&t, "0000");
	enc_tip(&t, fixture_symbol("i20"));
	trace_main_path_from_loop(&t);
	open_with_loss(&o, &t, loss, "perf's AUX buffer was full");
	/* Up to the loss: the 13 instructions of the first TNT, and the 3
	 * that need no trace (i2, i3, i4 run until the ret at i4 needs a
	 * bit); the gap; then the second PSB's 16 instructions. */
	ck_assert_uint_eq(o.stats.instructions, 33);
	ck_assert_uint_eq(o.stats.gaps, 1);
	assert_path_with_gap(o.thread, 33, 16, 4);
	ck_assert_uint_eq(gap_at(o.thread, 17)->offset, loss);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 17)->message,
				     "AUX buffer was full"));
	ck_assert_str_eq(gap_at(o.thread, 17)->kind, "trace-loss");
	close_history(&o);
}
END_TEST

/* A ring that lapped before anything was read: the stream starts at a PSB
 * with a loss at offset 0 and no OVF.  The history must begin with that
 * gap, not start silently in the middle of the program. */
START_TEST(a_loss_before_the_first_psb_is_the_first_gap)
{
	uint64_t ips[17];
	bool gaps[17];
	struct opened o;
	struct trace t;
	size_t i;

	trace_begin(&t);
	trace_main_path_from_loop(&t);
	open_with_loss(&o, &t, 0, "the buffer lapped before it was read");
	/* The gap, then the 16 instructions from "loop" (the main path's
	 * 14th on). */
	ck_assert_uint_eq(o.stats.instructions, 17);
	ck_assert_uint_eq(o.stats.gaps, 1);
	read_ips(o.thread, ips, gaps, 17);
	ck_assert(gaps[0]);
	for (i = 1; i < 17; i++) {
		ck_assert(!gaps[i]);
		ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[i + 12]));
	}
	ck_assert_str_eq(gap_at(o.thread, 1)->kind, "trace-loss");
	ck_assert_uint_eq(gap_at(o.thread, 1)->offset, 0);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 1)->message,
				     "lapped before it was read"));
	close_history(&o);
}
END_TEST

/* A loss at the end of an empty stream (a recorder killed before it kept
 * anything) is not a leading gap: there is no trace after it. */
START_TEST(a_loss_with_no_trace_after_it_makes_no_history)
{
	struct opened o;
	struct trace t;

	trace_begin(&t);
	open_with_loss(&o, &t, 0, "killed");
	ck_assert_uint_eq(o.stats.instructions, 0);
	ck_assert_uint_eq(o.stats.gaps, 0);
	close_history(&o);
}
END_TEST

/* A loss at the end of the trace (the recorder knows the thread ran on but
 * its trace stops: killed, or the recorder could not go on): the history
 * ends with that gap, naming the reason, after every decoded instruction. */
START_TEST(a_loss_at_the_end_of_the_trace_is_the_last_gap)
{
	uint64_t ips[17];
	bool gaps[17];
	struct opened o;
	struct trace t;
	size_t end, i;

	trace_begin(&t);
	trace_main_path_from_loop(&t);
	end = trace_size(&t);
	open_with_loss(&o, &t, end, "Valgrind gave up");
	/* The 16 instructions from "loop" (the main path's 14th on), then
	 * the gap. */
	ck_assert_uint_eq(o.stats.instructions, 17);
	ck_assert_uint_eq(o.stats.gaps, 1);
	read_ips(o.thread, ips, gaps, 17);
	for (i = 0; i < 16; i++) {
		ck_assert(!gaps[i]);
		ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[i + 13]));
	}
	ck_assert(gaps[16]);
	ck_assert_str_eq(gap_at(o.thread, 17)->kind, "trace-loss");
	ck_assert_uint_eq(gap_at(o.thread, 17)->offset, end);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 17)->message,
				     "Valgrind gave up"));
	close_history(&o);
}
END_TEST

/* A loss at the end of a stream that holds trace (the program was killed
 * by SIGKILL: what it ran after its last packet is missing): the history is
 * the whole path, then that gap as its last instruction number. */
START_TEST(a_loss_after_the_whole_path_is_the_last_gap)
{
	uint64_t ips[30];
	bool gaps[30];
	struct opened o;
	struct trace t;
	size_t i, size;

	trace_begin(&t);
	trace_main_path(&t);
	size = trace_size(&t);
	open_with_loss(&o, &t, size, "killed by SIGKILL");
	ck_assert_uint_eq(o.stats.instructions, 30);
	ck_assert_uint_eq(o.stats.gaps, 1);
	read_ips(o.thread, ips, gaps, 30);
	for (i = 0; i < 29; i++) {
		ck_assert(!gaps[i]);
		ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[i]));
	}
	ck_assert(gaps[29]);
	ck_assert_str_eq(gap_at(o.thread, 30)->kind, "trace-loss");
	ck_assert_uint_eq(gap_at(o.thread, 30)->offset, size);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 30)->message,
				     "killed by SIGKILL"));
	close_history(&o);
}
END_TEST

/* The hwt source marks a loss in the stream too (OVF, then a FUP where
 * trace resumes): the overflow is the gap, not a second one for the loss
 * event, and decoding resumes at the FUP as without the event. */
START_TEST(a_loss_the_stream_marks_with_ovf_is_the_overflow_gap)
{
	struct opened o;
	struct trace t;
	size_t loss;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	loss = trace_size(&t);
	enc_ovf(&t);
	enc_fup(&t, fixture_symbol("loop"));
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	open_with_loss(&o, &t, loss, "the kernel's buffer wrapped");
	ck_assert_uint_eq(o.stats.instructions, 30);
	ck_assert_uint_eq(o.stats.gaps, 1);
	assert_path_with_gap(o.thread, 30, 13, 1);
	ck_assert_str_eq(gap_at(o.thread, 14)->kind, "overflow");
	close_history(&o);
}
END_TEST

START_TEST(trace_cut_inside_a_packet_ends_with_a_gap)
{
	uint64_t ips[64];
	bool gaps[64];
	struct opened o;
	struct trace t;
	size_t n, i;

	trace_begin(&t);
	trace_main_path(&t);
	/* cut the last packets: TIP (7 bytes) is cut after 3, TIP.PGD dropped */
	n = trace_size(&t) - 1 - 4;
	open_history(&o, t.buf, n, NULL, NULL);
	trace_end(&t);
	ck_assert_uint_ge(o.stats.gaps, 1);
	n = o.stats.instructions;
	read_ips(o.thread, ips, gaps, n);
	ck_assert(gaps[n - 1]);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, n)->message,
				     "trace truncated"));
	for (i = 0; i + 1 < n; i++)
		if (!gaps[i])
			ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[i]));
	/* everything up to the indirect jump was decoded */
	ck_assert_uint_ge(n - 1, 27);
	close_history(&o);
}
END_TEST

START_TEST(missing_binary_gap_names_path_and_build_id)
{
	struct opened o;
	struct trace t;
	const struct hwtr_gap *gap;

	trace_begin(&t);
	trace_main_path(&t);
	open_history(&o, t.buf, trace_size(&t), "/nonexistent/app", "0123abcd");
	trace_end(&t);
	ck_assert_uint_ge(o.stats.gaps, 1);
	gap = gap_at(o.thread, 1);
	ck_assert_ptr_nonnull(gap);
	ck_assert_int_eq(gap->pt_error, pte_nomap);
	ck_assert_msg(strstr(gap->message, "/nonexistent/app") &&
		      strstr(gap->message, "0123abcd"), "%s", gap->message);
	close_history(&o);
}
END_TEST

START_TEST(build_id_mismatch_names_both_ids_and_the_path)
{
	struct opened o;
	struct trace t;
	const struct hwtr_gap *gap;

	trace_begin(&t);
	trace_main_path(&t);
	open_history(&o, t.buf, trace_size(&t), NULL, "deadbeef");
	trace_end(&t);
	gap = gap_at(o.thread, 1);
	ck_assert_ptr_nonnull(gap);
	ck_assert_msg(strstr(gap->message, "build-id mismatch") &&
		      strstr(gap->message, "deadbeef") &&
		      strstr(gap->message, fixture_build_id()) &&
		      strstr(gap->message, fixture_path()), "%s", gap->message);
	close_history(&o);
}
END_TEST

START_TEST(empty_trace_is_an_empty_history)
{
	struct hwtr_cursor *c = NULL;
	struct opened o;

	open_history(&o, (const uint8_t *)"", 0, NULL, NULL);
	ck_assert_uint_eq(o.stats.instructions, 0);
	ck_assert_uint_eq(o.stats.segments, 0);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), -hwtr_err_eos);
	ck_assert_ptr_null(c);
	close_history(&o);
}
END_TEST

START_TEST(a_small_cache_gives_the_same_history)
{
	struct hwtr_history_options opts = { .cache_bytes = 1 };
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	struct opened o;
	int round;

	open_main_path(&o);
	ck_assert_int_eq(hwtr_history_build(o.rec, &opts, &h), 0);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	/* alternate between the chunks many times: eviction must be invisible */
	for (round = 0; round < 50; round++) {
		struct hwtr_insn insn;
		uint64_t n = round % 2 ? 3 : 28;

		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		ck_assert_uint_eq(insn.ip, fixture_symbol(main_path_labels[n - 1]));
	}
	hwtr_cursor_free(c);
	hwtr_history_free(h);
	close_history(&o);
}
END_TEST

START_TEST(code_after_an_exec_comes_from_the_new_program)
{
	struct hwtr_sideband_event events[3];
	uint64_t ips[34];
	bool gaps[34];
	struct opened o;
	struct trace t;
	char dir[512];
	size_t i;

	/* fixture-code runs, execs fixture-exec (same address), which runs;
	 * the PSB in between finds tracing off. */
	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	enc_psb_disabled(&t, 200);
	enc_tip_pge(&t, 0x401000);
	enc_tip_pgd(&t);
	fixture_mapping(fixture_path(), 0, &events[0]);
	events[1] = (struct hwtr_sideband_event){ .kind = hwtr_ev_exec, .tsc = 150,
						  .path = fixture_exec_path() };
	fixture_mapping(fixture_exec_path(), 150, &events[2]);
	ck_assert_uint_eq(events[2].addr, events[0].addr);
	snprintf(dir, sizeof(dir), "%s/x.hwtrec", fixture_tmpdir());
	fixture_recording_with(dir, t.buf, trace_size(&t), events, 3);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(dir, &o.rec), 0);
	ck_assert_int_eq(hwtr_history_build(o.rec, NULL, &o.history), 0);
	o.thread = hwtr_history_thread(o.history, 0);
	hwtr_thread_stats(o.thread, &o.stats);
	ck_assert_uint_eq(o.stats.instructions, 34);
	ck_assert_uint_eq(o.stats.chunks, 2);
	read_ips(o.thread, ips, gaps, 34);
	for (i = 0; i < 29; i++)
		ck_assert_uint_eq(ips[i], fixture_symbol(main_path_labels[i]));
	/* tracing was off across the exec: GDB's btrace shows this gap too */
	ck_assert(gaps[29]);
	ck_assert_ptr_nonnull(strstr(gap_at(o.thread, 30)->message, "disabled"));
	/* e1..e4 at the old program's addresses, decoded from the new file:
	 * the bytes tell them apart (nop, nop, mov, syscall) */
	for (i = 0; i < 4; i++) {
		struct hwtr_cursor *c;
		struct hwtr_insn insn;
		static const uint8_t first_byte[4] = { 0x90, 0x90, 0xb8, 0x0f };

		ck_assert(!gaps[30 + i]);
		ck_assert_uint_eq(ips[30 + i], 0x401000 + (i < 2 ? i : i == 2 ? 2 : 7));
		ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
		ck_assert_int_eq(hwtr_cursor_goto(c, 31 + i), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		ck_assert_uint_eq(insn.raw[0], first_byte[i]);
		hwtr_cursor_free(c);
	}
	close_history(&o);
}
END_TEST

/* fixture-code runs the main path and execs fixture-next, whose functions
 * sit at fixture-code's addresses (fixture-next.S), which runs _start ->
 * second_fn -> first_fn and exits: instructions 1-29, the gap of the exec,
 * then 31-37. */
static void record_exec_into_next(struct opened *o, const char *name)
{
	struct hwtr_sideband_event events[3];
	struct trace t;
	char dir[512];

	trace_begin(&t);
	trace_main_path(&t);
	enc_psb_disabled(&t, 300);
	enc_tip_pge(&t, fixture_symbol_in(fixture_next_path(), "n5"));
	enc_tnt(&t, "11");	/* ret (first_fn), ret (second_fn) */
	enc_tip_pgd(&t);	/* syscall */
	fixture_mapping(fixture_path(), 0, &events[0]);
	events[1] = (struct hwtr_sideband_event){ .kind = hwtr_ev_exec, .tsc = 250,
						  .path = fixture_next_path() };
	fixture_mapping(fixture_next_path(), 250, &events[2]);
	ck_assert_uint_eq(events[2].addr, events[0].addr);
	snprintf(dir, sizeof(dir), "%s/%s", fixture_tmpdir(), name);
	fixture_recording_with(dir, t.buf, trace_size(&t), events, 3);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(dir, &o->rec), 0);
	ck_assert_int_eq(hwtr_history_build(o->rec, NULL, &o->history), 0);
	o->thread = hwtr_history_thread(o->history, 0);
	hwtr_thread_stats(o->thread, &o->stats);
}

/* One file mapped twice, at its own address and again 256 MiB higher (a
 * program that maps its own executable again): libdw crashed reading the
 * symbols of the second module reported under the same name.  The history
 * builds, and the first copy is named from the file's symbol table. */
START_TEST(one_file_mapped_at_two_addresses_builds_and_is_named)
{
	struct hwtr_sideband_event events[2];
	struct hwtr_symbolizer *sym;
	struct opened o;
	struct trace t;
	char dir[512];
	const uint64_t delta = 0x10000000;
	uint64_t start = 0, leaf = fixture_symbol("leaf");
	const char *name;

	trace_begin(&t);
	trace_main_path(&t);
	fixture_mapping(fixture_path(), 0, &events[0]);
	events[1] = events[0];
	events[1].addr += delta;
	snprintf(dir, sizeof(dir), "%s/twice.hwtrec", fixture_tmpdir());
	fixture_recording_with(dir, t.buf, trace_size(&t), events, 2);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(dir, &o.rec), 0);
	ck_assert_msg(hwtr_history_build(o.rec, NULL, &o.history) == 0, "%s",
		      hwtr_last_error());
	o.thread = hwtr_history_thread(o.history, 0);
	ck_assert_int_eq(hwtr_thread_stats(o.thread, &o.stats), 0);
	/* The main path, as open_main_path gives it. */
	ck_assert_uint_eq(o.stats.instructions, 29);
	sym = hwtr_history_symbolizer(o.history);
	name = hwtr_symbolize_function(sym, leaf, &start);
	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, "leaf");
	ck_assert_uint_eq(start, leaf);
	/* The copy: fixture-code is ET_EXEC, which libdw puts at its link
	 * address whatever the bias, so the copy overlaps the first module
	 * and gets no names (rather than the first copy's). */
	ck_assert_ptr_null(hwtr_symbolize_function(sym, leaf + delta, &start));
	close_history(&o);
}
END_TEST

static const char *const next_path_labels[7] = {
	"n5", "n3", "n1", "n2", "n4", "n6", "n7" };

START_TEST(functions_before_an_exec_are_the_first_programs)
{
	static const char *const names[18] = {
		"_start", "leaf", "_start", "leaf", "_start", "leaf", "_start",
		"outer", "leaf", "outer", "tail", "_start", NULL,
		"_start", "second_fn", "first_fn", "second_fn", "_start" };
	struct hwtr_segment seg;
	struct opened o;
	struct hwtr_cursor *c;
	uint64_t n, k;

	record_exec_into_next(&o, "next.hwtrec");
	ck_assert_uint_eq(o.stats.instructions, 37);
	ck_assert_uint_eq(o.stats.segments, 18);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
	/* Every instruction's segment names the function that the symbol
	 * table of the program running then puts at its IP. */
	for (n = 1; n <= 37; n++) {
		const char *path = n < 30 ? fixture_path() : fixture_next_path();
		/* (30 is the exec's gap: no label) */
		const char *label = n < 30 ? main_path_labels[n - 1]
				    : n > 30 ? next_path_labels[n - 31] : NULL;
		struct hwtr_insn insn;
		uint64_t start = 0;

		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		ck_assert_int_eq(hwtr_cursor_segment(c, &seg), 0);
		if (n == 30) {
			ck_assert_ptr_nonnull(insn.gap);
			continue;
		}
		ck_assert_uint_eq(insn.ip, fixture_symbol_in(path, label));
		ck_assert_str_eq(seg.function ? seg.function : "(none)",
				 fixture_function_of(path, insn.ip, &start));
		ck_assert_uint_eq(seg.function_start, start);
	}
	hwtr_cursor_free(c);
	/* The segments, in order: one call stack per program. */
	for (k = 1; k <= 18; k++) {
		ck_assert_int_eq(hwtr_thread_segment(o.thread, k, &seg), 0);
		if (!names[k - 1])
			ck_assert(seg.flags & HWTR_SEG_GAP);
		else
			ck_assert_str_eq(seg.function ? seg.function : "(none)",
					 names[k - 1]);
	}
	/* first_fn (16) was called by second_fn (15), called by _start (14) */
	ck_assert_int_eq(hwtr_thread_segment(o.thread, 16, &seg), 0);
	ck_assert_uint_eq(seg.up, 15);
	ck_assert_int_eq(hwtr_thread_segment(o.thread, 15, &seg), 0);
	ck_assert_uint_eq(seg.up, 14);
	/* Without a time, the program at the end names an address. */
	{
		uint64_t start = 0;
		const char *fn = hwtr_symbolize_function(
			hwtr_history_symbolizer(o.history),
			fixture_symbol("i2"), &start);

		ck_assert_str_eq(fn ? fn : "(none)", "second_fn");
		ck_assert_uint_eq(start, fixture_symbol_in(fixture_next_path(),
							   "second_fn"));
	}
	close_history(&o);
}
END_TEST

START_TEST(listings_before_an_exec_name_the_first_programs_code)
{
	struct opened o;
	char *text = NULL, expect[128];
	size_t size = 0;
	FILE *f;

	record_exec_into_next(&o, "listing.hwtrec");
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	/* i1 i2 (call leaf) before the exec, n5 n3 (call first_fn) after:
	 * the same addresses, other code and names. */
	ck_assert_int_eq(hwtr_list_insns(o.thread, 1, 2, 0, false, 0, f), 0);
	ck_assert_int_eq(hwtr_list_insns(o.thread, 31, 32, 0, false, 0, f), 0);
	ck_assert_int_eq(hwtr_list_insns(o.thread, 2, 2, 0, true, 0, f), 0);
	fclose(f);
	snprintf(expect, sizeof(expect), "0x%016llx <_start+2>:\tcall   0x%llx <leaf>",
		 (unsigned long long)fixture_symbol("i2"),
		 (unsigned long long)fixture_symbol("leaf"));
	ck_assert_msg(strstr(text, expect), "no \"%s\" in:\n%s", expect, text);
	snprintf(expect, sizeof(expect), "0x%016llx <second_fn+0>:\tcall   0x%llx <first_fn>",
		 (unsigned long long)fixture_symbol_in(fixture_next_path(), "n3"),
		 (unsigned long long)fixture_symbol_in(fixture_next_path(), "first_fn"));
	ck_assert_msg(strstr(text, expect), "no \"%s\" in:\n%s", expect, text);
	ck_assert_msg(strstr(text, "\"function\":\"_start\",\"offset\":2") ||
		      strstr(text, "\"function\": \"_start\", \"offset\": 2"),
		      "JSON of instruction 2 is not _start+2:\n%s", text);
	free(text);
	close_history(&o);
}
END_TEST

START_TEST(a_return_after_a_tail_call_goes_to_the_tail_callers_caller)
{
	const char *const *labels = recursion_path_labels;
	const struct fixture_segment *expected = recursion_path_segments;
	uint64_t ips[14];
	bool gaps[14];
	struct opened o;
	struct trace t;
	size_t i;

	trace_begin(&t);
	enc_psb(&t, fixture_symbol("r1"), 100);
	enc_tnt(&t, "0111");	/* jnz no, jnz yes, ret (leaf), ret (twice) */
	enc_tip_pgd(&t);
	open_history(&o, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
	ck_assert_uint_eq(o.stats.instructions, 14);
	read_ips(o.thread, ips, gaps, 14);
	for (i = 0; i < 14; i++)
		ck_assert_uint_eq(ips[i], fixture_symbol(labels[i]));
	ck_assert_uint_eq(o.stats.segments, 6);
	for (i = 0; i < 6; i++) {
		const struct fixture_segment *e = &expected[i];
		struct hwtr_segment s;

		ck_assert_int_eq(hwtr_thread_segment(o.thread, i + 1, &s), 0);
		ck_assert_str_eq(s.function, e->function);
		ck_assert_uint_eq(s.insn_begin, e->begin);
		ck_assert_uint_eq(s.insn_end, e->end + 1);
		ck_assert_msg(s.level == e->level - 1, "segment %zu level %d", i + 1,
			      s.level);
		ck_assert_uint_eq(s.up, e->up);
		ck_assert_uint_eq(s.prev, e->prev);
		ck_assert_uint_eq(s.next, e->next);
		ck_assert_uint_eq(s.flags, e->flags);
	}
	close_history(&o);
}
END_TEST

/* A thread stopped after instruction K of a path (the trace ends with
 * FUP + TIP.PGD at the next instruction, as a live stop or a fault leaves
 * it): the stack hwtr_thread_callstack_next gives that next instruction at
 * NEXT_LABEL must be the one the btrace model of the whole path (MODEL, N
 * segments) gives instruction K + 1; a segment that starts there is new
 * (number 0, not in the history yet). */
static void check_stack_after(struct trace *t, uint64_t k, const char *next_label,
			      const struct fixture_segment *model, size_t n)
{
	struct hwtr_segment stack[8];
	struct opened o;
	uint64_t number = 0;
	size_t i, depth = 0;
	int got;

	enc_fup(t, fixture_symbol(next_label));
	enc_tip_pgd(t);
	open_history(&o, t->buf, trace_size(t), NULL, NULL);
	trace_end(t);
	ck_assert_uint_eq(o.stats.instructions, k);
	got = hwtr_thread_callstack_next(o.thread, fixture_symbol(next_label),
					 stack, 8);
	for (i = 0; i < n; i++)
		if (model[i].begin <= k + 1 && k + 1 <= model[i].end)
			number = i + 1;
	ck_assert_uint_ne(number, 0);
	while (number) {
		const struct fixture_segment *e = &model[number - 1];
		const struct hwtr_segment *s = &stack[depth];
		bool fresh = depth == 0 && e->begin == k + 1;

		ck_assert_msg((int)depth < got, "after %llu: %d frames, the model "
			      "has more", (unsigned long long)k, got);
		ck_assert_msg(s->function && !strcmp(s->function, e->function),
			      "after %llu, frame %zu: %s, expected %s",
			      (unsigned long long)k, depth,
			      s->function ? s->function : "(none)", e->function);
		ck_assert_uint_eq(s->number, fresh ? 0 : number);
		ck_assert_int_eq(s->level, e->level - 1);
		ck_assert_uint_eq(s->up, e->up);
		ck_assert_uint_eq(s->flags, e->flags);
		ck_assert_uint_eq(s->function_start, fixture_symbol(e->function));
		if (fresh) {
			ck_assert_uint_eq(s->prev, e->prev);
			ck_assert_uint_eq(s->insn_begin, k + 1);
			ck_assert_uint_eq(s->insn_end, k + 1);
		}
		number = e->up;
		depth++;
	}
	ck_assert_int_eq(got, (int)depth);
	close_history(&o);
}

START_TEST(the_instruction_after_the_end_gets_the_stack_the_trace_would_give_it)
{
	/* A path from START with TNT bits, a second PSB+ at "loop" and more
	 * bits (main path only), cut after instruction K, before NEXT. */
	static const struct {
		bool recursion;
		const char *tnt, *tnt_after_psb;
		uint64_t k;
		const char *next;
	} cases[] = {
		{ false, "1", NULL, 4, "i5" },	/* a return: the caller goes on */
		{ false, "1", NULL, 5, "i6" },	/* inside a function */
		{ false, "1111", "10", 20, "i21" },	/* a call: the callee */
		{ false, "1111", "101", 23, "i24" },	/* a return to outer */
		{ false, "1111", "101", 24, "i25" },	/* a tail jump */
		/* the return of a tail-called function: to the outer
		 * activation of the tail caller's caller */
		{ true, "011", NULL, 11, "t5" },
		{ true, "0", NULL, 6, "t1" },	/* the recursive call */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;

		trace_begin(&t);
		enc_psb(&t, fixture_symbol(cases[i].recursion ? "r1" : "i1"), 100);
		enc_tnt(&t, cases[i].tnt);
		if (cases[i].tnt_after_psb) {
			enc_psb(&t, fixture_symbol("loop"), 200);
			enc_tnt(&t, cases[i].tnt_after_psb);
		}
		if (cases[i].recursion)
			check_stack_after(&t, cases[i].k, cases[i].next,
					  recursion_path_segments,
					  sizeof(recursion_path_segments) /
					  sizeof(recursion_path_segments[0]));
		else
			check_stack_after(&t, cases[i].k, cases[i].next,
					  main_path_segments,
					  sizeof(main_path_segments) /
					  sizeof(main_path_segments[0]));
	}
}
END_TEST

START_TEST(a_psb_right_after_tracing_resumes_starts_a_chunk)
{
	struct hwtr_sideband_event events[3];
	struct hwtr_cursor *c;
	struct hwtr_insn insn;
	struct opened o;
	struct trace t;
	char dir[512];

	/* As the exec test, but the PSB+ (with FUP) follows the TIP.PGE at
	 * once: libipt has read it when it reports the enable. */
	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	enc_tnt(&t, "1111");
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	enc_tip_pge(&t, 0x401000);
	enc_psb(&t, 0x401000, 200);
	enc_tip_pgd(&t);
	fixture_mapping(fixture_path(), 0, &events[0]);
	events[1] = (struct hwtr_sideband_event){ .kind = hwtr_ev_exec, .tsc = 150,
						  .path = fixture_exec_path() };
	fixture_mapping(fixture_exec_path(), 150, &events[2]);
	snprintf(dir, sizeof(dir), "%s/p.hwtrec", fixture_tmpdir());
	fixture_recording_with(dir, t.buf, trace_size(&t), events, 3);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(dir, &o.rec), 0);
	ck_assert_int_eq(hwtr_history_build(o.rec, NULL, &o.history), 0);
	o.thread = hwtr_history_thread(o.history, 0);
	hwtr_thread_stats(o.thread, &o.stats);
	ck_assert_uint_eq(o.stats.chunks, 2);
	ck_assert_uint_eq(o.stats.instructions, 34);
	ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
	ck_assert_int_eq(hwtr_cursor_goto(c, 31), 0);
	ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
	ck_assert_uint_eq(insn.ip, 0x401000);
	ck_assert_uint_eq(insn.raw[0], 0x90);	/* fixture-exec's nop */
	hwtr_cursor_free(c);
	close_history(&o);
}
END_TEST

START_TEST(a_long_history_grows_the_segment_array_safely)
{
	struct hwtr_segment last;
	struct opened o;
	struct trace t;
	int i;

	/* 302 trips round the loop (301 taken jne, then the exit): over 600
	 * segments, made and linked while
	 * the segment array is moved by realloc (memcheck watches). */
	trace_begin(&t);
	enc_psb(&t, fixture_symbol("i1"), 100);
	for (i = 0; i < 100; i++)
		enc_tnt(&t, "111111");
	enc_tnt(&t, "11");
	enc_tnt(&t, "1011");
	enc_tip(&t, fixture_symbol("done"));
	enc_tip_pgd(&t);
	open_history(&o, t.buf, trace_size(&t), NULL, NULL);
	trace_end(&t);
	ck_assert_uint_eq(o.stats.instructions, 1 + 302 * 6 + 10);
	ck_assert_uint_eq(o.stats.segments, 1 + 2 * 302 + 5);
	ck_assert_int_eq(hwtr_thread_segment(o.thread, o.stats.segments, &last), 0);
	ck_assert_str_eq(last.function, "_start");
	ck_assert_int_eq(last.level, 0);
	ck_assert_uint_eq(last.prev, o.stats.segments - 5);
	close_history(&o);
}
END_TEST

/* hwtr_history_end_ips on TRACE (one thread): the end's IP and what is
 * known of it. */
static uint64_t end_ip_of(const uint8_t *trace, size_t size,
			  enum hwtr_end_ip_status *status)
{
	struct hwtr_recording *rec;
	char dir[512];
	uint64_t ip = 0;

	snprintf(dir, sizeof(dir), "%s/end.hwtrec", fixture_tmpdir());
	fixture_recording(dir, trace, size, NULL, NULL);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	ck_assert_msg(hwtr_history_end_ips(rec, NULL, &ip, status) == 0, "%s",
		      hwtr_last_error());
	hwtr_recording_close(rec);
	return ip;
}

/* The end of a history, found from the last chunk alone (what the server
 * shows before the history is built), is the assembled path's last
 * instruction; with a last chunk that holds no instruction (a PSB+ while
 * tracing is off), the chunk before it says; a trace cut in a packet ends
 * where the built history's last instruction that is not a gap is; no
 * trace, or a trace without instructions, is known to have none. */
START_TEST(the_end_is_found_from_the_last_chunks)
{
	struct trace t;
	struct opened o;
	enum hwtr_end_ip_status status = hwtr_end_ip_unknown;
	uint64_t ip, n;

	trace_begin(&t);
	trace_main_path(&t);
	ip = end_ip_of(t.buf, trace_size(&t), &status);
	ck_assert_int_eq(status, hwtr_end_ip_found);
	ck_assert_uint_eq(ip, fixture_symbol(main_path_labels[28]));
	enc_psb_disabled(&t, 300);
	ip = end_ip_of(t.buf, trace_size(&t), &status);
	ck_assert_int_eq(status, hwtr_end_ip_found);
	ck_assert_uint_eq(ip, fixture_symbol(main_path_labels[28]));
	trace_end(&t);

	trace_begin(&t);
	trace_main_path(&t);
	n = trace_size(&t) - 1 - 4;	/* the TIP cut, the TIP.PGD gone */
	ip = end_ip_of(t.buf, n, &status);
	open_history(&o, t.buf, n, NULL, NULL);
	trace_end(&t);
	ck_assert_int_eq(status, hwtr_end_ip_found);
	{
		struct hwtr_cursor *c;
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_alloc(o.thread, &c), 0);
		for (;;) {
			ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
			if (!insn.gap)
				break;
			ck_assert_int_eq(hwtr_cursor_step(c, -1), 0);
		}
		ck_assert_uint_eq(ip, insn.ip);
		ck_assert_uint_eq(ip, fixture_symbol(main_path_labels[hwtr_cursor_position(c) - 1]));
		hwtr_cursor_free(c);
	}
	close_history(&o);

	/* No trace, or trace with no instruction: there will be none. */
	end_ip_of(NULL, 0, &status);
	ck_assert_int_eq(status, hwtr_end_ip_none);
	trace_begin(&t);
	enc_psb_disabled(&t, 100);
	end_ip_of(t.buf, trace_size(&t), &status);
	trace_end(&t);
	ck_assert_int_eq(status, hwtr_end_ip_none);
	fixture_cleanup();
}
END_TEST

START_TEST(build_ids_of_files_and_images_match_readelf)
{
	char id[130], *image;
	size_t size;
	FILE *f;

	ck_assert_int_eq(hwtr_build_id_of_file(fixture_path(), id, sizeof(id)), 1);
	ck_assert_str_eq(id, fixture_build_id());	/* readelf -n */
	f = fopen(fixture_path(), "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	rewind(f);
	image = malloc(size);
	ck_assert_uint_eq(fread(image, 1, size, f), size);
	fclose(f);
	ck_assert_int_eq(hwtr_build_id_of_image(image, size, id, sizeof(id)), 1);
	ck_assert_str_eq(id, fixture_build_id());
	ck_assert_int_eq(hwtr_build_id_of_image("not elf", 7, id, sizeof(id)),
			 -hwtr_err_format);
	ck_assert_int_eq(hwtr_build_id_of_file("/nonexistent", id, sizeof(id)),
			 -hwtr_err_notfound);
	free(image);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("fixture");

	tcase_add_test(tc, instruction_history_follows_the_assembled_path);
	tcase_add_test(tc, instruction_classes_sizes_and_bytes);
	tcase_add_test(tc, function_segments_follow_gdb_btrace);
	tcase_add_test(tc, function_call_history_in_gdb_format);
	tcase_add_test(tc, instruction_history_in_gdb_format);
	tcase_add_test(tc, cursor_steps_seeks_and_finds);
	tcase_add_test(tc, overflow_becomes_a_gap_and_decoding_resumes);
	tcase_add_test(tc, garbage_is_a_gap_then_decoding_resyncs_at_the_next_psb);
	tcase_add_test(tc, bytes_without_any_psb_are_one_gap);
	tcase_add_test(tc, trace_cut_inside_a_packet_ends_with_a_gap);
	tcase_add_test(tc, a_loss_event_is_a_gap_and_decoding_resumes_at_the_next_psb);
	tcase_add_test(tc, a_loss_before_the_first_psb_is_the_first_gap);
	tcase_add_test(tc, a_loss_with_no_trace_after_it_makes_no_history);
	tcase_add_test(tc, a_loss_at_the_end_of_the_trace_is_the_last_gap);
	tcase_add_test(tc, a_loss_after_the_whole_path_is_the_last_gap);
	tcase_add_test(tc, a_loss_the_stream_marks_with_ovf_is_the_overflow_gap);
	tcase_add_test(tc, missing_binary_gap_names_path_and_build_id);
	tcase_add_test(tc, build_id_mismatch_names_both_ids_and_the_path);
	tcase_add_test(tc, empty_trace_is_an_empty_history);
	tcase_add_test(tc, a_small_cache_gives_the_same_history);
	tcase_add_test(tc, code_after_an_exec_comes_from_the_new_program);
	tcase_add_test(tc, functions_before_an_exec_are_the_first_programs);
	tcase_add_test(tc, one_file_mapped_at_two_addresses_builds_and_is_named);
	tcase_add_test(tc, listings_before_an_exec_name_the_first_programs_code);
	tcase_add_test(tc, a_return_after_a_tail_call_goes_to_the_tail_callers_caller);
	tcase_add_test(tc, the_instruction_after_the_end_gets_the_stack_the_trace_would_give_it);
	tcase_add_test(tc, a_psb_right_after_tracing_resumes_starts_a_chunk);
	tcase_add_test(tc, a_long_history_grows_the_segment_array_safely);
	tcase_add_test(tc, the_end_is_found_from_the_last_chunks);
	tcase_add_test(tc, build_ids_of_files_and_images_match_readelf);
	return check_run_tcase("history", tc);
}
