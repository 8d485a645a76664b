/* history.c: building and extending each thread's history (the index pass).
 *
 * The index pass walks a thread's trace once with the recording's decoder
 * (decoder.h: decode-pt.c, decode-etm.c).  Every chunk start becomes a
 * chunk entry; every block extends or starts a function segment following
 * GDB's btrace model (segments.c): a new segment at call, return, tail jump
 * and symbol change, returns with no matching call one level up; every gap
 * takes one instruction number and a segment of its own.  Per-instruction
 * data is never kept: a chunk is decoded again, with the same walk, when a
 * cursor needs it (chunk-cache.c, insn-length.c; chunk-search.c looks for
 * addresses).  What a block does to the segments is planned first and done
 * after (segments.c), so that the stack of an instruction after the end (a
 * live PC, a faulting one) is the pass's own answer
 * (hwtr_thread_callstack_next).
 *
 * A recording that grows (live mode) extends the history instead of
 * building it again (hwtr_history_extend).  A chunk start resets the
 * decoder, so what the index pass makes from a chunk start on depends only
 * on the trace from there and on the builder's state at that point: the
 * segments so far, the last block's class and address, the lowest level.
 * At every chunk start the pass notes that state (struct restart), and
 * until the next one it logs the older segments it changes (links to a
 * caller found late, a caller's next) so they can be put back.  Extending a
 * thread drops its last chunk (its trace may have been cut mid-way, and its
 * time window was open), puts the noted state back and goes on from that
 * chunk start over the grown trace: the cost is the new trace plus one
 * chunk.  Where the trace before that chunk changed its meaning (a loss
 * event, a mapping whose time reaches back into an earlier chunk's window,
 * a moved trace start) the thread is built again from its start.
 */
#include "history.h"

#include "error.h"
#include "chunk-cache.h"
#include "decoded-block.h"
#include "gaps.h"
#include "history-file.h"
#include "history-parallel.h"
#include "index-builder.h"
#include "insn-length.h"
#include "segments.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DEFAULT_CACHE_BYTES (64u << 20)

/* --------------------------------------------------------- growable arrays */

