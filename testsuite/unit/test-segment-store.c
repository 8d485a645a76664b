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
 * same bytes as the final array compacted.  The saved form (runs of groups,
 * each a size and an LZ4 block) is taken apart here with LZ4 itself, as
 * segment-store.c's top describes it, to damage it: cut, a byte more,
 * garbage, a block of another length, a run's table out of order.
 */
#include "segment-store.h"
#include "integrity.h"
#include "segments.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lz4.h>

/* The saved form's runs (segment-store.c): groups a run, a run's table
 * entry (its frame's offset, its first instruction), and its frame's
 * header (the size of its block). */
#define RUN_GROUPS 16
#define RUN_ENTRY 16
#define FRAME_HEADER 4

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

/* Compact N segments, read them back, and again from the saved form, as
 * made and from its bytes. */
static void round_trip(const struct segment *segs, uint64_t n)
{
	struct segment_store *s, *packed, *again;
	struct visited v = { segs, 0, 0, 0, "" };
	uint64_t size;
	uint32_t crc;
	void *copy;

	ck_assert_int_eq(segment_store_compact(segs, n, &s), 0);
	reads_back(s, segs, n);
	ck_assert_msg(segment_store_pack(s, NULL, &packed) == 0, "%s",
		      hwtr_last_error());
	segment_store_free(s);
	reads_back(packed, segs, n);
	size = segment_store_size(packed);
	ck_assert(segment_store_crc(packed, &crc));
	ck_assert_uint_eq(crc, integrity_crc32(0, segment_store_bytes(packed),
					       (size_t)size));
	/* Where history.idx puts it: 8-byte aligned, another address. */
	ck_assert_int_eq(posix_memalign(&copy, 64, size ? size : 1), 0);
	memcpy(copy, segment_store_bytes(packed), size);
	segment_store_free(packed);
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
	static const uint64_t sizes[] = { 0, 1, 63, 64, 65, 128, 1000, 1024,
					  1025, 4097 };
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
	struct segment_store *growing, *finished, *compacted, *packed;
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
	/* The same bytes as packing the compacted final array: history.idx
	 * does not depend on how the build went, and takes them as they
	 * are. */
	ck_assert(segment_store_packed(finished));
	ck_assert_int_eq(segment_store_compact(final, n, &compacted), 0);
	ck_assert(!segment_store_packed(compacted));
	ck_assert_int_eq(segment_store_pack(compacted, NULL, &packed), 0);
	ck_assert_uint_eq(segment_store_size(finished), segment_store_size(packed));
	ck_assert(memcmp(segment_store_bytes(finished), segment_store_bytes(packed),
			 (size_t)segment_store_size(packed)) == 0);
	/* Its checksum, taken as it was written, is its bytes'; its file,
	 * which history.idx copies, holds them from its start. */
	ck_assert(segment_store_crc(finished, &crc));
	ck_assert_uint_eq(crc, integrity_crc32(0, segment_store_bytes(packed),
					       (size_t)segment_store_size(packed)));
	ck_assert(!segment_store_crc(compacted, &crc));
	fd = segment_store_fd(finished);
	if (fd >= 0) {
		size_t size = (size_t)segment_store_size(packed);
		uint8_t *copy = malloc(size + 1);

		ck_assert_int_eq(pread(fd, copy, size + 1, 0), (ssize_t)size);
		ck_assert(memcmp(copy, segment_store_bytes(packed), size) == 0);
		free(copy);
	}
	ck_assert(fd >= 0 || n < 1000000);	/* in a file in TMPDIR */
	segment_store_free(packed);
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
	/* And across a run's. */
	segs[1024].insn_begin = segs[1023].insn_begin;
	segs[2048].insn_begin = segs[2047].insn_begin;
	segs[2049].insn_begin = segs[2047].insn_begin;
	ck_assert_int_eq(segment_store_compact(segs, n, &s), 0);
	if (_i) {	/* the saved form */
		struct segment_store *packed;

		ck_assert_int_eq(segment_store_pack(s, NULL, &packed), 0);
		segment_store_free(s);
		s = packed;
	}
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
 * empty, the group (or run) it is in is told damaged once, saying WHY (at
 * its start: zstd's own words may follow), and segment OTHER (of another
 * run) still reads as WANT has it. */
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
	ck_assert_msg(strncmp(v.why, why, strlen(why)) == 0,
		      "told \"%s\", wanted \"%s\"", v.why, why);
	segment_store_read(s, other, &got);
	assert_same(&got, &want[other - 1], other);
	ck_assert_uint_eq(v.damaged, 1);
	segment_store_free(s);
}

