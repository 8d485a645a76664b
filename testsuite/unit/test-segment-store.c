/* test-segment-store.c: a finished thread's segments kept compactly
 * (segment-store.c).
 *
 * Oracle: the array the store was made from.  Every field of every segment
 * must come back equal, read in order and at random, from the store made in
 * memory and from its bytes opened again as history.idx holds them; and
 * the segment of an instruction must be the one a binary search over the
 * array finds.  The arrays are crafted to reach the coding's edges: links
 * far away in both directions and at 2^32-1, levels jumping between
 * INT32_MIN and INT32_MAX, any flags and function ids, instruction numbers
 * going back and up to 2^64-1, group boundaries, and no segment at all.
 * Damaged bytes are refused with the group they are in.  A store built as
 * the index pass goes (appended by groups, changed after) finishes as the
 * same bytes as the final array compacted.
 */
#include "segment-store.h"
#include "integrity.h"
#include "segments.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value from a few that reach the edges, or any. */
static uint32_t edgy32(void)
{
	static const uint32_t edges[] = { 0, 1, 2, 63, 64, 127, 128, 0x7fffffff,
					  0x80000000u, UINT32_MAX - 1, UINT32_MAX };
	uint64_t r = next_random();

	return r % 3 ? edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))]
		     : (uint32_t)(r >> 16);
}

/* Segments as the index pass makes them (instructions in order, calls one
 * level down linked to the one before, returns linked back far away). */
static void builder_like(struct segment *s, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = next_random(), number = i + 1;

		memset(&s[i], 0, sizeof(s[i]));
		s[i].insn_begin = i ? s[i - 1].insn_begin + r % 300 : 1;
		s[i].function = (uint32_t)(r >> 20) % 5000;
		if (i && r % 2) {	/* a call */
			s[i].up = (uint32_t)i;
			s[i].level = s[i - 1].level + 1;
			s[i].flags = r % 7 == 0 ? HWTR_SEG_UP_LINKS_TO_TAILCALL : 0;
		} else if (i) {		/* a return, far back */
			s[i].prev = (uint32_t)(number - 1 - (r >> 8) % i);
			s[i].up = (uint32_t)((r >> 32) % number);
			s[i].level = s[i - 1].level - 1;
			s[s[i].prev - 1].next = (uint32_t)number;
			s[i].flags = (r >> 40) % 3 ? 0 : HWTR_SEG_UP_LINKS_TO_RET;
		}
		if ((r >> 50) % 5 == 0)
			s[i].flags |= SEG_ENDS_WITH_CALL;
		if ((r >> 56) % 97 == 0)
			s[i].flags = HWTR_SEG_GAP;
	}
}

/* Any values at all. */
static void crafted(struct segment *s, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = next_random();

		s[i].insn_begin = r % 4 == 0 ? UINT64_MAX - r % 3 : r % 4 == 1 ? 0 : r;
		s[i].up = edgy32();
		s[i].prev = edgy32();
		s[i].next = edgy32();
		s[i].level = (int32_t)edgy32();
		s[i].function = edgy32();
		s[i].flags = edgy32();
	}
}

static void assert_same(const struct segment *a, const struct segment *b,
			uint64_t number)
{
	ck_assert_msg(a->insn_begin == b->insn_begin && a->up == b->up &&
		      a->prev == b->prev && a->next == b->next &&
		      a->level == b->level && a->function == b->function &&
		      a->flags == b->flags,
		      "segment %llu: read back insn %llu up %u prev %u next %u "
		      "level %d function %u flags 0x%x; was insn %llu up %u prev %u "
		      "next %u level %d function %u flags 0x%x",
		      (unsigned long long)number, (unsigned long long)a->insn_begin,
		      a->up, a->prev, a->next, a->level, a->function, a->flags,
		      (unsigned long long)b->insn_begin, b->up, b->prev, b->next,
		      b->level, b->function, b->flags);
}

static void reads_back(struct segment_store *s, const struct segment *want,
		       uint64_t n)
{
	struct segment got;
	uint64_t i;

	for (i = 1; i <= n; i++) {
		segment_store_read(s, i, &got);
		assert_same(&got, &want[i - 1], i);
	}
	for (i = 0; n && i < 4 * n && i < 20000; i++) {	/* at random: cache misses */
		uint64_t number = next_random() % n + 1;

		segment_store_read(s, number, &got);
		assert_same(&got, &want[number - 1], number);
	}
}