int history_grow(void **array, size_t *cap, size_t count, size_t elem)
{
	size_t ncap;
	void *p;

	if (count < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if (ncap > SIZE_MAX / elem)
		return hwtr_fail(hwtr_err_nomem, "history too large");
	p = realloc(*array, ncap * elem);
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	*array = p;
	*cap = ncap;
	return 0;
}

/* ---------------------------------------------------------------- chunks */

/* The image of the chunk starting at OFFSET: the mappings of its time
 * window, which the decoder knows from its chunk scan.  Index and on-demand
 * decoding both ask this, so they decode with the same code. */
int history_chunk_image(void *ctx, uint64_t offset, unsigned *epoch)
{
	struct hwtr_thread *t = ctx;
	uint64_t begin = 0, end = UINT64_MAX;

	if (!t->ops->chunk_window(t->stream, offset, &begin, &end)) {
		begin = 0;
		end = UINT64_MAX;
	}
	return image_set_for_window(t->history->images, begin, end, epoch);
}

/* Fold the levels of the segments made since into the lowest one. */
static void fold_levels(struct builder *b)
{
	struct hwtr_thread *t = b->thread;

	struct segment s;

	for (; b->min_upto < t->nsegments; b->min_upto++) {
		segment_read(t, b->min_upto + 1, &s);
		if (s.level < b->min_level)
			b->min_level = s.level;
	}
}

/* A chunk with an offset starts: note the pass's state (see the top). */
static void note_restart(struct builder *b)
{
	struct hwtr_thread *t = b->thread;
	struct restart *r = &b->restart;

	fold_levels(b);
	r->valid = true;
	r->nchunks = t->nchunks;
	r->ninsns = t->ninsns;
	r->nsegments = t->nsegments;
	r->ngaps = t->ngaps;
	r->last = b->last;
	if (t->nsegments)
		segment_read(t, t->nsegments, &r->last_segment);
	r->min_level = b->min_level;
	r->window_end = b->window_end;
	r->nundo = 0;
	r->undo_failed = false;
}

static int add_chunk(struct builder *b, uint64_t offset)
{
	struct hwtr_thread *t = b->thread;
	uint64_t begin = 0, end = UINT64_MAX;
	struct chunk *c;
	int err = history_grow((void **)&t->chunks, &b->cap_chunks, t->nchunks,
		       sizeof(*t->chunks));

	if (err)
		return err;
	if (offset != NO_START)
		note_restart(b);
	c = &t->chunks[t->nchunks++];
	memset(c, 0, sizeof(*c));
	line_memo_reset(&b->lines_seen);	/* its filter is empty */
	code_ranges_memo_reset(&b->blocks_seen);	/* and its ranges */
	b->chunk_stamp = builder_chunk_stamp();	/* no cached block has it */
	c->offset = offset;
	c->first_insn = t->ninsns + 1;
	if (offset != NO_START && t->ops->chunk_window(t->stream, offset, &begin, &end))
		c->tsc_begin = begin;
	else
		end = UINT64_MAX;	/* every mapping's time is in its window */
	if (end > b->window_end)
		b->window_end = end;
	return 0;
}

/* Feed the blocks builder_block holds back, if any. */
static int feed_pending(struct builder *b)
{
	if (!b->have_pending)
		return 0;
	b->have_pending = false;
	return builder_run(b, &b->pending);
}

/* The trace before OFFSET is decoded: its pages need not stay resident
 * (a stream mapped again when it grew is another block). */
static void trace_read_before(struct builder *b, uint64_t offset)
{
	struct hwtr_thread *t = b->thread;
	const uint8_t *bytes;
	size_t size;

	hwtr_recording_trace(t->history->recording, t->index, &bytes, &size);
	if (!bytes || offset > size)
		return;
	if (bytes != b->trace_base) {
		b->trace_base = bytes;
		memset(&b->trace_read, 0, sizeof(b->trace_read));
	}
	page_release_before(&b->trace_read, bytes, bytes + offset);
}

int builder_chunk_start(struct builder *b, uint64_t offset)
{
	struct hwtr_thread *t = b->thread;
	int err = feed_pending(b);

	if (offset != NO_START)
		trace_read_before(b, offset);

	if (!err)
		err = add_chunk(b, offset);
	if (!err && t->history->progress)
		progress_update(t->history->progress,
				offset > t->trace_start ? offset - t->trace_start : 0,
				t->ninsns);
	return err;
}

/* A build thread's RUN found its function by a lookup: where the memo
 * cannot tell, the stitching's lookup would find the same (a function of
 * the IP and epoch alone), so the memo is set as that lookup sets it
 * without the symbols' cache. */
static void prime_function(struct builder *b, const struct block_run *run)
{
	struct fn_memo *m = &b->fn;
	uint32_t fn;

	if (fn_memo_known(m, run->ip, run->epoch, &fn))
		return;
	m->fn = run->function;
	m->epoch = run->epoch;
	symbolizer_function_range(b->thread->history->symbols, m->fn, &m->start,
				  &m->end);
}

int builder_run(struct builder *b, const struct block_run *run)
{
	struct hwtr_thread *t = b->thread;
	struct segment *s;
	struct chunk *c;
	int err;

	if (t->nchunks == 0 && (err = add_chunk(b, NO_START)))
		return err;
	c = &t->chunks[t->nchunks - 1];
	if (!c->entry_ip && c->first_insn == t->ninsns + 1)
		c->entry_ip = run->ip;
	if (run->looked_up && run->function)
		prime_function(b, run);
	if ((err = segment_update_function(b, run->ip, run->epoch)))
		return err;
	/* The build thread split and merged blocks by the function it found
	 * here: right only if it is the one found here. */
	if (run->checked && b->fn.fn != run->function)
		return RUN_NOT_MERGEABLE;
	t->ninsns += run->ninsn;
	/* The last segment (in the array): new, or saved whole by the last
	 * chunk start. */
	if (t->nsegments > t->segments_sealed)
		s = &t->segments[t->nsegments - 1 - t->segments_sealed];
	else if (!(s = segment_change(t, t->nsegments)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (run->iclass == hwtr_ic_call)
		s->flags |= SEG_ENDS_WITH_CALL;
	else
		s->flags &= ~SEG_ENDS_WITH_CALL;
	b->last.have_last = true;
	b->last.last_iclass = (enum hwtr_insn_class)run->iclass;
	b->last.last_end_ip = run->end_ip;
	b->last.last_epoch = run->last_epoch;
	b->last.last_isa = (enum hwtr_isa)run->isa;
	return 0;
}

/* Whether instructions from IP in EPOCH go on in the pending run: the
 * function memo places IP in the run's function without a lookup, and
 * after the run's last instruction plan_next (segments.c) keeps the
 * segment: it neither called nor returned, and a jump neither went to the
 * function's start (a tail call) nor left a function that unwinds or
 * longjmps (those rules look up the stack).  One builder_run for the whole
 * run then does what one per block did; history-parallel.c's build threads
 * merge by the same rule.  When the memo cannot tell, the run is fed
 * first: its own start is then looked up against the memo as it was, as a
 * builder_run per block did. */
static bool goes_on(const struct builder *b, uint64_t ip, unsigned epoch)
{
	const struct block_run *run = &b->pending;
	const struct hwtr_symbolizer *s = b->thread->history->symbols;
	uint32_t fn;

	if (!b->have_pending || run->iclass == hwtr_ic_call ||
	    run->iclass == hwtr_ic_return ||
	    !fn_memo_known(&b->fn, ip, epoch, &fn) || fn != run->function)
		return false;
	return run->iclass != hwtr_ic_jump ||
	       (symbolizer_function_start(s, fn) != ip &&
		!(symbolizer_function_traits(s, fn) &
		  (SYMBOL_UNWINDER | SYMBOL_LONGJMP)));
}

uint64_t builder_chunk_stamp(void)
{
	static uint64_t last;

	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

/* segment_function_at for the first instruction of the cached block CB:
 * where the memo cannot tell, the lookup's answer is CB's, found once. */
static uint32_t cached_function_at(struct builder *b, struct decoded_block *cb)
{
	struct fn_memo *m = &b->fn;
	uint32_t fn;

	if (fn_memo_known(m, cb->ip, cb->epoch, &fn))
		return segment_function_at(b, cb->ip, cb->epoch);
	if (cb->pass_fn_known) {	/* as fn_memo_at's lookup sets it */
		m->fn = cb->pass_fn;
		m->epoch = cb->epoch;
		m->start = cb->pass_fn_start;
		m->end = cb->pass_fn_end;
		return m->fn;
	}
	fn = segment_function_at(b, cb->ip, cb->epoch);
	cb->pass_fn_known = true;
	cb->pass_fn = fn;
	cb->pass_fn_start = m->start;
	cb->pass_fn_end = m->end;
	return fn;
}

/* Feed BLOCK as runs split where its function changes (builder_block
 * without its filter and ranges); CB: BLOCK is that cached block. */
static inline int block_runs(struct builder *b,
			     const struct decoder_block *block,
			     struct decoded_block *cb)
{
	struct hwtr_thread *t = b->thread;
	struct hwtr_history *h = t->history;
	/* The part of BLOCK still to feed: BLOCK itself until it is split.
	 * Not a copy of it: the walk has just written the block field by
	 * field, and a copy reads it back in wider loads that the CPU cannot
	 * forward from those stores (a stall per block: 8% of the pass). */
	const struct decoder_block *part = block;
	struct decoder_block rest;
	int err;

	for (;;) {
		uint64_t last_ip, split_ip;
		uint32_t n, fid;
		uint8_t iclass;
		struct block_run *run = &b->pending;
		bool more = goes_on(b, part->ip, part->epoch);

		/* The memo is as fn_memo_at would leave it when it goes on. */
		if (more)
			fid = run->function;
		else if ((err = feed_pending(b)))
			return err;
		else if (cb && part == block)
			fid = cached_function_at(b, cb);
		else
			fid = segment_function_at(b, part->ip, part->epoch);
		n = fn_block_split(&b->fn, h->symbols, h->images, h->isa, part,
				   &last_ip, &split_ip);
		/* Only a branch ends a block: inside one, "other". */
		iclass = n == part->ninsn ? part->iclass : hwtr_ic_other;
		if (more) {
			run->end_ip = last_ip;
			run->ninsn += n;
			run->last_epoch = part->epoch;
			run->iclass = iclass;
			run->isa = part->isa;
		} else {
			*run = (struct block_run){
				.ip = part->ip, .end_ip = last_ip, .ninsn = n,
				.epoch = part->epoch, .last_epoch = part->epoch,
				.function = fid, .iclass = iclass,
				.isa = part->isa, .checked = false,
			};
			b->have_pending = true;
		}
		if (n == part->ninsn)
			break;
		if (part == block) {
			rest = *block;
			part = &rest;
		}
		rest.ip = split_ip;
		rest.ninsn -= n;
	}
	if (t->nchunks == 0)
		return add_chunk(b, NO_START);
	return 0;
}

int builder_block(struct builder *b, const struct decoder_block *block)
{
	struct hwtr_thread *t = b->thread;
	int err = block_runs(b, block, NULL);

	if (err)
		return err;
	/* A block the ranges' memo holds was added since the chunk began, to
	 * the ranges and to the filter: hot code is found there once. */
	if (!code_ranges_memo_holds(&b->blocks_seen, block->ip, block->end_ip)) {
		struct chunk *c = &t->chunks[t->nchunks - 1];

		line_filter_add_new(c->lines, &b->lines_seen, block->ip,
				    block->end_ip);
		code_ranges_add_new(&c->ranges, &b->blocks_seen, block->ip,
				    block->end_ip);
	}
	return 0;
}

int builder_cached_blocks(struct builder *b,
			  struct decoded_block *const *blocks, size_t n)
{
	struct hwtr_thread *t = b->thread;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		struct decoded_block *cb = blocks[i];
		struct decoder_block d = {
			.ip = cb->ip, .end_ip = cb->end_ip, .ninsn = cb->ninsn,
			.epoch = cb->epoch, .iclass = cb->iclass,
			.isa = hwtr_isa_x86_64,
		};

		if (d.iclass == DECODER_UNCLASSIFIED)
			d.iclass = (uint8_t)insn_last_class(t->history, &d);
		if ((err = block_runs(b, &d, cb)))
			return err;
		if (cb->pass_chunk != b->chunk_stamp) {
			struct chunk *c = &t->chunks[t->nchunks - 1];

			cb->pass_chunk = b->chunk_stamp;
			line_filter_add_new(c->lines, &b->lines_seen, d.ip,
					    d.end_ip);
			code_ranges_add_new(&c->ranges, &b->blocks_seen, d.ip,
					    d.end_ip);
		}
	}
	return 0;
}

int builder_gap(struct builder *b, const struct walk_item *item)
{
	int err = feed_pending(b);

	/* Gaps before any chunk get a chunk of their own. */
	if (!err && b->thread->nchunks == 0)
		err = add_chunk(b, NO_START);
	return err ? err : gap_add(b, item);
}

int builder_finish(struct builder *b)
{
	int err = feed_pending(b);

	fold_levels(b);
	b->thread->level_base = -b->min_level;
	return err;
}

#define NOT_RESUMED 1	/* index_walk: the walk did not start at the chunk */

/* Feed the walk's items to the builder up to the end of the trace.  With
 * RESUME, the first item must be the chunk start at offset *RESUME. */
static int index_walk(struct builder *b, struct decoder_walk *walk,
		      const uint64_t *resume)
{
	struct hwtr_thread *t = b->thread;
	struct walk_item item;
	bool first = true;
	int status, err = 0;

	while ((status = t->ops->walk_next(walk, &item)) > 0) {
		if (first && resume && (item.kind != walk_chunk_start ||
					item.offset != *resume)) {
			err = NOT_RESUMED;
			break;
		}
		first = false;
		switch (item.kind) {
		case walk_chunk_start:
			err = builder_chunk_start(b, item.offset);
			break;
		case walk_block:
			item.block.iclass = (uint8_t)insn_last_class(t->history,
								      &item.block);
			err = builder_block(b, &item.block);
			if (!err && t->ops->walk_take_blocks) {
				struct decoded_block *const *more;
				size_t n = t->ops->walk_take_blocks(walk, &more);

				err = builder_cached_blocks(b, more, n);
			}
			break;
		case walk_gap:
			err = builder_gap(b, &item);
			break;
		}
		if (err)
			break;
	}
	if (!err && status < 0)
		err = status;
	if (!err)
		err = builder_finish(b);
	return err;
}

/* ------------------------------------------------------------ the history */

static void release_gaps(struct hwtr_thread *t, size_t from)
{
	size_t i;

	for (i = from; i < t->ngaps; i++)
		free((char *)t->gaps[i].gap.message);
	t->ngaps = from;
}

/* Empty thread T's index: its gaps, chunks and segments. */
static void free_index(struct hwtr_thread *t)
{
	release_gaps(t, 0);
	free(t->gaps);
	if (!t->arrays_mapped)
		free(t->chunks);
	segments_release(t);
	segment_store_free(t->segment_store);
	t->arrays_mapped = false;
	t->gaps = NULL;
	t->chunks = NULL;
	t->segment_store = NULL;
	t->nchunks = t->nsegments = 0;
	t->ninsns = 0;
	t->level_base = 0;
}

void history_thread_release(struct hwtr_thread *t)
{
	free_index(t);
	if (t->stream)
		t->ops->stream_close(t->stream);
	if (t->builder)
		free(t->builder->restart.undo);
	free(t->builder);
	t->stream = NULL;
	t->builder = NULL;
}

static int cmp_loss(const void *a, const void *b)
{
	const struct decoder_loss *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The thread's loss events as stream offsets, in order (a malloc'ed array,
 * or NULL when there are none). */
static int thread_losses(const struct hwtr_recording *rec, uint32_t tid,
			 struct decoder_loss **out, size_t *n)
{
	size_t nev = hwtr_recording_nevents(rec), i, k = 0;

	*out = NULL;
	*n = 0;
	for (i = 0; i < nev; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		if (ev->kind != hwtr_ev_loss || ev->tid != tid)
			continue;
		if (!*out && !(*out = calloc(nev, sizeof(**out))))
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		(*out)[k].offset = ev->offset;
		(*out)[k].reason = ev->reason;
		k++;
	}
	if (k)
		qsort(*out, k, sizeof(**out), cmp_loss);
	*n = k;
	return 0;
}

/* What a decoder needs to open (or extend) the stream of thread T. */
int history_stream_info(struct hwtr_thread *t, struct decoder_stream_info *si,
		       struct decoder_loss **losses)
{
	struct hwtr_recording *rec = t->history->recording;
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	int err;

	memset(si, 0, sizeof(*si));
	si->info = info;
	si->thread = t->index;
	hwtr_recording_trace(rec, t->index, &si->bytes, &si->size);
	si->file_mapped = true;
	si->trace_start = info->threads[t->index].trace_start;
	err = thread_losses(rec, t->tid, losses, &si->nlosses);
	if (!err && t->tail_from > si->trace_start) {
		/* A tail (history-tail.c): read from its chunk start, where
		 * the decoder starts afresh; a loss before it is in the trace
		 * left out, not in the tail. */
		size_t i, k = 0;

		si->trace_start = t->tail_from;
		for (i = 0; i < si->nlosses; i++)
			if ((*losses)[i].offset > t->tail_from)
				(*losses)[k++] = (*losses)[i];
		si->nlosses = k;
	}
	si->losses = *losses;
	return err;
}

int history_thread_open(struct hwtr_thread *t)
{
	struct decoder_loss *losses = NULL;
	struct decoder_stream_info si;
	int err;

	err = history_stream_info(t, &si, &losses);
	t->trace_bytes = si.size - si.trace_start;
	t->stream_size = si.size;
	t->trace_start = si.trace_start;
	if (!err && si.size == 0) {
		free(losses);
		return 1;	/* an empty trace is an empty history */
	}
	if (!err)
		err = t->ops->stream_open(t->history->decoder, &si, &t->stream);
	free(losses);
	if (!err && !(t->builder = calloc(1, sizeof(*t->builder))))
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
	if (err)
		return err;
	t->builder->thread = t;
	t->trace_bytes = t->ops->stream_trace_bytes(t->stream);
	return 0;
}

/* Empty thread T's index, its stream kept open, for the pass again. */
static void thread_reset(struct hwtr_thread *t)
{
	struct builder *b = t->builder;

	free_index(t);
	free(b->restart.undo);
	memset(b, 0, sizeof(*b));
	b->thread = t;
}

/* Decode thread T from its start (its index is empty): on several cores
 * where the decoder allows (history-parallel.c), else here. */
static int thread_build(struct hwtr_thread *t)
{
	struct decoder_walk *walk;
	unsigned nworkers = history_build_threads();
	int err;

	t->rebuilt = true;
	t->decoded = 0;
	if (t->history->tail_bytes && (err = history_tail_find(t)))
		return err;
	err = history_thread_open(t);
	if (err)
		return err > 0 ? 0 : err;
	err = nworkers > 1 ? history_parallel_pass(t, nworkers) : PARALLEL_NOT_DONE;
	t->build_threads = err ? 1 : nworkers;
	if (err) {
		if (nworkers > 1)
			thread_reset(t);
		if ((err = t->ops->walk_begin(t->stream, history_chunk_image, t,
					      &walk)))
			return err;
		err = index_walk(t->builder, walk, NULL);
		t->ops->walk_free(walk);
	}
	t->decoded = t->ninsns;
	if (t->history->progress)
		progress_thread_done(t->history->progress,
				     t->stream_size - t->trace_start, t->ninsns);
	return err;
}

static int thread_failed(struct hwtr_thread *t, int err)
{
	const struct hwtr_recording *rec = t->history->recording;

	return hwtr_fail_context(err, "%s/%s: ", hwtr_recording_path(rec),
				 hwtr_recording_info(rec)->threads[t->index].stream);
}

int history_add_thread(struct hwtr_history *h, size_t index)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(h->recording);
	struct hwtr_thread *t;

	int err = history_grow((void **)&h->threads, &h->cap_threads, h->nthreads,
		       sizeof(*h->threads));

	if (err)
		return err;
	/* Threads do not move: cursors point at them. */
	t = calloc(1, sizeof(*t));
	if (!t)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	t->history = h;
	t->index = index;
	t->tid = info->threads[index].tid;
	t->ops = h->ops;
	h->threads[h->nthreads++] = t;
	return 0;
}

static char **copy_strings(const char *const *from)
{
	size_t n = 0, i;
	char **to;

	while (from && from[n])
		n++;
	to = calloc(n + 1, sizeof(*to));
	for (i = 0; to && i < n; i++)
		if (!(to[i] = strdup(from[i]))) {
			while (i--)
				free(to[i]);
			free(to);
			return NULL;
		}
	return to;
}

/* The kept trace of every thread, for the progress line's estimate. */
static uint64_t total_trace_bytes(const struct hwtr_recording *rec)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < info->nthreads; i++) {
		const uint8_t *bytes;
		size_t size = 0;

		if (!hwtr_recording_trace(rec, i, &bytes, &size) &&
		    size > info->threads[i].trace_start)
			total += size - info->threads[i].trace_start;
	}
	return total;
}

