/* test-etm: the ETMv4 decoder (decode-etm.c) and the history over it.
 *
 * Traces are written along known paths through known A64 code
 * (etm-encode.c: the packets by the ETMv4 specification, the code encoded
 * by hand, each word given with its instruction), so the oracle is the path
 * the test chose: instruction addresses, the classes OpenCSD gives the
 * branches (bl a call, ret a return, b.ne a conditional jump), the function
 * segments they make, and the gaps for code with no image, an overflow,
 * bytes before the first A-sync, a packet cut short and a loss event.  Two
 * sources interleaved in CoreSight frames decode apart; a source whose trace
 * carries context IDs splits into one thread per context. */
#include "etm-encode.h"

#include "hwtrecord.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hwtr-etm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A recording of the sources (with EXTRA's frames and losses, if any),
 * opened. */
static struct hwtr_recording *recording_with(const struct etm_source *src,
					     size_t n, bool formatted,
					     const struct etm_fixture_extra *extra)
{
	static unsigned serial;	/* a test may make several */
	struct hwtr_recording *rec = NULL;
	char dir[300];

	snprintf(dir, sizeof(dir), "%s/r%u.hwtrec", tmpdir, serial++);
	ck_assert_msg(etm_fixture_recording_with(dir, src, n, formatted, extra) == 0,
		      "%s", hwtr_last_error());
	ck_assert_msg(hwtr_recording_open(dir, &rec) == 0, "%s", hwtr_last_error());
	return rec;
}

static struct hwtr_recording *recording_of(const struct etm_source *src,
					   size_t n, bool formatted)
{
	return recording_with(src, n, formatted, NULL);
}

static struct hwtr_history *history_of(struct hwtr_recording *rec,
				       size_t cache_bytes)
{
	struct hwtr_history_options o = { .cache_bytes = cache_bytes };
	struct hwtr_history *h = NULL;

	ck_assert_msg(hwtr_history_build(rec, &o, &h) == 0, "%s", hwtr_last_error());
	return h;
}

/* Every instruction number of the thread, in order, through the cursor:
 * its IP, or 0 for a gap (whose message goes in GAPS[] when asked). */
static size_t walk(struct hwtr_thread *t, uint64_t *ips, size_t max,
		   const char **gaps)
{
	struct hwtr_cursor *c;
	struct hwtr_thread_stats st;
	size_t n = 0;

	ck_assert_int_eq(hwtr_thread_stats(t, &st), 0);
	ck_assert_int_le(st.instructions, max);
	ck_assert_int_eq(hwtr_cursor_alloc(t, &c), 0);
	for (n = 0; n < st.instructions; n++) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, n + 1), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ips[n] = insn.gap ? 0 : insn.ip;
		if (gaps)
			gaps[n] = insn.gap ? insn.gap->message : NULL;
	}
	hwtr_cursor_free(c);
	return n;
}

