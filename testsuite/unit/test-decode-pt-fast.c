/* test-decode-pt-fast.c: the query walk of Intel PT (decode-pt-fast.c, with
 * the cache of decode-pt-blocks.c) gives exactly the walk items of libipt's
 * block decoder (decode-pt.c), which is the oracle: on every trace the unit
 * tests and the decoder fuzzer's seeds hold, on crafted traces that need
 * each fallback, and on the recordings named on the command line
 * (`test-decode-pt-fast REC.hwtrec...`, for real recordings).  Every item of
 * a whole-stream walk and of every on-demand chunk walk is compared. */
#include "check-main.h"
#include "fixture.h"

#include "decode-pt-fast.h"
#include "history.h"
#include "insn-length.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SEEDS_DECODER
#error "SEEDS_DECODER must name the decoder fuzzer's seeds"
#endif

static struct walk_item last_chunks[4096];

/* A and B, items of the block walk and of the query walk in H. */
static void same_item(struct hwtr_history *h, const struct walk_item *a,
		      const struct walk_item *b, size_t n)
{
	ck_assert_msg(a->kind == b->kind, "item %zu: kind %d, query walk %d", n,
		      a->kind, b->kind);
	switch (a->kind) {
	case walk_block: {
		const struct decoder_block *x = &a->block, *y = &b->block;

		ck_assert_msg(x->ip == y->ip && x->end_ip == y->end_ip &&
			      x->ninsn == y->ninsn,
			      "item %zu: block %#llx-%#llx %u insns, query walk "
			      "%#llx-%#llx %u", n, (unsigned long long)x->ip,
			      (unsigned long long)x->end_ip, x->ninsn,
			      (unsigned long long)y->ip,
			      (unsigned long long)y->end_ip, y->ninsn);
		ck_assert_uint_eq(x->epoch, y->epoch);
		ck_assert_uint_eq(x->isa, y->isa);
		ck_assert_int_eq(x->speculative, y->speculative);
		ck_assert_int_eq(x->truncated, y->truncated);
		ck_assert_uint_eq(x->size, y->size);
		ck_assert_int_eq(x->timed, y->timed);
		ck_assert_msg(x->time == y->time, "item %zu: time %llu, query "
			      "walk %llu", n, (unsigned long long)x->time,
			      (unsigned long long)y->time);
		/* libipt leaves some classes out (those its block cache
		 * serves): the history classifies them from the bytes. */
		ck_assert_uint_eq(insn_block_class(h->images, h->isa, x),
				  insn_block_class(h->images, h->isa, y));
		break;
	}
	case walk_gap:
		ck_assert_int_eq(a->gap, b->gap);
		ck_assert_int_eq(a->error, b->error);
		ck_assert_int_eq(a->no_code, b->no_code);
		ck_assert_uint_eq(a->offset, b->offset);
		ck_assert_uint_eq(a->ip, b->ip);
		ck_assert_int_eq(!a->reason, !b->reason);
		if (a->reason)
			ck_assert_str_eq(a->reason, b->reason);
		break;
	case walk_chunk_start:
		ck_assert_uint_eq(a->offset, b->offset);
		ck_assert_uint_eq(a->ip, b->ip);
		break;
	}
}

static struct decoder_walk *walk_from(struct hwtr_thread *t, const uint64_t *at)
{
	struct decoder_walk *walk = NULL;

	ck_assert_int_eq(at ? t->ops->walk_at(t->stream, *at, history_chunk_image,
					      t, &walk)
			    : t->ops->walk_begin(t->stream, history_chunk_image,
						 t, &walk), 0);
	return walk;
}

/* Walk thread TS of history HS with the block decoder and TF of HF (another
 * build of the same recording, so that libipt's block caches have seen the
 * same code: libipt's blocks after an error depend on them) with queries,
 * from the start (AT NULL) or on demand from the chunk start *AT to the
 * next; fills last_chunks with the chunk starts seen (*NCHUNKS). */
static size_t compare_walk(struct hwtr_history *hs, struct hwtr_thread *ts,
			   struct hwtr_history *hf, struct hwtr_thread *tf,
			   const uint64_t *at, size_t *nchunks)
{
	struct decoder_walk *slow, *fast;
	struct walk_item a, b;
	struct hwtr_thread *t = ts;
	size_t n = 0;

	intel_pt_use_query_walk(hs->decoder, false);
	intel_pt_use_query_walk(hf->decoder, true);
	slow = walk_from(ts, at);
	fast = walk_from(tf, at);
	for (;; n++) {
		int rs, rf;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		rs = t->ops->walk_next(slow, &a);
		rf = tf->ops->walk_next(fast, &b);
		ck_assert_msg(rs == rf, "item %zu: block walk %d, query walk %d",
			      n, rs, rf);
		if (rs <= 0)
			break;
		same_item(hs, &a, &b, n);
		if (a.kind == walk_chunk_start) {
			if (at && n > 0)
				break;	/* the next chunk: done */
			if (nchunks && *nchunks < sizeof(last_chunks) /
						   sizeof(last_chunks[0]))
				last_chunks[(*nchunks)++] = a;
		}
	}
	t->ops->walk_free(slow);
	tf->ops->walk_free(fast);
	return n;
}

