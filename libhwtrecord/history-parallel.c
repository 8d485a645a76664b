/* history-parallel.c: a thread's index pass on several cores.
 *
 * A chunk start resets the decoder (decoder.h), so the walk's items from a
 * chunk start on depend only on the trace from there: the trace is cut at
 * chunk starts into units (UNIT_BYTES_*), and build threads (one per
 * online CPU, HWTREC_BUILD_THREADS) walk units at the same time, each with
 * a decoder lane of its own (decoder_ops.lane_alloc), its own instruction
 * set tables (capstone handles are per thread) and the shared image and
 * symbols, only read.  A build thread does what is per block: libipt's
 * decoding, the last instruction's class, the chunk's line filter and code
 * ranges (in the chunk's block order, as the sequential pass), and it
 * merges blocks in a row that cannot change the function segment (a block
 * in the same function, after one that does not call, return or jump) into
 * one run (index-builder.h).  The caller's thread then feeds the units'
 * chunk starts, runs and gaps, in trace order, to the same builder steps
 * as the sequential pass (history.c): call depths, segment links across
 * chunk edges, instruction numbers and gap numbers all come out of that one
 * ordered pass, so the index is the sequential pass's, byte for byte
 * (testsuite/record/parallel-build.test compares the saved files).  At most
 * UNITS_IN_FLIGHT units per build thread wait to be stitched, so memory
 * stays near the sequential pass's.
 *
 * The code the walks ask for before each chunk (history_chunk_image) is
 * looked up before the threads start, for every chunk start of the stream:
 * an image epoch is made on first use and the image's tables may not grow
 * while threads read them.  Where the units do not fit the sequential pass
 * (a unit's walk does not reach the next unit's chunk start, a chunk start
 * with no epoch looked up, symbols that overlap so that the run's function
 * differs, an error), the pass is done again on one thread
 * (PARALLEL_NOT_DONE), which gives the sequential pass's answer, error
 * included.
 */
#include "history-parallel.h"

#include "block-functions.h"
#include "decoded-block.h"
#include "error.h"
#include "index-builder.h"
#include "insn-length.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Units of trace: about 1/32 of a build thread's share, so that the threads
 * end together, but 16 KiB (a few chunks: the cost of starting a walk is
 * small beside them) at most and at least: the units in flight are memory,
 * since call-heavy code packs 3 M instructions, 400,000 runs of 56 bytes,
 * into 64 KiB of trace (a 1 G-instruction fib built in 154 MB with units of
 * 64 KiB, in 72 MB with these). */
#define UNITS_PER_THREAD 32
#define UNIT_BYTES_MIN (16u << 10)
#define UNIT_BYTES_MAX (16u << 10)
#define UNITS_IN_FLIGHT 3	/* per build thread */
#define MAX_BUILD_THREADS 64

unsigned history_build_threads(void)
{
	const char *env = getenv("HWTREC_BUILD_THREADS");
	long n;

	if (env && *env) {
		char *end;

		n = strtol(env, &end, 10);
		if (*end || n < 1)
			n = 1;
	} else {
		n = sysconf(_SC_NPROCESSORS_ONLN);
	}
	if (n < 1)
		n = 1;
	return n > MAX_BUILD_THREADS ? MAX_BUILD_THREADS : (unsigned)n;
}

enum record_kind { record_run, record_chunk, record_gap };

struct record {
	enum record_kind kind;
	union {
		struct block_run run;
		uint64_t offset;	/* record_chunk */
		size_t gap;		/* record_gap: in the unit's gaps */
	} u;
};

enum unit_state { unit_waiting, unit_done, unit_failed };

/* A chunk's summary of the code it ran, as struct chunk holds it. */
struct chunk_code {
	uint8_t lines[LINE_FILTER_BYTES];
	struct code_ranges ranges;
};

/* The trace from one chunk start up to the next unit's. */
struct unit {
	uint64_t from;		/* its chunk start (the first: the stream's start) */
	uint64_t to;		/* the next unit's chunk start, or UINT64_MAX */
	enum unit_state state;
	struct record *records;
	size_t nrecords, cap_records;
	struct walk_item *gaps;
	size_t ngaps, cap_gaps;
	/* What each chunk ran: [0] for blocks before the unit's first chunk
	 * start (the first unit's), then one per chunk start, in order. */
	struct chunk_code *code;
	size_t ncode, cap_code;
};

