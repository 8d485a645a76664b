/* decode-pt.c: the Intel PT decoder (decoder.h), with libipt.
 *
 * Chunk starts: libipt reports each PSB+ that finds tracing enabled as a
 * status-update exec-mode event at the PSB's FUP IP, but does not say which
 * PSB it came from.  A packet scan lists the PSBs first; the walk pairs each
 * status event with the next scanned PSB that has a FUP and a MODE.Exec, and
 * checks that the IPs agree.  After an error the decoder resynchronises at
 * the next PSB (pt_blk_sync_forward), whose offset libipt does report.
 *
 * Losses (decoder.h): libipt's decoder is given the stream up to the next
 * loss as its whole trace, so it cannot read a packet across one; at its end
 * the walk reports the loss as a gap and synchronises at the first PSB after
 * it with a decoder that ends at the loss after that.  A loss whose offset
 * holds an OVF packet is marked in the stream already (the hwt source writes
 * OVF and a FUP where the next PSB+ resumes): libipt's overflow is its gap.
 *
 * Blocks end at every call and jump (end_on_call, end_on_jump), so only a
 * block's last instruction can change the function: the history needs no
 * per-instruction decoding to build function segments.
 *
 * Code: libipt decodes with its own images (sections in a shared section
 * cache, so its block cache works); each is built from one epoch of the
 * history's image, with the same mappings in the same order, so libipt reads
 * exactly the bytes the history reads.
 *
 * The query walk (decode-pt-fast.c; HWTREC_PT_WALK=block turns it off)
 * walks a plain chunk with libipt's query decoder and cached blocks instead;
 * every chunk it does not model is walked here, from its PSB, as before.  A
 * chunk start found by the query walk restarts the block decoder only when
 * the next chunk needs it (pending_restart).
 *
 * Our names here start with intel_pt_: pt_ is libipt's prefix.
 */
#define _GNU_SOURCE /* memmem */
#include "decode-pt.h"
#include "decode-pt-fast.h"

#include "error.h"
#include "page-release.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per history: libipt's section cache and one image per epoch.  A lane
 * (lane_alloc: the walks of one build thread) has images of its own, since
 * libipt's pt_image reorders its sections as it reads, and shares the
 * history's section cache, which libipt locks itself; the table of section
 * ids is shared under LOCK. */
struct decoder_context {
	struct image_set *images;
	struct pt_image_section_cache *iscache;	/* the root's */
	int *isids;		/* per mapping: 0 not added yet, < 0 failed */
	size_t nisids;		/* grows with the image (history_extend) */
	struct pt_image **by_epoch;
	unsigned nepochs;
	struct decoder_context *root;	/* a lane's history context, or NULL */
	pthread_mutex_t lock;	/* the root's: its isids, its stats */
	/* The query walk: on or not, and per lane its block cache and its
	 * instruction lengths (capstone handles are per thread). */
	bool query_walk;
	struct isa *isa;
	struct decoded_blocks blocks;
	struct fast_stats stats;	/* the root's: all lanes' when freed */
};

/* Per stream: the libipt configuration and the PSB scan. */
struct intel_pt_stream {
	struct decoder_context *context;
	struct pt_config config;
	struct psb_scan scan;
	uint64_t trace_start;
};

struct intel_pt_walk {
	struct pt_block_decoder *decoder;
	struct pt_config config;	/* the whole stream */
	uint64_t size;		/* of the stream */
	uint64_t seg_end;	/* the decoder's end: the next loss, or size */
	const struct psb_scan *scan;
	size_t next_psb;	/* scan index of the next chunk-start candidate */
	int status;		/* libipt status of the last call */
	bool started;		/* synchronised at least once */
	bool ended;
	bool sync_chunk;	/* just synchronised: report a chunk start */
	uint64_t sync_offset;
	bool swallow_status;	/* the sync PSB's own status event is due */
	bool enabled_seen;	/* an instruction was decoded since sync */
	bool truncation_reported;
	bool end_loss_reported;
	const struct psb_info *deferred_chunk;	/* reported after a gap */
	uint64_t deferred_ip;
	uint64_t start;
	struct decoder_context *context;
	decoder_image_fn image_for;
	void *image_ctx;
	unsigned epoch;		/* of the chunk being decoded */
	uint64_t stuck_offset;	/* trace offset while no packet is read */
	unsigned stuck_blocks;	/* blocks decoded without reading one */
	/* The time before the block being read (decoder_block.time) */
	bool block_timed;
	uint64_t block_time;
	/* The query walk (decode-pt-fast.h): the chunk start to walk it from
	 * next, its query decoder, the walked chunk being handed out, and the
	 * chunk start at its end, where the block decoder restarts only if
	 * the query walk does not go on. */
	const struct psb_info *query_from;
	struct pt_query_decoder *query;
	uint64_t query_end;
	struct fast_chunk chunk;
	size_t chunk_pos;
	size_t time_pos;	/* chunk.times' entry for chunk_pos */
	const struct psb_info *chunk_end;
	const struct psb_info *pending_restart;
	bool query_walk;	/* the context's choice when the walk began */
};

/* Code that jumps to itself (jmp .) runs without trace: libipt would
 * follow it forever.  After this many blocks without reading a packet the
 * walk gives up there, as perf's decoder does (INTEL_PT_MAX_LOOPS). */
#define MAX_BLOCKS_WITHOUT_TRACE 100000

void intel_pt_config_from_recording(struct pt_config *config,
			            const struct hwtr_pt_config *pt,
			            const uint8_t *bytes, size_t size)
{
	static const uint8_t nothing[1];

	if (!bytes)	/* an empty stream is not mapped */
		bytes = nothing;
	pt_config_init(config);
	config->begin = (uint8_t *)bytes;
	config->end = (uint8_t *)bytes + size;
	if (!strcmp(pt->vendor, "intel")) {
		config->cpu.vendor = pcv_intel;
		config->cpu.family = pt->family;
		config->cpu.model = pt->model;
		config->cpu.stepping = pt->stepping;
		pt_cpu_errata(&config->errata, &config->cpu);
	}
	config->cpuid_0x15_eax = pt->cpuid_0x15_eax;
	config->cpuid_0x15_ebx = pt->cpuid_0x15_ebx;
	config->mtc_freq = pt->mtc_freq;
	config->nom_freq = pt->nom_freq;
	config->flags.variant.block.end_on_call = 1;
	config->flags.variant.block.end_on_jump = 1;
}