START_TEST(the_main_path_decodes_with_branch_classes_and_segments)
{
	static const enum hwtr_insn_class classes[18] = {
		[1] = hwtr_ic_call, [3] = hwtr_ic_return, [5] = hwtr_ic_cond_jump,
		[6] = hwtr_ic_call, [8] = hwtr_ic_return, [10] = hwtr_ic_cond_jump,
		[11] = hwtr_ic_call, [13] = hwtr_ic_return, [15] = hwtr_ic_cond_jump,
		[16] = hwtr_ic_jump, [17] = hwtr_ic_jump,
	};
	/* Calls of 0x1020 one level down; returns back to the caller's
	 * activation (prev links it). */
	static const struct { uint64_t begin, end; int level; uint64_t up, prev; }
		segs[7] = {
		{ 1, 3, 0, 0, 0 }, { 3, 5, 1, 1, 0 }, { 5, 8, 0, 0, 1 },
		{ 8, 10, 1, 3, 0 }, { 10, 13, 0, 0, 3 }, { 13, 15, 1, 5, 0 },
		{ 15, 19, 0, 0, 5 },
	};
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_thread *t;
	struct hwtr_thread_stats st;
	struct hwtr_cursor *c;
	uint64_t ips[64];
	size_t i;

	make_tmpdir();
	etm_main_path(&tr);
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	t = hwtr_history_find_thread(h, 0x10);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(walk(t, ips, 64, NULL), 18);
	for (i = 0; i < 18; i++)
		ck_assert_msg(ips[i] == etm_main_path_ips[i],
			      "instruction %zu: 0x%llx, the path has 0x%llx", i + 1,
			      (unsigned long long)ips[i],
			      (unsigned long long)etm_main_path_ips[i]);
	ck_assert_int_eq(hwtr_cursor_alloc(t, &c), 0);
	for (i = 0; i < 18; i++) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i + 1), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		ck_assert_int_eq(insn.isa, hwtr_isa_a64);
		ck_assert_int_eq(insn.size, 4);
		ck_assert_int_eq(insn.iclass, classes[i]);
		ck_assert_mem_eq(insn.raw, etm_fixture_code + (insn.ip - ETM_FIXTURE_BASE), 4);
	}
	hwtr_cursor_free(c);
	ck_assert_int_eq(hwtr_thread_stats(t, &st), 0);
	ck_assert_uint_eq(st.segments, 7);
	ck_assert_uint_eq(st.gaps, 0);
	for (i = 0; i < 7; i++) {
		struct hwtr_segment s;

		ck_assert_int_eq(hwtr_thread_segment(t, i + 1, &s), 0);
		ck_assert_uint_eq(s.insn_begin, segs[i].begin);
		ck_assert_uint_eq(s.insn_end, segs[i].end);
		ck_assert_int_eq(s.level, segs[i].level);
		ck_assert_uint_eq(s.up, segs[i].up);
		ck_assert_uint_eq(s.prev, segs[i].prev);
	}
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(code_with_no_image_is_a_gap_that_names_the_address)
{
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[8];
	uint64_t ips[8];

	make_tmpdir();
	etm_start(&tr, 0x9000);		/* nothing is mapped there */
	etm_atom(&tr, true);
	etm_addr(&tr, 0x1010);
	etm_atom(&tr, true);		/* b . */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 8, gaps), 2);
	ck_assert_uint_eq(ips[0], 0);
	ck_assert_msg(strstr(gaps[0], "address not accessible at 0x9000"), "%s",
		      gaps[0]);
	ck_assert_uint_eq(ips[1], 0x1010);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* Code at a kernel address (an AArch64 kernel's, upper half) with no image:
 * the gap says whose address it is and which image decoding needs. */
START_TEST(code_at_a_kernel_address_is_a_gap_that_names_the_kernel)
{
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[8];
	uint64_t ips[8];

	make_tmpdir();
	etm_start(&tr, UINT64_C(0xffffffc010081000));
	etm_atom(&tr, true);
	etm_addr(&tr, 0x1010);
	etm_atom(&tr, true);		/* b . */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 8, gaps), 2);
	ck_assert_uint_eq(ips[0], 0);
	ck_assert_msg(strstr(gaps[0], "address not accessible at 0xffffffc010081000") &&
		      strstr(gaps[0], "a kernel address; decoding there needs the "
			     "traced kernel's image (its vmlinux)"), "%s", gaps[0]);
	ck_assert_uint_eq(ips[1], 0x1010);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(an_overflow_is_a_gap_and_decoding_resumes_at_the_next_async)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0x1020, 0x1024, 0,
					 0x1008, 0x100c, 0x1004 };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[16];
	uint64_t ips[16];
	size_t i;

	make_tmpdir();
	etm_start(&tr, 0x1000);
	etm_atom(&tr, true);		/* bl */
	etm_atom(&tr, true);		/* ret */
	etm_addr(&tr, 0x1008);
	etm_overflow(&tr);
	etm_start(&tr, 0x1008);
	etm_atom(&tr, true);		/* b.ne taken */
	etm_atom(&tr, true);		/* bl */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 16, gaps), 8);
	for (i = 0; i < 8; i++)
		ck_assert_msg(ips[i] == want[i], "instruction %zu: 0x%llx, want 0x%llx",
			      i + 1, (unsigned long long)ips[i],
			      (unsigned long long)want[i]);
	ck_assert_msg(!strncmp(gaps[4], "overflow", 8), "%s", gaps[4]);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_eq(st.chunks, 2);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* A loss event (perf's AUX TRUNCATED for cs_etm): the packets after it
 * belong elsewhere and must not be read as a continuation; the gap names
 * the reason and decoding resumes at the next A-sync.  The atoms after the
 * loss would otherwise run the loop on from 0x1008. */
static void lossy_path(struct etm_trace *before, struct etm_trace *after)
{
	etm_start(before, 0x1000);
	etm_atom(before, true);		/* bl */
	etm_atom(before, true);		/* ret */
	etm_addr(before, 0x1008);
	etm_atom(after, true);		/* what followed elsewhere */
	etm_atom(after, true);
	etm_atom(after, true);
	etm_start(after, 0x1008);
	etm_atom(after, true);		/* b.ne taken */
	etm_atom(after, true);		/* bl */
}

/* T is lossy_path's: its instructions, and the gap that names the loss at
 * stream offset LOSS. */
static void check_lossy_thread(struct hwtr_thread *t, uint64_t loss)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0x1020, 0x1024, 0,
					 0x1008, 0x100c, 0x1004 };
	const char *gaps[32];
	uint64_t ips[32];
	char text[128];
	size_t i;

	ck_assert_uint_eq(walk(t, ips, 32, gaps), 8);
	for (i = 0; i < 8; i++)
		ck_assert_msg(ips[i] == want[i], "instruction %zu: 0x%llx, want "
			      "0x%llx", i + 1, (unsigned long long)ips[i],
			      (unsigned long long)want[i]);
	snprintf(text, sizeof(text), "trace lost at offset %llu: AUX buffer full",
		 (unsigned long long)loss);
	ck_assert_str_eq(gaps[4], text);
}