struct visited {
	const struct segment *want;
	uint64_t count;
	uint64_t last;		/* the number checked last */
	unsigned damaged;	/* groups told damaged */
	char why[200];
};

/* A checker that counts: each segment of a group once, in order within
 * the group, as it was compacted. */
static int visit(void *ctx, uint64_t number, const struct segment *s)
{
	struct visited *v = ctx;

	ck_assert(number % SEGMENT_GROUP == 1 || number == v->last + 1);
	assert_same(s, &v->want[number - 1], number);
	v->last = number;
	v->count++;
	return 0;
}

static void told(void *ctx, const char *why)
{
	struct visited *v = ctx;

	v->damaged++;
	snprintf(v->why, sizeof(v->why), "%s", why);
}

/* Compact N segments, read them back, and again from the saved bytes. */
static void round_trip(const struct segment *segs, uint64_t n)
{
	struct segment_store *s, *again;
	struct visited v = { segs, 0, 0, 0, "" };
	uint64_t size;
	void *copy;

	ck_assert_int_eq(segment_store_compact(segs, n, &s), 0);
	reads_back(s, segs, n);
	size = segment_store_size(s);
	/* Where history.idx puts it: 8-byte aligned, another address. */
	ck_assert_int_eq(posix_memalign(&copy, 64, size ? size : 1), 0);
	memcpy(copy, segment_store_bytes(s), size);
	segment_store_free(s);
	/* Any array round-trips: not checked for order. */
	ck_assert_msg(segment_store_open(copy, size, n, &(struct segment_checker){
					visit, told, &v, false }, &again) == 0,
		      "%s", hwtr_last_error());
	/* Checked as read, each segment once whatever the reads. */
	ck_assert_uint_eq(v.count, 0);
	reads_back(again, segs, n);
	ck_assert_uint_eq(v.count, n);
	reads_back(again, segs, n);
	ck_assert_uint_eq(v.count, n);
	ck_assert_uint_eq(v.damaged, 0);
	segment_store_free(again);
	free(copy);
}

START_TEST(every_field_reads_back_equal)
{
	static const uint64_t sizes[] = { 0, 1, 63, 64, 65, 128, 1000, 4097 };
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct segment *segs = calloc(sizes[k] + 1, sizeof(*segs));

		crafted(segs, sizes[k]);
		round_trip(segs, sizes[k]);
		builder_like(segs, sizes[k]);
		round_trip(segs, sizes[k]);
		free(segs);
	}
}
END_TEST

START_TEST(compacting_an_array_that_is_given_back_keeps_every_field)
{
	/* 6.4 MB: pages are given back 4 MB at a time as they are read. */
	const uint64_t n = 200000;
	struct segment *segs = malloc(n * sizeof(*segs));
	struct segment *want = malloc(n * sizeof(*segs));
	struct segment_store *s;

	builder_like(segs, n);
	memcpy(want, segs, n * sizeof(*segs));
	ck_assert_int_eq(segment_store_compact_consuming(segs, n, &s), 0);
	free(segs);
	reads_back(s, want, n);
	segment_store_free(s);
	free(want);
}
END_TEST

/* The groups of FINAL that changed after they were appended. */
struct changes {
	const struct segment *final;
	const bool *changed;	/* by segment number - 1 */
};

static bool patched(void *ctx, uint64_t number, struct segment *segs,
		    uint64_t count)
{
	const struct changes *c = ctx;
	bool any = false;
	uint64_t k;

	for (k = 0; k < count; k++)
		if (c->changed[number - 1 + k]) {
			any = true;
			if (segs)
				segs[k] = c->final[number - 1 + k];
		}
	return any;
}

/* N segments as the index pass builds them: appended a few groups at a
 * time while some of those appended still change (as EARLY has them then,
 * FINAL after), then finished with the changes and the last ones. */