int history_build(struct hwtr_recording *rec,
		  const struct hwtr_history_options *options, uint64_t tail_bytes,
		  struct hwtr_history **out)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	size_t cache_bytes = options && options->cache_bytes
				     ? options->cache_bytes
				     : DEFAULT_CACHE_BYTES;
	struct progress progress;
	struct hwtr_history *h;
	bool saved_index;
	size_t i;
	int err;

	if (!rec || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_history_build: bad argument");
	/* A tail is never saved: the file holds whole histories. */
	saved_index = info->complete && !tail_bytes &&
		      !(options && options->no_saved_index);
	h = calloc(1, sizeof(*h));
	if (!h)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	h->recording = rec;
	h->tail_bytes = tail_bytes;
	h->ops = decoder_for_format(info->trace_format);
	if (!h->ops) {
		free(h);
		return hwtr_fail(hwtr_err_format, "%s: no decoder for trace format "
				 "\"%s\"", hwtr_recording_path(rec),
				 info->trace_format);
	}
	h->cache_limit = cache_bytes;
	h->cache_slots = cache_bytes / (1u << 20);
	if (h->cache_slots < 4)
		h->cache_slots = 4;
	h->cache = calloc(h->cache_slots, sizeof(*h->cache));
	h->lengths = calloc((size_t)1 << LENGTH_CACHE_BITS, sizeof(*h->lengths));
	/* The image reads the debug directories again when the recording
	 * grows: a copy. */
	h->debug_dirs = copy_strings(options ? options->debug_dirs : NULL);
	if (!h->cache || !h->lengths || !h->debug_dirs) {
		hwtr_history_free(h);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < h->cache_slots; i++)
		h->cache[i].key = UINT64_MAX;
	if ((err = isa_open(&h->isa)) ||
	    (err = image_set_build(rec, (const char *const *)h->debug_dirs,
				   &h->images)) ||
	    (err = symbolizer_build(h->images, (const char *const *)h->debug_dirs,
				    &h->symbols)) ||
	    (err = h->ops->context_alloc(h->images, &h->decoder))) {
		hwtr_history_free(h);
		return err;
	}
	progress_start(&progress, options && !tail_bytes ? options->progress : NULL,
		       total_trace_bytes(rec));
	h->progress = &progress;
	/* A finished recording may carry its index (history-file.c); one
	 * still being written is followed (hwtr_history_extend). */
	if (saved_index && history_file_load(h) > 0) {
		progress_finish(&progress);
		h->progress = NULL;
		*out = h;
		return 0;
	}
	for (i = 0; i < info->nthreads; i++) {
		if ((err = history_add_thread(h, i)) ||
		    (err = thread_build(h->threads[i]))) {
			progress_finish(&progress);
			if (i < h->nthreads)
				thread_failed(h->threads[i], err);
			hwtr_history_free(h);
			return err;
		}
		/* A finished recording's history changes no more: its
		 * segments go compact, one thread at a time so that one array
		 * at most is beside the stores (a live history's are changed
		 * as the trace grows, a tail's are few). */
		if (info->complete && !tail_bytes &&
		    (err = segments_compact(h->threads[i]))) {
			progress_finish(&progress);
			thread_failed(h->threads[i], err);
			hwtr_history_free(h);
			return err;
		}
	}
	progress_finish(&progress);
	h->progress = NULL;
	if (saved_index)
		history_file_save(h);
	*out = h;
	return 0;
}