START_TEST(a_loss_event_is_a_gap_and_decoding_resumes_at_the_next_async)
{
	struct etm_trace tr = { .len = 0 }, after = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	uint64_t loss;
	struct etm_fixture_extra extra = {
		.losses = &loss, .nlosses = 1, .loss_reason = "AUX buffer full",
	};
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;

	make_tmpdir();
	lossy_path(&tr, &after);
	loss = tr.len;
	etm_bytes(&tr, after.buf, after.len);
	src.bytes = tr.buf;
	src.len = tr.len;
	/* Without the loss event the atoms after it are decoded. */
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_ne(st.instructions, 8);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	rec = recording_with(&src, 1, false, &extra);
	h = history_of(rec, 0);
	check_lossy_thread(hwtr_history_thread(h, 0), loss);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_eq(st.gaps, 1);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* A buffer that lapped before anything was read: a loss at offset 0.  The
 * history begins with that gap (which stands for the bytes before the
 * first A-sync too), not with an unsynced-bytes gap as without it. */
START_TEST(a_loss_at_the_start_is_the_first_gap)
{
	static const uint64_t want[] = { 0, 0x1008, 0x100c, 0x1004 };
	struct etm_trace before = { .len = 0 }, tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	uint64_t loss = 0;
	struct etm_fixture_extra extra = {
		.losses = &loss, .nlosses = 1, .loss_reason = "buffer lapped",
	};
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[32];
	uint64_t ips[32];
	size_t i;

	make_tmpdir();
	lossy_path(&before, &tr);	/* the part after the loss only */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_with(&src, 1, false, &extra);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 32, gaps), 4);
	for (i = 0; i < 4; i++)
		ck_assert_msg(ips[i] == want[i], "instruction %zu: 0x%llx, want "
			      "0x%llx", i + 1, (unsigned long long)ips[i],
			      (unsigned long long)want[i]);
	ck_assert_str_eq(gaps[0], "trace lost at offset 0: buffer lapped");
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* The same in a CoreSight formatted buffer that two sources share: the
 * frames after the loss start afresh, the source with trace after it gets
 * the gap, the other (whose trace all came before it) none. */