static void built_as_it_goes(uint64_t n, unsigned change_one_in)
{
	struct segment *final = calloc(n + 1, sizeof(*final));
	struct segment *early = calloc(n + 1, sizeof(*early));
	bool *changed = calloc(n + 1, sizeof(*changed));
	struct changes c = { final, changed };
	struct segment_store *growing, *finished, *compacted;
	uint64_t appended = 0, i;
	struct segment got;
	uint32_t crc;
	int fd;

	builder_like(final, n);
	memcpy(early, final, n * sizeof(*final));
	for (i = 0; i < n; i++)
		if (next_random() % change_one_in == 0) {
			changed[i] = true;
			early[i].next = edgy32();
			early[i].up = (uint32_t)(next_random() % (i + 1));
			early[i].flags ^= HWTR_SEG_UP_LINKS_TO_RET;
		}
	ck_assert_int_eq(segment_store_begin(NULL, &growing), 0);
	while (n - appended > 3 * SEGMENT_GROUP) {
		uint64_t count = (next_random() % 40 + 1) * SEGMENT_GROUP;

		if (count > n - appended - SEGMENT_GROUP)
			count = (n - appended - SEGMENT_GROUP) / SEGMENT_GROUP * SEGMENT_GROUP;
		ck_assert_int_eq(segment_store_append(growing, early + appended, count), 0);
		appended += count;
		/* What was appended reads back as it was then. */
		for (i = 0; i < 50; i++) {
			uint64_t number = next_random() % appended + 1;

			segment_store_read(growing, number, &got);
			assert_same(&got, &early[number - 1], number);
		}
		ck_assert_uint_eq(segment_store_find(growing, early[appended - 1].insn_begin),
				  appended);
	}
	for (i = appended; i < n; i++)
		changed[i] = false;	/* the tail is given as it is */
	ck_assert_msg(segment_store_finish(growing, patched, &c, final + appended,
					   n - appended, &finished) == 0,
		      "%s", hwtr_last_error());
	segment_store_free(growing);
	reads_back(finished, final, n);
	/* The same bytes as compacting the final array: history.idx does
	 * not depend on how the build went. */
	ck_assert_int_eq(segment_store_compact(final, n, &compacted), 0);
	ck_assert_uint_eq(segment_store_size(finished), segment_store_size(compacted));
	ck_assert(memcmp(segment_store_bytes(finished), segment_store_bytes(compacted),
			 (size_t)segment_store_size(compacted)) == 0);
	/* Its checksum, taken as it was written, is its bytes'; its file,
	 * which history.idx copies, holds them from its start. */
	ck_assert(segment_store_crc(finished, &crc));
	ck_assert_uint_eq(crc, integrity_crc32(0, segment_store_bytes(compacted),
					       (size_t)segment_store_size(compacted)));
	ck_assert(!segment_store_crc(compacted, &crc));
	fd = segment_store_fd(finished);
	ck_assert(fd >= 0 || n < 1000000);	/* 8 MB: in a file in TMPDIR */
	if (fd >= 0) {
		size_t size = (size_t)segment_store_size(compacted);
		uint8_t *copy = malloc(size + 1);

		ck_assert(n >= 1000000);	/* only a large one is in a file */
		ck_assert_int_eq(pread(fd, copy, size + 1, 0), (ssize_t)size);
		ck_assert(memcmp(copy, segment_store_bytes(compacted), size) == 0);
		free(copy);
	}
	segment_store_free(finished);
	segment_store_free(compacted);
	free(final);
	free(early);
	free(changed);
}

START_TEST(a_store_built_as_it_goes_is_the_compacted_array)
{
	static const uint64_t sizes[] = { 0, 1, 64, 65, 200, 4097, 100000 };
	size_t k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		built_as_it_goes(sizes[k], 50);
		built_as_it_goes(sizes[k], 2);
	}
	/* About 8 MB coded: its pages given back as they are copied. */
	built_as_it_goes(1000000, 1000);
}
END_TEST

START_TEST(the_segment_of_an_instruction_is_the_binary_searchs)
{
	const uint64_t n = 3000;
	struct segment *segs = calloc(n, sizeof(*segs));
	struct segment_store *s;
	uint64_t insn, last;

	builder_like(segs, n);
	/* Some segments of no instruction (the same insn_begin), also
	 * across a group's edge. */
	segs[64].insn_begin = segs[63].insn_begin;
	segs[65].insn_begin = segs[63].insn_begin;
	segs[200].insn_begin = segs[199].insn_begin;
	ck_assert_int_eq(segment_store_compact(segs, n, &s), 0);
	last = segs[n - 1].insn_begin + 5;
	for (insn = 0; insn <= last; insn++) {
		uint64_t lo = 0, hi = n;

		while (lo < hi) {	/* the array's upper bound */
			uint64_t mid = lo + (hi - lo) / 2;

			if (segs[mid].insn_begin <= insn)
				lo = mid + 1;
			else
				hi = mid;
		}
		ck_assert_uint_eq(segment_store_find(s, insn), lo);
	}
	ck_assert_uint_eq(segment_store_find(s, UINT64_MAX), n);
	segment_store_free(s);
	free(segs);
}
END_TEST

