/* test-decode-pt-fast.c: the query walk of Intel PT (decode-pt-fast.c, with
 * the cache of decode-pt-blocks.c) gives exactly the walk items of libipt's
 * block decoder (decode-pt.c), which is the oracle: on every trace the unit
 * tests and the decoder fuzzer's seeds hold, on crafted traces that need
 * each fallback, and on the recordings named on the command line
 * (`test-decode-pt-fast REC.hwtrec...`, for real recordings).  Every item of
 * a whole-stream walk and of every on-demand chunk walk is compared. */
#include "check-main.h"
#include "fixture.h"

#include "pt-walks.h"

#include "decode-pt-fast.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SEEDS_DECODER
#error "SEEDS_DECODER must name the decoder fuzzer's seeds"
#endif

/* The recording in DIR walked both ways; *STATS: what the query walks
 * did. */
static void compare_recording(const char *dir, struct fast_stats *stats)
{
	struct hwtr_recording *rec;

	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	ck_assert_msg(pt_walks_same(rec, true, 2, stats) == 0, "%s",
		      hwtr_last_error());
	hwtr_recording_close(rec);
	fixture_cleanup();
}

/* The trace T as a recording over fixture-code, walked both ways. */
static void compare_trace(const uint8_t *bytes, size_t size,
			  struct fast_stats *stats)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording(dir, bytes, size, NULL, NULL);
	compare_recording(dir, stats);
}

static void compare_encoded(struct trace *t, struct fast_stats *stats)
{
	compare_trace(t->buf, trace_size(t), stats);
	trace_end(t);
}

/* compare_encoded with fixture-code mapped at TSC 0 and then ELF file PATH
 * mapped at TSC AT. */
static void compare_encoded_remapped(struct trace *t, const char *path,
				     uint64_t at, struct fast_stats *stats)
{
	struct hwtr_sideband_event mm[2];
	char dir[512];

	fixture_mapping(fixture_path(), 0, &mm[0]);
	mm[0].build_id = fixture_build_id();
	fixture_mapping(path, at, &mm[1]);
	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording_with(dir, t->buf, trace_size(t), mm, 2);
	trace_end(t);
	compare_recording(dir, stats);
}

static uint64_t sym(const char *label)
{
	return fixture_symbol(label);
}

/* The main path: its first chunk (i1 to the PSB at loop) is plain; its
 * last one ends with tracing off and is the block decoder's. */
START_TEST(main_path_first_chunk_walked_by_queries)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);
	compare_encoded(&t, &s);
	/* Whole walk and on-demand walk of chunk 1: walked; chunk 2 twice
	 * left (it is the last). */
	ck_assert_uint_eq(s.chunks, 2);
	ck_assert_uint_eq(s.fallbacks[fallback_chunk_start], 2);
	ck_assert_uint_gt(s.misses, 0);
	ck_assert_uint_gt(s.hits, 0);
}
END_TEST

/* The same loop many times over, PSB after PSB: every chunk but the last
 * is walked by queries, and after the first chunk every block is a hit. */
