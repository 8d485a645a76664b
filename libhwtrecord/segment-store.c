/* segment-store.c: a finished thread's function segments in groups of
 * small deltas (segment-store.h).
 *
 * Layout of a store's block (little-endian, saved as is in history.idx):
 *
 *   struct segment_group groups[ceil(n / SEGMENT_GROUP)];
 *   uint8_t coded[];	each group's segments, one after another
 *
 * A group's table entry holds where its segments start in CODED and the
 * first one's insn_begin; the segments are coded against the ones before
 * in the same group only (the first against insn_begin from the table and
 * level 0), so a group decodes alone.  A segment is two header bytes, then
 * varints (LEB128):
 *
 *   header   bits 0-2: flags & 7 (HWTR_SEG_*); bit 3: SEG_ENDS_WITH_CALL;
 *            bit 4: other flag bits follow; bit 5: up is the segment just
 *            before (a call); bit 6: no prev; bit 7: no next
 *   header2  bits 0-1: the level is the one before's + 1 (a call), the
 *            same, - 1 (a return), or coded; bits 2-3: the
 *            function is coded, prev's (a return to it), the one two
 *            before's (calls in a row from one function) or the one
 *            before's; bit 4: up is prev's up (a return); prev and the
 *            ones before must be in the group
 *   zigzag(insn_begin - the previous one's)  signed, so any array
 *                                            round-trips exactly
 *   [zigzag(level - the previous one's)]     when coded
 *   [flags without the bits above]           when header bit 4
 *   [link(up)] unless header bit 5 or header2 bit 4, [link(prev)] unless
 *   bit 6, [link(next)] unless bit 7: link(0) = 0, link(x) =
 *   zigzag(number - x) + 1, since a caller, an earlier or a later part of
 *   the same call is near
 *   [function]                               when coded
 *
 * Measured: 4.5 bytes a segment on gzip.  The links are kept, not derived
 * from the levels: the index pass's rules (segments.c) make exceptions
 * (returns to no traced caller, gaps, longjmp) that would need a list, and
 * what a derivation would save is most of the 1-2 bytes left.
 *
 * The saved form (segment_store_pack, what segment_store_open takes) keeps
 * that block in runs of RUN_GROUPS groups, each compressed alone with LZ4:
 *
 *   struct segment_run runs[ceil(groups / RUN_GROUPS)];
 *   uint8_t frames[];	each run's frame, one after another
 *
 * A run's entry holds where its frame starts in FRAMES and its first
 * segment's insn_begin; its frame is the size of the block it holds
 * (uint32_t) and that block as one LZ4 block (LZ4's fast mode): the run's
 * groups' table, then their coded bytes.  The table is varints: for each
 * group after the first, its bytes' offset from the one before's and
 * zigzag(its first instruction - the one before's) (the first group's
 * bytes start the coded bytes, its first instruction is the run's): as 16
 * bytes a group it was a quarter of the run's compressed size.  Per group, a general compressor
 * saves little (4.4 -> 1.9 bytes a segment on a call-heavy history with
 * zstd: a group is too short to repeat itself); per run of 1024 segments it
 * finds the call patterns that repeat (fib calls fib): 0.52 byte a segment.
 * zstd saves 10% more but takes 7-12 us to decompress a run where LZ4 takes
 * 1-2.5 (measured, session 38): a reverse step's random reads stay fast.
 */
#include "segment-store.h"

#include "error.h"
#include "integrity.h"
#include "page-release.h"
#include "segments.h"
#include "spill-append.h"

#include <stdlib.h>
#include <string.h>
#include <lz4.h>

struct segment_group {
	uint64_t offset;	/* of its first segment in the coded bytes */
	uint64_t insn_begin;	/* its first segment's */
};

_Static_assert(sizeof(struct segment_group) == 16, "saved layout");

/* Groups a run of the saved form holds (1024 segments). */
#define RUN_GROUPS 16

struct segment_run {
	uint64_t offset;	/* of its frame in the frames */
	uint64_t insn_begin;	/* its first segment's */
};

_Static_assert(sizeof(struct segment_run) == 16, "saved layout");

/* LZ4's fast mode (acceleration 1) for a run: 5-10 ns a segment.  LZ4 HC
 * (level 4) saves 10% on a call-heavy history (0.52 byte a segment against
 * 0.58; gzip's 0.71 against 1.04, python3's 1.57 against 1.69) but takes
 * 30-50 ns a segment, a quarter more CPU on a call-heavy history's first
 * build; a 10 G-instruction one's index fits the limit either way (934 MB). */
#define RUN_ACCELERATION 1
/* A frame: the size of the run's block, then its LZ4 block. */
#define FRAME_HEADER 4

/* Decompressed runs of a saved store, each a block of RUN_GROUPS groups
 * (about 5 KB), allocated at the first read; the one used least recently
 * goes.  A segment's read also reads its caller's, often far back: with a
 * run's slot fixed by its number, runs a multiple of the slots apart took
 * turns, and a pass over python3's segments spent a quarter of its time
 * decompressing. */
#define RUN_SLOTS 8

struct run_slot {
	uint64_t run;		/* UINT64_MAX: empty */
	uint64_t used;		/* when last used: the store's clock */
	uint8_t *bytes;
	size_t cap;
	struct segment_group groups[RUN_GROUPS];	/* offsets from CODED */
	const uint8_t *coded;
	uint64_t ncoded;
	uint64_t ngroups;
};

/* Decoded groups, 2 KB each, allocated at the first read: a recording of
 * many threads, most of them never read, pays nothing for theirs. */
#define CACHE_SLOTS 32

struct reader {
	const uint8_t *p, *end;
	bool bad;
};

/* A group decoded as far as it was read: a read near its start does not
 * pay for the rest. */
struct decoded_group {
	uint64_t group;		/* UINT64_MAX: empty */
	uint32_t ndecoded;	/* segs[0..ndecoded) */
	struct reader at;	/* where segs[ndecoded] is coded */
	struct segment segs[SEGMENT_GROUP];
};

/* A pass of reads (a whole function-call history, a search up the
 * callers) over a store in a file (mapped from history.idx, or spilled)
 * touches its pages one after another: they are given back after this
 * many bytes of groups decoded, so that its resident part stays bounded
 * whatever the reads. */
#define READ_RELEASE ((uint64_t)4 << 20)