/* A saved form taken apart: its runs' frames decompressed. */
struct taken_apart {
	uint64_t nruns;
	uint64_t insn[8];	/* each run's first instruction */
	uint8_t *run[8];	/* each run's block (groups' table, coded bytes) */
	size_t len[8];
};

static void take_apart(const uint8_t *bytes, uint64_t size, uint64_t n,
		       struct taken_apart *t)
{
	uint64_t r, groups = (n + SEGMENT_GROUP - 1) / SEGMENT_GROUP;

	t->nruns = (groups + RUN_GROUPS - 1) / RUN_GROUPS;
	ck_assert_uint_le(t->nruns, 8);
	for (r = 0; r < t->nruns; r++) {
		uint64_t off, end = size - t->nruns * RUN_ENTRY;
		const uint8_t *frames = bytes + t->nruns * RUN_ENTRY;
		uint32_t len;

		memcpy(&off, bytes + r * RUN_ENTRY, 8);
		memcpy(&t->insn[r], bytes + r * RUN_ENTRY + 8, 8);
		if (r + 1 < t->nruns)
			memcpy(&end, bytes + (r + 1) * RUN_ENTRY, 8);
		memcpy(&len, frames + off, 4);
		ck_assert(len < (1u << 20));
		t->len[r] = len;
		t->run[r] = malloc(t->len[r] + 1);
		ck_assert_int_eq(LZ4_decompress_safe((const char *)frames + off +
						     FRAME_HEADER, (char *)t->run[r],
						     (int)(end - off - FRAME_HEADER),
						     (int)len), (int)len);
	}
}

/* T put together again (each run compressed anew, with LZ4's fast mode as
 * the store does), into *SIZE bytes. */
static uint8_t *put_together(const struct taken_apart *t, uint64_t *size)
{
	size_t cap = t->nruns * RUN_ENTRY, at, r;
	uint8_t *bytes;

	for (r = 0; r < t->nruns; r++)
		cap += FRAME_HEADER + (size_t)LZ4_compressBound((int)t->len[r]);
	bytes = malloc(cap);
	at = t->nruns * RUN_ENTRY;
	for (r = 0; r < t->nruns; r++) {
		uint64_t off = at - t->nruns * RUN_ENTRY;
		uint32_t len = (uint32_t)t->len[r];
		int c = LZ4_compress_default((const char *)t->run[r],
					     (char *)bytes + at + FRAME_HEADER,
					     (int)len,
					     (int)(cap - at - FRAME_HEADER));

		ck_assert_int_gt(c, 0);
		memcpy(bytes + at, &len, 4);
		memcpy(bytes + r * RUN_ENTRY, &off, 8);
		memcpy(bytes + r * RUN_ENTRY + 8, &t->insn[r], 8);
		at += FRAME_HEADER + (size_t)c;
	}
	*size = at;
	return bytes;
}