START_TEST(repeated_chunks_hit_the_cache)
{
	struct fast_stats s;
	struct trace t;
	int k;

	trace_begin(&t);
	for (k = 0; k < 20; k++) {
		enc_psb(&t, sym("loop"), 100 + 10 * (uint64_t)k);
		enc_tnt(&t, "11");		/* ret (compressed), jne loop */
	}
	trace_main_path_from_loop(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_eq(s.chunks, 2 * 20);
	ck_assert_uint_eq(s.fallbacks[fallback_chunk_start], 2);
	ck_assert_uint_gt(s.hits, 10 * s.misses);
	/* leaf's return, an indirect branch, went where it went before. */
	ck_assert_uint_gt(s.repeats, 0);
}
END_TEST

/* Code mapped elsewhere from TSC 250 on: the chunks from the PSB at TSC 300
 * on see another epoch, whose blocks at the same IPs read the same bytes:
 * copied from the first epoch's, not decoded again. */
START_TEST(same_code_in_a_new_epoch_is_copied)
{
	struct fast_stats s;
	struct trace t;
	int k;

	trace_begin(&t);
	for (k = 0; k < 4; k++) {
		enc_psb(&t, sym("loop"), 100 + 100 * (uint64_t)k);
		enc_tnt(&t, "11");		/* ret (compressed), jne loop */
	}
	enc_psb(&t, sym("loop"), 500);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded_remapped(&t, fixture_far_path(), 250, &s);
	ck_assert_uint_eq(s.fallbacks[fallback_code], 0);
	ck_assert_uint_gt(s.copies, 0);
}
END_TEST

/* A copy of fixture-code whose jne at i7 goes to i5 instead of loop, mapped
 * at the same address from TSC 300 on: its block at i5 is as long as the
 * first epoch's, from a mapping as long, but its jne goes elsewhere.
 * Decoded again from the new bytes, or the walk would go back to loop
 * where libipt goes to i5. */
START_TEST(other_code_at_the_same_address_is_decoded_again)
{
	struct hwtr_sideband_event mm;
	struct fast_stats s;
	struct trace t;
	char path[512];
	int8_t disp = (int8_t)(sym("i5") - (sym("i7") + 2));
	FILE *in, *out;
	int c;

	/* The copy, its jne's displacement changed. */
	fixture_mapping(fixture_path(), 0, &mm);
	snprintf(path, sizeof(path), "%s/patched", fixture_tmpdir());
	in = fopen(fixture_path(), "rb");
	out = fopen(path, "wb");
	ck_assert(in && out);
	while ((c = getc(in)) != EOF)
		putc(c, out);
	fclose(in);
	ck_assert_int_eq(fseek(out, (long)(sym("i7") + 1 - mm.addr + mm.pgoff),
			       SEEK_SET), 0);
	putc((uint8_t)disp, out);
	ck_assert_int_eq(fclose(out), 0);

	trace_begin(&t);
	enc_psb(&t, sym("loop"), 100);
	enc_tnt(&t, "11");		/* ret (compressed), jne loop */
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "11");
	enc_psb(&t, sym("loop"), 300);	/* the copy */
	enc_tnt(&t, "111");		/* ret, jne i5, jne i5 */
	enc_psb(&t, sym("i5"), 400);
	enc_tnt(&t, "1011");		/* jne i5, jne (exit), ret, ret */
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded_remapped(&t, path, 300, &s);
	/* Every chunk but the last walked by queries, twice (the whole walk
	 * and its own). */
	ck_assert_uint_eq(s.chunks, 2 * 3);
}
END_TEST

/* An overflow inside a chunk: an event the query walk leaves alone. */
START_TEST(overflow_is_left_to_the_block_decoder)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "11");
	enc_simple(&t, ppt_ovf);
	enc_fup(&t, sym("loop"));
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_ge(s.fallbacks[fallback_event], 1);
}
END_TEST

/* Tracing off at a system call and on again after it (TIP.PGD without an
 * IP, MODE.Exec and TIP.PGE), as the software source writes it at every
 * system call: libipt reports a resume, the block walk nothing, and the
 * query walk goes on through it. */
START_TEST(system_call_resume_walked_by_queries)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);		/* to the TIP.PGD of the syscall at i29 */
	enc_tip_pge(&t, sym("leaf"));	/* right after it */
	enc_tip(&t, sym("i26"));	/* leaf's ret */
	enc_psb(&t, sym("i26"), 300);
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	/* Whole walk and on-demand walks: chunks 1 and 2 both times, the
	 * last one left (it is the last). */
	ck_assert_uint_eq(s.chunks, 4);
	ck_assert_uint_eq(s.fallbacks[fallback_event], 0);
	ck_assert_uint_eq(s.fallbacks[fallback_chunk_start], 2);
}
END_TEST

/* A TIP.PGD without an IP binds to the next branch that needs trace; at a
 * return (not a call) libipt does not know where tracing resumes: left to
 * the block decoder. */
START_TEST(disable_at_a_return_is_left_to_the_block_decoder)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "11");		/* ret, jne: then call leaf, ret */
	enc_tip_pgd(&t);		/* binds to that ret */
	enc_tip_pge(&t, sym("i5"));
	enc_tnt(&t, "1");		/* jne */
	enc_tip(&t, sym("i5"));		/* leaf's ret */
	enc_psb(&t, sym("i5"), 300);
	enc_tnt(&t, "011");		/* jne (exit), ret (leaf), ret (tail) */
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_ge(s.fallbacks[fallback_event], 1);
}
END_TEST

/* Tracing off and on again elsewhere inside a chunk (TIP.PGD, TIP.PGE):
 * not a resume, the block walk's gap. */
START_TEST(disable_enable_is_left_to_the_block_decoder)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "1111");
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	enc_tip_pge(&t, sym("i1"));
	enc_tnt(&t, "1111");
	enc_psb(&t, sym("loop"), 300);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_ge(s.fallbacks[fallback_event], 1);
	ck_assert_uint_ge(s.chunks, 1);
}
END_TEST

/* A branch to where nothing is mapped, inside a chunk: code the cache
 * cannot decode; the block decoder reports the gap. */
START_TEST(unmapped_code_is_left_to_the_block_decoder)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, sym("loop"), 100);
	enc_tnt(&t, "1011");
	enc_tip(&t, 0x7000000);		/* jmp *%rax to nothing */
	enc_tnt(&t, "1");		/* trace that the block there needs */
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_ge(s.fallbacks[fallback_code], 1);
}
END_TEST