START_TEST(a_loss_in_coresight_frames_is_a_gap_where_the_source_resumes)
{
	static uint8_t frames[4096];
	struct etm_trace a1 = { .len = 0 }, a2 = { .len = 0 }, b = { .len = 0 };
	struct etm_source first[2], second[1];
	uint64_t loss;
	struct etm_fixture_extra extra = {
		.frames = frames, .losses = &loss, .nlosses = 1,
		.loss_reason = "AUX buffer full",
	};
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	uint64_t ips[32];
	size_t i;

	make_tmpdir();
	lossy_path(&a1, &a2);
	etm_main_path(&b);
	first[0] = (struct etm_source){ .id = 0x10, .bytes = a1.buf, .len = a1.len };
	first[1] = (struct etm_source){ .id = 0x11, .bytes = b.buf, .len = b.len };
	second[0] = (struct etm_source){ .id = 0x10, .bytes = a2.buf, .len = a2.len };
	loss = etm_frames(first, 2, 5, frames, sizeof(frames));
	extra.frames_len = loss + etm_frames(second, 1, 5, frames + loss,
					     sizeof(frames) - loss);
	rec = recording_with(first, 2, true, &extra);
	h = history_of(rec, 0);
	check_lossy_thread(hwtr_history_find_thread(h, 0x10), loss);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 0x11), ips, 32, NULL), 18);
	for (i = 0; i < 18; i++)
		ck_assert_uint_eq(ips[i], etm_main_path_ips[i]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* A loss at the start of a CoreSight buffer that two sources share, one of
 * which has no bytes in it: the other's history begins with the gap, the
 * empty one gets none (a loss is logged for every source of the buffer). */
START_TEST(a_leading_loss_in_shared_frames_is_no_history_for_a_source_without_trace)
{
	static uint8_t frames[4096];
	struct etm_trace a = { .len = 0 };
	struct etm_source srcs[2];
	uint64_t loss = 0;
	struct etm_fixture_extra extra = {
		.frames = frames, .losses = &loss, .nlosses = 1,
		.loss_reason = "buffer lapped",
	};
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[32];
	uint64_t ips[32];
	size_t i;

	make_tmpdir();
	etm_main_path(&a);
	srcs[0] = (struct etm_source){ .id = 0x10, .bytes = a.buf, .len = a.len };
	srcs[1] = (struct etm_source){ .id = 0x11, .bytes = NULL, .len = 0 };
	extra.frames_len = etm_frames(srcs, 1, 5, frames, sizeof(frames));
	rec = recording_with(srcs, 2, true, &extra);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 0x10), ips, 32, gaps), 19);
	ck_assert_str_eq(gaps[0], "trace lost at offset 0: buffer lapped");
	for (i = 0; i < 18; i++)
		ck_assert_uint_eq(ips[i + 1], etm_main_path_ips[i]);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_find_thread(h, 0x11), &st), 0);
	ck_assert_uint_eq(st.instructions, 0);
	ck_assert_uint_eq(st.gaps, 0);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(bytes_before_the_first_async_are_a_gap)
{
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[32];
	uint64_t ips[32];
	size_t i;

	make_tmpdir();
	etm_bytes(&tr, "\x55\x66\x77\x01\x02", 5);
	etm_main_path(&tr);
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 32, gaps), 19);
	ck_assert_str_eq(gaps[0], "5 bytes at offset 0 precede the first A-sync "
			 "and cannot be decoded");
	for (i = 0; i < 18; i++)
		ck_assert_uint_eq(ips[i + 1], etm_main_path_ips[i]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(a_trace_cut_inside_a_packet_ends_with_a_gap_there)
{
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[32];
	uint64_t ips[32];
	char want[128];
	size_t cut;

	make_tmpdir();
	etm_main_path(&tr);
	cut = tr.len;
	etm_bytes(&tr, "\x9d\x12\x34", 3);	/* an address packet, cut */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 32, gaps), 19);
	snprintf(want, sizeof(want), "trace truncated: the stream ends inside a "
		 "packet at offset %zu", cut);
	ck_assert_str_eq(gaps[18], want);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(two_sources_in_coresight_frames_decode_apart)
{
	static const uint64_t other[] = { 0x1008, 0x100c, 0x1004, 0x1020, 0x1024,
					  0x1008, 0x100c, 0x1010 };
	struct etm_trace a = { .len = 0 }, b = { .len = 0 };
	struct etm_source src[2];
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	uint64_t ips[32];
	size_t i;

	make_tmpdir();
	etm_main_path(&a);
	etm_start(&b, 0x1008);
	etm_atom(&b, true);		/* b.ne 0x1004 */
	etm_atom(&b, true);		/* bl */
	etm_atom(&b, true);		/* ret */
	etm_addr(&b, 0x1008);
	etm_atom(&b, false);		/* b.ne falls through */
	etm_atom(&b, true);		/* b . */
	src[0] = (struct etm_source){ .id = 0x10, .bytes = a.buf, .len = a.len };
	src[1] = (struct etm_source){ .id = 0x11, .bytes = b.buf, .len = b.len };
	rec = recording_of(src, 2, true);
	ck_assert_str_eq(hwtr_recording_info(rec)->threads[0].stream,
			 hwtr_recording_info(rec)->threads[1].stream);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 0x10), ips, 32, NULL), 18);
	for (i = 0; i < 18; i++)
		ck_assert_uint_eq(ips[i], etm_main_path_ips[i]);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 0x11), ips, 32, NULL), 8);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(ips[i], other[i]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* Two contexts (100, 200) take turns on one source: the source's thread
 * has both, each context's thread its own instructions, with a gap where
 * the other ran.  (The trace written here decodes the same way with
 * OpenCSD's trc_pkt_lister.) */
START_TEST(a_source_with_context_ids_splits_into_threads)
{
	static const uint64_t all[] = { 0x1000, 0x1004, 0x1020, 0x1024, 0x1010,
					0x1010, 0x1008, 0x100c, 0x1004 };
	static const uint64_t first[] = { 0x1000, 0x1004, 0x1020, 0x1024, 0,
					  0x1008, 0x100c, 0x1004 };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src[3];
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const uint32_t *ids;
	const char *gaps[16];
	uint64_t ips[16];
	size_t n, i;

	make_tmpdir();
	etm_async(&tr);
	etm_trace_info(&tr);
	etm_trace_on(&tr);
	etm_addr_ctxt_id(&tr, 0x1000, 0, 100);
	etm_atom(&tr, true);		/* bl */
	etm_atom(&tr, true);		/* ret */
	etm_addr(&tr, 0x1008);
	etm_addr_ctxt_id(&tr, 0x1010, 0, 200);	/* the other context runs */
	etm_atom(&tr, true);		/* b . */
	etm_atom(&tr, true);
	etm_addr_ctxt_id(&tr, 0x1008, 0, 100);	/* and the first again */
	etm_atom(&tr, true);		/* b.ne */
	etm_atom(&tr, true);		/* bl */
	for (i = 0; i < 3; i++)
		src[i] = (struct etm_source){ .id = 0x10, .bytes = tr.buf,
					      .len = tr.len, .trcconfigr = 0x40 };
	src[1].tid = 100;
	src[1].has_context_id = true;
	src[1].context_id = 100;
	src[2].tid = 200;
	src[2].has_context_id = true;
	src[2].context_id = 200;
	rec = recording_of(src, 3, false);
	h = history_of(rec, 0);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 0x10), ips, 16, NULL), 9);
	for (i = 0; i < 9; i++)
		ck_assert_uint_eq(ips[i], all[i]);
	ck_assert_int_eq(hwtr_thread_context_ids(hwtr_history_find_thread(h, 0x10),
						 &ids, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ids[0], 100);
	ck_assert_uint_eq(ids[1], 200);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 100), ips, 16, gaps), 8);
	for (i = 0; i < 8; i++)
		ck_assert_uint_eq(ips[i], first[i]);
	ck_assert_msg(strstr(gaps[4], "tracing was disabled and resumed at 0x1008"),
		      "%s", gaps[4]);
	ck_assert_uint_eq(walk(hwtr_history_find_thread(h, 200), ips, 16, NULL), 2);
	ck_assert_uint_eq(ips[0], 0x1010);
	ck_assert_uint_eq(ips[1], 0x1010);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* Chunks decoded again on demand, in any order and with the smallest
 * cache, give what the index pass saw. */