static uint64_t varint(const uint8_t *p, size_t *at)
{
	uint64_t v = 0;
	unsigned shift = 0;

	do
		v |= (uint64_t)(p[*at] & 0x7f) << shift, shift += 7;
	while (p[(*at)++] & 0x80);
	return v;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* A run's block's table (segment-store.c's top: a varint step of the
 * offset and a zigzag one of the first instruction for each group after
 * the first, which starts the coded bytes at the run's first instruction
 * INSN), for K groups: into OFF and FIRST; where the coded bytes start. */
static size_t run_table(const uint8_t *block, unsigned k, uint64_t insn,
			uint64_t *off, uint64_t *first)
{
	size_t at = 0;
	unsigned g;

	off[0] = 0;
	first[0] = insn;
	for (g = 1; g < k; g++) {
		uint64_t step = varint(block, &at), z = varint(block, &at);

		off[g] = off[g - 1] + step;
		first[g] = first[g - 1] + ((z >> 1) ^ -(z & 1));
	}
	return at;
}

/* T's run R made of RUN_GROUPS groups at OFF and FIRST over the N coded
 * bytes at CODED. */
static void set_run(struct taken_apart *t, unsigned r, const uint64_t *off,
		    const uint64_t *first, const uint8_t *coded, size_t n)
{
	uint8_t *block = malloc(RUN_GROUPS * 20 + n), *p = block;
	unsigned g;

	for (g = 1; g < RUN_GROUPS; g++) {
		int64_t d = (int64_t)(first[g] - first[g - 1]);

		p = put_varint(p, off[g] - off[g - 1]);
		p = put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	}
	memcpy(p, coded, n);
	free(t->run[r]);
	t->run[r] = block;
	t->len[r] = (size_t)(p - block) + n;
}

static void free_apart(struct taken_apart *t)
{
	for (uint64_t r = 0; r < t->nruns; r++)
		free(t->run[r]);
}

START_TEST(damaged_bytes_are_refused)
{
	/* Three runs: segments 1-1024, 1025-2048, 2049-2500. */
	const uint64_t n = 2500;
	struct segment *segs = calloc(n, sizeof(*segs));
	struct segment_store *c, *s, *bad = NULL;
	struct taken_apart t;
	uint64_t size, size2, off1, off2;
	uint8_t *copy, *again, *run1;

	builder_like(segs, n);
	ck_assert_int_eq(segment_store_compact(segs, n, &c), 0);
	ck_assert_int_eq(segment_store_pack(c, NULL, &s), 0);
	segment_store_free(c);
	size = segment_store_size(s);
	copy = malloc(size + 8);
	memcpy(copy, segment_store_bytes(s), size);
	/* Unchanged, it reads back (the way these tests take it apart and
	 * put it together is the store's). */
	take_apart(copy, size, n, &t);
	again = put_together(&t, &size2);
	ck_assert_uint_eq(size2, size);
	ck_assert(memcmp(again, copy, size) == 0);
	free(again);
	/* Cut by one byte: the last run's block ends early. */
	damaged_when_read(copy, size - 1, n, 2400, "segments 2049-2500 do not "
			  "decompress: not an LZ4 block", segs, 100);
	/* One byte more than its block. */
	copy[size] = 0;
	damaged_when_read(copy, size + 1, n, 2500, "segments 2049-2500 do not "
			  "decompress: not an LZ4 block", segs, 1);
	/* More segments than it holds, and far more than its bytes could. */
	damaged_when_read(copy, size, n + 1, 2501, "segments 2497-2501 do not decode",
			  segs, 2048);
	ck_assert_int_eq(segment_store_open(copy, size, size * 64 * RUN_GROUPS, NULL,
					    &bad), -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "bytes cannot hold"), "%s",
		      hwtr_last_error());
	/* Garbage for run 1's block size: larger than its segments' largest
	 * coding.  (Garbage in the block may decompress, without a checksum
	 * of its own: its groups then do not decode, as the cases below
	 * show.) */
	memcpy(&off1, copy + RUN_ENTRY, 8);
	memcpy(&off2, copy + 2 * RUN_ENTRY, 8);
	memset(copy + 3 * RUN_ENTRY + off1, 0xff, 4);
	damaged_when_read(copy, size, n, 1500, "segments 1025-2048 do not "
			  "decompress: their frame is not one of their size",
			  segs, 2049);
	/* A size within what its block could hold, but more than its
	 * segments' largest coding: refused before any memory is taken
	 * for it. */
	{
		uint32_t big = 10000000;

		memcpy(copy + 3 * RUN_ENTRY + off1, &big, 4);
		damaged_when_read(copy, size, n, 1500, "segments 1025-2048 do not "
				  "decompress: their frame is not one of their size",
				  segs, 2049);
	}
	/* Its size one byte more than its block holds. */
	memcpy(copy, segment_store_bytes(s), size);
	copy[3 * RUN_ENTRY + off1]++;
	damaged_when_read(copy, size, n, 1500, "segments 1025-2048 do not "
			  "decompress: ", segs, 2049);
	/* Garbage all through its block. */
	memset(copy + 3 * RUN_ENTRY + off1 + FRAME_HEADER, 0xff,
	       off2 - off1 - FRAME_HEADER);
	damaged_when_read(copy, size, n, 1500, "segments 1025-2048 do not "
			  "decompress: not an LZ4 block", segs, 2049);
	memcpy(copy, segment_store_bytes(s), size);
	/* Run 2 said to start before run 1: refused at the open. */
	memcpy(copy + RUN_ENTRY, &off2, 8);
	memcpy(copy + 2 * RUN_ENTRY, &off1, 8);
	ck_assert_int_eq(segment_store_open(copy, size, n, &(struct segment_checker){
					NULL, NULL, NULL, true }, &bad),
			 -hwtr_err_format);
	ck_assert_str_eq(hwtr_last_error(),
			 "segment store: run 2 (segments 2049-) out of order");
	memcpy(copy, segment_store_bytes(s), size);
	/* Run 1's frame holding a byte more or less than its segments'
	 * coding: its last group does not decode. */
	run1 = t.run[1];
	t.run[1] = malloc(t.len[1] + 1);
	memcpy(t.run[1], run1, t.len[1]);
	t.run[1][t.len[1]++] = 0;
	again = put_together(&t, &size2);
	damaged_when_read(again, size2, n, 2000, "segments 1985-2048 do not decode",
			  segs, 1024);
	free(again);
	t.len[1] -= 2;
	again = put_together(&t, &size2);
	damaged_when_read(again, size2, n, 2048, "segments 1985-2048 do not decode",
			  segs, 2100);
	free(again);
	t.len[1]++;
	/* Run 1's table (varints after the run's first group). */
	{
		uint64_t off[RUN_GROUPS], first[RUN_GROUPS], o2[RUN_GROUPS],
			 f2[RUN_GROUPS];
		size_t len1 = t.len[1];	/* as it was */
		size_t at = run_table(run1, RUN_GROUPS, t.insn[1], off, first);
		uint8_t *coded = malloc(len1 - at);
		unsigned g;

		memcpy(coded, run1 + at, len1 - at);
		for (g = 0; g < RUN_GROUPS; g++)
			ck_assert_uint_eq(first[g], segs[1024 + g * 64].insn_begin);
		set_run(&t, 1, off, first, coded, len1 - at);
		ck_assert_uint_eq(t.len[1], len1);
		ck_assert(memcmp(t.run[1], run1, len1) == 0);
		/* Group 2 said to start past the run's coded bytes. */
		memcpy(o2, off, sizeof(off));
		for (g = 2; g < RUN_GROUPS; g++)
			o2[g] = len1 - at + g;
		set_run(&t, 1, o2, first, coded, len1 - at);
		again = put_together(&t, &size2);
		damaged_when_read(again, size2, n, 1030, "segments 1025-2048: their "
				  "run's table is out of order or range", segs, 1024);
		free(again);
		/* Group 2's first instruction before group 1's. */
		memcpy(f2, first, sizeof(first));
		f2[2] = first[1] - 1;
		set_run(&t, 1, off, f2, coded, len1 - at);
		again = put_together(&t, &size2);
		damaged_when_read(again, size2, n, 2048, "segments 1025-2048: their "
				  "run's table is out of order or range", segs, 1024);
		free(again);
		/* A segment of group 17 that begins after group 18's first,
		 * under a good table: its instructions out of order. */
		f2[2] = segs[1088].insn_begin + 1;
		ck_assert_uint_lt(f2[2], segs[1151].insn_begin);
		set_run(&t, 1, off, f2, coded, len1 - at);
		again = put_together(&t, &size2);
		damaged_when_read(again, size2, n, 1100, "segment 1090 out of order",
				  segs, 10);
		free(again);
		/* A varint that never ends, in the middle of group 17. */
		memset(coded + off[1] + 3, 0xff, 12);
		set_run(&t, 1, off, first, coded, len1 - at);
		again = put_together(&t, &size2);
		damaged_when_read(again, size2, n, 1025 + 64 + 3,
				  "segments 1089-1152 do not decode", segs, 64);
		free(again);
		free(coded);
	}
	ck_assert(bad == NULL);
	free(run1);
	free_apart(&t);
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
	tcase_add_loop_test(tc, the_segment_of_an_instruction_is_the_binary_searchs, 0, 2);
	tcase_add_test(tc, damaged_bytes_are_refused);
	return check_run_tcase("segment-store", tc);
}