static uint64_t psb_fup_ip(const struct pt_packet_ip *ip)
{
	/* Inside PSB+ the last IP is reset, so compression is relative to 0. */
	switch (ip->ipc) {
	case pt_ipc_sext_48:
		return (uint64_t)((int64_t)(ip->ip << 16) >> 16);
	default:
		return ip->ip;
	}
}

/* The offset of the first PSB at or after FROM (a search for its pattern,
 * as libipt's own synchronisation does), or SIZE. */
static uint64_t find_psb(const uint8_t *bytes, uint64_t size, uint64_t from)
{
	static const uint8_t psb[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					 0x02, 0x82, 0x02, 0x82 };
	const uint8_t *p;

	if (from >= size)
		return size;
	p = memmem(bytes + from, size - from, psb, sizeof(psb));
	return p ? (uint64_t)(p - bytes) : size;
}

/* The end of the segment that holds OFFSET: the first loss after it. */
static uint64_t segment_end(const struct psb_scan *scan, uint64_t offset,
			    uint64_t size)
{
	size_t i;

	for (i = 0; i < scan->nlosses; i++)
		if (scan->losses[i].offset > offset)
			return scan->losses[i].offset < size ? scan->losses[i].offset
							     : size;
	return size;
}

/* The stream's losses, but those it marks itself with an OVF packet (the
 * hwt source writes OVF and a FUP there): those are libipt's overflows. */
static int keep_losses(const struct pt_config *config,
		       const struct decoder_loss *losses, size_t nlosses,
		       struct psb_scan *scan)
{
	size_t size = (size_t)(config->end - config->begin), i;

	free(scan->losses);
	scan->losses = NULL;
	scan->nlosses = 0;
	if (!nlosses)
		return 0;
	scan->losses = malloc(nlosses * sizeof(*losses));
	if (!scan->losses)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < nlosses; i++)
		if (!(losses[i].offset + 1 < size &&
		      config->begin[losses[i].offset] == 0x02 &&
		      config->begin[losses[i].offset + 1] == 0xf3))
			scan->losses[scan->nlosses++] = losses[i];
	return 0;
}

/* The stretches of packets the scan did not read: from a PSBEND to the
 * next PSB. */
struct skipped {
	uint64_t *from, *to;
	size_t count, cap;
};

static bool skipped_add(struct skipped *k, uint64_t from, uint64_t to)
{
	if (k->count == k->cap) {
		size_t ncap = k->cap ? 2 * k->cap : 256;
		uint64_t *f = realloc(k->from, ncap * sizeof(*f)), *t;

		if (!f)
			return false;
		k->from = f;
		if (!(t = realloc(k->to, ncap * sizeof(*t))))
			return false;
		k->to = t;
		k->cap = ncap;
	}
	k->from[k->count] = from;
	k->to[k->count++] = to;
	return true;
}

/* The last TSC packet in [FROM, TO) of DEC's stream, into SCAN's last_tsc:
 * whether there is one. */
static bool last_tsc_between(struct pt_packet_decoder *dec, uint64_t from,
			     uint64_t to, struct psb_scan *scan)
{
	bool found = false;
	int status = pt_pkt_sync_set(dec, from);

	/* Packets resume at the next PSB after a loss: TO, or past it. */
	for (size_t i = 0; i < scan->nlosses; i++)
		if (scan->losses[i].offset > from && scan->losses[i].offset < to)
			to = scan->losses[i].offset;

	while (status >= 0) {
		struct pt_packet pkt;
		uint64_t off = 0;

		pt_pkt_get_offset(dec, &off);
		if (off >= to)
			break;
		status = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (status < 0 || off + pkt.size > to)
			break;	/* garbage: packets resume at the next PSB, TO */
		if (pkt.type == ppt_tsc) {
			scan->last_tsc = pkt.payload.tsc.tsc;
			scan->has_last_tsc = found = true;
		}
	}
	return found;
}

/* Scan packets from START, a packet boundary (the kept trace's start or a
 * PSB), adding to SCAN.  What is noted of a PSB comes from its PSB+ (up
 * to PSBEND); from there to the next PSB the packets are not read (a
 * memmem for the next PSB instead: reading every packet was most of a
 * reopen from a saved index, 0.6 s of 0.9 s for 168 MB of python3's
 * trace), but for the stream's last TSC, read back from the last of those
 * stretches that may hold one, and the stretch after the last PSB, read
 * to the end (a packet cut there). */
static int psb_scan_from(const struct pt_config *config, uint64_t start,
			 struct psb_scan *scan)
{
	struct pt_config cfg = *config;
	struct pt_packet_decoder *dec;
	struct page_release read = { 0 };
	struct psb_info *cur = NULL;
	struct skipped skipped = { 0 };
	size_t size = (size_t)(config->end - config->begin), li = 0;
	uint64_t tsc_at = 0;	/* where the last TSC read is */
	int status;