int hwtr_history_build(struct hwtr_recording *rec,
		       const struct hwtr_history_options *options,
		       struct hwtr_history **out)
{
	return history_build(rec, options, 0, out);
}

/* Forget the decoded chunks of thread T from chunk K on. */
/* Thread T's index from its start again. */
static int thread_rebuild(struct hwtr_thread *t)
{
	chunk_cache_forget(t, 0);
	history_thread_release(t);
	return thread_build(t);
}

/* Put the thread's index back as it was at the start of its last chunk. */
static int restore(struct hwtr_thread *t)
{
	struct builder *b = t->builder;
	struct restart *r = &b->restart;
	struct segment *s;
	size_t i;

	for (i = r->nundo; i-- > 0;) {
		if (!(s = segment_change(t, r->undo[i].number)))
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		*s = r->undo[i].was;
	}
	r->nundo = 0;
	if (r->nsegments) {
		if (!(s = segment_change(t, r->nsegments)))
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		*s = r->last_segment;
	}
	release_gaps(t, r->ngaps);
	t->nsegments = r->nsegments;
	t->nchunks = r->nchunks;
	t->ninsns = r->ninsns;
	b->last = r->last;
	b->have_pending = false;	/* a walk that failed may have left some */
	memset(&b->fn, 0, sizeof(b->fn));
	b->min_level = r->min_level;
	b->min_upto = r->nsegments;
	b->window_end = r->window_end;
	return 0;
}