START_TEST(chunks_decode_the_same_on_demand_in_any_order)
{
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	uint64_t ips[256];
	size_t n, i;
	int k;

	make_tmpdir();
	etm_main_path(&tr);
	for (k = 0; k < 5; k++) {
		etm_start(&tr, 0x1008);
		etm_atom(&tr, true);	/* b.ne */
		etm_atom(&tr, true);	/* bl */
		etm_atom(&tr, true);	/* ret */
		etm_addr(&tr, 0x1008);
	}
	etm_atom(&tr, false);
	etm_atom(&tr, true);
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_eq(st.chunks, 6);
	n = walk(hwtr_history_thread(h, 0), ips, 256, NULL);
	ck_assert_uint_eq(n, 18 + 5 * 5 + 3);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	for (i = n; i > 0; i--) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		ck_assert_uint_eq(insn.ip, ips[i - 1]);
	}
	hwtr_cursor_free(c);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* A trace unit's periodic A-sync and Trace Info come between packets
 * wherever the buffer reaches the period: here just after the address a
 * ret was traced with, so the next atom (b.ne) and those after it still
 * follow the address from before the A-sync, as OpenCSD's lister decodes it
 * straight through; a decoder started at that A-sync would skip them until
 * an address and a context.  The self-contained A-sync after it starts a
 * chunk of its own.  The oracle is the path the trace was written along;
 * every chunk decodes on demand, backwards from a cold cache, to what the
 * index counted. */
