/* pt-walks.c: the query walk of Intel PT (libhwtrecord/decode-pt-fast.c)
 * against libipt's block decoder (decode-pt.c), the oracle: both walks of
 * every thread, whole and chunk by chunk, item by item.  A difference
 * prints both items and aborts (the fuzzer keeps the input; a Check test
 * fails).  Used by fuzz-decoder.c and ../unit/test-decode-pt-fast.c. */
#include "pt-walks.h"

#include "history.h"
#include "insn-length.h"
#include "isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void differ(size_t n, const char *what, unsigned long long slow,
		   unsigned long long fast)
{
	fprintf(stderr, "pt-walks: item %zu: %s %#llx in the block decoder's "
		"walk, %#llx in the query walk\n", n, what, slow, fast);
	abort();
}

#define SAME(n, what, x, y)						\
	do {								\
		if ((x) != (y))						\
			differ(n, what, (unsigned long long)(x),	\
			       (unsigned long long)(y));		\
	} while (0)

static struct walk_item last_chunks[4096];

/* Epochs are numbered in the order a history's image met them (a built
 * history and one read from history.idx number them differently): the
 * same epoch is the same mappings in the same layering order. */
static bool same_epoch(struct hwtr_history *hs, unsigned es,
		       struct hwtr_history *hf, unsigned ef)
{
	const uint32_t *ls, *lf;
	size_t ns = image_epoch_layers(hs->images, es, &ls);
	size_t nf = image_epoch_layers(hf->images, ef, &lf);

	return ns == nf && (!ns || !memcmp(ls, lf, ns * sizeof(*ls)));
}

/* A, an item of the block walk in HS, and B, of the query walk in HF (two
 * histories of one recording). */
static void same_item(struct hwtr_history *hs, struct hwtr_history *hf,
		      const struct walk_item *a, const struct walk_item *b,
		      size_t n)
{
	SAME(n, "kind", a->kind, b->kind);
	switch (a->kind) {
	case walk_block: {
		const struct decoder_block *x = &a->block, *y = &b->block;

		SAME(n, "block ip", x->ip, y->ip);
		SAME(n, "block end_ip", x->end_ip, y->end_ip);
		SAME(n, "block ninsn", x->ninsn, y->ninsn);
		if (!same_epoch(hs, x->epoch, hf, y->epoch))
			differ(n, "block epoch (its mappings)", x->epoch, y->epoch);
		SAME(n, "block isa", x->isa, y->isa);
		SAME(n, "block speculative", x->speculative, y->speculative);
		SAME(n, "block truncated", x->truncated, y->truncated);
		SAME(n, "block size", x->size, y->size);
		if (x->truncated && memcmp(x->raw, y->raw, x->size))
			differ(n, "block raw bytes", 0, 1);
		SAME(n, "block timed", x->timed, y->timed);
		SAME(n, "block time", x->time, y->time);
		/* libipt leaves some classes out (those its block cache
		 * serves): the history classifies them from the bytes. */
		SAME(n, "block class", insn_block_class(hs->images, hs->isa, x),
		     insn_block_class(hf->images, hf->isa, y));
		break;
	}
	case walk_gap:
		SAME(n, "gap kind", a->gap, b->gap);
		SAME(n, "gap error", a->error, b->error);
		SAME(n, "gap no_code", a->no_code, b->no_code);
		SAME(n, "gap offset", a->offset, b->offset);
		SAME(n, "gap ip", a->ip, b->ip);
		SAME(n, "gap reason", !a->reason, !b->reason);
		if (a->reason && strcmp(a->reason, b->reason))
			differ(n, "gap reason text", 0, 1);
		break;
	case walk_chunk_start:
		SAME(n, "chunk offset", a->offset, b->offset);
		SAME(n, "chunk ip", a->ip, b->ip);
		break;
	}
}

/* A walk whose blocks are joined where one ends at an instruction that is
 * not a branch and the next follows it at once, at the same time: libipt
 * sometimes ends a block there (when its block cache is being filled), and
 * a block boundary that is not a branch means nothing to the history, which
 * splits blocks into instructions. */
struct joined_walk {
	struct hwtr_history *h;
	struct hwtr_thread *t;
	struct decoder_walk *walk;
	struct walk_item next;
	int next_rc;
	bool has_next;
};

static bool follows(struct hwtr_history *h, const struct decoder_block *a,
		    const struct decoder_block *b)
{
	uint8_t code[16];
	size_t n, len;

	if (insn_block_class(h->images, h->isa, a) != hwtr_ic_other ||
	    a->truncated || b->epoch != a->epoch || b->isa != a->isa ||
	    b->speculative != a->speculative || b->timed != a->timed ||
	    b->time != a->time || b->ip <= a->end_ip || b->ip - a->end_ip > 15)
		return false;
	n = image_epoch_read(h->images, a->epoch, a->end_ip, code, 15);
	len = isa_length(h->isa, (enum hwtr_isa)a->isa, code, n, a->end_ip);
	return len && a->end_ip + len == b->ip;
}

