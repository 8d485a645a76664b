/* test-chunk-cache.c: a chunk's instructions decoded again on demand
 * (chunk-cache.c), on the fixture's main path (fixture.c).
 *
 * Oracles: the addresses are the assembler's labels of fixture-code.S in
 * the order the path runs them (main_path_labels); the lengths are those
 * objdump -d prints for fixture-code (objdump_length below).  The path has
 * two PSBs, at i1 and at "loop" before the third round: chunk 0 holds
 * instructions 1..13, chunk 1 14..29.
 */
#include "chunk-cache.h"
#include "fixture.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* objdump -d fixture-code: the length of the instruction at each label. */
static unsigned objdump_length(const char *label)
{
	static const struct { const char *label; unsigned length; } table[] = {
		{ "i1", 2 },  { "i2", 5 },  { "i5", 2 },  { "i6", 3 },
		{ "i7", 2 },  { "i20", 5 }, { "i26", 7 }, { "i27", 2 },
		{ "i28", 5 }, { "i29", 2 }, { "i3", 1 },  { "i4", 1 },
		{ "i21", 5 }, { "i24", 2 }, { "i25", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].label, label))
			return table[i].length;
	ck_abort_msg("no length for %s", label);
	return 0;
}

static void check_chunk(struct hwtr_thread *t, size_t k, uint64_t first,
			size_t count)
{
	const struct decoded_chunk *d;
	size_t i;

	ck_assert_msg(history_decode_chunk(t, k, &d) == 0, "%s", hwtr_last_error());
	ck_assert_uint_eq(d->first_insn, first);
	ck_assert_uint_eq(d->count, count);
	for (i = 0; i < count; i++) {
		const char *label = main_path_labels[first - 1 + i];

		ck_assert_msg(d->insns[i].ip == fixture_symbol(label),
			      "instruction %llu: 0x%llx, expected %s",
			      (unsigned long long)(first + i),
			      (unsigned long long)d->insns[i].ip, label);
		ck_assert_uint_eq(d->insns[i].size, objdump_length(label));
		ck_assert_uint_eq(d->insns[i].isa, hwtr_isa_x86_64);
		ck_assert_uint_eq(d->insns[i].flags, 0);
	}
}

START_TEST(each_chunk_decodes_to_the_labels_and_objdump_lengths)
{
	struct fixture_history o;

	fixture_history_main_path(&o);
	ck_assert_uint_eq(o.thread->nchunks, 2);
	check_chunk(o.thread, 1, 14, 16);
	check_chunk(o.thread, 0, 1, 13);
	fixture_history_close(&o);
}
END_TEST

START_TEST(a_cached_chunk_is_not_decoded_again)
{
	const struct decoded_chunk *a, *b;
	struct fixture_history o;
	unsigned epoch;

	fixture_history_main_path(&o);
	ck_assert_int_eq(history_decode_chunk(o.thread, 0, &a), 0);
	ck_assert_int_eq(history_decode_chunk(o.thread, 0, &b), 0);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(b->key, chunk_cache_key(o.thread, 0));
	/* One mapping all along: instruction 20 (chunk 1) has chunk 0's image. */
	ck_assert_int_eq(history_insn_epoch(o.thread, 20, &epoch), 0);
	ck_assert_uint_eq(epoch, a->insns[0].epoch);
	/* Forgotten from chunk 0 on: the slot is free again. */
	chunk_cache_forget(o.thread, 0);
	ck_assert_uint_eq(a->key, UINT64_MAX);
	ck_assert_ptr_null(a->insns);
	check_chunk(o.thread, 0, 1, 13);
	fixture_history_close(&o);
}
END_TEST

START_TEST(a_chunk_past_the_end_is_refused)
{
	const struct decoded_chunk *d;
	struct fixture_history o;

	fixture_history_main_path(&o);
	ck_assert_int_eq(history_decode_chunk(o.thread, 2, &d), -hwtr_err_range);
	ck_assert_str_eq(hwtr_last_error(), "no chunk 2");
	fixture_history_close(&o);
}
END_TEST

/* Rounds of the loop at "loop" (call leaf, nop, ret, inc, cmp, jne: six
 * instructions, the ret and the jne taken), each after a PSB of its own:
 * a chunk each, then the main path's end from "loop". */
#define ROUNDS 12

static const char *const round_labels[6] = {
	"i2", "i3", "i4", "i5", "i6", "i7" };

START_TEST(the_cache_holds_its_bytes_not_a_count_of_chunks)
{
	/* Two rounds' instructions: fewer than the four chunks the cache
	 * kept whatever their size. */
	struct hwtr_history_options opts = {
		.cache_bytes = 2 * 6 * sizeof(struct decoded_insn) };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_thread *t;
	struct trace tr;
	char dir[512];
	size_t round, k, i, held;

	trace_begin(&tr);
	for (round = 0; round < ROUNDS; round++) {
		enc_psb(&tr, fixture_symbol("loop"), 100 + round);
		enc_tnt(&tr, "11");
	}
	trace_main_path_from_loop(&tr);
	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording(dir, tr.buf, trace_size(&tr), NULL, NULL);
	trace_end(&tr);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	ck_assert_msg(hwtr_history_build(rec, &opts, &h) == 0, "%s",
		      hwtr_last_error());
	t = hwtr_history_thread(h, 0);
	ck_assert_uint_eq(t->nchunks, ROUNDS + 1);
	/* Every round's chunk, twice over in a scattered order: the labels
	 * the assembler gave, and never more than the bytes allowed (or the
	 * last chunk used and the one being decoded). */
	for (i = 0; i < 2 * ROUNDS; i++) {
		const struct decoded_chunk *d;
		size_t n;

		k = (i * 5) % ROUNDS;
		ck_assert_msg(history_decode_chunk(t, k, &d) == 0, "%s",
			      hwtr_last_error());
		ck_assert_uint_eq(d->first_insn, 1 + 6 * k);
		ck_assert_uint_eq(d->count, 6);
		for (n = 0; n < 6; n++)
			ck_assert_uint_eq(d->insns[n].ip,
					  fixture_symbol(round_labels[n]));
		for (held = 0, n = 0; n < h->cache_slots; n++)
			if (h->cache[n].key != UINT64_MAX)
				held += h->cache[n].count *
					sizeof(struct decoded_insn);
		ck_assert_uint_le(held, opts.cache_bytes);
	}
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	fixture_cleanup();
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("main path");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, each_chunk_decodes_to_the_labels_and_objdump_lengths);
	tcase_add_test(tc, a_cached_chunk_is_not_decoded_again);
	tcase_add_test(tc, a_chunk_past_the_end_is_refused);
	tcase_add_test(tc, the_cache_holds_its_bytes_not_a_count_of_chunks);
	return check_run_tcase("chunk-cache", tc);
}