/* Units' buffers, kept for the next units: memory freed and taken again
 * at every unit would cost page faults. */
struct unit_buffers {
	struct record *records;
	size_t cap_records;
	struct walk_item *gaps;
	size_t cap_gaps;
	struct chunk_code *code;
	size_t cap_code;
};

struct chunk_epoch {
	uint64_t offset;
	unsigned epoch;
};

struct pass {
	struct hwtr_thread *thread;
	struct unit *units;
	size_t nunits;
	struct chunk_epoch *epochs;	/* of every chunk start, by offset */
	size_t nepochs;
	pthread_mutex_t lock;
	pthread_cond_t unit_ended;	/* a unit is done or failed */
	pthread_cond_t room;		/* a unit was stitched, or stop */
	size_t next;		/* the next unit to walk */
	size_t stitched;	/* units stitched so far */
	size_t window;		/* units walked ahead of the stitching */
	bool stop;
	struct unit_buffers *spare;	/* buffers of stitched units */
	size_t nspare;		/* up to window + 1 */
};

/* A build thread's own cache of functions by IP (the symbolizer's is not
 * shared between threads): code without symbols is looked up at every
 * block. */
#define FUNCTION_SLOTS 4096
struct function_slot {
	uint64_t ip_plus_one;	/* 0: empty */
	unsigned epoch;
	uint32_t function;
};

struct worker {
	struct pass *pass;
	pthread_t id;
	bool started;
	struct decoder_context *lane;
	struct isa *isa;
	bool epoch_missing;	/* a chunk start without a looked-up epoch */
	struct line_memo lines_seen;
	struct code_ranges_memo blocks_seen;
	uint64_t chunk_stamp;	/* the last chunk's (builder_chunk_stamp) */
	struct fn_memo fn;	/* the last instruction's function */
	struct function_slot functions[FUNCTION_SLOTS];
};

/* ----------------------------------------------------------- a unit */

static int unit_record(struct unit *u, struct record **out)
{
	int err = history_grow((void **)&u->records, &u->cap_records, u->nrecords,
			       sizeof(*u->records));

	if (err)
		return err;
	*out = &u->records[u->nrecords++];
	return 0;
}

static int unit_new_code(struct unit *u)
{
	int err = history_grow((void **)&u->code, &u->cap_code, u->ncode,
			       sizeof(*u->code));

	if (!err)
		memset(&u->code[u->ncode++], 0, sizeof(*u->code));
	return err;
}

static void unit_release(struct unit *u)
{
	free(u->records);
	free(u->gaps);
	free(u->code);
	u->records = NULL;
	u->gaps = NULL;
	u->code = NULL;
	u->nrecords = u->ngaps = u->ncode = 0;
	u->cap_records = u->cap_gaps = u->cap_code = 0;
}

/* Unit U, stitched, gives its buffers back (P's lock held). */
static void unit_spare(struct pass *p, struct unit *u)
{
	struct unit_buffers *b;

	if (p->nspare > p->window) {
		unit_release(u);
		return;
	}
	b = &p->spare[p->nspare++];
	b->records = u->records;
	b->cap_records = u->cap_records;
	b->gaps = u->gaps;
	b->cap_gaps = u->cap_gaps;
	b->code = u->code;
	b->cap_code = u->cap_code;
	memset(u, 0, sizeof(*u));
}

/* Unit U, about to be walked, takes spare buffers (P's lock held). */
static void unit_reuse(struct pass *p, struct unit *u)
{
	struct unit_buffers *b;

	if (!p->nspare)
		return;
	b = &p->spare[--p->nspare];
	u->records = b->records;
	u->cap_records = b->cap_records;
	u->gaps = b->gaps;
	u->cap_gaps = b->cap_gaps;
	u->code = b->code;
	u->cap_code = b->cap_code;
}

/* The epoch looked up for the chunk start at OFFSET (a decoder_image_fn). */
static int looked_up_image(void *ctx, uint64_t offset, unsigned *epoch)
{
	struct worker *w = ctx;
	const struct pass *p = w->pass;
	size_t lo = 0, hi = p->nepochs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->epochs[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nepochs && p->epochs[lo].offset == offset) {
		*epoch = p->epochs[lo].epoch;
		return 0;
	}
	w->epoch_missing = true;
	return hwtr_fail(hwtr_err_decode, "no image looked up for chunk "
			 "start %llu", (unsigned long long)offset);
}