/* What changed in the recording since the history last read it. */
struct growth {
	size_t first_event, nevents;	/* the new sideband events */
	bool image;		/* a mapping came or went */
	uint64_t image_tsc;	/* from this time on */
};

/* Does the trace before chunk start KEEP of thread T mean something else
 * now: a new loss event before it, or at it (a build gives a gap before the
 * chunk there, the first item when KEEP is the trace's start)? */
static bool new_loss_before(const struct hwtr_thread *t, const struct growth *g,
			    uint64_t keep, bool *any)
{
	const struct hwtr_recording *rec = t->history->recording;
	size_t i;

	*any = false;
	for (i = g->first_event; i < g->nevents; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		if (ev->kind != hwtr_ev_loss || ev->tid != t->tid)
			continue;
		*any = true;
		if (ev->offset <= keep)
			return true;
	}
	return false;
}

static int thread_extend(struct hwtr_thread *t, const struct growth *g)
{
	struct hwtr_recording *rec = t->history->recording;
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	struct decoder_loss *losses = NULL;
	struct decoder_stream_info si;
	struct decoder_walk *walk;
	struct restart *r;
	bool windows = false, losses_new = false;
	uint64_t keep, from;
	const uint8_t *bytes;
	size_t size;
	int err;

	hwtr_recording_trace(rec, t->index, &bytes, &size);
	t->rebuilt = false;
	t->decoded = 0;
	/* Nothing new, and no restart point noted (a saved index's thread):
	 * nothing to do, rather than a build from the start. */
	if (t->builder && !t->builder->restart.valid && size == t->stream_size &&
	    g->first_event == g->nevents &&
	    info->threads[t->index].trace_start == t->trace_start)
		return 0;
	if (!t->stream || !t->builder || !t->builder->restart.valid ||
	    t->builder->restart.undo_failed ||
	    info->threads[t->index].trace_start != t->trace_start)
		return size || t->stream ? thread_rebuild(t) : 0;
	r = &t->builder->restart;
	keep = t->chunks[r->nchunks].offset;
	if (new_loss_before(t, g, keep, &losses_new) ||
	    (g->image && g->image_tsc <= r->window_end))
		return thread_rebuild(t);
	if (size == t->stream_size && !losses_new && !g->image)
		return 0;	/* nothing new for this thread */
	if ((err = history_stream_info(t, &si, &losses)) == 0)
		err = t->ops->stream_extend(t->stream, &si, keep, &windows);
	free(losses);
	if (err)
		return err;
	t->stream_size = si.size;
	t->trace_bytes = t->ops->stream_trace_bytes(t->stream);
	if (windows)
		return thread_rebuild(t);
	from = r->ninsns;
	chunk_cache_forget(t, r->nchunks);
	if (restore(t))
		return thread_rebuild(t);
	err = t->ops->walk_resume(t->stream, keep, history_chunk_image, t, &walk);
	if (err)
		return thread_rebuild(t);
	err = index_walk(t->builder, walk, &keep);
	t->ops->walk_free(walk);
	if (err == NOT_RESUMED)
		return thread_rebuild(t);
	t->decoded = t->ninsns - from;
	return err;
}