	if (start >= size)
		return 0;
	while (li < scan->nlosses && scan->losses[li].offset <= start)
		li++;
	cfg.begin = config->begin;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	/* Read packets from START (a ring's kept part); bytes that are not
	 * packets are skipped to the next PSB below. */
	status = pt_pkt_sync_set(dec, start);
	while (status >= 0) {
		struct pt_packet pkt;
		uint64_t off = 0;

		pt_pkt_get_offset(dec, &off);
		if (li < scan->nlosses && off >= scan->losses[li].offset) {
			/* Lost trace: packets resume at the next PSB. */
			uint64_t psb = find_psb(config->begin, size,
						scan->losses[li].offset);

			while (li < scan->nlosses && scan->losses[li].offset <= psb)
				li++;
			cur = NULL;
			if (psb >= size)
				break;
			status = pt_pkt_sync_set(dec, psb);
			continue;
		}
		status = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (status >= 0 && li < scan->nlosses &&
		    off + pkt.size > scan->losses[li].offset) {
			/* A packet cut by the loss: not a packet. */
			pt_pkt_sync_set(dec, scan->losses[li].offset);
			continue;
		}
		if (status < 0) {
			if (status == -pte_eos) {
				/* The stream ends inside a packet? */
				if (off < size) {
					scan->truncated = true;
					scan->truncated_at = off;
				}
				break;
			}
			/* Garbage: find the next PSB. */
			cur = NULL;
			status = pt_pkt_sync_forward(dec);
			continue;
		}
		switch (pkt.type) {
		case ppt_psb:
			if (scan->count == scan->cap) {
				size_t ncap = scan->cap ? 2 * scan->cap : 256;
				void *p = realloc(scan->psbs, ncap * sizeof(*scan->psbs));

				if (!p) {
					pt_pkt_free_decoder(dec);
					return hwtr_fail(hwtr_err_nomem, "out of memory");
				}
				scan->psbs = p;
				scan->cap = ncap;
			}
			cur = &scan->psbs[scan->count++];
			memset(cur, 0, sizeof(*cur));
			cur->offset = off;
			/* The chunks are decoded where needed, later. */
			if (scan->file_mapped)
				page_release_before(&read, config->begin,
						    config->begin + off);
			if (scan->count == 1)
				scan->first_sync = off;
			break;
		case ppt_psbend:
			cur = NULL;
			{
				uint64_t from = off + pkt.size,
					 next = find_psb(config->begin, size, from);

				if (next >= size)
					break;	/* the last stretch: read */
				if (next > from && !skipped_add(&skipped, from, next)) {
					status = -pte_nomem;
					break;
				}
				status = pt_pkt_sync_set(dec, next);
			}
			break;
		case ppt_tsc:
			scan->last_tsc = pkt.payload.tsc.tsc;
			scan->has_last_tsc = true;
			tsc_at = off;
			if (cur) {
				cur->tsc = pkt.payload.tsc.tsc;
				cur->has_tsc = true;
			}
			break;
		case ppt_fup:
			if (cur && pkt.payload.ip.ipc != pt_ipc_suppressed) {
				cur->fup_ip = psb_fup_ip(&pkt.payload.ip);
				cur->has_fup = true;
			}
			break;
		case ppt_mode:
			if (cur && pkt.payload.mode.leaf == pt_mol_exec)
				cur->has_mode_exec = true;
			break;
		default:
			break;
		}
	}
	if (status == -pte_nomem) {
		pt_pkt_free_decoder(dec);
		free(skipped.from);
		free(skipped.to);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	/* A TSC in a stretch not read, after the last one read, is the
	 * stream's last: the last such stretch that has one. */
	for (size_t k = skipped.count; k-- > 0 && skipped.to[k] > tsc_at;)
		if (last_tsc_between(dec, skipped.from[k], skipped.to[k], scan))
			break;
	pt_pkt_free_decoder(dec);
	free(skipped.from);
	free(skipped.to);
	if (scan->file_mapped)
		page_release_all_before(&read, config->begin, config->end);
	return 0;
}

int psb_scan_stream(const struct pt_config *config, uint64_t start,
		    const struct decoder_loss *losses, size_t nlosses,
		    bool file_mapped, struct psb_scan *scan)
{
	int err;

	memset(scan, 0, sizeof(*scan));
	scan->file_mapped = file_mapped;
	scan->first_sync = (uint64_t)(config->end - config->begin);
	if ((err = keep_losses(config, losses, nlosses, scan)) ||
	    (err = psb_scan_from(config, start, scan)))
		psb_scan_release(scan);
	return err;
}

/* The TSC of the first PSB from index K on that has one, or UINT64_MAX. */
static uint64_t first_tsc_from(const struct psb_scan *scan, size_t k,
			       bool *found)
{
	for (; k < scan->count; k++)
		if (scan->psbs[k].has_tsc) {
			*found = true;
			return scan->psbs[k].tsc;
		}
	*found = false;
	return UINT64_MAX;
}

int psb_scan_extend(const struct pt_config *config,
		    const struct decoder_loss *losses, size_t nlosses,
		    uint64_t keep, struct psb_scan *scan, bool *windows)
{
	size_t k = psb_scan_index_after(scan, keep);
	bool had = false, has = false;
	uint64_t was, now;
	int err;

	if (k == 0 || scan->psbs[k - 1].offset != keep)
		return -hwtr_err_notfound;
	k--;
	was = first_tsc_from(scan, k, &had);
	scan->count = k;
	scan->truncated = false;
	scan->truncated_at = 0;
	if (k == 0)
		scan->first_sync = (uint64_t)(config->end - config->begin);
	if ((err = keep_losses(config, losses, nlosses, scan)) ||
	    (err = psb_scan_from(config, keep, scan)))
		return err;
	now = first_tsc_from(scan, k, &has);
	*windows = had != has || was != now;
	return 0;
}

void psb_scan_release(struct psb_scan *scan)
{
	free(scan->psbs);
	free(scan->losses);
	memset(scan, 0, sizeof(*scan));
}

size_t psb_scan_index_after(const struct psb_scan *scan, uint64_t offset)
{
	size_t lo = 0, hi = scan->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (scan->psbs[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct psb_info *psb_scan_find(const struct psb_scan *scan,
				     uint64_t offset)
{
	size_t i = psb_scan_index_after(scan, offset);

	return i > 0 && scan->psbs[i - 1].offset == offset ? &scan->psbs[i - 1]
							    : NULL;
}

/* The decoder is synchronised at the PSB at OFFSET: that is a chunk start,
 * whether or not tracing was enabled there. */
static void synced_at(struct intel_pt_walk *w, uint64_t offset)
{
	const struct psb_info *psb = psb_scan_find(w->scan, offset);

	w->sync_chunk = true;
	w->sync_offset = offset;
	w->swallow_status = psb && psb->has_fup && psb->has_mode_exec;
	w->next_psb = psb_scan_index_after(w->scan, offset);
	w->enabled_seen = false;
}

static void chunk_item(struct walk_item *item, const struct psb_info *psb,
		       uint64_t offset)
{
	memset(item, 0, sizeof(*item));
	item->kind = walk_chunk_start;
	item->offset = offset;
	if (psb) {
		item->ip = psb->has_fup ? psb->fup_ip : 0;
	}
}

/* The section cache's id of mapping MAP, added on first use: > 0, or < 0
 * when libipt cannot load it. */
static int section_id(struct decoder_context *root, uint32_t map)
{
	int isid;

	pthread_mutex_lock(&root->lock);
	if (image_set_count(root->images) > root->nisids) {
		size_t count = image_set_count(root->images);
		int *p = realloc(root->isids, (count + 1) * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&root->lock);
			return -pte_nomem;
		}
		memset(p + root->nisids, 0, (count + 1 - root->nisids) * sizeof(*p));
		root->isids = p;
		root->nisids = count;
	}
	if (root->isids[map] == 0) {
		const struct image_mapping *m = image_set_mapping(root->images, map);

		root->isids[map] = pt_iscache_add_file(root->iscache, m->file,
						       m->pgoff, m->code_size,
						       m->addr);
		if (root->isids[map] == 0)
			root->isids[map] = -pte_internal;
	}
	isid = root->isids[map];
	pthread_mutex_unlock(&root->lock);
	return isid;
}

/* libipt's image of EPOCH: the epoch's mappings, in its layering order. */
static int epoch_image(struct decoder_context *c, unsigned epoch,
		       struct pt_image **out)
{
	const uint32_t *layers;
	size_t n, i;

	if (epoch >= c->nepochs) {
		unsigned ncap = epoch + 8;
		void *p = realloc(c->by_epoch, ncap * sizeof(*c->by_epoch));

		if (!p)
			return -pte_nomem;
		c->by_epoch = p;
		memset(c->by_epoch + c->nepochs, 0,
		       (ncap - c->nepochs) * sizeof(*c->by_epoch));
		c->nepochs = ncap;
	}
	if (c->by_epoch[epoch]) {
		*out = c->by_epoch[epoch];
		return 0;
	}
	c->by_epoch[epoch] = pt_image_alloc(NULL);
	if (!c->by_epoch[epoch])
		return -pte_nomem;
	n = image_epoch_layers(c->images, epoch, &layers);
	for (i = 0; i < n; i++) {
		int isid = section_id(c->root ? c->root : c, layers[i]);

		/* A file libipt cannot load is a gap where its code runs. */
		if (isid == -pte_nomem)
			return isid;
		if (isid > 0) {
			int err = pt_image_add_cached(c->by_epoch[epoch], c->iscache,
						      isid, NULL);

			if (err < 0)
				return err;
		}
	}
	*out = c->by_epoch[epoch];
	return 0;
}

/* Synchronise at the PSB at OFFSET with the image of the chunk it starts. */
static int sync_at(struct intel_pt_walk *w, uint64_t offset)
{
	struct pt_image *image = NULL;
	uint64_t end = segment_end(w->scan, offset, w->size);
	int err = w->image_for(w->image_ctx, offset, &w->epoch);

	if (err < 0)
		return -pte_internal;
	if (end != w->seg_end) {
		/* A decoder that ends at the next loss. */
		struct pt_config cfg = w->config;
		struct pt_block_decoder *d;

		cfg.end = cfg.begin + end;
		d = pt_blk_alloc_decoder(&cfg);
		if (!d)
			return -pte_nomem;
		pt_blk_free_decoder(w->decoder);
		w->decoder = d;
		w->seg_end = end;
	}
	err = epoch_image(w->context, w->epoch, &image);
	if (err < 0)
		return err;
	err = pt_blk_set_image(w->decoder, image);
	if (err < 0)
		return err;
	return pt_blk_sync_set(w->decoder, offset);
}

/* Start decoding afresh at PSB (a chunk start found while decoding), so that
 * the index pass decodes every chunk exactly as on-demand decoding will: from
 * its PSB, with no state carried over (the return stack in particular). */
static void restart_at(struct intel_pt_walk *w, const struct psb_info *psb,
		       uint64_t ip, struct walk_item *item)
{
	w->status = sync_at(w, psb->offset);
	synced_at(w, psb->offset);
	w->sync_chunk = false;		/* reported here */
	chunk_item(item, psb, psb->offset);
	if (ip)
		item->ip = ip;
	if (w->status >= 0 && w->query_walk)
		w->query_from = psb;
}

static int walk_alloc(struct intel_pt_stream *stream,
		      struct decoder_context *context, decoder_image_fn image_for,
		      void *ctx, struct intel_pt_walk **out)
{
	const struct pt_config *config = &stream->config;
	const struct psb_scan *scan = &stream->scan;
	struct intel_pt_walk *w = calloc(1, sizeof(*w));

	if (!w)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->decoder = pt_blk_alloc_decoder(config);
	if (!w->decoder) {
		free(w);
		return hwtr_fail(hwtr_err_nomem, "cannot allocate a libipt decoder");
	}
	w->scan = scan;
	w->config = *config;
	w->size = (uint64_t)(config->end - config->begin);
	w->seg_end = w->size;
	w->context = context;
	w->query_walk = context->query_walk;
	w->image_for = image_for;
	w->image_ctx = ctx;
	*out = w;
	return 0;
}

static void intel_pt_walk_free(struct intel_pt_walk *w);

static int intel_pt_walk_begin(struct intel_pt_stream *stream,
			       struct decoder_context *context,
			       decoder_image_fn image_for, void *ctx,
			       struct intel_pt_walk **out)
{
	int err = walk_alloc(stream, context, image_for, ctx, out);

	if (!err)
		(*out)->start = stream->trace_start;
	return err;
}

static int intel_pt_walk_at(struct intel_pt_stream *stream,
			    struct decoder_context *context, uint64_t offset,
			    decoder_image_fn image_for, void *ctx,
			    struct intel_pt_walk **out)
{
	struct intel_pt_walk *w = NULL;
	int err = walk_alloc(stream, context, image_for, ctx, &w);

	if (err)
		return err;
	w->status = sync_at(w, offset);
	if (w->status < 0) {
		int status = w->status;

		intel_pt_walk_free(w);
		return hwtr_fail(hwtr_err_decode,
				 "cannot synchronise at PSB offset %llu: %s",
				 (unsigned long long)offset,
				 pt_errstr(pt_errcode(status)));
	}
	w->started = true;
	synced_at(w, offset);
	*out = w;
	return 0;
}

static void intel_pt_walk_free(struct intel_pt_walk *w)
{
	if (!w)
		return;
	pt_blk_free_decoder(w->decoder);
	pt_qry_free_decoder(w->query);
	fast_chunk_release(&w->chunk);
	free(w);
}


/* Synchronise forward; a gap item is produced by the caller first. */
static void resync(struct intel_pt_walk *w)
{
	uint64_t off = 0;

	/* Find the PSB libipt will synchronise at, then synchronise there with
	 * that chunk's image (sync_at), as decoding the chunk on demand will. */
	w->status = pt_blk_sync_forward(w->decoder);
	if (w->status < 0) {
		/* No PSB before the next loss: that loss comes next. */
		if (w->seg_end < w->size)
			w->status = -pte_eos;
		else
			w->ended = true;
		return;
	}
	pt_blk_get_sync_offset(w->decoder, &off);
	w->status = sync_at(w, off);
	synced_at(w, off);
}

static int gap_item(struct intel_pt_walk *w, struct walk_item *item,
		    enum gap_kind kind, int error, uint64_t ip)
{
	uint64_t off = 0;

	pt_blk_get_offset(w->decoder, &off);
	memset(item, 0, sizeof(*item));
	item->kind = walk_gap;
	item->gap = kind;
	item->error = error < 0 ? -error : error;
	item->no_code = item->error == pte_nomap;
	item->offset = off;
	item->ip = ip;
	return 1;
}

/* At the end of the stream: report an incomplete last packet once, then a
 * loss at the end once. */
static int end_item(struct intel_pt_walk *w, struct walk_item *item)
{
	const struct psb_scan *scan = w->scan;

	w->ended = true;
	if (scan->truncated && !w->truncation_reported) {
		w->truncation_reported = true;
		memset(item, 0, sizeof(*item));
		item->kind = walk_gap;
		item->gap = gap_truncated;
		item->error = pte_eos;
		item->offset = scan->truncated_at;
		return 1;
	}
	/* A loss at the stream's end: the recorder knows the trace stops short
	 * of the thread's end (the program was killed, the recorder could not
	 * go on, a live session was cut off): the history ends with its gap.
	 * (Not after an empty stream: no history, no gap.) */
	if (w->started && !w->end_loss_reported && scan->nlosses &&
	    scan->losses[scan->nlosses - 1].offset == w->size) {
		w->end_loss_reported = true;
		walk_item_lost(item, w->size,
			       scan->losses[scan->nlosses - 1].reason);
		return 1;
	}
	return 0;
}

/* A loss at or before the kept trace's start (a ring that lapped before
 * anything was kept), with trace after it: nothing marks it in the stream.
 * (A loss at the end of an empty stream is not one: a killed recorder's.) */
static const struct decoder_loss *leading_loss(const struct intel_pt_walk *w)
{
	const struct psb_scan *scan = w->scan;

	return scan->nlosses && scan->losses[0].offset <= w->start &&
			       w->start < w->size
		       ? &scan->losses[0] : NULL;
}

/* The decoder reached a loss: a gap there, then the next PSB. */
static int lost_item(struct intel_pt_walk *w, struct walk_item *item)
{
	const struct psb_scan *scan = w->scan;
	uint64_t at = w->seg_end;
	size_t i;

	walk_item_lost(item, at, NULL);
	for (i = 0; i < scan->nlosses; i++)
		if (scan->losses[i].offset == at)
			item->reason = scan->losses[i].reason;
	i = at ? psb_scan_index_after(scan, at - 1) : 0;
	if (i >= scan->count) {
		w->ended = true;
		w->seg_end = w->size;
		return 1;
	}
	w->status = sync_at(w, scan->psbs[i].offset);
	synced_at(w, scan->psbs[i].offset);
	return 1;
}

/* A status-update exec-mode event marks a PSB+ passed while decoding. */
static bool event_is_chunk_start(struct intel_pt_walk *w, const struct pt_event *ev,
				 struct walk_item *item)
{
	const struct psb_scan *scan = w->scan;
	const struct psb_info *psb;

	if (ev->type != ptev_exec_mode || !ev->status_update || ev->ip_suppressed)
		return false;
	/* The next scanned PSB+ that libipt reports this way. */
	while (w->next_psb < scan->count &&
	       !(scan->psbs[w->next_psb].has_fup &&
		 scan->psbs[w->next_psb].has_mode_exec))
		w->next_psb++;
	if (w->next_psb >= scan->count ||
	    scan->psbs[w->next_psb].fup_ip != ev->variant.exec_mode.ip)
		return false;	/* cannot place it: not a chunk start */
	psb = &scan->psbs[w->next_psb++];
	restart_at(w, psb, 0, item);
	return true;
}

/* Tracing comes back on: was a PSB passed while it was off?  Such a PSB has
 * no FUP and no status event, yet decoding can begin there (and the image
 * may have changed meanwhile, e.g. at an exec): it starts a chunk. */
static const struct psb_info *psb_while_disabled(struct intel_pt_walk *w)
{
	const struct psb_scan *scan = w->scan;
	const struct psb_info *found = NULL;
	uint64_t off = 0;

	/* libipt reads ahead (a PSB+ right after the TIP.PGE may already be
	 * behind the offset): stop at a PSB with a FUP, its status event is
	 * still to come and will place it. */
	pt_blk_get_offset(w->decoder, &off);
	while (w->next_psb < scan->count && scan->psbs[w->next_psb].offset < off &&
	       !scan->psbs[w->next_psb].has_fup)
		found = &scan->psbs[w->next_psb++];
	return found;
}

/* libipt's instruction classes in ours; ptic_error is left to the history. */
static uint8_t block_class(enum pt_insn_class c)
{
	switch (c) {
	case ptic_other: return hwtr_ic_other;
	case ptic_call: return hwtr_ic_call;
	case ptic_return: return hwtr_ic_return;
	case ptic_jump: return hwtr_ic_jump;
	case ptic_cond_jump: return hwtr_ic_cond_jump;
	case ptic_far_call: return hwtr_ic_far_call;
	case ptic_far_return: return hwtr_ic_far_return;
	case ptic_far_jump: return hwtr_ic_far_jump;
	default: return DECODER_UNCLASSIFIED;
	}
}

/* ITEM as a block of the x86-64 code of W's epoch, its other fields
 * cleared.  Every field is set one by one: a memset of the whole item,
 * once per block, compiles to a rep stos that cost about 4% of the index
 * pass. */
static struct decoder_block *block_item_begin(const struct intel_pt_walk *w,
					      struct walk_item *item)
{
	struct decoder_block *d = &item->block;

	item->kind = walk_block;
	item->gap = 0;
	item->error = 0;
	item->no_code = false;
	item->offset = 0;
	item->ip = 0;
	item->reason = NULL;
	d->epoch = w->epoch;
	d->isa = hwtr_isa_x86_64;
	d->size = 0;
	return d;
}

static void block_item(struct intel_pt_walk *w, const struct pt_block *b,
		       struct walk_item *item)
{
	struct decoder_block *d = block_item_begin(w, item);

	d->ip = b->ip;
	d->end_ip = b->end_ip;
	d->ninsn = (uint32_t)b->ninsn;
	d->iclass = block_class(b->iclass);
	d->speculative = b->speculative;
	d->truncated = b->truncated;
	d->timed = w->block_timed;
	d->time = w->block_time;
	if (b->truncated) {
		d->size = b->size;
		memcpy(d->raw, b->raw, b->size < sizeof(d->raw) ? b->size
								: sizeof(d->raw));
	}
}

/* The next block of the walked chunk, as block_item makes one of libipt's. */
static void fast_block_item(struct intel_pt_walk *w, struct walk_item *item)
{
	const struct fast_chunk *c = &w->chunk;
	const struct decoded_block *b = c->blocks[w->chunk_pos];
	struct decoder_block *d = block_item_begin(w, item);
	const struct fast_time *t;

	while (w->time_pos + 1 < c->ntimes &&
	       c->times[w->time_pos + 1].from <= w->chunk_pos)
		w->time_pos++;
	t = &c->times[w->time_pos];
	w->chunk_pos++;
	d->ip = b->ip;
	d->end_ip = b->end_ip;
	d->ninsn = b->ninsn;
	d->iclass = b->iclass;
	d->speculative = false;
	d->truncated = false;
	d->timed = t->timed;
	d->time = t->time;
}

/* The query walk's part: hand out the chunk it walked, or walk the chunk
 * that starts at query_from.  1 with ITEM, 0 when the block decoder goes on,
 * or a negative error. */
static int query_walk_next(struct intel_pt_walk *w, struct walk_item *item)
{
	struct decoder_context *c = w->context;
	const struct psb_info *psb;
	uint64_t end;
	int status;

	if (w->chunk_pos < w->chunk.count) {
		fast_block_item(w, item);
		return 1;
	}
	if (w->chunk_end) {
		/* The next chunk: the query walk tries it first. */
		psb = w->chunk_end;
		w->chunk_end = NULL;
		chunk_item(item, psb, psb->offset);
		w->pending_restart = psb;
		w->query_from = psb;
		return 1;
	}
	if (!w->query_from)
		return 0;
	psb = w->query_from;
	w->query_from = NULL;
	if (w->image_for(w->image_ctx, psb->offset, &w->epoch) < 0) {
		c->stats.fallbacks[fallback_trace]++;
		return 0;
	}
	end = segment_end(w->scan, psb->offset, w->size);
	if (!w->query || w->query_end != end) {
		struct pt_config cfg = w->config;

		cfg.end = cfg.begin + end;
		pt_qry_free_decoder(w->query);
		w->query = pt_qry_alloc_decoder(&cfg);
		if (!w->query)
			return hwtr_fail(hwtr_err_nomem, "cannot allocate a "
					 "libipt query decoder");
		w->query_end = end;
	}
	status = fast_chunk_walk(w->query, w->scan, (size_t)(psb - w->scan->psbs),
				 w->epoch, c->images, c->isa, &c->blocks, &w->chunk);
	if (status < 0)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (status == 0) {
		c->stats.fallbacks[w->chunk.why]++;
		return 0;
	}
	c->stats.chunks++;
	w->chunk_end = &w->scan->psbs[w->chunk.next_psb];
	w->chunk_pos = 0;
	w->time_pos = 0;
	fast_block_item(w, item);
	return 1;
}

static int intel_pt_walk_next(struct intel_pt_walk *w, struct walk_item *item)
{
	struct pt_block block;
	uint32_t lost_mtc, lost_cyc;
	int err;

	if ((err = query_walk_next(w, item)) != 0)
		return err < 0 ? err : 1;
	if (w->pending_restart) {
		/* The query walk left this chunk to the block decoder. */
		const struct psb_info *psb = w->pending_restart;

		w->pending_restart = NULL;
		w->status = sync_at(w, psb->offset);
		synced_at(w, psb->offset);
		w->sync_chunk = false;		/* reported already */
	}
	if (w->deferred_chunk) {
		const struct psb_info *psb = w->deferred_chunk;

		w->deferred_chunk = NULL;
		restart_at(w, psb, w->deferred_ip, item);
		return 1;
	}
	if (w->ended)
		return end_item(w, item);
	if (!w->started) {
		const struct decoder_loss *lead = leading_loss(w);

		w->started = true;
		if (w->scan->count == 0 && !lead && w->start < w->size) {
			/* Kept bytes without a PSB (a ring smaller than the
			 * PSB period): nothing decodes, but the history says
			 * that they are there. */
			w->ended = true;
			memset(item, 0, sizeof(*item));
			item->kind = walk_gap;
			item->gap = gap_unsynced;
			item->offset = w->start;
			item->ip = w->size - w->start;
			return 1;
		}
		if (w->scan->count == 0 && !lead)
			return end_item(w, item);
		if (w->scan->count == 0)
			w->ended = true;
		else {
			w->status = sync_at(w, w->scan->psbs[0].offset);
			if (w->status >= 0)
				synced_at(w, w->scan->psbs[0].offset);
		}
		if (lead) {
			/* Trace was lost before the kept start: the history
			 * begins with that gap, which also stands for any
			 * bytes before the first PSB. */
			walk_item_lost(item, lead->offset, lead->reason);
			return 1;
		}
		if (w->scan->first_sync > w->start) {
			/* Bytes before the first PSB cannot be decoded. */
			memset(item, 0, sizeof(*item));
			item->kind = walk_gap;
			item->gap = gap_unsynced;
			item->offset = w->start;
			item->ip = w->scan->first_sync - w->start;
			return 1;
		}
	}
	if (w->sync_chunk && w->status >= 0) {
		const struct psb_info *psb = psb_scan_find(w->scan, w->sync_offset);

		w->sync_chunk = false;
		chunk_item(item, psb, w->sync_offset);
		if (psb && w->query_walk)
			w->query_from = psb;
		return 1;
	}
	for (;;) {
		int status = w->status;

		if (status < 0) {
			if (status == -pte_eos && w->seg_end < w->size)
				return lost_item(w, item);
			if (status == -pte_eos)
				return end_item(w, item);
			/* An error from sync or from the last block: gap, resync. */
			gap_item(w, item, gap_decode_error, status, 0);
			resync(w);
			return 1;
		}
		if (status & pts_event_pending) {
			struct pt_event ev;

			w->status = pt_blk_event(w->decoder, &ev, sizeof(ev));
			if (w->status < 0)
				continue;
			if (w->swallow_status && ev.type == ptev_exec_mode &&
			    ev.status_update) {
				w->swallow_status = false;	/* reported at sync */
				continue;
			}
			if (event_is_chunk_start(w, &ev, item))
				return 1;
			if (ev.type == ptev_overflow) {
				w->enabled_seen = false;
				return gap_item(w, item, gap_overflow, 0,
						ev.variant.overflow.ip);
			}
			if (ev.type == ptev_enabled && !ev.status_update) {
				const struct psb_info *psb = psb_while_disabled(w);
				/* Tracing went off and came back somewhere else:
				 * the instructions in between are not in the trace
				 * (GDB's btrace reports the same gap).  The gap
				 * belongs to the chunk before the PSB, if any. */
				bool gap = !ev.variant.enabled.resumed &&
					   w->enabled_seen;

				if (gap) {
					w->deferred_chunk = psb;
					w->deferred_ip = ev.variant.enabled.ip;
					return gap_item(w, item, gap_disabled, 0,
							ev.variant.enabled.ip);
				}
				if (psb) {
					restart_at(w, psb, ev.variant.enabled.ip,
						   item);
					return 1;
				}
			}
			continue;
		}
		memset(&block, 0, sizeof(block));
		/* The time before the block: the events before it (a TSC then
		 * TIP.PGE where a thread resumes) are processed by now. */
		w->block_timed = pt_blk_time(w->decoder, &w->block_time, &lost_mtc,
					     &lost_cyc) >= 0;
		w->status = pt_blk_next(w->decoder, &block, sizeof(block));
		if (block.ninsn > 0 && w->status >= 0) {
			uint64_t off = 0;

			pt_blk_get_offset(w->decoder, &off);
			if (off != w->stuck_offset) {
				w->stuck_offset = off;
				w->stuck_blocks = 0;
			} else if (++w->stuck_blocks > MAX_BLOCKS_WITHOUT_TRACE) {
				/* Report the loop once as a gap, then resync. */
				w->stuck_blocks = 0;
				w->status = -pte_internal;
				gap_item(w, item, gap_no_progress, 0, block.ip);
				resync(w);
				return 1;
			}
		}
		if (block.ninsn > 0) {
			/* A partial block before an error still executed. */
			block_item(w, &block, item);
			w->enabled_seen = true;
			if (w->status < 0 && w->status != -pte_eos) {
				/* The error itself is reported by the next call. */
			}
			return 1;
		}
		if (w->status < 0 && w->status != -pte_eos) {
			int err = w->status;

			gap_item(w, item, gap_decode_error, err, block.ip);
			resync(w);
			return 1;
		}
	}
}

/* ------------------------------------------------------------ the ops */

/* HWTREC_PT_WALK=block walks every chunk with libipt's block decoder; the
 * query walk takes the plain ones otherwise. */
static bool query_walk_wanted(void)
{
	const char *v = getenv("HWTREC_PT_WALK");

	return !(v && !strcmp(v, "block"));
}

void intel_pt_use_query_walk(struct decoder_context *c, bool on)
{
	c->query_walk = on;
}

/* A block cache's counts into TO. */
static void add_cache_stats(struct fast_stats *to,
			    const struct decoded_blocks *blocks)
{
	to->hits += blocks->hits;
	to->misses += blocks->misses;
	to->repeats += blocks->repeats;
	to->copies += blocks->copies;
}

void intel_pt_query_stats(struct decoder_context *c, struct fast_stats *stats)
{
	pthread_mutex_lock(&c->lock);
	*stats = c->stats;
	pthread_mutex_unlock(&c->lock);
	add_cache_stats(stats, &c->blocks);
}

/* A lane's statistics into its root's. */
static void add_stats(struct fast_stats *to, const struct fast_stats *from,
		      const struct decoded_blocks *blocks)
{
	size_t i;

	to->chunks += from->chunks;
	for (i = 0; i < fallback_kinds; i++)
		to->fallbacks[i] += from->fallbacks[i];
	add_cache_stats(to, blocks);
}

static void print_stats(const struct fast_stats *s)
{
	uint64_t fallbacks = 0, lookups = s->hits + s->misses;
	size_t i;

	for (i = 0; i < fallback_kinds; i++)
		fallbacks += s->fallbacks[i];
	fprintf(stderr, "intel-pt query walk: %llu chunks, %llu left to the "
		"block decoder", (unsigned long long)s->chunks,
		(unsigned long long)fallbacks);
	for (i = 1; i < fallback_kinds; i++)
		if (s->fallbacks[i])
			fprintf(stderr, " (%s: %llu)", fast_fallback_name(i),
				(unsigned long long)s->fallbacks[i]);
	fprintf(stderr, "; block cache %llu lookups, %.2f%% hits (%llu an "
		"indirect branch's last target), %llu misses copied from "
		"another epoch\n", (unsigned long long)lookups,
		lookups ? 100.0 * (double)s->hits / (double)lookups : 0.0,
		(unsigned long long)s->repeats, (unsigned long long)s->copies);
}

static int context_alloc(struct image_set *images, struct decoder_context **out)
{
	struct decoder_context *c = calloc(1, sizeof(*c));

	if (!c)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	c->images = images;
	c->query_walk = query_walk_wanted();
	if (isa_open(&c->isa)) {
		free(c);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	c->iscache = pt_iscache_alloc("hwtrecord");
	c->nisids = image_set_count(images);
	c->isids = calloc(c->nisids + 1, sizeof(*c->isids));
	if (!c->iscache || !c->isids || pthread_mutex_init(&c->lock, NULL)) {
		pt_iscache_free(c->iscache);
		free(c->isids);
		isa_close(c->isa);
		free(c);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	*out = c;
	return 0;
}

static int lane_alloc(struct decoder_context *root, struct decoder_context **out)
{
	struct decoder_context *c = calloc(1, sizeof(*c));

	if (!c)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	c->images = root->images;
	c->iscache = root->iscache;
	c->root = root;
	c->query_walk = root->query_walk;
	if (isa_open(&c->isa)) {
		free(c);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	*out = c;
	return 0;
}

static void context_free(struct decoder_context *c)
{
	unsigned i;

	if (!c)
		return;
	for (i = 0; i < c->nepochs; i++)
		pt_image_free(c->by_epoch[i]);
	free(c->by_epoch);
	if (c->root) {
		pthread_mutex_lock(&c->root->lock);
		add_stats(&c->root->stats, &c->stats, &c->blocks);
		pthread_mutex_unlock(&c->root->lock);
	} else {
		if (c->query_walk && getenv("HWTREC_PT_STATS")) {
			struct fast_stats all = c->stats;

			add_cache_stats(&all, &c->blocks);
			print_stats(&all);
		}
		free(c->isids);
		pt_iscache_free(c->iscache);
		pthread_mutex_destroy(&c->lock);
	}
	decoded_blocks_release(&c->blocks);
	isa_close(c->isa);
	free(c);
}

static int stream_open(struct decoder_context *context,
		       const struct decoder_stream_info *si,
		       struct decoder_stream **out)
{
	struct intel_pt_stream *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->context = context;
	s->trace_start = si->trace_start;
	intel_pt_config_from_recording(&s->config, &si->info->pt, si->bytes, si->size);
	err = psb_scan_stream(&s->config, si->trace_start, si->losses,
			      si->nlosses, si->file_mapped, &s->scan);
	if (err) {
		free(s);
		return err;
	}
	*out = (struct decoder_stream *)s;
	return 0;
}

static int stream_extend(struct decoder_stream *stream,
			 const struct decoder_stream_info *si, uint64_t keep,
			 bool *windows)
{
	struct intel_pt_stream *s = (struct intel_pt_stream *)stream;
	int err;

	intel_pt_config_from_recording(&s->config, &si->info->pt, si->bytes, si->size);
	err = psb_scan_extend(&s->config, si->losses, si->nlosses, keep,
			      &s->scan, windows);
	if (err == -hwtr_err_notfound) {
		/* Not a PSB of the scan: scan it all again, and let the
		 * history start again too. */
		psb_scan_release(&s->scan);
		*windows = true;
		err = psb_scan_stream(&s->config, s->trace_start, si->losses,
				      si->nlosses, si->file_mapped, &s->scan);
	}
	return err;
}

static void stream_close(struct decoder_stream *stream)
{
	struct intel_pt_stream *s = (struct intel_pt_stream *)stream;

	if (!s)
		return;
	psb_scan_release(&s->scan);
	free(s);
}

static size_t stream_index_bytes(const struct decoder_stream *stream)
{
	const struct intel_pt_stream *s = (const struct intel_pt_stream *)stream;

	return s->scan.count * sizeof(*s->scan.psbs);
}

static uint64_t stream_trace_bytes(const struct decoder_stream *stream)
{
	const struct intel_pt_stream *s = (const struct intel_pt_stream *)stream;

	return (uint64_t)(s->config.end - s->config.begin) - s->trace_start;
}

/* A chunk's window runs from its PSB's TSC to the next PSB's that has one. */
static bool chunk_window(const struct decoder_stream *stream, uint64_t offset,
			 uint64_t *begin, uint64_t *end)
{
	const struct intel_pt_stream *s = (const struct intel_pt_stream *)stream;
	const struct psb_info *psb = psb_scan_find(&s->scan, offset);
	size_t i;

	*begin = 0;
	*end = UINT64_MAX;
	if (!psb || !psb->has_tsc)
		return false;
	*begin = psb->tsc;
	for (i = psb_scan_index_after(&s->scan, offset); i < s->scan.count; i++)
		if (s->scan.psbs[i].has_tsc) {
			*end = s->scan.psbs[i].tsc;
			break;
		}
	return true;
}

static bool stream_last_time(const struct decoder_stream *stream,
			     uint64_t *tsc)
{
	const struct intel_pt_stream *s = (const struct intel_pt_stream *)stream;

	*tsc = s->scan.last_tsc;
	return s->scan.has_last_tsc;
}

static int chunk_start_before(const struct decoder_stream *stream,
			      uint64_t offset, uint64_t *start)
{
	const struct intel_pt_stream *s = (const struct intel_pt_stream *)stream;
	size_t k = offset ? psb_scan_index_after(&s->scan, offset - 1) : 0;

	if (k == 0)
		return 0;
	*start = s->scan.psbs[k - 1].offset;
	return 1;
}

static int walk_begin(struct decoder_stream *stream, decoder_image_fn image,
		      void *ctx, struct decoder_walk **out)
{
	struct intel_pt_stream *s = (struct intel_pt_stream *)stream;

	return intel_pt_walk_begin(s, s->context, image, ctx,
				   (struct intel_pt_walk **)out);
}

static int walk_at(struct decoder_stream *stream, uint64_t offset,
		   decoder_image_fn image, void *ctx, struct decoder_walk **out)
{
	struct intel_pt_stream *s = (struct intel_pt_stream *)stream;

	return intel_pt_walk_at(s, s->context, offset, image, ctx,
				(struct intel_pt_walk **)out);
}

static int walk_in_lane(struct decoder_stream *stream,
			struct decoder_context *lane, const uint64_t *from,
			decoder_image_fn image, void *ctx,
			struct decoder_walk **out)
{
	struct intel_pt_stream *s = (struct intel_pt_stream *)stream;

	if (!from)
		return intel_pt_walk_begin(s, lane, image, ctx,
					   (struct intel_pt_walk **)out);
	return intel_pt_walk_at(s, lane, *from, image, ctx,
				(struct intel_pt_walk **)out);
}

static int walk_next(struct decoder_walk *walk, struct walk_item *item)
{
	struct intel_pt_walk *w = (struct intel_pt_walk *)walk;

	/* Most items are a walked chunk's blocks: handed out here, without
	 * the whole walk's large frame (4% of the build on gzip). */
	if (w->chunk_pos < w->chunk.count) {
		fast_block_item(w, item);
		return 1;
	}
	return intel_pt_walk_next(w, item);
}

static size_t walk_take_blocks(struct decoder_walk *walk,
			       struct decoded_block *const **blocks)
{
	struct intel_pt_walk *w = (struct intel_pt_walk *)walk;
	size_t n;

	/* Not after a chunk left to the block decoder (its count is 0). */
	if (w->chunk_pos >= w->chunk.count)
		return 0;
	n = w->chunk.count - w->chunk_pos;
	*blocks = w->chunk.blocks + w->chunk_pos;
	w->chunk_pos = w->chunk.count;
	return n;
}

static void walk_free(struct decoder_walk *walk)
{
	intel_pt_walk_free((struct intel_pt_walk *)walk);
}

static const char *errstr(int error)
{
	return pt_errstr((enum pt_error_code)error);
}

const struct decoder_ops decoder_intel_pt = {
	.name = "intel-pt",
	.chunk_start_name = "PSB",
	.libipt_errors = true,
	.context_alloc = context_alloc,
	.context_free = context_free,
	.stream_open = stream_open,
	.stream_close = stream_close,
	.stream_extend = stream_extend,
	.stream_index_bytes = stream_index_bytes,
	.stream_trace_bytes = stream_trace_bytes,
	.chunk_window = chunk_window,
	.stream_last_time = stream_last_time,
	.chunk_start_before = chunk_start_before,
	.walk_begin = walk_begin,
	.walk_at = walk_at,
	.walk_resume = walk_at,	/* a chunk start restarts libipt anyway */
	.lane_alloc = lane_alloc,
	.walk_in_lane = walk_in_lane,
	.walk_next = walk_next,
	.walk_take_blocks = walk_take_blocks,
	.walk_free = walk_free,
	.errstr = errstr,
};