START_TEST(atoms_after_a_periodic_async_keep_the_address_from_before_it)
{
	const uint64_t *want = etm_periodic_async_path_ips;
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	uint64_t ips[64];
	size_t n, i;

	make_tmpdir();
	etm_periodic_async_path(&tr);
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	n = walk(hwtr_history_thread(h, 0), ips, 64, NULL);
	ck_assert_uint_eq(n, 21);
	for (i = 0; i < n; i++)
		ck_assert_msg(ips[i] == want[i], "instruction %zu: 0x%llx, not 0x%llx",
			      i + 1, (unsigned long long)ips[i],
			      (unsigned long long)want[i]);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_eq(st.chunks, 2);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	for (i = n; i > 0; i--) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ck_assert_uint_eq(insn.ip, want[i - 1]);
	}
	hwtr_cursor_free(c);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* A packet that does not parse (0x00 0x85: an extension header with no
 * such extension) loses sync; OpenCSD says so at the next packet it reads,
 * the A-sync where it synchronises again.  The gap is the trace's between
 * the two paths, and every chunk decodes on demand to what the index has
 * (the gap belongs to the chunk where sync was lost: a decoder started at
 * the A-sync never sees the bad packet). */
START_TEST(a_bad_packet_is_a_gap_in_the_chunk_that_lost_sync)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0x1020, 0x1024, 0,
					 0x1008, 0x100c, 0x1004 };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	const char *gaps[16];
	uint64_t ips[16];
	size_t n, i;

	make_tmpdir();
	etm_start(&tr, 0x1000);
	etm_atom(&tr, true);		/* bl 0x1020 */
	etm_atom(&tr, true);		/* ret */
	etm_addr(&tr, 0x1008);
	etm_bytes(&tr, "\x00\x85", 2);
	etm_start(&tr, 0x1008);
	etm_atom(&tr, true);		/* b.ne 0x1004 */
	etm_atom(&tr, true);		/* bl 0x1020 */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	for (i = 8; i > 0; i--) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ck_assert_uint_eq(insn.gap ? 0 : insn.ip, want[i - 1]);
	}
	hwtr_cursor_free(c);
	n = walk(hwtr_history_thread(h, 0), ips, 16, gaps);
	ck_assert_uint_eq(n, 8);
	ck_assert_ptr_nonnull(gaps[4]);
	ck_assert_msg(strstr(gaps[4], "bad packet sequence"), "%s", gaps[4]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* The same before the first instruction: the first A-sync and Trace Info,
 * then a reserved packet header (0x08); OpenCSD says so at the packet after
 * it.  The next A-sync is followed by a cut A-sync (00 00 80, a bad
 * sequence a decoder started there would ignore while it waits for Trace
 * Info), so it starts no chunk: the gap and the path after it (0x1008,
 * 0x100c, 0x1004, as trc_pkt_lister decodes it) are one chunk, which
 * decodes on demand to what the index has. */
/* PREFIX (N bytes before the first A-sync, a gap of their own) and BAD. */
static void bad_packet_before_any_instruction(const char *prefix, size_t n,
					      const char *bad)
{
	/* With PREFIX: its gap first. */
	static const uint64_t path[] = { 0, 0, 0x1008, 0x100c, 0x1004 };
	const uint64_t *want = n ? path : path + 1;
	size_t count = n ? 5 : 4;
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	const char *gaps[8];
	uint64_t ips[8];
	size_t i;

	make_tmpdir();
	etm_bytes(&tr, prefix, n);
	etm_async(&tr);
	etm_trace_info(&tr);
	etm_bytes(&tr, bad, 1);
	etm_async(&tr);
	etm_bytes(&tr, "\x00\x00\x80", 3);
	etm_trace_info(&tr);
	etm_trace_on(&tr);
	etm_addr_ctxt(&tr, 0x1008, 0);
	etm_atom(&tr, true);		/* b.ne 0x1004 */
	etm_atom(&tr, true);		/* bl 0x1020 */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	for (i = count; i > 0; i--) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ck_assert_uint_eq(insn.gap ? 0 : insn.ip, want[i - 1]);
	}
	hwtr_cursor_free(c);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 8, gaps), count);
	ck_assert_msg(strstr(gaps[count - 4], "bad packet sequence"), "%s",
		      gaps[count - 4]);
	/* One chunk from the first A-sync (and the prefix's gap alone). */
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_eq(st.chunks, n ? 2 : 1);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}