/* symbolizer_function for a build thread (a fn_lookup_fn). */
static uint32_t worker_lookup(void *ctx, unsigned epoch, uint64_t ip)
{
	struct worker *w = ctx;
	struct function_slot *slot =
		&w->functions[((ip ^ (ip >> 12)) * 0x9e3779b97f4a7c15ULL) >> 52];

	if (slot->ip_plus_one != ip + 1 || slot->epoch != epoch) {
		slot->ip_plus_one = ip + 1;
		slot->epoch = epoch;
		slot->function = symbolizer_function_uncached(
			w->pass->thread->history->symbols, epoch, ip);
	}
	return slot->function;
}

/* Can the instructions from IP in EPOCH (of function FID) go on in RUN,
 * whose instructions are in function RUN->function from FN_START to
 * FN_END?  Only where the sequential pass keeps the segment (segments.c
 * plan_next): the last instruction neither called nor returned, and a jump
 * neither went to the function's start (a tail call) nor left a function
 * that unwinds or longjmps (history.c goes_on: the same rule); and the
 * pass finds the run's function (block-functions.h): in its range and
 * image, or, code without a function (0), from the symbols. */
static bool mergeable(const struct hwtr_symbolizer *s,
		      const struct block_run *run, uint64_t fn_start,
		      uint64_t fn_end, uint64_t ip, unsigned epoch, uint32_t fid)
{
	if (run->iclass == hwtr_ic_call || run->iclass == hwtr_ic_return ||
	    fid != run->function)
		return false;
	if (run->iclass == hwtr_ic_jump &&
	    (symbolizer_function_start(s, fid) == ip ||
	     (symbolizer_function_traits(s, fid) &
	      (SYMBOL_UNWINDER | SYMBOL_LONGJMP))))
		return false;
	return fid == 0 || (epoch == run->epoch && ip >= fn_start && ip < fn_end);
}

/* The run a unit's blocks go on in: its record, and its function's range. */
struct open_run {
	struct record *run;	/* in u->records, or NULL */
	size_t index;
	uint64_t start, end;
};

/* BLOCK (its class known) into U's records: runs split where its function
 * changes, merged into the open run OPEN where they may be. */
static int unit_block(struct worker *w, struct unit *u, struct open_run *open,
		      const struct decoder_block *block)
{
	const struct hwtr_thread *t = w->pass->thread;
	const struct hwtr_symbolizer *s = t->history->symbols;
	/* The part of the block still to add: the block itself until it is
	 * split, not a copy (history.c's builder_block says why). */
	const struct decoder_block *part = block;
	struct decoder_block rest;
	struct record *r;
	int err;

	for (;;) {
		uint64_t last_ip, split_ip;
		uint32_t fid, n;
		uint8_t iclass;
		/* fn_memo_at, without its call where the memo tells a
		 * function (it would change nothing) */
		bool looked_up = !fn_memo_known(&w->fn, part->ip, part->epoch,
						&fid);

		if (looked_up || !fid)
			fid = fn_memo_at(&w->fn, s, worker_lookup, w, part->ip,
					 part->epoch);
		n = fn_block_split(&w->fn, s, t->history->images, w->isa, part,
				   &last_ip, &split_ip);
		iclass = n == part->ninsn ? part->iclass : hwtr_ic_other;

		if (open->run &&
		    mergeable(s, &open->run->u.run, open->start, open->end,
			      part->ip, part->epoch, fid)) {
			struct block_run *m = &open->run->u.run;

			m->ninsn += n;
			m->end_ip = last_ip;
			m->last_epoch = part->epoch;
			m->iclass = iclass;
			m->isa = part->isa;
		} else {
			if ((err = unit_record(u, &r)))
				return err;
			r->kind = record_run;
			r->u.run = (struct block_run){
				.ip = part->ip, .end_ip = last_ip,
				.ninsn = n, .epoch = part->epoch,
				.last_epoch = part->epoch,
				.function = fid, .iclass = iclass,
				.isa = part->isa, .checked = true,
				.looked_up = looked_up,
			};
			open->index = u->nrecords - 1;
			open->start = w->fn.start;
			open->end = w->fn.end;
		}
		/* The records may have moved. */
		open->run = &u->records[open->index];
		if (n == part->ninsn)
			return 0;
		if (part == block) {
			rest = *block;
			part = &rest;
		}
		rest.ip = split_ip;
		rest.ninsn -= n;
	}
}

