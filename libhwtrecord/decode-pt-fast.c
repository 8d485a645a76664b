/* decode-pt-fast.c: a plain Intel PT chunk walked with libipt's query
 * decoder and cached blocks (decode-pt-fast.h).
 *
 * The order of queries is libipt's block decoder's (pt_block_decoder.c,
 * libipt 2.0): synchronise, take the PSB+'s status events; then per block,
 * read the time, follow the block, query its last instruction (a return
 * first asks for a TNT bit: return compression), and take at once the
 * events the query announces (the block decoder's "trailing" events).  The
 * query decoder's time moves only as it reads packets, so the same queries
 * give the same times.
 */
#include "decode-pt-fast.h"

#include <stdlib.h>
#include <string.h>

/* The block decoder gives up after 100000 blocks without reading a packet
 * (decode-pt.c); this walk leaves such code to it much earlier. */
#define FAST_BLOCKS_WITHOUT_TRACE 1000

/* libipt's return stack (pt_retstack.c): 64 return addresses, the oldest
 * dropped when full.  With each, where its call keeps the block found
 * there last time: a return then goes to its block as a direct branch
 * does, without a hash lookup. */
#define RETSTACK_SIZE 64

struct retstack {
	struct {
		uint64_t ip;
		struct decoded_block **site;
	} stack[RETSTACK_SIZE + 1];
	unsigned top, bottom;
};

static void retstack_push(struct retstack *r, uint64_t ip,
			  struct decoded_block **site)
{
	r->stack[r->top].ip = ip;
	r->stack[r->top].site = site;
	r->top = r->top == RETSTACK_SIZE ? 0 : r->top + 1;
	if (r->bottom == r->top)
		r->bottom = r->bottom == RETSTACK_SIZE ? 0 : r->bottom + 1;
}

static bool retstack_pop(struct retstack *r, uint64_t *ip,
			 struct decoded_block ***site)
{
	if (r->top == r->bottom)
		return false;
	r->top = r->top ? r->top - 1 : RETSTACK_SIZE;
	*ip = r->stack[r->top].ip;
	*site = r->stack[r->top].site;
	return true;
}

/* A PSB+ that synchronises with tracing on, as the block walk's chunk
 * starts need it (decode-pt.c: event_is_chunk_start). */
static bool plain_psb(const struct psb_info *psb)
{
	return psb->has_fup && psb->has_mode_exec;
}

static bool is_status_exec_mode(const struct pt_event *ev, uint64_t ip)
{
	return ev->type == ptev_exec_mode && ev->status_update &&
	       !ev->ip_suppressed && ev->variant.exec_mode.ip == ip &&
	       ev->variant.exec_mode.mode == ptem_64bit;
}

enum events_end {
	events_go_on, events_chunk_end, events_fallback,
	events_disabled,	/* tracing off (a system call): *AFTER set */
};

/* The events STATUS announces, at IP (where decoding stands).  At the chunk's
 * own PSB (NEXT NULL) the one exec-mode status event is required; later, one
 * that is NEXT's ends the chunk, and a TIP.PGD without an IP (as at a system
 * call) is taken, with the status after it in *AFTER: it binds to the next
 * instruction that needs trace (disable_binds).  CBR events do not bind to
 * instructions and change nothing here. */
static enum events_end take_events(struct pt_query_decoder *query, int status,
				   uint64_t ip, const struct psb_info *next,
				   int *after, enum fast_fallback *why)
{
	bool exec_mode = false;

	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_qry_event(query, &ev, sizeof(ev));
		if (status < 0) {
			*why = fallback_trace;
			return events_fallback;
		}
		if (ev.type == ptev_cbr)
			continue;
		if (!next && !exec_mode && is_status_exec_mode(&ev, ip)) {
			exec_mode = true;
			continue;
		}
		if (next && is_status_exec_mode(&ev, ip) && next->fup_ip == ip)
			return events_chunk_end;
		/* MODE.Exec with a TIP.PGE (or a far branch's TIP) where
		 * decoding stands, still 64-bit: libipt checks the IP and
		 * keeps its mode; the block walk ignores it. */
		if (next && ev.type == ptev_exec_mode && !ev.status_update &&
		    !ev.ip_suppressed && ev.variant.exec_mode.ip == ip &&
		    ev.variant.exec_mode.mode == ptem_64bit)
			continue;
		if (next && ev.type == ptev_disabled && ev.ip_suppressed &&
		    !ev.status_update) {
			*after = status;
			return events_disabled;
		}
		*why = fallback_event;
		return events_fallback;
	}
	if (!next && !exec_mode) {
		*why = fallback_event;
		return events_fallback;
	}
	return events_go_on;
}

static int add_block(struct fast_chunk *out, struct decoded_block *b)
{
	/* Checked here first: a call per block was 2% of the build. */
	if (out->count == out->cap &&
	    hwtr_array_grow((void **)&out->blocks, &out->cap, out->count,
			    sizeof(*out->blocks)) < 0)
		return -pte_nomem;
	out->blocks[out->count++] = b;
	return 0;
}