START_TEST(a_bad_packet_before_any_instruction_is_its_own_chunks_gap)
{
	bad_packet_before_any_instruction(NULL, 0, "\x08");	/* reserved */
}
END_TEST

/* The same with a header reserved only for this configuration (0x6d,
 * conditional instruction trace, which the unit does not do: a packet type
 * of its own in OpenCSD), after bytes before the first A-sync that hold a
 * bad packet of their own (eleven zeros and 05: a cut A-sync) (fuzz-etm). */
START_TEST(a_packet_reserved_for_the_configuration_is_its_chunks_gap)
{
	bad_packet_before_any_instruction("\x00\x00\x00\x00\x00\x00\x00"
					  "\x00\x00\x00\x00\x05", 12, "\x6d");
}
END_TEST

/* An A-sync with no Trace Info after it (a cut sync sequence): decoding
 * straight through, OpenCSD takes the address and context after it and
 * goes on (0x1008, 0x100c, 0x1004); a decoder started there would wait for
 * a Trace Info and decode nothing, so it starts no chunk. */
START_TEST(an_async_without_trace_info_starts_no_chunk)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0x1020, 0x1024,
					 0x1008, 0x100c, 0x1004 };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_thread_stats st;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	size_t i;

	make_tmpdir();
	etm_start(&tr, 0x1000);
	etm_atom(&tr, true);		/* bl 0x1020 */
	etm_atom(&tr, true);		/* ret */
	etm_addr(&tr, 0x1008);
	etm_async(&tr);
	etm_addr_ctxt(&tr, 0x1008, 0);
	etm_atom(&tr, true);		/* b.ne 0x1004 */
	etm_atom(&tr, true);		/* bl 0x1020 */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert_uint_eq(st.instructions, 7);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	for (i = 7; i > 0; i--) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ck_assert_uint_eq(insn.ip, want[i - 1]);
	}
	hwtr_cursor_free(c);
	ck_assert_uint_eq(st.chunks, 1);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* Exception packets (06 06: a trap) with no address after them: OpenCSD
 * 1.3.3 crashes on them (its trc_pkt_lister too, on the fuzz input this
 * comes from).  They are never fed to it: the path before, a gap that
 * says the packets are out of sequence, the path from the next A-sync. */