/* Walk all of H with the block decoder WARM times. */
static void warm(struct hwtr_history *h, int times)
{
	size_t i;

	intel_pt_use_query_walk(h->decoder, false);
	for (; times > 0; times--)
		for (i = 0; i < h->nthreads; i++) {
			struct decoder_walk *w = walk_from(h->threads[i], NULL);
			struct walk_item item;

			while (h->threads[i]->ops->walk_next(w, &item) > 0)
				;
			h->threads[i]->ops->walk_free(w);
		}
}

/* Every thread of REC, whole and chunk by chunk; *STATS: what the query
 * walks did. */
static void compare_recording(struct hwtr_recording *rec, bool each_chunk,
			      int warm_walks, struct fast_stats *stats)
{
	struct hwtr_history *hs, *hf;
	size_t i, k;

	ck_assert_msg(hwtr_history_build(rec, NULL, &hs) == 0, "%s",
		      hwtr_last_error());
	ck_assert_msg(hwtr_history_build(rec, NULL, &hf) == 0, "%s",
		      hwtr_last_error());
	ck_assert_uint_eq(hs->nthreads, hf->nthreads);
	/* libipt's blocks before an error depend on what its block cache
	 * has seen (a partial block of one or two instructions): two walks
	 * bring both caches to the same state. */
	warm(hs, warm_walks);
	warm(hf, warm_walks);
	for (i = 0; i < hs->nthreads; i++) {
		struct hwtr_thread *ts = hs->threads[i], *tf = hf->threads[i];
		size_t nchunks = 0;

		compare_walk(hs, ts, hf, tf, NULL, &nchunks);
		for (k = 0; each_chunk && k < nchunks; k++)
			compare_walk(hs, ts, hf, tf, &last_chunks[k].offset, NULL);
	}
	intel_pt_query_stats(hf->decoder, stats);
	hwtr_history_free(hs);
	hwtr_history_free(hf);
}

/* The trace T as a recording over fixture-code: walked both ways; *STATS:
 * what the query walks did. */
static void compare_trace(const uint8_t *bytes, size_t size,
			  struct fast_stats *stats)
{
	struct hwtr_recording *rec;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording(dir, bytes, size, NULL, NULL);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	compare_recording(rec, true, 2, stats);
	hwtr_recording_close(rec);
	fixture_cleanup();
}

static void compare_encoded(struct trace *t, struct fast_stats *stats)
{
	compare_trace(t->buf, trace_size(t), stats);
	trace_end(t);
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

/* Tracing off and on again inside a chunk (TIP.PGD, TIP.PGE). */
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

/* test-decode-pt-fast REC...: compare the whole walks of real recordings
 * and print what the query walk did. */
static int compare_recordings(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		struct hwtr_recording *rec;
		struct fast_stats s;
		uint64_t fb = 0;
		size_t k;

		if (hwtr_recording_open(argv[i], &rec) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], hwtr_last_error());
			return EXIT_FAILURE;
		}
		/* Large: the whole walk only, libipt's caches as built. */
		compare_recording(rec, false, 0, &s);
		for (k = 0; k < fallback_kinds; k++)
			fb += s.fallbacks[k];
		printf("%s: the same walk items; %llu chunks by queries, %llu "
		       "by the block decoder\n", argv[i],
		       (unsigned long long)s.chunks, (unsigned long long)fb);
		hwtr_recording_close(rec);
	}
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	TCase *tc = tcase_create("decode-pt-fast");

	if (argc > 1)
		return compare_recordings(argc, argv);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, main_path_first_chunk_walked_by_queries);
	tcase_add_test(tc, repeated_chunks_hit_the_cache);
	tcase_add_test(tc, overflow_is_left_to_the_block_decoder);
	tcase_add_test(tc, disable_enable_is_left_to_the_block_decoder);
	tcase_add_test(tc, unmapped_code_is_left_to_the_block_decoder);
	tcase_add_test(tc, bad_packets_are_left_to_the_block_decoder);
	tcase_add_test(tc, return_without_call_is_left_to_the_block_decoder);
	tcase_add_test(tc, fuzzer_seeds_walk_the_same);
	return check_run_tcase("decode-pt-fast", tc);
}