/* The time from the next block on, if it is another one than before. */
static int add_time(struct fast_chunk *out, bool timed, uint64_t time)
{
	struct fast_time *last = out->ntimes ? &out->times[out->ntimes - 1]
					     : NULL;

	if (last && last->timed == timed && last->time == time)
		return 0;
	if (last && last->from == out->count) {
		last->timed = timed;
		last->time = time;
		return 0;
	}
	if (hwtr_array_grow((void **)&out->times, &out->times_cap, out->ntimes,
			    sizeof(*out->times)) < 0)
		return -pte_nomem;
	out->times[out->ntimes++] = (struct fast_time){
		.from = out->count, .time = time, .timed = timed };
	return 0;
}

static int fallback(struct fast_chunk *out, enum fast_fallback why)
{
	out->why = why;
	out->count = 0;
	out->ntimes = 0;
	return 0;
}

/* The next IP after block B, from the trace where B's exit needs it:
 * 1 and *IP, or 0 (fallback, OUT->why set).  *LINK: where B keeps the next
 * block when its exit is direct, or NULL; else *MEMO: where the block an
 * indirect exit went to last time is kept (the next IP may be another);
 * *STATUS: the query's, if one was made (else 0, and *QUERIED false).
 *
 * Where blocks keep them (decode-pt-blocks.h: next): a direct call, the
 * block after its return in next[0]; an indirect call, its target in
 * next[0] and the block after its return in next[1]; an indirect jump or a
 * return, its target in next[0]. */
static int follow_exit(struct pt_query_decoder *query, struct decoded_block *b,
		       struct retstack *rs, uint64_t *ip,
		       struct decoded_block ***link,
		       struct decoded_block ***memo, int *status, bool *queried,
		       struct fast_chunk *out)
{
	uint64_t fall = b->end_ip + b->last_size;
	int taken = 0;

	*status = 0;
	*link = NULL;
	*memo = NULL;
	*queried = false;
	switch ((enum block_exit)b->exit) {
	case exit_fall:
		*ip = fall;
		*link = &b->next[0];
		return 1;
	case exit_jump:
		*ip = b->target;
		*link = &b->next[1];
		return 1;
	case exit_call:
		if (b->pushes)
			retstack_push(rs, fall, &b->next[0]);
		*ip = b->target;
		*link = &b->next[1];
		return 1;
	case exit_cond:
		*queried = true;
		*status = pt_qry_cond_branch(query, &taken);
		if (*status < 0)
			return fallback(out, fallback_trace);
		*ip = taken ? b->target : fall;
		*link = &b->next[taken ? 1 : 0];
		return 1;
	case exit_indirect_call:
		*queried = true;
		retstack_push(rs, fall, &b->next[1]);
		*memo = &b->next[0];
		*status = pt_qry_indirect_branch(query, ip);
		break;
	case exit_return:
		*queried = true;
		*status = pt_qry_cond_branch(query, &taken);
		if (*status >= 0) {
			/* A compressed return: a taken bit. */
			if (!taken || !retstack_pop(rs, ip, memo))
				return fallback(out, fallback_return);
			return 1;
		}
		if (*status != -pte_bad_query)
			return fallback(out, fallback_trace);
		*memo = &b->next[0];
		*status = pt_qry_indirect_branch(query, ip);
		break;
	case exit_indirect:
		*queried = true;
		*memo = &b->next[0];
		*status = pt_qry_indirect_branch(query, ip);
		break;
	case exit_unsure:
	default:
		return fallback(out, fallback_code);
	}
	if (*status < 0 || (*status & pts_ip_suppressed))
		return fallback(out, fallback_trace);
	return 1;
}

/* Whether B's exit needs trace: where a pending TIP.PGD without an IP binds
 * (libipt's pt_blk_proceed_event: the next branch that would need trace; a
 * direct one is followed). */
static bool needs_trace(const struct decoded_block *b)
{
	return b->exit == exit_cond || b->exit == exit_indirect_call ||
	       b->exit == exit_return || b->exit == exit_indirect;
}

/* Tracing went off at B's last instruction (the disable bound there, STATUS
 * the query decoder's after the TIP.PGD): it must come back on (TIP.PGE) where
 * libipt expects it to resume, after a call or a far call (a system call),
 * which its block decoder reports as a resume, and the block walk then as
 * nothing at all.  1 with *IP and *AFTER (the status after TIP.PGE), or 0
 * (fallback: anything else, e.g. a gap, is the block walk's). */
static int disable_binds(struct pt_query_decoder *query,
			 struct decoded_block *b, struct retstack *rs,
			 int status, uint64_t *ip, int *after,
			 struct fast_chunk *out)
{
	uint64_t fall = b->end_ip + b->last_size, resume = 0;