START_TEST(an_exception_without_its_address_is_a_gap_not_a_crash)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0, 0x1008, 0x100c,
					 0x1004 };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[8];
	uint64_t ips[8];
	size_t i;

	make_tmpdir();
	etm_start(&tr, 0x1000);
	etm_atom(&tr, true);		/* bl 0x1020 */
	etm_bytes(&tr, "\x06\x06\x06\x06\x06\x06", 6);
	etm_start(&tr, 0x1008);
	etm_atom(&tr, true);		/* b.ne 0x1004 */
	etm_atom(&tr, true);		/* bl 0x1020 */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 8, gaps), 6);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(ips[i], want[i]);
	ck_assert_msg(strstr(gaps[2], "bad packet sequence"), "%s", gaps[2]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* After a packet the decoder is never fed (a mispredict from a unit that
 * does not trace speculation), decoding starts afresh at the next A-sync,
 * which starts a chunk; a bad packet there, before any instruction, is
 * that chunk's gap whether the chunk is decoded on its own or the walk
 * came from the chunk before. */
START_TEST(a_bad_packet_after_a_restart_is_the_new_chunks_gap)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0x1020, 0x1024, 0, 0,
					 0x1008, 0x100c, 0x1004 };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *c;
	const char *gaps[16];
	uint64_t ips[16];
	size_t i;

	make_tmpdir();
	etm_start(&tr, 0x1000);
	etm_atom(&tr, true);		/* bl 0x1020 */
	etm_atom(&tr, true);		/* ret */
	etm_addr(&tr, 0x1008);
	etm_bytes(&tr, "\x30", 1);	/* mispredict */
	etm_async(&tr);
	etm_trace_info(&tr);
	etm_bytes(&tr, "\x08", 1);	/* reserved */
	etm_async(&tr);
	etm_bytes(&tr, "\x00\x00\x80", 3);	/* a cut A-sync */
	etm_trace_info(&tr);
	etm_trace_on(&tr);
	etm_addr_ctxt(&tr, 0x1008, 0);
	etm_atom(&tr, true);		/* b.ne 0x1004 */
	etm_atom(&tr, true);		/* bl 0x1020 */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_int_eq(hwtr_cursor_alloc(hwtr_history_thread(h, 0), &c), 0);
	for (i = 9; i > 0; i--) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, i), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		ck_assert_uint_eq(insn.gap ? 0 : insn.ip, want[i - 1]);
	}
	hwtr_cursor_free(c);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 16, gaps), 9);
	ck_assert_msg(strstr(gaps[4], "speculation packet"), "%s", gaps[4]);
	ck_assert_msg(strstr(gaps[5], "bad packet sequence"), "%s", gaps[5]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* An address at the very end of the address space (0xfffffffffffffffc)
 * crashed OpenCSD 1.3.3's memory cache (fuzz-etm); it is code no image
 * has, a gap that names it, and decoding goes on at the next A-sync. */
START_TEST(an_address_at_the_end_of_the_address_space_is_a_gap)
{
	static const uint64_t want[] = { 0x1000, 0x1004, 0, 0x1008, 0x100c };
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const char *gaps[8];
	uint64_t ips[8];
	size_t i;

	make_tmpdir();
	etm_start(&tr, 0x1000);
	etm_atom(&tr, true);		/* bl 0x1020: taken */
	etm_addr(&tr, UINT64_C(0xfffffffffffffffc));
	etm_atom(&tr, true);
	etm_start(&tr, 0x1008);
	etm_atom(&tr, true);		/* b.ne 0x1004 */
	src.bytes = tr.buf;
	src.len = tr.len;
	rec = recording_of(&src, 1, false);
	h = history_of(rec, 1);
	ck_assert_uint_eq(walk(hwtr_history_thread(h, 0), ips, 8, gaps), 5);
	for (i = 0; i < 5; i++)
		ck_assert_uint_eq(ips[i], want[i]);
	ck_assert_msg(strstr(gaps[2], "address not accessible at 0xfffffffffffffffc"),
		      "%s", gaps[2]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("decode");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, the_main_path_decodes_with_branch_classes_and_segments);
	tcase_add_test(tc, code_with_no_image_is_a_gap_that_names_the_address);
	tcase_add_test(tc, code_at_a_kernel_address_is_a_gap_that_names_the_kernel);
	tcase_add_test(tc, an_overflow_is_a_gap_and_decoding_resumes_at_the_next_async);
	tcase_add_test(tc, a_loss_event_is_a_gap_and_decoding_resumes_at_the_next_async);
	tcase_add_test(tc, a_loss_at_the_start_is_the_first_gap);
	tcase_add_test(tc, a_leading_loss_in_shared_frames_is_no_history_for_a_source_without_trace);
	tcase_add_test(tc, a_loss_in_coresight_frames_is_a_gap_where_the_source_resumes);
	tcase_add_test(tc, bytes_before_the_first_async_are_a_gap);
	tcase_add_test(tc, a_trace_cut_inside_a_packet_ends_with_a_gap_there);
	tcase_add_test(tc, two_sources_in_coresight_frames_decode_apart);
	tcase_add_test(tc, chunks_decode_the_same_on_demand_in_any_order);
	tcase_add_test(tc, atoms_after_a_periodic_async_keep_the_address_from_before_it);
	tcase_add_test(tc, a_bad_packet_is_a_gap_in_the_chunk_that_lost_sync);
	tcase_add_test(tc, a_bad_packet_before_any_instruction_is_its_own_chunks_gap);
	tcase_add_test(tc, a_packet_reserved_for_the_configuration_is_its_chunks_gap);
	tcase_add_test(tc, an_async_without_trace_info_starts_no_chunk);
	tcase_add_test(tc, an_exception_without_its_address_is_a_gap_not_a_crash);
	tcase_add_test(tc, a_bad_packet_after_a_restart_is_the_new_chunks_gap);
	tcase_add_test(tc, an_address_at_the_end_of_the_address_space_is_a_gap);
	tcase_add_test(tc, a_source_with_context_ids_splits_into_threads);
	return check_run_tcase("etm", tc);
}