/* The block from IP to END_IP into the last chunk's filter and ranges. */
static void unit_add_code(struct worker *w, struct unit *u, uint64_t ip,
			  uint64_t end_ip)
{
	line_filter_add_new(u->code[u->ncode - 1].lines, &w->lines_seen, ip,
			    end_ip);
	code_ranges_add_new(&u->code[u->ncode - 1].ranges, &w->blocks_seen, ip,
			    end_ip);
}

/* One of the walk's cached blocks (decoder.h: walk_take_blocks), added to
 * the chunk's filter and ranges once a chunk, as history.c's
 * builder_cached_blocks. */
static int unit_cached_block(struct worker *w, struct unit *u,
			     struct open_run *open, struct decoded_block *cb)
{
	struct decoder_block d = {
		.ip = cb->ip, .end_ip = cb->end_ip, .ninsn = cb->ninsn,
		.epoch = cb->epoch, .iclass = cb->iclass, .isa = hwtr_isa_x86_64,
	};
	int err;

	if (d.iclass == DECODER_UNCLASSIFIED)
		d.iclass = (uint8_t)insn_block_class(
			w->pass->thread->history->images, w->isa, &d);
	if ((err = unit_block(w, u, open, &d)))
		return err;
	if (cb->pass_chunk != w->chunk_stamp) {
		cb->pass_chunk = w->chunk_stamp;
		unit_add_code(w, u, d.ip, d.end_ip);
	}
	return 0;
}

/* Walk unit K: 0, or an error / PARALLEL_NOT_DONE (it does not fit the
 * sequential pass). */