struct segment_store {
	const uint8_t *block;	/* groups, then coded bytes */
	uint64_t size;
	bool owned;		/* block is malloc'ed, else mapped */
	bool mapped;		/* block is a read-only file mapping */
	uint64_t read_since;	/* bytes of groups decoded since a release */
	uint64_t n, ngroups;
	const struct segment_group *groups;	/* not of a growing store */
	const uint8_t *coded;
	uint64_t ncoded;
	struct decoded_group *cache;	/* CACHE_SLOTS, or NULL */
	struct decoded_group spare;	/* the one slot without them */
	bool no_cache;		/* its allocation failed */
	/* A store being built (segment_store_begin): no block, its table and
	 * coded bytes written apart as they grow; a finished store's block
	 * (segment_store_finish) is written in CODED_OUT too.  In a file when
	 * large (spill-append.h). */
	bool growing;
	struct spill_append coded_out, table_out;
	/* A finished store's CRC-32 of its block, taken as it was written
	 * (history.idx's checksum without a pass over it). */
	bool crc_known;
	uint32_t crc;
	/* Opened from saved bytes (segment_store_open): each group is checked
	 * at its first read (check_group); CHECKED has a bit set for each
	 * group that passed, BAD for each that did not. */
	bool lazy;
	struct segment_checker checker;
	uint64_t *checked, *bad;
	/* Opened from its saved form (segment_store_open): runs of groups,
	 * each an LZ4 frame, decompressed into RUN_CACHE as read. */
	bool packed;
	const struct segment_run *runs;
	uint64_t nruns;
	const uint8_t *frames;
	uint64_t nframes;
	struct run_slot *run_cache;	/* RUN_SLOTS, or NULL */
	uint64_t *run_bad;	/* a bit for each run that did not pass */
	uint64_t run_clock;
};

#define H_FLAGS 7u
#define H_ENDS_WITH_CALL (1u << 3)
#define H_MORE_FLAGS (1u << 4)
#define H_UP_IS_PREVIOUS (1u << 5)
#define H_NO_PREV (1u << 6)
#define H_NO_NEXT (1u << 7)
#define CODED_FLAGS (H_FLAGS | SEG_ENDS_WITH_CALL)

/* ------------------------------------------------------------- coding */