	/* libipt logs the call's return address before the disable. */
	if (b->exit == exit_indirect_call)
		retstack_push(rs, fall, &b->next[1]);
	if (b->iclass == hwtr_ic_call || b->iclass == hwtr_ic_far_call)
		resume = fall;
	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_qry_event(query, &ev, sizeof(ev));
		if (status < 0)
			return fallback(out, fallback_trace);
		if (ev.type == ptev_cbr)
			continue;
		if (ev.type != ptev_enabled || ev.status_update ||
		    ev.ip_suppressed || !resume ||
		    ev.variant.enabled.ip != resume)
			break;
		*ip = resume;
		*after = status;
		return 1;
	}
	return fallback(out, fallback_event);
}

int fast_chunk_walk(struct pt_query_decoder *query, const struct psb_scan *scan,
		    size_t psb, unsigned epoch, struct image_set *images,
		    struct isa *isa, struct decoded_blocks *cache,
		    struct fast_chunk *out)
{
	const struct psb_info *here = &scan->psbs[psb], *next;
	struct retstack rs = { .top = 0, .bottom = 0 };
	struct decoded_block **link = NULL, **memo = NULL;
	uint64_t ip = 0;
	unsigned unqueried = 0;
	bool time_stale = true, disabled = false;
	int status, disabled_status = 0;

	out->count = 0;
	out->ntimes = 0;
	out->why = fallback_none;
	if (psb + 1 >= scan->count || !plain_psb(here) ||
	    !plain_psb(&scan->psbs[psb + 1]))
		return fallback(out, fallback_chunk_start);
	next = &scan->psbs[psb + 1];
	out->next_psb = psb + 1;
	status = pt_qry_sync_set(query, &ip, here->offset);
	if (status < 0 || (status & pts_ip_suppressed))
		return fallback(out, fallback_trace);
	if (take_events(query, status, ip, NULL, NULL, &out->why) !=
	    events_go_on)
		return fallback(out, out->why);
	for (;;) {
		struct decoded_block *b = link ? *link : NULL;
		bool queried;
		int err;

		/* The query decoder's time moves only as a query reads
		 * packets: asked again only after one. */
		if (time_stale) {
			uint32_t lost_mtc, lost_cyc;
			uint64_t time = 0;
			bool timed = pt_qry_time(query, &time, &lost_mtc,
						 &lost_cyc) >= 0;

			if ((err = add_time(out, timed, time)) < 0)
				return err;
			time_stale = false;
		}
		if (b) {
			cache->hits++;
		} else if (memo && *memo && (*memo)->ip == ip) {
			/* Where this indirect branch or return went last
			 * time (blocks of one epoch link only to blocks of
			 * that epoch). */
			b = *memo;
			cache->hits++;
			cache->repeats++;
		} else {
			b = decoded_blocks_get(cache, images, isa, ip, epoch);
			if (!b)
				return -pte_nomem;
			if (link)
				*link = b;
			else if (memo)
				*memo = b;
		}
		if (b->exit == exit_unsure)
			return fallback(out, fallback_code);
		/* libipt would bind a pending disable to a mov to CR3. */
		if (disabled && b->mov_cr)
			return fallback(out, fallback_code);
		if ((err = add_block(out, b)) < 0)
			return err;
		if (disabled && needs_trace(b)) {
			/* Tracing was off from here to the TIP.PGE. */
			if (!disable_binds(query, b, &rs, disabled_status, &ip,
					   &status, out))
				return 0;
			disabled = false;
			link = NULL;
			memo = NULL;
			queried = true;
		} else if (!follow_exit(query, b, &rs, &ip, &link, &memo,
					&status, &queried, out)) {
			return 0;
		}
		/* Only queries read packets, and each query takes a TNT bit
		 * or a packet: code that runs without trace (jmp .) is a run
		 * of blocks without one.  (Between two packets there are then
		 * at most 47 TNT bits' runs: far fewer blocks than the block
		 * walk's own limit.) */
		if (queried) {
			unqueried = 0;
			time_stale = true;
		} else if (++unqueried > FAST_BLOCKS_WITHOUT_TRACE) {
			return fallback(out, fallback_no_progress);
		}
		if (!(status & pts_event_pending))
			continue;
		switch (take_events(query, status, ip, next, &disabled_status,
				    &out->why)) {
		case events_go_on:
			break;
		case events_disabled:
			disabled = true;
			break;
		case events_chunk_end:
			return 1;
		case events_fallback:
			return fallback(out, out->why);
		}
	}
}

void fast_chunk_release(struct fast_chunk *chunk)
{
	free(chunk->blocks);
	free(chunk->times);
	memset(chunk, 0, sizeof(*chunk));
}

const char *fast_fallback_name(enum fast_fallback why)
{
	switch (why) {
	case fallback_none: return "none";
	case fallback_chunk_start: return "not a plain PSB+";
	case fallback_event: return "an event";
	case fallback_code: return "code";
	case fallback_trace: return "query error or end";
	case fallback_return: return "return compression";
	case fallback_no_progress: return "no progress";
	case fallback_kinds: break;
	}
	return "?";
}