int hwtr_history_extend(struct hwtr_history *h)
{
	const struct hwtr_recording_info *info;
	struct growth g = { 0 };
	size_t i, nthreads;
	int err;

	if (!h)
		return hwtr_fail(hwtr_err_invalid, "hwtr_history_extend: bad argument");
	if (h->tail_bytes)
		return hwtr_fail(hwtr_err_invalid, "hwtr_history_extend: a tail "
				 "history is not extended; build the whole one");
	info = hwtr_recording_info(h->recording);
	g.first_event = image_set_nevents(h->images);
	g.nevents = hwtr_recording_nevents(h->recording);
	for (i = g.first_event; i < g.nevents && !g.image; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(h->recording, i);

		/* Any of these may end a mapping or start one. */
		if (ev->kind == hwtr_ev_mmap || ev->kind == hwtr_ev_munmap ||
		    ev->kind == hwtr_ev_exec) {
			g.image = true;
			g.image_tsc = ev->tsc;	/* the earliest: in time order */
		}
	}
	if ((err = image_set_extend(h->images, h->recording)) ||
	    (err = symbolizer_extend(h->symbols, h->images)))
		return err;
	nthreads = h->nthreads;
	for (i = 0; i < info->nthreads; i++) {
		if (i >= nthreads)
			err = history_add_thread(h, i);
		if (!err)
			err = i < nthreads ? thread_extend(h->threads[i], &g)
					   : thread_build(h->threads[i]);
		if (err)
			return i < h->nthreads ? thread_failed(h->threads[i], err)
					       : err;
	}
	return 0;
}