static int walk_unit(struct worker *w, size_t k)
{
	struct pass *p = w->pass;
	struct hwtr_thread *t = p->thread;
	struct unit *u = &p->units[k];
	struct decoder_walk *walk;
	struct walk_item item;
	struct open_run open = { .run = NULL };
	bool first = true, reached = false;
	int status, err;

	w->epoch_missing = false;
	if ((err = t->ops->walk_in_lane(t->stream, w->lane, k ? &u->from : NULL,
					looked_up_image, w, &walk)))
		return err;
	if ((err = unit_new_code(u)))
		goto out;
	line_memo_reset(&w->lines_seen);
	code_ranges_memo_reset(&w->blocks_seen);
	w->chunk_stamp = builder_chunk_stamp();
	while ((status = t->ops->walk_next(walk, &item)) > 0) {
		struct record *r;

		/* A unit but the first starts with its chunk start. */
		if (first && k && (item.kind != walk_chunk_start ||
				   item.offset != u->from)) {
			err = PARALLEL_NOT_DONE;
			break;
		}
		if (item.kind == walk_chunk_start && !(first && k) &&
		    item.offset >= u->to) {
			reached = item.offset == u->to;
			break;
		}
		first = false;
		if (item.kind != walk_block)
			open.run = NULL;
		if (item.kind == walk_chunk_start) {
			if ((err = unit_record(u, &r)) || (err = unit_new_code(u)))
				break;
			r->kind = record_chunk;
			r->u.offset = item.offset;
			line_memo_reset(&w->lines_seen);
			code_ranges_memo_reset(&w->blocks_seen);
			w->chunk_stamp = builder_chunk_stamp();
		} else if (item.kind == walk_gap) {
			if ((err = unit_record(u, &r)) ||
			    (err = history_grow((void **)&u->gaps, &u->cap_gaps,
						u->ngaps, sizeof(*u->gaps))))
				break;
			r->kind = record_gap;
			r->u.gap = u->ngaps;
			u->gaps[u->ngaps++] = item;
		} else {
			struct decoded_block *const *more;
			size_t i, n;

			item.block.iclass = (uint8_t)insn_block_class(
				t->history->images, w->isa, &item.block);
			if ((err = unit_block(w, u, &open, &item.block)))
				break;
			/* As history.c's builder_block: a block the ranges'
			 * memo holds is in the filter too. */
			if (!code_ranges_memo_holds(&w->blocks_seen, item.block.ip,
						    item.block.end_ip))
				unit_add_code(w, u, item.block.ip,
					      item.block.end_ip);
			n = t->ops->walk_take_blocks ?
				t->ops->walk_take_blocks(walk, &more) : 0;
			for (i = 0; i < n && !err; i++)
				err = unit_cached_block(w, u, &open, more[i]);
			if (err)
				break;
		}
	}
	if (!err && status < 0)
		err = status;
	if (!err && status == 0)
		reached = u->to == UINT64_MAX;
	if (!err && (!reached || w->epoch_missing))
		err = PARALLEL_NOT_DONE;
out:
	t->ops->walk_free(walk);
	return err;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pass *p = w->pass;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t k;
		int err;

		while (!p->stop && p->next < p->nunits &&
		       p->next >= p->stitched + p->window)
			pthread_cond_wait(&p->room, &p->lock);
		if (p->stop || p->next >= p->nunits)
			break;
		k = p->next++;
		unit_reuse(p, &p->units[k]);
		pthread_mutex_unlock(&p->lock);
		err = walk_unit(w, k);
		pthread_mutex_lock(&p->lock);
		p->units[k].state = err ? unit_failed : unit_done;
		pthread_cond_broadcast(&p->unit_ended);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ------------------------------------------------------------ stitching */

/* Add what a build thread found a chunk ran to the thread's last chunk. */
static void add_code(struct hwtr_thread *t, const struct chunk_code *code)
{
	struct chunk *c;
	size_t i;

	if (t->nchunks == 0)
		return;
	c = &t->chunks[t->nchunks - 1];
	for (i = 0; i < LINE_FILTER_BYTES; i++)
		c->lines[i] |= code->lines[i];
	code_ranges_merge(&c->ranges, &code->ranges);
}

/* Feed unit U's items to the thread's builder, in order. */
static int stitch_unit(struct hwtr_thread *t, const struct unit *u)
{
	struct builder *b = t->builder;
	size_t i, code = 0;
	int err = 0;

	for (i = 0; !err && i < u->nrecords; i++) {
		const struct record *r = &u->records[i];

		switch (r->kind) {
		case record_chunk:
			add_code(t, &u->code[code++]);
			err = builder_chunk_start(b, r->u.offset);
			break;
		case record_run:
			err = builder_run(b, &r->u.run);
			break;
		case record_gap:
			err = builder_gap(b, &u->gaps[r->u.gap]);
			break;
		}
	}
	if (!err)
		add_code(t, &u->code[code]);
	return err;
}

/* ------------------------------------------------------------ the pass */

/* The stream's chunk starts, by offset, and the epoch of each. */
static int look_up_chunks(struct pass *p)
{
	struct hwtr_thread *t = p->thread;
	uint64_t before = UINT64_MAX, start;
	size_t n = 0, cap = 0, i;
	int err;

	while (t->ops->chunk_start_before(t->stream, before, &start) > 0) {
		if ((err = history_grow((void **)&p->epochs, &cap, n,
					sizeof(*p->epochs))))
			return err;
		p->epochs[n++].offset = start;
		before = start;
	}
	for (i = 0; i < n / 2; i++) {
		struct chunk_epoch x = p->epochs[i];

		p->epochs[i] = p->epochs[n - 1 - i];
		p->epochs[n - 1 - i] = x;
	}
	p->nepochs = n;
	for (i = 0; i < n; i++)
		if ((err = history_chunk_image(t, p->epochs[i].offset,
					       &p->epochs[i].epoch)) < 0)
			return err;
	return 0;
}

/* Cut the trace into units at chunk starts UNIT_BYTES or more apart. */
static int cut_units(struct pass *p, unsigned nworkers)
{
	uint64_t unit_bytes = p->thread->trace_bytes / nworkers / UNITS_PER_THREAD;
	size_t i, n = 0;
	uint64_t from;

	if (unit_bytes < UNIT_BYTES_MIN)
		unit_bytes = UNIT_BYTES_MIN;
	if (unit_bytes > UNIT_BYTES_MAX)
		unit_bytes = UNIT_BYTES_MAX;
	if (p->nepochs < 2)
		return 0;
	p->units = calloc(p->nepochs, sizeof(*p->units));
	if (!p->units)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	from = p->epochs[0].offset;
	p->units[n++].from = 0;		/* the first walks from the start */
	for (i = 1; i < p->nepochs; i++)
		if (p->epochs[i].offset - from >= unit_bytes) {
			from = p->epochs[i].offset;
			p->units[n - 1].to = from;
			p->units[n++].from = from;
		}
	p->units[n - 1].to = UINT64_MAX;
	p->nunits = n;
	return 0;
}

static int start_workers(struct pass *p, struct worker *w, unsigned nworkers)
{
	struct hwtr_thread *t = p->thread;
	unsigned i;
	int err;

	for (i = 0; i < nworkers; i++) {
		w[i].pass = p;
		if ((err = t->ops->lane_alloc(t->history->decoder, &w[i].lane)) ||
		    (err = isa_open(&w[i].isa)))
			return err;
	}
	for (i = 0; i < nworkers; i++) {
		if (pthread_create(&w[i].id, NULL, worker_main, &w[i]))
			return hwtr_fail(hwtr_err_nomem, "cannot start a build thread");
		w[i].started = true;
	}
	return 0;
}

static void stop_workers(struct pass *p, struct worker *w, unsigned nworkers)
{
	struct hwtr_thread *t = p->thread;
	unsigned i;

	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < nworkers; i++) {
		if (w[i].started)
			pthread_join(w[i].id, NULL);
		if (w[i].lane)
			t->ops->context_free(w[i].lane);
		isa_close(w[i].isa);
	}
}

