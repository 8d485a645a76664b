/* decode-pt.h: a walk over one thread's Intel PT with libipt's block decoder.
 *
 * The walk turns libipt's blocks, events and errors into three kinds of items:
 * blocks of instructions, gaps (trace that could not be decoded, each with the
 * libipt error and the trace offset) and chunk starts (a PSB+ at which
 * decoding can begin on its own).  The index pass walks a whole stream once;
 * on-demand decoding walks one chunk from its PSB with the same code, which
 * is what makes the two agree instruction for instruction.
 */
#ifndef HWTR_DECODE_PT_H
#define HWTR_DECODE_PT_H

#include "hwtrecord.h"

#include <intel-pt.h>

/* A PSB found by scanning packets, and what its PSB+ said. */
struct psb_info {
	uint64_t offset;
	uint64_t tsc;
	uint64_t fup_ip;
	bool has_tsc, has_fup, has_mode_exec;
};

struct psb_scan {
	struct psb_info *psbs;
	size_t count;
	uint64_t first_sync;	/* offset of the first PSB, or size */
	bool truncated;		/* the stream ends inside a packet */
	uint64_t truncated_at;	/* offset of that packet */
};

/* Fill a libipt configuration for BYTES from the manifest's PT settings
 * (CPU, errata via pt_cpu_errata, TSC/CTC ratio, MTC frequency). */
void pt_config_from_recording(struct pt_config *config,
			      const struct hwtr_pt_config *pt,
			      const uint8_t *bytes, size_t size);

/* Scan packets from START for PSBs; skips garbage by resynchronising. */
int psb_scan_stream(const struct pt_config *config, uint64_t start,
		    struct psb_scan *scan);
void psb_scan_release(struct psb_scan *scan);
/* Index of the first PSB after OFFSET; the PSB at exactly OFFSET, or NULL. */
size_t psb_scan_index_after(const struct psb_scan *scan, uint64_t offset);
const struct psb_info *psb_scan_find(const struct psb_scan *scan,
				     uint64_t offset);

enum walk_kind {
	walk_block,
	walk_gap,
	walk_chunk_start,
};

enum gap_kind {
	gap_decode_error,	/* libipt error, pt_error set */
	gap_overflow,		/* OVF: the trace source dropped trace */
	gap_disabled,		/* tracing off and on again elsewhere */
	gap_truncated,		/* the stream ends inside a packet */
	gap_unsynced,		/* bytes before the first PSB */
	gap_no_progress,	/* code that loops without trace (jmp .) */
};

struct walk_item {
	enum walk_kind kind;
	struct pt_block block;		/* walk_block */
	enum gap_kind gap;		/* walk_gap */
	int pt_error;			/* walk_gap: positive libipt code */
	uint64_t offset;		/* gap: trace offset; chunk: PSB offset */
	uint64_t ip;			/* gap: IP involved; chunk: entry IP */
	uint64_t tsc;			/* chunk start: PSB's TSC */
};

struct pt_walk;

/* The image to decode the chunk that starts at the PSB at PSB_OFFSET with.
 * The walk asks before every synchronisation, because libipt already reads
 * code while it synchronises. */
typedef int (*pt_walk_image_fn)(void *ctx, uint64_t psb_offset,
				struct pt_image **image);

/* Walk from the first PSB at or after START (SCAN from psb_scan_stream
 * must outlive the walk). */
int pt_walk_begin(const struct pt_config *config, const struct psb_scan *scan,
		  uint64_t start, pt_walk_image_fn image_for, void *ctx,
		  struct pt_walk **walk);
/* Walk from the PSB at OFFSET (a chunk start). */
int pt_walk_at(const struct pt_config *config, const struct psb_scan *scan,
	       uint64_t offset, pt_walk_image_fn image_for, void *ctx,
	       struct pt_walk **walk);
void pt_walk_free(struct pt_walk *walk);

/* Next item: 1, or 0 at the end of the trace, or a negative error. */
int pt_walk_next(struct pt_walk *walk, struct walk_item *item);

#endif