/* Open COPY (SIZE bytes, N segments) and read segment NUMBER: it reads as
 * empty, the group it is in is told damaged once, saying WHY, and
 * segment OTHER (of another group) still reads as WANT has it. */
static void damaged_when_read(const uint8_t *copy, uint64_t size, uint64_t n,
			      uint64_t number, const char *why,
			      const struct segment *want, uint64_t other)
{
	struct visited v = { want, 0, 0, 0, "" };
	struct segment_store *s;
	struct segment got, empty = { 0 };

	ck_assert_msg(segment_store_open(copy, size, n, &(struct segment_checker){
					NULL, told, &v, true }, &s) == 0,
		      "%s", hwtr_last_error());
	segment_store_read(s, number, &got);
	assert_same(&got, &empty, number);
	segment_store_read(s, number, &got);
	ck_assert_uint_eq(v.damaged, 1);
	ck_assert_str_eq(v.why, why);
	segment_store_read(s, other, &got);
	assert_same(&got, &want[other - 1], other);
	ck_assert_uint_eq(v.damaged, 1);
	segment_store_free(s);
}

START_TEST(damaged_bytes_are_refused)
{
	const uint64_t n = 200;
	struct segment *segs = calloc(n, sizeof(*segs));
	struct segment_store *s, *bad = NULL;
	uint64_t size, g1, g2;
	uint8_t *copy;

	builder_like(segs, n);
	ck_assert_int_eq(segment_store_compact(segs, n, &s), 0);
	size = segment_store_size(s);
	copy = malloc(size + 8);
	memcpy(copy, segment_store_bytes(s), size);
	/* Cut by one byte: the last group (segments 193-200) ends early. */
	damaged_when_read(copy, size - 1, n, 195, "segments 193-200 do not decode",
			  segs, 100);
	/* One byte more than its segments. */
	copy[size] = 0;
	damaged_when_read(copy, size + 1, n, 200, "segments 193-200 do not decode",
			  segs, 1);
	/* More segments than it holds, and far more than its bytes could. */
	damaged_when_read(copy, size, n + 1, 201, "segments 193-201 do not decode",
			  segs, 192);
	ck_assert_int_eq(segment_store_open(copy, size, size * 64, NULL, &bad),
			 -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "bytes cannot hold"), "%s",
		      hwtr_last_error());
	/* Group 1 said to start where group 0 does: group 0 has no bytes. */
	memcpy(&g1, copy + 16, 8);
	memset(copy + 16, 0, 8);
	damaged_when_read(copy, size, n, 1, "segments 1-64 do not decode", segs, 129);
	/* Group 2 said to start before group 1: refused at the open. */
	memcpy(&g2, copy + 32, 8);
	memcpy(copy + 32, &g1, 8);
	memcpy(copy + 16, &g2, 8);
	ck_assert_int_eq(segment_store_open(copy, size, n, &(struct segment_checker){
					NULL, NULL, NULL, true }, &bad),
			 -hwtr_err_format);
	ck_assert_str_eq(hwtr_last_error(),
			 "segment store: group 2 (segments 129-) out of order");
	memcpy(copy + 16, &g1, 8);
	memcpy(copy + 32, &g2, 8);
	/* A segment of group 1 that begins after group 2's first: its
	 * instructions out of order (the table's insn_begin of group 2 made
	 * smaller than a segment of group 1's, above group 1's own). */
	{
		uint64_t insn = segs[64].insn_begin + 1;

		ck_assert_uint_lt(insn, segs[127].insn_begin);
		memcpy(copy + 32 + 8, &insn, 8);
		damaged_when_read(copy, size, n, 100, "segment 66 out of order",
				  segs, 10);
		memcpy(copy + 32 + 8, &segs[128].insn_begin, 8);
	}
	/* A varint that never ends, in the middle of group 1. */
	memset(copy + 4 * 16 + g1 + 3, 0xff, 12);
	damaged_when_read(copy, size, n, 64 + 3, "segments 65-128 do not decode",
			  segs, 64);
	ck_assert(bad == NULL);
	segment_store_free(s);
	free(copy);
	free(segs);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("store");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, every_field_reads_back_equal);
	tcase_add_test(tc, compacting_an_array_that_is_given_back_keeps_every_field);
	tcase_add_test(tc, a_store_built_as_it_goes_is_the_compacted_array);
	tcase_add_test(tc, the_segment_of_an_instruction_is_the_binary_searchs);
	tcase_add_test(tc, damaged_bytes_are_refused);
	return check_run_tcase("segment-store", tc);
}