static uint64_t zigzag(uint64_t delta)
{
	int64_t d = (int64_t)delta;

	return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint64_t link_code(uint64_t number, uint32_t link)
{
	return link ? zigzag(number - link) + 1 : 0;
}

/* The second header byte: what follows from the segments before. */
#define H2_LEVEL 3u		/* the level: */
#define H2_LEVEL_DOWN 0u	/* the one before's + 1 (a call) */
#define H2_LEVEL_SAME 1u
#define H2_LEVEL_UP 2u		/* - 1 (a return) */
#define H2_LEVEL_CODED 3u
#define H2_FUNCTION (3u << 2)	/* the function: */
#define H2_FUNCTION_CODED (0u << 2)
#define H2_FUNCTION_OF_PREV (1u << 2)	/* prev's (a return to it) */
#define H2_FUNCTION_OF_2BACK (2u << 2)	/* two before's (calls in a row) */
#define H2_FUNCTION_OF_1BACK (3u << 2)	/* the one before's */
#define H2_UP_OF_PREV (1u << 4)	/* up is prev's up (a return) */
#define H2_RESERVED 0xe0u

/* Segment K of a group whose first segments, up to K, are at GROUP; it is
 * number NUMBER.  Segment M is at hand when it is before K in the group. */
static const struct segment *at_hand(const struct segment *group, uint64_t k,
				     uint64_t number, uint64_t m)
{
	uint64_t first = number - k;

	return m >= first && m < number ? &group[m - first] : NULL;
}

/* Segment K of GROUP (number NUMBER), after BEFORE (insn_begin and level
 * only for the group's first) at P, which has room for its largest coding. */
static uint8_t *put_segment(uint8_t *p, const struct segment *group, uint64_t k,
			    uint64_t number, const struct segment *before)
{
	const struct segment *s = &group[k];
	const struct segment *prev = at_hand(group, k, number, s->prev);
	uint32_t more = s->flags & ~CODED_FLAGS;
	int64_t dlevel = (int64_t)s->level - before->level;
	unsigned h = s->flags & H_FLAGS, h2;

	if (s->flags & SEG_ENDS_WITH_CALL)
		h |= H_ENDS_WITH_CALL;
	if (more)
		h |= H_MORE_FLAGS;
	if (s->up == number - 1)
		h |= H_UP_IS_PREVIOUS;
	if (!s->prev)
		h |= H_NO_PREV;
	if (!s->next)
		h |= H_NO_NEXT;
	h2 = dlevel == 1 ? H2_LEVEL_DOWN : dlevel == 0 ? H2_LEVEL_SAME
		: dlevel == -1 ? H2_LEVEL_UP : H2_LEVEL_CODED;
	if (prev && prev->function == s->function)
		h2 |= H2_FUNCTION_OF_PREV;
	else if (k >= 2 && group[k - 2].function == s->function)
		h2 |= H2_FUNCTION_OF_2BACK;
	else if (k >= 1 && group[k - 1].function == s->function)
		h2 |= H2_FUNCTION_OF_1BACK;
	if (!(h & H_UP_IS_PREVIOUS) && prev && prev->up == s->up)
		h2 |= H2_UP_OF_PREV;
	*p++ = (uint8_t)h;
	*p++ = (uint8_t)h2;
	p = put_varint(p, zigzag(s->insn_begin - before->insn_begin));
	if ((h2 & H2_LEVEL) == H2_LEVEL_CODED)
		p = put_varint(p, zigzag((uint64_t)dlevel));
	if (more)
		p = put_varint(p, more);
	if (!(h & H_UP_IS_PREVIOUS) && !(h2 & H2_UP_OF_PREV))
		p = put_varint(p, link_code(number, s->up));
	if (s->prev)
		p = put_varint(p, link_code(number, s->prev));
	if (s->next)
		p = put_varint(p, link_code(number, s->next));
	if ((h2 & H2_FUNCTION) == H2_FUNCTION_CODED)
		p = put_varint(p, s->function);
	return p;
}

/* The largest coding of a segment: two header bytes and 7 varints of 10
 * bytes. */
#define MAX_VARINT 10
#define MAX_CODED (2 + 7 * MAX_VARINT)


static inline uint64_t get_varint(struct reader *r)
{
	uint64_t v = 0;
	unsigned shift;

	if (r->p < r->end && *r->p < 0x80)
		return *r->p++;		/* most are one byte */

	for (shift = 0; shift < 64 && r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;		/* cut, or longer than 64 bits */
	return 0;
}

static inline uint32_t get_u32(struct reader *r)
{
	uint64_t v = get_varint(r);

	if (v > UINT32_MAX)
		r->bad = true;
	return (uint32_t)v;
}

static inline uint32_t get_link(struct reader *r, uint64_t number)
{
	uint64_t v = get_varint(r), link;

	if (v == 0)
		return 0;
	link = number - unzigzag(v - 1);
	if (link == 0 || link > UINT32_MAX)
		r->bad = true;
	return (uint32_t)link;
}

/* Segment K of a group (number NUMBER), after BEFORE, from R into
 * GROUP[K] (GROUP holding the ones before it); R->bad when its bytes are
 * not a segment's coding. */
static void decode_one(struct reader *r, struct segment *group, uint64_t k,
		       uint64_t number, const struct segment *before)
{
	struct segment *seg = &group[k];
	const struct segment *prev, *from = NULL;
	int64_t level;
	unsigned h, h2;

	if (r->end - r->p < 2) {
		r->bad = true;
		return;
	}
	h = *r->p++;
	h2 = *r->p++;
	if (h2 & H2_RESERVED)
		r->bad = true;
	seg->insn_begin = before->insn_begin + unzigzag(get_varint(r));
	switch (h2 & H2_LEVEL) {
	case H2_LEVEL_DOWN:
		level = (int64_t)before->level + 1;
		break;
	case H2_LEVEL_SAME:
		level = before->level;
		break;
	case H2_LEVEL_UP:
		level = (int64_t)before->level - 1;
		break;
	default:
		/* In 64 bits without overflow (a damaged delta may be huge). */
		level = (int64_t)((uint64_t)(int64_t)before->level +
				  unzigzag(get_varint(r)));
		break;
	}
	if (level < INT32_MIN || level > INT32_MAX)
		r->bad = true;
	seg->level = (int32_t)level;
	seg->flags = h & H_FLAGS;
	if (h & H_ENDS_WITH_CALL)
		seg->flags |= SEG_ENDS_WITH_CALL;
	if (h & H_MORE_FLAGS) {
		uint32_t more = get_u32(r);

		if (!more || (more & CODED_FLAGS))
			r->bad = true;	/* not how it is written */
		seg->flags |= more;
	}
	seg->up = h & H_UP_IS_PREVIOUS ? (uint32_t)(number - 1)
		  : h2 & H2_UP_OF_PREV ? 0 : get_link(r, number);
	seg->prev = h & H_NO_PREV ? 0 : get_link(r, number);
	seg->next = h & H_NO_NEXT ? 0 : get_link(r, number);
	prev = at_hand(group, k, number, seg->prev);
	if (h2 & H2_UP_OF_PREV) {
		if (!prev || (h & H_UP_IS_PREVIOUS))
			r->bad = true;	/* not how it is written */
		else
			seg->up = prev->up;
	}
	switch (h2 & H2_FUNCTION) {
	case H2_FUNCTION_OF_PREV:
		from = prev;
		break;
	case H2_FUNCTION_OF_2BACK:
		from = k >= 2 ? &group[k - 2] : NULL;
		break;
	case H2_FUNCTION_OF_1BACK:
		from = k >= 1 ? &group[k - 1] : NULL;
		break;
	default:
		seg->function = get_u32(r);
		break;
	}
	if ((h2 & H2_FUNCTION) != H2_FUNCTION_CODED) {
		if (from)
			seg->function = from->function;
		else
			r->bad = true;	/* not how it is written */
	}
	if (!(h & H_UP_IS_PREVIOUS) && seg->up == number - 1)
		r->bad = true;	/* not how it is written */
}

static void reading(struct segment_store *s, uint64_t bytes);

/* The segments of groups [FIRST, FIRST + COUNT), as the messages number
 * them: first and last. */
static uint64_t first_of(uint64_t g)
{
	return g * SEGMENT_GROUP + 1;
}

static uint64_t last_of(const struct segment_store *s, uint64_t g, uint64_t count)
{
	uint64_t last = (g + count) * SEGMENT_GROUP;

	return last < s->n ? last : s->n;
}

/* The decoded groups of run R point into its slot, about to be reused. */
static void forget_run(struct segment_store *s, uint64_t r)
{
	size_t i;

	for (i = 0; s->cache && i < CACHE_SLOTS; i++)
		if (s->cache[i].group != UINT64_MAX &&
		    s->cache[i].group / RUN_GROUPS == r)
			s->cache[i].group = UINT64_MAX;
	if (s->spare.group != UINT64_MAX && s->spare.group / RUN_GROUPS == r)
		s->spare.group = UINT64_MAX;
}

/* Run R's frame, decompressed into SLOT and its table checked (the groups'
 * bytes in order inside the run, its first instruction the runs table's,
 * and when in order, its groups' first instructions up to the next run's):
 * 0, or a hwtr_fail error. */
static int run_load(struct segment_store *s, uint64_t r, struct run_slot *slot)
{
	uint64_t first = r * RUN_GROUPS, k = s->ngroups - first, i, size, max;
	uint64_t begin = s->runs[r].offset;
	uint64_t end = r + 1 < s->nruns ? s->runs[r + 1].offset : s->nframes;
	const uint8_t *frame = s->frames + begin;
	struct reader table;
	uint32_t framed;
	int got;

	if (k > RUN_GROUPS)
		k = RUN_GROUPS;
	reading(s, end - begin + sizeof(struct segment_run));
	/* At most its groups' table and their largest coding. */
	max = (k - 1) * 2 * MAX_VARINT +
	      (last_of(s, first, k) - first_of(first) + 1) * MAX_CODED;
	if (end - begin < FRAME_HEADER)
		size = 0;
	else {
		memcpy(&framed, frame, sizeof(framed));
		size = framed;
	}
	if (size > max ||
	    end - begin - FRAME_HEADER > (uint64_t)LZ4_compressBound((int)size))
		return hwtr_fail(hwtr_err_format, "segments %llu-%llu do not "
				 "decompress: their frame is not one of their size",
				 (unsigned long long)first_of(first),
				 (unsigned long long)last_of(s, first, k));
	if (slot->cap < size) {
		uint8_t *grown = realloc(slot->bytes, (size_t)size);

		if (!grown)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		slot->bytes = grown;
		slot->cap = (size_t)size;
	}
	/* LZ4's safe decoder: never out of either buffer, whatever the
	 * bytes. */
	got = LZ4_decompress_safe((const char *)frame + FRAME_HEADER,
				  (char *)slot->bytes, (int)(end - begin - FRAME_HEADER),
				  (int)size);
	if (got < 0 || (uint64_t)got != size)
		return hwtr_fail(hwtr_err_format, "segments %llu-%llu do not "
				 "decompress: %s", (unsigned long long)first_of(first),
				 (unsigned long long)last_of(s, first, k),
				 got < 0 ? "not an LZ4 block" : "shorter than its size");
	table.p = slot->bytes;
	table.end = slot->bytes + size;
	table.bad = false;
	slot->ngroups = k;
	slot->groups[0] = (struct segment_group){ 0, s->runs[r].insn_begin };
	for (i = 1; i < k && !table.bad; i++) {
		uint64_t step = get_varint(&table), insn = get_varint(&table);

		slot->groups[i].offset = slot->groups[i - 1].offset + step;
		slot->groups[i].insn_begin = slot->groups[i - 1].insn_begin +
					     unzigzag(insn);
		if (step > size || (s->checker.in_order && (insn & 1) && insn))
			table.bad = true;	/* past its bytes, or back */
	}
	slot->coded = table.p;
	slot->ncoded = (uint64_t)(table.end - table.p);
	if (table.bad || slot->groups[k - 1].offset > slot->ncoded ||
	    (s->checker.in_order && r + 1 < s->nruns &&
	     slot->groups[k - 1].insn_begin > s->runs[r + 1].insn_begin))
		return hwtr_fail(hwtr_err_format, "segments %llu-%llu: their "
				 "run's table is out of order or range",
				 (unsigned long long)first_of(first),
				 (unsigned long long)last_of(s, first, k));
	return 0;
}

/* The decompressed run of group G of a saved store, or NULL when it is
 * damaged (its groups then read as empty: told once) or out of memory. */
static const struct run_slot *run_of(struct segment_store *s, uint64_t g)
{
	uint64_t r = g / RUN_GROUPS, first = r * RUN_GROUPS, i;
	struct run_slot *slot;
	int err;

	if (s->run_bad[r / 64] & (1ull << (r % 64)))
		return NULL;
	if (!s->run_cache && (s->run_cache = calloc(RUN_SLOTS, sizeof(*s->run_cache))))
		for (i = 0; i < RUN_SLOTS; i++)
			s->run_cache[i].run = UINT64_MAX;
	if (!s->run_cache)
		return NULL;	/* out of memory: shown as empty */
	slot = &s->run_cache[0];
	for (i = 0; i < RUN_SLOTS; i++) {
		if (s->run_cache[i].run == r) {
			s->run_cache[i].used = ++s->run_clock;
			return &s->run_cache[i];
		}
		if (s->run_cache[i].used < slot->used)
			slot = &s->run_cache[i];
	}
	slot->used = ++s->run_clock;
	if (slot->run != UINT64_MAX)
		forget_run(s, slot->run);
	slot->run = UINT64_MAX;
	if (!(err = run_load(s, r, slot))) {
		slot->run = r;
		return slot;
	}
	if (err == -hwtr_err_nomem)
		return NULL;
	s->run_bad[r / 64] |= 1ull << (r % 64);
	for (i = first; i < first + RUN_GROUPS && i < s->ngroups; i++)
		s->bad[i / 64] |= 1ull << (i % 64);
	if (s->checker.damaged)
		s->checker.damaged(s->checker.ctx, hwtr_last_error());
	return NULL;
}

/* Group G's table entry, or NULL when its run is damaged. */
static const struct segment_group *group_entry(struct segment_store *s,
					       uint64_t g)
{
	const struct run_slot *slot;

	if (s->growing)
		return (const struct segment_group *)
			spill_append_at(&s->table_out, g * sizeof(struct segment_group));
	if (!s->packed)
		return &s->groups[g];
	slot = run_of(s, g);
	return slot ? &slot->groups[g % RUN_GROUPS] : NULL;
}

/* The first instruction of the group after G, or UINT64_MAX. */
static uint64_t next_group_insn(struct segment_store *s, uint64_t g)
{
	if (g + 1 >= s->ngroups)
		return UINT64_MAX;
	if (s->packed && (g + 1) % RUN_GROUPS == 0)
		return s->runs[(g + 1) / RUN_GROUPS].insn_begin;
	return group_entry(s, g + 1)->insn_begin;	/* G's run's, at hand */
}

/* Group G's bytes in R, its segment count in *COUNT; false when the table
 * says they are out of bounds, or its run is damaged. */
static bool group_reader(struct segment_store *s, uint64_t g,
			 struct reader *r, uint64_t *count)
{
	const struct segment_group *entry = group_entry(s, g);
	const uint8_t *coded = s->coded;
	uint64_t ncoded = s->ncoded, end;

	*count = s->n - g * SEGMENT_GROUP;
	if (*count > SEGMENT_GROUP)
		*count = SEGMENT_GROUP;
	if (!entry)
		return false;
	if (s->packed) {
		const struct run_slot *slot = run_of(s, g);	/* at hand */

		coded = slot->coded;
		ncoded = slot->ncoded;
		end = g % RUN_GROUPS + 1 < slot->ngroups
			? slot->groups[g % RUN_GROUPS + 1].offset : ncoded;
	} else {
		end = g + 1 < s->ngroups ? group_entry(s, g + 1)->offset : ncoded;
	}
	if (entry->offset > end || end > ncoded)
		return false;
	/* A group's bytes lie together (one spill_append_room), but not
	 * always with the next group's. */
	r->p = s->growing ? spill_append_at(&s->coded_out, entry->offset)
			  : coded + entry->offset;
	r->end = r->p + (end - entry->offset);
	r->bad = false;
	return true;
}

/* The segment before a group's first, as its coding has it (the group's
 * bytes at hand). */
static struct segment group_base(struct segment_store *s, uint64_t g)
{
	return (struct segment){ .insn_begin = group_entry(s, g)->insn_begin };
}

/* Group G into OUT (its segments); false when its bytes are not exactly
 * its segments' coding. */
static bool decode_group(struct segment_store *s, uint64_t g,
			 struct segment *out)
{
	struct segment before;
	struct reader r;
	uint64_t count, k;

	if (!group_reader(s, g, &r, &count))
		return false;
	before = group_base(s, g);
	for (k = 0; k < count && !r.bad; k++) {
		decode_one(&r, out, k, g * SEGMENT_GROUP + k + 1, &before);
		before = out[k];
	}
	return !r.bad && r.p == r.end;
}

/* ------------------------------------------------------------- stores */

/* An empty store whose bytes, when it makes them, go to a file in DIR
 * (segment_store_begin); NULL when out of memory. */
static struct segment_store *store_alloc(const char *dir)
{
	struct segment_store *s = calloc(1, sizeof(*s));

	if (s) {
		spill_append_init(&s->coded_out, dir);
		spill_append_init(&s->table_out, dir);
	}
	return s;
}

static int store_init(struct segment_store *s, const uint8_t *block,
		      uint64_t size, uint64_t n)
{
	s->block = block;
	s->size = size;
	s->n = n;
	s->ngroups = (n + SEGMENT_GROUP - 1) / SEGMENT_GROUP;
	if (s->ngroups > size / sizeof(struct segment_group))
		return hwtr_fail(hwtr_err_format, "segment store: %llu bytes cannot "
				 "hold %llu segments", (unsigned long long)size,
				 (unsigned long long)n);
	s->groups = (const struct segment_group *)block;
	s->coded = block + s->ngroups * sizeof(struct segment_group);
	s->ncoded = size - s->ngroups * sizeof(struct segment_group);
	s->spare.group = UINT64_MAX;
	return 0;
}

static int compact(struct segment *segs, uint64_t n, bool consume,
		   struct segment_store **out)
{
	struct page_release released = { 0 };
	uint64_t ngroups = (n + SEGMENT_GROUP - 1) / SEGMENT_GROUP, i;
	size_t table = ngroups * sizeof(struct segment_group), cap;
	struct segment_store *s;
	struct segment_group *groups;
	uint8_t *block, *p, *shrunk;
	int err;

	*out = NULL;
	if (n > (SIZE_MAX - 64) / (MAX_CODED + sizeof(struct segment_group)))
		return hwtr_fail(hwtr_err_nomem, "%llu segments: too many to compact",
				 (unsigned long long)n);
	/* Most segments take a tenth of the worst case: code into a buffer
	 * grown as needed, then give back what is left. */
	cap = table + (n ? n * 8 : 0) + MAX_CODED;
	if (!(block = malloc(cap)) || !(s = store_alloc(NULL))) {
		free(block);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	p = block + table;
	for (i = 0; i < n; i++) {
		struct segment before = { 0 };

		if ((size_t)(p - block) + MAX_CODED > cap) {
			size_t at = (size_t)(p - block), ncap = cap + cap / 2;
			uint8_t *grown = realloc(block, ncap);

			if (!grown) {
				free(block);
				free(s);
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			}
			block = grown;
			cap = ncap;
			p = block + at;
		}
		groups = (struct segment_group *)block;
		if (consume && i % SEGMENT_GROUP == 0 && i)
			page_release_before(&released, segs, &segs[i - 1]);
		if (i % SEGMENT_GROUP == 0) {
			groups[i / SEGMENT_GROUP].offset = (uint64_t)(p - block) - table;
			groups[i / SEGMENT_GROUP].insn_begin = segs[i].insn_begin;
			before.insn_begin = segs[i].insn_begin;
		} else {
			before = segs[i - 1];
		}
		p = put_segment(p, &segs[i - i % SEGMENT_GROUP], i % SEGMENT_GROUP,
				i + 1, &before);
	}
	cap = (size_t)(p - block);
	if ((shrunk = realloc(block, cap ? cap : 1)))
		block = shrunk;
	if ((err = store_init(s, block, cap, n))) {
		free(block);
		free(s);
		return err;
	}
	s->owned = true;
	*out = s;
	return 0;
}

int segment_store_compact(const struct segment *segs, uint64_t n,
			  struct segment_store **out)
{
	return compact((struct segment *)segs, n, false, out);
}

int segment_store_compact_consuming(struct segment *segs, uint64_t n,
				    struct segment_store **out)
{
	return compact(segs, n, true, out);
}

/* S over a saved form's SIZE bytes at BYTES of N segments (its runs table
 * checked; each run checked when read, each group at its first read:
 * check_group): 0, or a hwtr_fail error. */
static int packed_init(struct segment_store *s, const uint8_t *bytes,
		       uint64_t size, uint64_t n)
{
	size_t words;
	uint64_t r;

	s->block = bytes;
	s->size = size;
	s->n = n;
	s->ngroups = (n + SEGMENT_GROUP - 1) / SEGMENT_GROUP;
	s->nruns = (s->ngroups + RUN_GROUPS - 1) / RUN_GROUPS;
	s->spare.group = UINT64_MAX;
	s->packed = true;
	s->lazy = true;
	if (s->nruns > size / sizeof(struct segment_run))
		return hwtr_fail(hwtr_err_format, "segment store: %llu bytes cannot "
				 "hold %llu segments", (unsigned long long)size,
				 (unsigned long long)n);
	s->runs = (const struct segment_run *)bytes;
	s->frames = bytes + s->nruns * sizeof(struct segment_run);
	s->nframes = size - s->nruns * sizeof(struct segment_run);
	words = (size_t)(s->ngroups / 64 + 1);
	if (!(s->checked = calloc(words, sizeof(*s->checked))) ||
	    !(s->bad = calloc(words, sizeof(*s->bad))) ||
	    !(s->run_bad = calloc((size_t)(s->nruns / 64 + 1), sizeof(*s->run_bad))))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	/* Runs in order of their bytes (then a run's frame lies inside the
	 * store) and, in order, of their first instructions (a search by
	 * instruction is a binary search). */
	if (s->nruns ? s->runs[0].offset != 0 : s->nframes != 0)
		return hwtr_fail(hwtr_err_format, "segment store: %llu bytes "
				 "outside its runs", (unsigned long long)s->nframes);
	for (r = 1; r < s->nruns; r++)
		if (s->runs[r].offset < s->runs[r - 1].offset ||
		    (s->checker.in_order &&
		     s->runs[r].insn_begin < s->runs[r - 1].insn_begin))
			return hwtr_fail(hwtr_err_format, "segment store: run "
					 "%llu (segments %llu-) out of order",
					 (unsigned long long)r,
					 (unsigned long long)first_of(r * RUN_GROUPS));
	if (s->nruns && s->runs[s->nruns - 1].offset > s->nframes)
		return hwtr_fail(hwtr_err_format, "segment store: run %llu "
				 "(segments %llu-) past its bytes",
				 (unsigned long long)s->nruns - 1,
				 (unsigned long long)first_of((s->nruns - 1) * RUN_GROUPS));
	return 0;
}

/* A store over BYTES, checked a run and a group at a time as it is read
 * (run_of, check_group): here only its runs table. */
static int store_open(const void *bytes, uint64_t size, uint64_t n,
		      bool file_mapped, const struct segment_checker *checker,
		      struct segment_store **out)
{
	struct segment_store *s = store_alloc(NULL);
	int err;

	*out = NULL;
	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->mapped = file_mapped;
	if (checker)
		s->checker = *checker;
	if ((err = packed_init(s, bytes, size, n))) {
		segment_store_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int segment_store_open(const void *bytes, uint64_t size, uint64_t n,
		       const struct segment_checker *checker,
		       struct segment_store **out)
{
	return store_open(bytes, size, n, false, checker, out);
}

int segment_store_open_mapped(const void *bytes, uint64_t size, uint64_t n,
			      const struct segment_checker *checker,
			      struct segment_store **out)
{
	return store_open(bytes, size, n, true, checker, out);
}

int segment_store_begin(const char *dir, struct segment_store **out)
{
	struct segment_store *s = store_alloc(dir);

	*out = s;
	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->growing = true;
	s->spare.group = UINT64_MAX;
	return 0;
}

/* The decoded groups point into the coded bytes, which may have moved. */
static void forget_decoded(struct segment_store *s)
{
	size_t i;

	for (i = 0; s->cache && i < CACHE_SLOTS; i++)
		s->cache[i].group = UINT64_MAX;
	s->spare.group = UINT64_MAX;
}

int segment_store_append(struct segment_store *s, const struct segment *segs,
			 uint64_t count)
{
	uint8_t *start = NULL, *p = NULL;
	uint64_t i;

	if (!s->growing || s->n % SEGMENT_GROUP)
		return hwtr_fail(hwtr_err_invalid, "segment_store_append: the "
				 "store is not growing or has a partial group");
	forget_decoded(s);
	for (i = 0; i < count; i++) {
		uint64_t number = s->n + i + 1, k = i % SEGMENT_GROUP;
		struct segment before = { 0 };

		if (k == 0) {
			struct segment_group entry = { s->ncoded, segs[i].insn_begin };
			uint8_t *at;

			/* Room for a whole group at its start: a call per
			 * segment was 30 instructions of 300. */
			if (!(start = p = spill_append_room(&s->coded_out,
							    MAX_CODED * SEGMENT_GROUP)) ||
			    !(at = spill_append_room(&s->table_out, sizeof(entry))))
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			memcpy(at, &entry, sizeof(entry));
			spill_append_done(&s->table_out, sizeof(entry));
			s->ngroups++;
			before.insn_begin = segs[i].insn_begin;
		} else {
			before = segs[i - 1];
		}
		p = put_segment(p, &segs[i - k], k, number, &before);
		if (k == SEGMENT_GROUP - 1 || i == count - 1) {
			spill_append_done(&s->coded_out, (size_t)(p - start));
			s->ncoded += (uint64_t)(p - start);
		}
	}
	s->n += count;
	return 0;
}

/* Table entries of a finished store written at a time. */
#define TABLE_STEP 1024

/* The table entries of groups (or runs) [FROM, FROM + N) into O's table
 * (at its start): false when the disk says no. */
static bool put_entries(struct spill_append *o, uint64_t from,
			const void *entries, size_t n, uint32_t *crc)
{
	size_t size = n * sizeof(struct segment_group);

	*crc = integrity_crc32(*crc, entries, size);
	return spill_append_write_at(o, from * sizeof(struct segment_group),
				     entries, size);
}

/* ------------------------------------------------------------- packing */

/* Room before a run's coded bytes for its groups' table (two varints a
 * group after the first), so that the table is put in front of them
 * without moving them. */
#define RUN_TABLE_ROOM ((RUN_GROUPS - 1) * 2 * MAX_VARINT)
/* The largest coded bytes of a run: its groups' largest coding. */
#define RUN_CODED_ROOM (RUN_GROUPS * SEGMENT_GROUP * MAX_CODED)

/* A saved form written a run at a time (segment_store_pack from a finished
 * store, segment_store_finish straight from a growing one): each run's
 * coded bytes are put at run_coded, then packer_put_run compresses them
 * with their table into the next frame. */
struct run_packer {
	struct segment_store *f;	/* the store made */
	struct spill_append *o;		/* its bytes */
	uint64_t nruns, table;
	uint32_t table_crc, frames_crc;
	struct segment_run entries[TABLE_STEP];
	uint8_t *run;		/* RUN_TABLE_ROOM, then the coded bytes */
	void *lz4;		/* LZ4's state */
};

/* A packer of NGROUPS groups into a store whose file is in DIR: 0, or
 * hwtr_err_nomem (then packer_free). */
static int packer_begin(struct run_packer *pk, const char *dir,
			uint64_t ngroups)
{
	memset(pk, 0, sizeof(*pk));
	pk->nruns = (ngroups + RUN_GROUPS - 1) / RUN_GROUPS;
	pk->table = pk->nruns * sizeof(struct segment_run);
	if (!(pk->f = store_alloc(dir)) ||
	    !(pk->lz4 = malloc((size_t)LZ4_sizeofState())) ||
	    !(pk->run = malloc(RUN_TABLE_ROOM + RUN_CODED_ROOM)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	pk->o = &pk->f->coded_out;
	if (!spill_append_skip(pk->o, pk->table))
		return hwtr_fail(hwtr_err_nomem, "out of memory, or no room on "
				 "the disk");
	return 0;
}

/* Where the next run's coded bytes go: RUN_CODED_ROOM bytes. */
static uint8_t *run_coded(struct run_packer *pk)
{
	return pk->run + RUN_TABLE_ROOM;
}

/* Run R: its K groups' table entries GROUPS (offsets from its first
 * group's bytes) and NCODED coded bytes at run_coded, as its frame: 0, or
 * a hwtr_fail error. */
static int packer_put_run(struct run_packer *pk, uint64_t r,
			  const struct segment_group *groups, uint64_t k,
			  size_t ncoded)
{
	uint8_t table[RUN_TABLE_ROOM], *t = table, *p, *block;
	uint32_t framed;
	size_t len;
	uint64_t g;
	int bound, c;

	/* The run's block: its groups' table, then their bytes. */
	for (g = 1; g < k; g++) {
		t = put_varint(t, groups[g].offset - groups[g - 1].offset);
		t = put_varint(t, zigzag(groups[g].insn_begin - groups[g - 1].insn_begin));
	}
	block = run_coded(pk) - (t - table);
	memcpy(block, table, (size_t)(t - table));
	len = (size_t)(t - table) + ncoded;
	pk->entries[r % TABLE_STEP] = (struct segment_run){
		pk->o->size - pk->table, groups[0].insn_begin };
	/* At most 16 groups' table and largest coding: 73 KB. */
	framed = (uint32_t)len;
	bound = LZ4_compressBound((int)len);
	if (!(p = spill_append_room(pk->o, FRAME_HEADER + (size_t)bound)))
		goto nomem;
	memcpy(p, &framed, sizeof(framed));
	c = LZ4_compress_fast_extState(pk->lz4, (const char *)block,
				       (char *)p + FRAME_HEADER, (int)len,
				       bound, RUN_ACCELERATION);
	if (c <= 0)
		return hwtr_fail(hwtr_err_nomem, "segments %llu-: LZ4 "
				 "compression failed",
				 (unsigned long long)first_of(r * RUN_GROUPS));
	pk->frames_crc = integrity_crc32(pk->frames_crc, p, FRAME_HEADER + (size_t)c);
	spill_append_done(pk->o, FRAME_HEADER + (size_t)c);
	if ((r + 1) % TABLE_STEP == 0 &&
	    !put_entries(pk->o, r + 1 - TABLE_STEP, pk->entries, TABLE_STEP,
			 &pk->table_crc))
		goto nomem;
	return 0;
nomem:
	return hwtr_fail(hwtr_err_nomem, "out of memory, or no room on the disk");
}

/* The store of N segments packed, into *OUT: 0, or a hwtr_fail error. */
static int packer_end(struct run_packer *pk, uint64_t n,
		      struct segment_store **out)
{
	const uint8_t *block;
	int err;

	if (pk->nruns % TABLE_STEP &&
	    !put_entries(pk->o, pk->nruns - pk->nruns % TABLE_STEP, pk->entries,
			 pk->nruns % TABLE_STEP, &pk->table_crc))
		goto nomem;
	if (!(block = spill_append_finish(pk->o)))
		goto nomem;
	if ((err = packed_init(pk->f, block, pk->o->size, n)))
		return err;
	pk->f->mapped = spill_append_in_file(pk->o);
	pk->f->crc_known = true;
	pk->f->crc = integrity_crc32_combine(pk->table_crc, pk->frames_crc,
					     pk->o->size - pk->table);
	*out = pk->f;
	pk->f = NULL;
	return 0;
nomem:
	return hwtr_fail(hwtr_err_nomem, "out of memory, or no room on the disk");
}

/* Its buffers, and the store unless packer_end handed it out. */
static void packer_free(struct run_packer *pk)
{
	segment_store_free(pk->f);
	free(pk->lz4);
	free(pk->run);
}

int segment_store_finish(struct segment_store *s, segment_patch_fn *patched,
			 void *ctx, const struct segment *tail, uint64_t ntail,
			 struct segment_store **out)
{
	uint64_t n = s->n + ntail, ngroups = (n + SEGMENT_GROUP - 1) / SEGMENT_GROUP;
	uint64_t copied = 0, r;
	struct segment_group groups[RUN_GROUPS];
	struct segment group[SEGMENT_GROUP];
	struct run_packer pk;
	int err;

	*out = NULL;
	if (!s->growing || s->n % SEGMENT_GROUP)
		return hwtr_fail(hwtr_err_invalid, "segment_store_finish: the "
				 "store is not growing or has a partial group");
	/* In a file beside the growing store's when that one is. */
	if ((err = packer_begin(&pk, s->coded_out.dir, ngroups)))
		goto fail;
	for (r = 0; r < pk.nruns; r++) {
		uint64_t first_group = r * RUN_GROUPS, k = ngroups - first_group, g;
		uint8_t *coded = run_coded(&pk), *p = coded;

		if (k > RUN_GROUPS)
			k = RUN_GROUPS;
		for (g = first_group; g < first_group + k; g++) {
			uint64_t first = g * SEGMENT_GROUP, count = n - first, j;
			struct segment_group *entry = &groups[g - first_group];
			const struct segment *segs;
			struct reader rd;

			if (count > SEGMENT_GROUP)
				count = SEGMENT_GROUP;
			entry->offset = (uint64_t)(p - coded);
			if (first < s->n && !patched(ctx, first + 1, NULL, count)) {
				/* Unchanged since it was appended: its bytes. */
				size_t len;

				if (!group_reader(s, g, &rd, &j) ||
				    (len = (size_t)(rd.end - rd.p)) > count * MAX_CODED) {
					err = hwtr_fail(hwtr_err_format, "segment "
							"store: group %llu out of "
							"bounds", (unsigned long long)g);
					goto fail;
				}
				entry->insn_begin = group_entry(s, g)->insn_begin;
				memcpy(p, rd.p, len);
				p += len;
				/* Not both resident: the pages read go. */
				if ((copied += len) >= READ_RELEASE) {
					spill_append_release(&s->coded_out);
					spill_append_release(&s->table_out);
					copied = 0;
				}
				continue;
			}
			if (first < s->n) {
				/* Changed since: decoded, changed, coded
				 * again. */
				if (!decode_group(s, g, group)) {
					err = hwtr_fail(hwtr_err_format, "segment "
							"store: group %llu does not "
							"decode", (unsigned long long)g);
					goto fail;
				}
				patched(ctx, first + 1, group, count);
				segs = group;
			} else {
				segs = &tail[first - s->n];
			}
			entry->insn_begin = segs[0].insn_begin;
			for (j = 0; j < count; j++) {
				struct segment before = { .insn_begin = segs[0].insn_begin };

				if (j)
					before = segs[j - 1];
				p = put_segment(p, segs, j, first + j + 1, &before);
			}
		}
		if ((err = packer_put_run(&pk, r, groups, k, (size_t)(p - coded))))
			goto fail;
	}
	spill_append_release(&s->coded_out);
	spill_append_release(&s->table_out);
	err = packer_end(&pk, n, out);
fail:
	packer_free(&pk);
	return err;
}

int segment_store_pack(struct segment_store *s, const char *dir,
		       struct segment_store **out)
{
	struct segment_group groups[RUN_GROUPS];
	struct run_packer pk;
	uint64_t r;
	int err;

	*out = NULL;
	if (s->growing || s->packed)
		return hwtr_fail(hwtr_err_invalid, "segment_store_pack: not a "
				 "finished store");
	if ((err = packer_begin(&pk, dir, s->ngroups)))
		goto fail;
	for (r = 0; r < pk.nruns; r++) {
		uint64_t first = r * RUN_GROUPS, k = s->ngroups - first, g;
		uint64_t begin = s->groups[first].offset;
		uint64_t end = first + RUN_GROUPS < s->ngroups
			? s->groups[first + RUN_GROUPS].offset : s->ncoded;

		if (k > RUN_GROUPS)
			k = RUN_GROUPS;
		if (end < begin || end - begin > RUN_CODED_ROOM) {
			err = hwtr_fail(hwtr_err_format, "segment store: segments "
					"%llu- out of bounds",
					(unsigned long long)first_of(first));
			goto fail;
		}
		for (g = 0; g < k; g++)
			groups[g] = (struct segment_group){
				s->groups[first + g].offset - begin,
				s->groups[first + g].insn_begin };
		memcpy(run_coded(&pk), s->coded + begin, (size_t)(end - begin));
		reading(s, end - begin);
		if ((err = packer_put_run(&pk, r, groups, k, (size_t)(end - begin))))
			goto fail;
	}
	err = packer_end(&pk, s->n, out);
fail:
	packer_free(&pk);
	return err;
}

void segment_store_free(struct segment_store *s)
{
	if (!s)
		return;
	spill_append_free(&s->table_out);
	spill_append_free(&s->coded_out);
	if (s->owned)
		free((void *)s->block);
	free(s->cache);
	free(s->checked);
	free(s->bad);
	for (size_t i = 0; s->run_cache && i < RUN_SLOTS; i++)
		free(s->run_cache[i].bytes);
	free(s->run_cache);
	free(s->run_bad);
	free(s);
}

/* BYTES more of the store read: after READ_RELEASE of them, the pages
 * of a store in a file go (they come back from it when read again).  The
 * decoded groups point into those pages, which stay valid. */
static void reading(struct segment_store *s, uint64_t bytes)
{
	struct page_release all = { 0 };

	if ((s->read_since += bytes) < READ_RELEASE)
		return;
	s->read_since = 0;
	if (s->growing) {
		spill_append_release(&s->table_out);
		spill_append_release(&s->coded_out);
	} else if (s->mapped)
		page_release_all_before(&all, s->block, s->block + s->size);
}

/* Group G of an opened store into D, whole, the first time it is read:
 * checked (its run decompresses, its bytes a coding; when in order, its
 * segments between its table entry's first instruction and the next one's;
 * the checker's rules), and empty segments when it did not pass. */
static void check_group(struct segment_store *s, uint64_t g,
			struct decoded_group *d)
{
	uint64_t bit = 1ull << (g % 64), *good = &s->checked[g / 64],
		 *bad = &s->bad[g / 64];
	uint64_t first = g * SEGMENT_GROUP + 1, count = s->n - (first - 1), k;
	const struct segment_group *entry;
	uint64_t last, hi;
	int err = 0;

	if (count > SEGMENT_GROUP)
		count = SEGMENT_GROUP;
	d->group = g;
	d->ndecoded = (uint32_t)count;
	d->at.bad = true;	/* decoded whole: nothing left to read */
	if (!(entry = group_entry(s, g))) {	/* its run is damaged */
		memset(d->segs, 0, sizeof(d->segs));
		return;
	}
	last = entry->insn_begin;
	hi = next_group_insn(s, g);
	if (!decode_group(s, g, d->segs))
		err = hwtr_fail(hwtr_err_format, "segments %llu-%llu do not "
				"decode", (unsigned long long)first,
				(unsigned long long)(first + count - 1));
	for (k = 0; !err && k < count; k++) {
		const struct segment *seg = &d->segs[k];

		if (s->checker.in_order &&
		    (seg->insn_begin < last || seg->insn_begin > hi))
			err = hwtr_fail(hwtr_err_format, "segment %llu out of "
					"order", (unsigned long long)(first + k));
		else if (s->checker.segment_ok)
			err = s->checker.segment_ok(s->checker.ctx, first + k, seg);
		last = seg->insn_begin;
	}
	if (!err) {
		*good |= bit;
		return;
	}
	*bad |= bit;
	memset(d->segs, 0, sizeof(d->segs));
	if (s->checker.damaged)
		s->checker.damaged(s->checker.ctx, hwtr_last_error());
}

/* Segment K of group G, decoded (cached, as far as K). */
static const struct segment *group_segment(struct segment_store *s, uint64_t g,
					   uint32_t k)
{
	uint64_t bit = 1ull << (g % 64);
	struct decoded_group *d;
	uint64_t count;

	if (!s->cache && !s->no_cache &&
	    (s->cache = malloc(CACHE_SLOTS * sizeof(*s->cache)))) {
		for (size_t i = 0; i < CACHE_SLOTS; i++)
			s->cache[i].group = UINT64_MAX;
	}
	/* Out of memory: one slot, slower but right. */
	s->no_cache = !s->cache;
	d = s->cache ? &s->cache[g % CACHE_SLOTS] : &s->spare;

	/* A saved group is checked whole at its first read; after that it
	 * is decoded only as far as a read needs, as a built one is. */
	if (d->group != g && s->lazy &&
	    ((s->bad[g / 64] & bit) || !(s->checked[g / 64] & bit))) {
		if (s->bad[g / 64] & bit) {
			d->group = g;
			d->ndecoded = SEGMENT_GROUP;
			d->at.bad = true;
			memset(d->segs, 0, sizeof(d->segs));
		} else {
			check_group(s, g, d);
		}
		return &d->segs[k];
	}
	if (d->group != g) {
		d->group = g;
		d->ndecoded = 0;
		if (!group_reader(s, g, &d->at, &count))
			d->at.bad = true;
		else if (!s->packed)
			reading(s, (uint64_t)(d->at.end - d->at.p) +
				   sizeof(struct segment_group));
	}
	while (d->ndecoded <= k) {
		struct segment before = d->ndecoded ? d->segs[d->ndecoded - 1]
						    : group_base(s, g);
		struct segment *seg = &d->segs[d->ndecoded];

		/* A store is checked when it is made or opened: a segment
		 * that does not decode now is a bug, shown as empty. */
		if (!d->at.bad)
			decode_one(&d->at, d->segs, d->ndecoded,
				   g * SEGMENT_GROUP + d->ndecoded + 1, &before);
		if (d->at.bad)
			memset(seg, 0, sizeof(*seg));
		d->ndecoded++;
	}
	return &d->segs[k];
}

void segment_store_read(struct segment_store *s, uint64_t number,
			struct segment *out)
{
	uint64_t i = number - 1;

	if (number == 0 || number > s->n) {
		/* A bug, or a mapped file written into since it was
		 * checked: shown as empty, never read out of bounds. */
		memset(out, 0, sizeof(*out));
		return;
	}

	*out = *group_segment(s, i / SEGMENT_GROUP, (uint32_t)(i % SEGMENT_GROUP));
}

uint64_t segment_store_find(struct segment_store *s, uint64_t number)
{
	uint64_t lo = 0, hi = s->ngroups, g, k, count;
	const struct segment_group *entry;

	if (s->packed) {
		/* The run first, then its groups. */
		hi = s->nruns;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (s->runs[mid].insn_begin <= number)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			return 0;
		lo = (lo - 1) * RUN_GROUPS;
		hi = lo + RUN_GROUPS < s->ngroups ? lo + RUN_GROUPS : s->ngroups;
		if (!group_entry(s, lo))
			return first_of(lo);	/* a damaged run: its first */
		lo++;	/* its first group begins at NUMBER or before */
	}
	/* The last group whose first segment begins at NUMBER or before. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		entry = group_entry(s, mid);
		if (entry && entry->insn_begin <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	g = lo - 1;
	count = s->n - g * SEGMENT_GROUP;
	if (count > SEGMENT_GROUP)
		count = SEGMENT_GROUP;
	for (k = 1; k < count && group_segment(s, g, (uint32_t)k)->insn_begin <= number;
	     k++)
		;
	return g * SEGMENT_GROUP + k;
}

bool segment_store_packed(const struct segment_store *s)
{
	return s->packed;
}

bool segment_store_in_file(const struct segment_store *s)
{
	return s->mapped;
}

bool segment_store_crc(const struct segment_store *s, uint32_t *crc)
{
	*crc = s->crc;
	return s->crc_known;
}

int segment_store_fd(const struct segment_store *s)
{
	return s->growing ? -1 : s->coded_out.fd;
}

const void *segment_store_bytes(const struct segment_store *s)
{
	return s->block;
}

uint64_t segment_store_size(const struct segment_store *s)
{
	return s->size;
}

size_t segment_store_resident(const struct segment_store *s)
{
	size_t bytes = s->growing ? spill_append_resident(&s->table_out) +
				    spill_append_resident(&s->coded_out)
				  : (size_t)s->size;

	for (size_t i = 0; s->run_cache && i < RUN_SLOTS; i++)
		bytes += s->run_cache[i].cap;
	return bytes + (s->cache ? CACHE_SLOTS * sizeof(*s->cache) : 0) + sizeof(*s);
}