void hwtr_history_free(struct hwtr_history *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nthreads; i++) {
		history_thread_release(h->threads[i]);
		free(h->threads[i]);
	}
	for (i = 0; h->cache && i < h->cache_slots; i++) {
		free(h->cache[i].insns);
		free(h->cache[i].stamps);
	}
	free(h->cache);
	free(h->lengths);
	free(h->failed_message);
	free(h->threads);
	if (h->index_map)
		munmap(h->index_map, h->index_map_size);
	if (h->decoder)
		h->ops->context_free(h->decoder);
	isa_close(h->isa);
	symbolizer_free(h->symbols);
	image_set_free(h->images);
	for (i = 0; h->debug_dirs && h->debug_dirs[i]; i++)
		free(h->debug_dirs[i]);
	free(h->debug_dirs);
	free(h);
}

size_t hwtr_history_nthreads(const struct hwtr_history *h)
{
	return h ? h->nthreads : 0;
}

struct hwtr_thread *hwtr_history_thread(struct hwtr_history *h, size_t index)
{
	return h && index < h->nthreads ? h->threads[index] : NULL;
}

struct hwtr_thread *hwtr_history_find_thread(struct hwtr_history *h,
					     uint32_t tid)
{
	size_t i;

	for (i = 0; h && i < h->nthreads; i++)
		if (h->threads[i]->tid == tid)
			return h->threads[i];
	return NULL;
}

/* A binary with a problem; anonymous memory is not a binary (its code only
 * matters if it runs, and then the gap says so). */
static bool binary_problem(const struct image_mapping *m)
{
	return m->problem && m->path && m->path[0];
}

size_t hwtr_history_nproblems(const struct hwtr_history *h)
{
	size_t i, n = 0;

	for (i = 0; h && i < image_set_count(h->images); i++)
		if (binary_problem(image_set_mapping(h->images, i)))
			n++;
	return n;
}

const char *hwtr_history_problem(const struct hwtr_history *h, size_t index)
{
	size_t i;

	for (i = 0; h && i < image_set_count(h->images); i++) {
		const struct image_mapping *m = image_set_mapping(h->images, i);

		if (binary_problem(m) && index-- == 0)
			return m->problem;
	}
	return NULL;
}

enum hwtr_index_source hwtr_history_index_source(const struct hwtr_history *h)
{
	return h ? h->index_source : hwtr_index_built;
}

struct hwtr_symbolizer *hwtr_history_symbolizer(struct hwtr_history *h)
{
	return h ? h->symbols : NULL;
}

int hwtr_thread_stats(const struct hwtr_thread *t, struct hwtr_thread_stats *s)
{
	if (!t || !s)
		return hwtr_fail(hwtr_err_invalid, "hwtr_thread_stats: bad argument");
	memset(s, 0, sizeof(*s));
	s->tid = t->tid;
	s->instructions = t->ninsns;
	s->segments = t->nsegments;
	s->gaps = t->ngaps;
	s->chunks = t->nchunks;
	s->trace_bytes = t->trace_bytes;
	s->decoded_instructions = t->decoded;
	s->rebuilt = t->rebuilt;
	s->build_threads = t->build_threads;
	s->chunks_searched = t->chunks_searched;
	s->index_bytes = t->nchunks * sizeof(*t->chunks) +
			 segments_resident(t) +
			 t->ngaps * sizeof(*t->gaps) +
			 (t->stream ? t->ops->stream_index_bytes(t->stream) : 0);
	return 0;
}