/* Stitch the units in order as the build threads finish them. */
static int stitch_all(struct pass *p)
{
	struct hwtr_thread *t = p->thread;
	size_t k;
	int err = 0;

	for (k = 0; !err && k < p->nunits; k++) {
		struct unit *u = &p->units[k];

		pthread_mutex_lock(&p->lock);
		while (u->state == unit_waiting)
			pthread_cond_wait(&p->unit_ended, &p->lock);
		pthread_mutex_unlock(&p->lock);
		err = u->state == unit_failed ? PARALLEL_NOT_DONE
					      : stitch_unit(t, u);
		pthread_mutex_lock(&p->lock);
		unit_spare(p, u);
		p->stitched = k + 1;
		pthread_cond_broadcast(&p->room);
		pthread_mutex_unlock(&p->lock);
	}
	if (!err)
		builder_finish(t->builder);
	return err;
}

int history_parallel_pass(struct hwtr_thread *t, unsigned nworkers)
{
	struct pass p = { .thread = t };
	struct worker *w;
	size_t k;
	int err;

	if (nworkers < 2 || !t->ops->lane_alloc || !t->ops->walk_in_lane)
		return PARALLEL_NOT_DONE;
	if ((err = look_up_chunks(&p)) || (err = cut_units(&p, nworkers)) || p.nunits < 2) {
		free(p.epochs);
		free(p.units);
		return PARALLEL_NOT_DONE;
	}
	p.window = (size_t)nworkers * UNITS_IN_FLIGHT;
	w = calloc(nworkers, sizeof(*w));
	p.spare = calloc(p.window + 1, sizeof(*p.spare));
	if (!w || !p.spare || pthread_mutex_init(&p.lock, NULL)) {
		free(w);
		free(p.spare);
		free(p.epochs);
		free(p.units);
		return PARALLEL_NOT_DONE;
	}
	pthread_cond_init(&p.unit_ended, NULL);
	pthread_cond_init(&p.room, NULL);
	err = start_workers(&p, w, nworkers);
	if (!err)
		err = stitch_all(&p);
	stop_workers(&p, w, nworkers);
	for (k = 0; k < p.nunits; k++)
		unit_release(&p.units[k]);
	for (k = 0; k < p.nspare; k++) {
		free(p.spare[k].records);
		free(p.spare[k].gaps);
		free(p.spare[k].code);
	}
	free(p.spare);
	pthread_cond_destroy(&p.unit_ended);
	pthread_cond_destroy(&p.room);
	pthread_mutex_destroy(&p.lock);
	free(w);
	free(p.epochs);
	free(p.units);
	return err ? PARALLEL_NOT_DONE : 0;
}