static int joined_next(struct joined_walk *j, struct walk_item *item)
{
	int rc;

	if (j->has_next) {
		j->has_next = false;
		*item = j->next;
		rc = j->next_rc;
	} else {
		rc = j->t->ops->walk_next(j->walk, item);
	}
	if (rc <= 0 || item->kind != walk_block)
		return rc;
	for (;;) {
		memset(&j->next, 0, sizeof(j->next));
		j->next_rc = j->t->ops->walk_next(j->walk, &j->next);
		if (j->next_rc > 0 && j->next.kind == walk_block &&
		    follows(j->h, &item->block, &j->next.block)) {
			item->block.end_ip = j->next.block.end_ip;
			item->block.ninsn += j->next.block.ninsn;
			item->block.iclass = j->next.block.iclass;
			item->block.truncated = j->next.block.truncated;
			item->block.size = j->next.block.size;
			memcpy(item->block.raw, j->next.block.raw,
			       sizeof(item->block.raw));
			continue;
		}
		j->has_next = true;
		return rc;
	}
}

/* A walk of T from the start (AT NULL) or from the chunk start *AT, or
 * NULL and *ERR: a chunk may not synchronise on its own (both walks must
 * then say so alike). */
static struct decoder_walk *walk_from(struct hwtr_thread *t, const uint64_t *at,
				      int *err)
{
	struct decoder_walk *walk = NULL;

	*err = at ? t->ops->walk_at(t->stream, *at, history_chunk_image, t,
				    &walk)
		  : t->ops->walk_begin(t->stream, history_chunk_image, t,
				       &walk);
	return *err ? NULL : walk;
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
	struct joined_walk slow = { .h = hs, .t = ts }, fast = { .h = hf, .t = tf };
	struct walk_item a, b;
	size_t n = 0;
	int es, ef;

	intel_pt_use_query_walk(hs->decoder, false);
	intel_pt_use_query_walk(hf->decoder, true);
	slow.walk = walk_from(ts, at, &es);
	fast.walk = walk_from(tf, at, &ef);
	SAME(n, "the walk's start", es, ef);
	if (es)
		return 0;
	for (;; n++) {
		int rs, rf;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		rs = joined_next(&slow, &a);
		rf = joined_next(&fast, &b);
		SAME(n, "walk_next's result", rs, rf);
		if (rs <= 0)
			break;
		same_item(hs, hf, &a, &b, n);
		if (a.kind == walk_chunk_start) {
			if (at && n > 0)
				break;	/* the next chunk: done */
			if (nchunks && *nchunks < sizeof(last_chunks) /
						   sizeof(last_chunks[0]))
				last_chunks[(*nchunks)++] = a;
		}
	}
	ts->ops->walk_free(slow.walk);
	tf->ops->walk_free(fast.walk);
	return n;
}

/* Walk every thread of H once, from its start to its end, with the walk
 * H's decoder is set to. */
static void walk_all(struct hwtr_history *h)
{
	size_t i;

	for (i = 0; i < h->nthreads; i++) {
		struct decoder_walk *w;
		struct walk_item item;
		int err;

		if (!h->threads[i]->stream ||
		    !(w = walk_from(h->threads[i], NULL, &err)))
			continue;	/* an empty stream, or none */
		while (h->threads[i]->ops->walk_next(w, &item) > 0)
			;
		h->threads[i]->ops->walk_free(w);
	}
}

/* Walk all of H with the block decoder WARM times. */
static void warm(struct hwtr_history *h, int times)
{
	intel_pt_use_query_walk(h->decoder, false);
	for (; times > 0; times--)
		walk_all(h);
}

/* Every thread of REC, whole and chunk by chunk; *STATS: what the query
 * walks did. */
int pt_walks_same(struct hwtr_recording *rec, bool each_chunk, int warm_walks,
		  struct fast_stats *stats)
{
	struct hwtr_history *hs, *hf;
	size_t i, k;

	if (hwtr_history_build(rec, NULL, &hs) < 0)
		return -1;
	if (hwtr_history_build(rec, NULL, &hf) < 0) {
		fprintf(stderr, "pt-walks: the recording built once, not twice: "
			"%s\n", hwtr_last_error());
		abort();
	}
	SAME(0, "thread count", hs->nthreads, hf->nthreads);
	/* libipt's blocks before an error depend on what its block cache
	 * has seen (a partial block of one or two instructions): two walks
	 * bring both caches to the same state. */
	warm(hs, warm_walks);
	warm(hf, warm_walks);
	for (i = 0; i < hs->nthreads; i++) {
		struct hwtr_thread *ts = hs->threads[i], *tf = hf->threads[i];
		size_t nchunks = 0;

		SAME(0, "stream", !ts->stream, !tf->stream);
		if (!ts->stream)
			continue;	/* an empty stream */
		compare_walk(hs, ts, hf, tf, NULL, &nchunks);
		for (k = 0; each_chunk && k < nchunks; k++)
			compare_walk(hs, ts, hf, tf, &last_chunks[k].offset, NULL);
	}
	intel_pt_query_stats(hf->decoder, stats);
	hwtr_history_free(hs);
	hwtr_history_free(hf);
	return 0;
}


double pt_walk_seconds(struct hwtr_recording *rec, bool query)
{
	struct hwtr_history *h;
	struct timespec t0, t1;

	if (hwtr_history_build(rec, NULL, &h) < 0)
		return -1;
	intel_pt_use_query_walk(h->decoder, query);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	walk_all(h);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	hwtr_history_free(h);
	return (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}
