/* segment-store.h: a finished thread's function segments, kept compactly;
 * internal.
 *
 * A thread's segments are built into an array of struct segment (32 bytes
 * each), which the index pass changes while it goes (links to a caller
 * found late).  Once the history is finished nothing changes them, and the
 * store keeps them in groups of SEGMENT_GROUP, each a run of small deltas
 * (segment-store.c), with one table entry a group for random access:
 * about 4-5 bytes a segment instead of 32.  Reading one decodes its group into a
 * small cache of decoded groups.  The store's bytes are one block, saved as
 * they are in history.idx and used in place when mapped from there.
 */
#ifndef HWTR_SEGMENT_STORE_H
#define HWTR_SEGMENT_STORE_H

#include "history.h"

#define SEGMENT_GROUP 64

struct segment_store;

/* Compact the N segments of SEGS (not changed) into a new store: 0, or
 * hwtr_err_nomem. */
int segment_store_compact(const struct segment *segs, uint64_t n,
			  struct segment_store **out);
/* The same, giving the pages of SEGS (a large malloc'ed array, to be freed
 * after) back to the system as they are read, so that the array and the
 * store are not both resident: SEGS holds zeros after, also on an error. */
int segment_store_compact_consuming(struct segment *segs, uint64_t n,
				    struct segment_store **out);
/* What a store opened from saved bytes asks of each group of segments at
 * its first read. */
struct segment_checker {
	/* 0 when segment NUMBER may be used, else a hwtr_fail error saying
	 * why; each segment of a group in order.  NULL: any. */
	int (*segment_ok)(void *ctx, uint64_t number, const struct segment *s);
	/* Told once for each group that did not pass (WHY: the error), whose
	 * segments then read as empty.  May be NULL. */
	void (*damaged)(void *ctx, const char *why);
	void *ctx;
	/* The segments are in order of insn_begin (a history's, which
	 * segment_store_find needs): the table's groups are checked to be at
	 * the open, each group's segments at its first read. */
	bool in_order;
};
/* A store over the SIZE bytes at BYTES (a saved store: segment_store_pack's
 * bytes, 8-byte aligned, not copied: they must outlive it) holding N
 * segments: 0, or hwtr_err_format when its runs table is not a store's of N
 * segments (runs in order of their bytes, inside the store; and of their
 * first instructions when CHECKER says in_order), or hwtr_err_nomem.  Each
 * run is checked when it is decompressed (one LZ4 block of its size, its
 * groups' table in order), each group at its first read, not here
 * (decoding every group costs about 15 ns a segment: seconds for a
 * call-heavy billion instructions): its bytes exactly its segments'
 * coding, then CHECKER's rules (CHECKER may be NULL). */
int segment_store_open(const void *bytes, uint64_t size, uint64_t n,
		       const struct segment_checker *checker,
		       struct segment_store **out);
/* The same for BYTES mapped read-only from a file (history.idx): reads
 * give their pages back as they go (page-release.h), so the store's
 * resident part is its cache and the pages in use, not its size. */
int segment_store_open_mapped(const void *bytes, uint64_t size, uint64_t n,
			      const struct segment_checker *checker,
			      struct segment_store **out);
void segment_store_free(struct segment_store *s);

/* A store built as the index pass goes (segments.c): empty, growing.
 * Once large, its bytes, and those of the store segment_store_finish makes
 * of it, are kept in an unlinked file in DIR (the recording's directory;
 * NULL, or when DIR takes none: TMPDIR or /tmp), written with pwrite and
 * not kept resident (spill-append.h); DIR must outlive both. */
int segment_store_begin(const char *dir, struct segment_store **out);
/* Append COUNT segments, numbered on from the store's, from SEGS, which may
 * change after; the store must hold whole groups (COUNT a multiple of
 * SEGMENT_GROUP but at the end).  Reads see them at once. */
int segment_store_append(struct segment_store *s, const struct segment *segs,
			 uint64_t count);
/* Whether one of the COUNT segments from NUMBER (a group) changed since
 * it was appended; when SEGS is not NULL, change them (the group decoded)
 * to what they are now. */
typedef bool segment_patch_fn(void *ctx, uint64_t number, struct segment *segs,
			      uint64_t count);
/* A finished store of growing store S's segments as PATCHED says they are
 * now, then the NTAIL at TAIL (numbered on), in its saved form: the same
 * bytes as segment_store_pack of segment_store_compact of all of them.
 * Each run is put together from S's bytes (a group that did not change is
 * copied, one that did is coded again) and compressed, so that a first
 * build writes its segments once more, compressed, not twice.  S's pages
 * are given back as they are read, so that the two are not both resident:
 * S may only be freed after, also on an error. */
int segment_store_finish(struct segment_store *s, segment_patch_fn *patched,
			 void *ctx, const struct segment *tail, uint64_t ntail,
			 struct segment_store **out);

/* The saved form of finished store S (made by segment_store_compact): its groups in runs of 1024 segments, each
 * compressed with LZ4 (segment-store.c), as a new store that reads the
 * same segments, whose bytes (segment_store_bytes) are what
 * segment_store_open takes; in a file in DIR as segment_store_begin says
 * when large.  S's pages are given back as they are read. */
int segment_store_pack(struct segment_store *s, const char *dir,
		       struct segment_store **out);

/* Segment NUMBER (1..n) into *OUT. */
void segment_store_read(struct segment_store *s, uint64_t number,
			struct segment *out);
/* The number of segments whose insn_begin is NUMBER or less, when they
 * are in order of insn_begin: the segment holding instruction NUMBER. */
uint64_t segment_store_find(struct segment_store *s, uint64_t number);

/* Whether it is in its saved form already (segment_store_finish's, or
 * opened from one): then segment_store_bytes is what history.idx holds. */
bool segment_store_packed(const struct segment_store *s);
/* Whether its bytes are a file's mapping (history.idx, or a spilled
 * store): a pass over them may give their pages back (page-release.h). */
bool segment_store_in_file(const struct segment_store *s);
/* Its saved form (what segment_store_open takes) and that form's size. */
const void *segment_store_bytes(const struct segment_store *s);
uint64_t segment_store_size(const struct segment_store *s);
/* Whether the CRC-32 of its saved form is known without reading it (a
 * finished store takes it as it is written): then into *CRC. */
bool segment_store_crc(const struct segment_store *s, uint32_t *crc);
/* A file descriptor whose bytes from offset 0 are its saved form (a
 * finished store in a file: history.idx copies them file to file), or -1. */
int segment_store_fd(const struct segment_store *s);
/* The memory it takes: its bytes (mapped or not, as the chunk index's
 * are counted) and its cache. */
size_t segment_store_resident(const struct segment_store *s);

#endif