/* Bytes that are not packets inside a chunk: a query fails. */
START_TEST(bad_packets_are_left_to_the_block_decoder)
{
	static const uint8_t junk[8] = { 0x02, 0xff, 0xff, 0x02, 0xff, 0xff,
					 0x02, 0xff };
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "11");
	enc_raw(&t, junk, sizeof(junk));
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_ge(s.fallbacks[fallback_trace], 1);
}
END_TEST

/* A compressed return with no call seen since the PSB (it starts inside
 * leaf): libipt's return stack is empty. */
START_TEST(return_without_call_is_left_to_the_block_decoder)
{
	struct fast_stats s;
	struct trace t;

	trace_begin(&t);
	enc_psb(&t, sym("i3"), 100);
	enc_tnt(&t, "1");		/* ret, compressed */
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	compare_encoded(&t, &s);
	ck_assert_uint_ge(s.fallbacks[fallback_return], 1);
}
END_TEST

/* The decoder fuzzer's seeds: every kind of trace it starts from. */
START_TEST(fuzzer_seeds_walk_the_same)
{
	DIR *d = opendir(SEEDS_DECODER);
	struct dirent *e;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char path[1024];
		uint8_t *buf;
		struct fast_stats s;
		FILE *f;
		long size;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", SEEDS_DECODER, e->d_name);
		f = fopen(path, "rb");
		ck_assert_ptr_nonnull(f);
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		rewind(f);
		buf = malloc(size ? (size_t)size : 1);
		ck_assert_ptr_nonnull(buf);
		ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
		fclose(f);
		compare_trace(buf, (size_t)size, &s);
		free(buf);
		n++;
	}
	closedir(d);
	ck_assert_uint_ge(n, 10);
}
END_TEST

/* test-decode-pt-fast REC...: the whole walks of real recordings, and what
 * the query walk did. */
static char **given;
static int ngiven;

START_TEST(given_recordings_walk_the_same)
{
	int i;

	for (i = 0; i < ngiven; i++) {
		struct hwtr_recording *rec;
		struct fast_stats s;
		uint64_t fb = 0;
		size_t k;

		ck_assert_msg(hwtr_recording_open(given[i], &rec) == 0, "%s: %s",
			      given[i], hwtr_last_error());
		/* Large: the whole walk only, libipt's caches as built. */
		ck_assert_msg(pt_walks_same(rec, false, 0, &s) == 0, "%s",
			      hwtr_last_error());
		for (k = 0; k < fallback_kinds; k++)
			fb += s.fallbacks[k];
		printf("%s: the same walk items; %llu chunks by queries, %llu "
		       "by the block decoder; block cache %.2f%% hits\n",
		       given[i], (unsigned long long)s.chunks,
		       (unsigned long long)fb,
		       s.hits + s.misses ? 100.0 * (double)s.hits /
						   (double)(s.hits + s.misses)
					 : 0.0);
		/* The walks alone, lowest of three each. */
		{
			double best[2] = { 1e30, 1e30 };
			int round, q;

			for (round = 0; round < 3; round++)
				for (q = 0; q < 2; q++) {
					double t = pt_walk_seconds(rec, q);

					if (t >= 0 && t < best[q])
						best[q] = t;
				}
			printf("%s: walks alone (CPU, lowest of 3): block decoder "
			       "%.2f s, query walk %.2f s\n", given[i], best[0],
			       best[1]);
		}
		fflush(stdout);
		hwtr_recording_close(rec);
	}
}
END_TEST

int main(int argc, char **argv)
{
	TCase *tc = tcase_create("decode-pt-fast");

	if (argc > 1) {
		given = argv + 1;
		ngiven = argc - 1;
		tcase_set_timeout(tc, 7200);
		tcase_add_test(tc, given_recordings_walk_the_same);
		return check_run_tcase("decode-pt-fast", tc);
	}
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, main_path_first_chunk_walked_by_queries);
	tcase_add_test(tc, repeated_chunks_hit_the_cache);
	tcase_add_test(tc, same_code_in_a_new_epoch_is_copied);
	tcase_add_test(tc, other_code_at_the_same_address_is_decoded_again);
	tcase_add_test(tc, overflow_is_left_to_the_block_decoder);
	tcase_add_test(tc, system_call_resume_walked_by_queries);
	tcase_add_test(tc, disable_at_a_return_is_left_to_the_block_decoder);
	tcase_add_test(tc, disable_enable_is_left_to_the_block_decoder);
	tcase_add_test(tc, unmapped_code_is_left_to_the_block_decoder);
	tcase_add_test(tc, bad_packets_are_left_to_the_block_decoder);
	tcase_add_test(tc, return_without_call_is_left_to_the_block_decoder);
	tcase_add_test(tc, fuzzer_seeds_walk_the_same);
	return check_run_tcase("decode-pt-fast", tc);
}
