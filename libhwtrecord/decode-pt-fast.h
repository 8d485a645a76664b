/* decode-pt-fast.h: one Intel PT chunk walked with libipt's query decoder
 * and the cache of decoded blocks (decode-pt-blocks.h), internal.
 *
 * The walk of decode-pt.c asks libipt's block decoder for every block; most
 * of that work re-decodes code it has seen (libipt's own block cache still
 * steps through it).  This walk asks the query decoder only what the trace
 * says (a TNT bit, a TIP, an event) and takes the rest from the cached
 * blocks.  It makes the same calls to the query decoder, in the same order,
 * as libipt's block decoder does, so the blocks and their times are the
 * same.
 *
 * It models only a plain chunk: from a PSB+ that finds tracing on in 64-bit
 * mode to the next such PSB+, with nothing between but branches, compressed
 * returns, timing and CBR packets, and tracing off at a call or system call
 * and back on right after it (as the software source writes every system
 * call).  Anything else (an overflow, tracing off and back on elsewhere, a
 * mode change, TSX, PTWRITE, power or paging events, a decode
 * error, the end of the trace or a loss, code that does not decode the
 * way libipt would decode it, a loop without trace) is a fallback: the
 * caller walks that chunk with libipt's block decoder, which is right by
 * definition.
 */
#ifndef HWTR_DECODE_PT_FAST_H
#define HWTR_DECODE_PT_FAST_H

#include "decode-pt.h"
#include "decode-pt-blocks.h"

enum fast_fallback {
	fallback_none,
	fallback_chunk_start,	/* this or the next PSB+ is not a plain one */
	fallback_event,		/* an event this walk does not model */
	fallback_code,		/* a block it cannot decode as libipt would */
	fallback_trace,		/* a query failed: error, end, loss, no IP */
	fallback_return,	/* return compression without a return address */
	fallback_no_progress,	/* many blocks without reading a packet */
	fallback_kinds,
};

/* The time from block FROM of a chunk on (until the next such entry): it
 * changes only where a query reads a timing packet. */
struct fast_time {
	size_t from;
	uint64_t time;
	bool timed;
};

/* A walked chunk: its blocks are the cache's (they never move, and what
 * decoder_block needs of them never changes), 8 bytes a block: the array of
 * a chunk stays in the CPU's cache until it is handed out. */
struct fast_chunk {
	struct decoded_block **blocks;	/* the index pass writes their
					 * pass_chunk (decoder.h) */
	size_t count, cap;
	struct fast_time *times;
	size_t ntimes, times_cap;
	size_t next_psb;		/* scan index of the PSB that ends it */
	enum fast_fallback why;		/* when it was not walked */
};

/* What a build's query walks did (HWTREC_PT_STATS prints it). */
struct fast_stats {
	uint64_t chunks;			/* walked here */
	uint64_t fallbacks[fallback_kinds];	/* left to the block decoder */
	uint64_t hits, misses;			/* block cache */
	uint64_t repeats, copies;		/* (decode-pt-blocks.h) */
};

/* Walk the chunk of SCAN's PSB number PSB with QUERY (a query decoder over
 * the stream up to the next loss) in EPOCH: 1 and OUT's blocks up to the next
 * PSB (OUT->next_psb), or 0 and OUT->why when it is not a plain chunk, or a
 * negative error (out of memory). */
int fast_chunk_walk(struct pt_query_decoder *query, const struct psb_scan *scan,
		    size_t psb, unsigned epoch, struct image_set *images,
		    struct isa *isa, struct decoded_blocks *cache,
		    struct fast_chunk *out);
void fast_chunk_release(struct fast_chunk *chunk);

/* The walk of plain chunks of CONTEXT's streams (decoder_intel_pt's):
 * the query walk when ON (the default unless HWTREC_PT_WALK=block), else
 * libipt's block decoder.  A walk keeps the choice it began with. */
void intel_pt_use_query_walk(struct decoder_context *context, bool on);
/* What CONTEXT's query walks did so far, with its lanes freed so far. */
void intel_pt_query_stats(struct decoder_context *context,
			  struct fast_stats *stats);

/* Words for a fallback kind, for the statistics. */
const char *fast_fallback_name(enum fast_fallback why);

#endif