int hwtr_thread_context_ids(const struct hwtr_thread *t, const uint32_t **ids,
			    size_t *count)
{
	if (!t || !ids || !count)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_thread_context_ids: bad argument");
	*ids = NULL;
	*count = 0;
	if (t->stream && t->ops->stream_context_ids)
		*count = t->ops->stream_context_ids(t->stream, ids);
	return 0;
}

/* ------------------------------------------------------------- lookups */

size_t history_chunk_of(const struct hwtr_thread *t, uint64_t number)
{
	size_t lo = 0, hi = t->nchunks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->chunks[mid].first_insn <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* ------------------------------------------------------- the end, early */

/* Chunk starts tried back from the end before giving up: past them the end
 * is left to the built history. */
#define END_IP_CHUNKS 16

/* The last instruction's IP walking from chunk start START to the end of
 * T's trace: 1, or 0 when no instruction comes (or the walk cannot start
 * there), or a negative error. */
static int end_ip_from(struct hwtr_thread *t, uint64_t start, uint64_t *ip)
{
	struct decoder_walk *walk;
	struct walk_item item;
	int status, found = 0;

	if (t->ops->walk_at(t->stream, start, history_chunk_image, t, &walk) < 0)
		return 0;
	while ((status = t->ops->walk_next(walk, &item)) > 0)
		if (item.kind == walk_block) {
			*ip = item.block.end_ip;
			found = 1;
		}
	t->ops->walk_free(walk);
	return status < 0 ? status : found;
}

/* The end of the stream is searched from this many bytes before it, then
 * from 16 times as many, and so on: a packet scan of the whole stream
 * would cost seconds on a gigabyte of trace. */
#define END_WINDOW (1u << 20)

static int thread_end_ip(struct hwtr_thread *t, uint64_t *ip,
			 enum hwtr_end_ip_status *status)
{
	struct decoder_loss *losses = NULL;
	struct decoder_stream_info si;
	uint64_t window, kept_start, before, start;
	int err, tries, rc;

	*status = hwtr_end_ip_unknown;
	err = history_stream_info(t, &si, &losses);
	kept_start = si.trace_start;
	if (!err && si.size <= kept_start)
		*status = hwtr_end_ip_none;	/* no trace */
	for (window = END_WINDOW; !err && si.size > kept_start; window *= 16) {
		/* Decoding from a later start is decoding a ring's kept part:
		 * whatever precedes the first chunk start is not read. */
		si.trace_start = si.size - kept_start > window ? si.size - window
							      : kept_start;
		if ((err = t->ops->stream_open(t->history->decoder, &si, &t->stream)))
			break;
		before = UINT64_MAX;
		rc = 0;
		for (tries = 0; tries < END_IP_CHUNKS &&
				t->ops->chunk_start_before(t->stream, before, &start) > 0;
		     tries++) {
			rc = end_ip_from(t, start, ip);
			if (rc < 0)
				err = rc;
			if (rc != 0)
				break;
			before = start;
		}
		t->ops->stream_close(t->stream);
		t->stream = NULL;
		if (err)
			break;
		if (rc > 0) {
			*status = hwtr_end_ip_found;
			break;
		}
		/* Every chunk start of the whole trace tried: decoding can
		 * begin nowhere else, so no instruction will come. */
		if (si.trace_start == kept_start && tries < END_IP_CHUNKS)
			*status = hwtr_end_ip_none;
		if (si.trace_start == kept_start || tries == END_IP_CHUNKS ||
		    window > UINT64_MAX / 16)
			break;
	}
	free(losses);
	return err;
}

int hwtr_history_end_ips(struct hwtr_recording *rec,
			 const struct hwtr_history_options *options,
			 uint64_t *ips, enum hwtr_end_ip_status *status)
{
	const struct hwtr_recording_info *info;
	struct hwtr_history *h;
	size_t i;
	int err = 0;

	if (!rec || !ips || !status)
		return hwtr_fail(hwtr_err_invalid, "hwtr_history_end_ips: bad argument");
	info = hwtr_recording_info(rec);
	h = calloc(1, sizeof(*h));
	if (!h)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	h->recording = rec;
	h->ops = decoder_for_format(info->trace_format);
	if (!h->ops) {
		free(h);
		return hwtr_fail(hwtr_err_format, "%s: no decoder for trace format "
				 "\"%s\"", hwtr_recording_path(rec),
				 info->trace_format);
	}
	h->debug_dirs = copy_strings(options ? options->debug_dirs : NULL);
	if (!h->debug_dirs)
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
	if (!err)
		err = image_set_build(rec, (const char *const *)h->debug_dirs,
				      &h->images);
	if (!err)
		err = h->ops->context_alloc(h->images, &h->decoder);
	for (i = 0; !err && i < info->nthreads; i++) {
		status[i] = hwtr_end_ip_unknown;
		if ((err = history_add_thread(h, i)) ||
		    (err = thread_end_ip(h->threads[i], &ips[i], &status[i])))
			if (i < h->nthreads)
				thread_failed(h->threads[i], err);
	}
	hwtr_history_free(h);
	return err;
}
