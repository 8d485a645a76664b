/* history.c: building each thread's history and decoding chunks on demand.
 *
 * The index pass walks a thread's trace once (decode-pt.c).  Every chunk
 * start becomes a chunk entry; every block extends or starts a function
 * segment following GDB's btrace model (btrace.c, ftrace_update_function):
 * a new segment at call, return, tail jump and symbol change, returns with
 * no matching call one level up; every gap takes one instruction number and
 * a segment of its own.  Per-instruction data is never kept: a chunk is
 * decoded again, with the same walk, when a cursor needs it.
 */
#include "history.h"

#include "error.h"

#include <capstone/capstone.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NO_PSB UINT64_MAX	/* a chunk of gaps only (before the first PSB) */
#define SEG_ENDS_WITH_CALL 0x100u	/* internal: last instruction is a call */
#define SEG_PUBLIC_FLAGS (HWTR_SEG_UP_LINKS_TO_RET | HWTR_SEG_UP_LINKS_TO_TAILCALL | HWTR_SEG_GAP)
#define DEFAULT_CACHE_BYTES (64u << 20)

/* ------------------------------------------------------------ page filter */

static void page_hashes(uint64_t page, unsigned *h1, unsigned *h2)
{
	uint64_t x = page * 0x9e3779b97f4a7c15ULL;

	*h1 = (unsigned)(x >> 56);
	*h2 = (unsigned)(x >> 48) & 0xff;
}

static void page_filter_add(uint8_t *filter, uint64_t begin, uint64_t end)
{
	uint64_t page;

	for (page = begin >> 12; page <= end >> 12; page++) {
		unsigned h1, h2;

		page_hashes(page, &h1, &h2);
		filter[h1 / 8] |= (uint8_t)(1u << (h1 % 8));
		filter[h2 / 8] |= (uint8_t)(1u << (h2 % 8));
		if (page - (begin >> 12) > 64)
			break;	/* a block over many pages: already saturated */
	}
}

bool page_filter_may_contain(const uint8_t *filter, uint64_t ip)
{
	unsigned h1, h2;

	page_hashes(ip >> 12, &h1, &h2);
	return (filter[h1 / 8] & (1u << (h1 % 8))) &&
	       (filter[h2 / 8] & (1u << (h2 % 8)));
}

/* --------------------------------------------------------- growable arrays */

static int grow(void **array, size_t *cap, size_t count, size_t elem)
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

/* ---------------------------------------------------------- instructions */

/* libipt may leave a block's last instruction unclassified (ptic_error);
 * then capstone's instruction id decides. */
static enum pt_insn_class classify_by_id(unsigned id)
{
	switch (id) {
	case X86_INS_CALL: return ptic_call;
	case X86_INS_RET: return ptic_return;
	case X86_INS_JMP: return ptic_jump;
	case X86_INS_LCALL: case X86_INS_SYSCALL: case X86_INS_SYSENTER:
	case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO:
		return ptic_far_call;
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
	case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return ptic_far_return;
	case X86_INS_LJMP: return ptic_far_jump;
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JE: case X86_INS_JGE:
	case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL: case X86_INS_JNE:
	case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO:
	case X86_INS_JP: case X86_INS_JRCXZ: case X86_INS_JS: case X86_INS_LOOP:
	case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return ptic_cond_jump;
	default: return ptic_other;
	}
}

static enum pt_insn_class last_insn_class(struct hwtr_history *h,
					  const struct pt_block *block)
{
	csh capstone = (csh)(uintptr_t)h->capstone;
	enum pt_insn_class iclass = ptic_error;
	uint8_t bytes[16];
	cs_insn *insn;
	int n;

	if (block->iclass != ptic_error)
		return block->iclass;
	if (block->truncated) {
		memcpy(bytes, block->raw, block->size);
		n = block->size;
	} else if (block->isid > 0) {
		n = pt_iscache_read(image_set_iscache(h->images), bytes,
				    sizeof(bytes), block->isid, block->end_ip);
	} else {
		return ptic_error;
	}
	if (n <= 0 || cs_disasm(capstone, bytes, (size_t)n, block->end_ip, 1,
				&insn) != 1)
		return ptic_error;
	iclass = classify_by_id(insn->id);
	cs_free(insn, 1);
	return iclass;
}

/* ------------------------------------------------------ function segments */

struct builder {
	struct hwtr_thread *thread;
	size_t cap_chunks, cap_segments, cap_gaps;
	bool have_last;		/* a block since the last gap */
	enum pt_insn_class last_iclass;
	uint64_t last_end_ip;
	int last_isid;
	uint64_t fn_start, fn_end;	/* range of the current function id */
	uint32_t fn_id;
};

static struct segment *seg(struct hwtr_thread *t, uint64_t number)
{
	return number ? &t->segments[number - 1] : NULL;
}

static uint64_t seg_number(struct hwtr_thread *t, const struct segment *s)
{
	return s ? (uint64_t)(s - t->segments) + 1 : 0;
}

static int new_segment(struct builder *b, uint32_t function,
		       struct segment **out)
{
	struct hwtr_thread *t = b->thread;
	struct segment *s;
	int err = grow((void **)&t->segments, &b->cap_segments, t->nsegments,
		       sizeof(*t->segments));

	if (err)
		return err;
	if (t->nsegments >= UINT32_MAX)
		return hwtr_fail(hwtr_err_nomem, "more than 2^32 function segments");
	s = &t->segments[t->nsegments++];
	memset(s, 0, sizeof(*s));
	s->insn_begin = t->ninsns + 1;
	s->function = function;
	if (t->nsegments > 1)
		s->level = t->segments[t->nsegments - 2].level;
	*out = s;
	return 0;
}

static const char *function_name(struct hwtr_thread *t, uint32_t id)
{
	const char *name = symbolizer_function_name(t->history->symbols, id);

	return name ? name : "";
}

static void set_up(struct segment *s, uint64_t up, uint32_t flags)
{
	s->up = (uint32_t)up;
	s->flags = (s->flags & ~(HWTR_SEG_UP_LINKS_TO_RET |
				 HWTR_SEG_UP_LINKS_TO_TAILCALL)) | flags;
}

/* GDB's ftrace_fixup_caller: every segment of BFUN's activation gets CALLER
 * as its caller. */
static void fixup_caller(struct hwtr_thread *t, struct segment *bfun,
			 uint64_t caller, uint32_t flags)
{
	struct segment *s;

	set_up(bfun, caller, flags);
	for (s = seg(t, bfun->prev); s; s = seg(t, s->prev))
		set_up(s, caller, flags);
	for (s = seg(t, bfun->next); s; s = seg(t, s->next))
		set_up(s, caller, flags);
}

static int new_return(struct builder *b, uint32_t fid)
{
	struct hwtr_thread *t = b->thread;
	uint64_t prev_n = t->nsegments, caller_n = 0, call_n = 0;
	struct segment *prev, *caller, *s;
	int err;

	/* Segments are found by number: new_segment() may move the array. */

	/* The last caller up the stack that is the function we return to.  A
	 * function entered by a tail jump returns to its tail-caller's caller,
	 * so tail-call links are skipped first (GDB's btrace matches by name
	 * only and, with recursion, returns one activation too deep). */
	caller = &t->segments[prev_n - 1];
	while (caller && (caller->flags & HWTR_SEG_UP_LINKS_TO_TAILCALL))
		caller = seg(t, caller->up);
	for (caller = caller ? seg(t, caller->up) : NULL; caller;
	     caller = seg(t, caller->up))
		if (caller->function == fid && !(caller->flags & HWTR_SEG_GAP))
			break;
	if (caller && caller->next == 0)
		caller_n = seg_number(t, caller);
	/* Else: is there any call up the stack we should have returned to? */
	for (caller = seg(t, t->segments[prev_n - 1].up); !caller_n && caller;
	     caller = seg(t, caller->up))
		if (!(caller->flags & HWTR_SEG_GAP) &&
		    (caller->flags & SEG_ENDS_WITH_CALL)) {
			call_n = seg_number(t, caller);
			break;
		}
	if ((err = new_segment(b, fid, &s)))
		return err;
	prev = &t->segments[prev_n - 1];
	if (caller_n) {
		caller = seg(t, caller_n);
		caller->next = (uint32_t)t->nsegments;
		s->prev = (uint32_t)caller_n;
		s->level = caller->level;
		s->up = caller->up;
		s->flags = caller->flags & (HWTR_SEG_UP_LINKS_TO_RET |
					    HWTR_SEG_UP_LINKS_TO_TAILCALL);
		return 0;
	}
	if (!call_n) {
		/* The call is not in the trace: add a caller above the topmost
		 * segment (handles a series of initial tail calls too). */
		struct segment *top = prev;

		while (top->up)
			top = seg(t, top->up);
		s->level = top->level - 1;
		fixup_caller(t, top, t->nsegments, HWTR_SEG_UP_LINKS_TO_RET);
	} else {
		/* Start a separate back trace at PREV's level. */
		s->level = prev->level - 1;
		set_up(prev, t->nsegments, HWTR_SEG_UP_LINKS_TO_RET);
	}
	return 0;
}

static int new_call(struct builder *b, uint32_t fid, uint32_t flags)
{
	struct hwtr_thread *t = b->thread;
	uint64_t caller = t->nsegments;
	struct segment *s;
	int err = new_segment(b, fid, &s);

	if (err)
		return err;
	s->up = (uint32_t)caller;
	s->level = t->segments[caller - 1].level + 1;
	s->flags = flags;
	return 0;
}

static int new_switch(struct builder *b, uint32_t fid)
{
	struct hwtr_thread *t = b->thread;
	struct segment prev = t->segments[t->nsegments - 1], *s;
	int err = new_segment(b, fid, &s);

	if (err)
		return err;
	s->up = prev.up;
	s->level = prev.level;
	s->flags = prev.flags & (HWTR_SEG_UP_LINKS_TO_RET |
				 HWTR_SEG_UP_LINKS_TO_TAILCALL);
	return 0;
}

static bool is_pic_call(struct builder *b, uint64_t ip)
{
	uint8_t byte = 0;

	/* "call next instruction" (e8 00000000) computes the PC, not a call. */
	if (ip != b->last_end_ip + 5 || b->last_isid <= 0)
		return false;
	if (pt_iscache_read(image_set_iscache(b->thread->history->images), &byte,
			    1, b->last_isid, b->last_end_ip) != 1)
		return false;
	return byte == 0xe8;
}

static uint32_t function_at(struct builder *b, uint64_t ip)
{
	if (b->fn_id && ip >= b->fn_start && ip < b->fn_end)
		return b->fn_id;
	b->fn_id = symbolizer_function(b->thread->history->symbols, ip);
	symbolizer_function_range(b->thread->history->symbols, b->fn_id,
				  &b->fn_start, &b->fn_end);
	return b->fn_id;
}

/* GDB's ftrace_update_function, for the first instruction of a block. */
static int update_function(struct builder *b, uint64_t ip)
{
	struct hwtr_thread *t = b->thread;
	uint32_t fid = function_at(b, ip);
	struct segment *bfun, *s;

	if (t->nsegments == 0)
		return new_segment(b, fid, &s);
	bfun = &t->segments[t->nsegments - 1];
	if (bfun->flags & HWTR_SEG_GAP || !b->have_last) {
		int32_t level = bfun->level;	/* bfun may move below */
		int err = new_segment(b, fid, &s);

		if (!err)
			s->level = level;
		return err;
	}
	switch (b->last_iclass) {
	case ptic_return:
		/* _dl_runtime_resolve may "return" into the resolved function. */
		if (!strcmp(function_name(t, bfun->function), "_dl_runtime_resolve"))
			return new_call(b, fid, HWTR_SEG_UP_LINKS_TO_TAILCALL);
		return new_return(b, fid);
	case ptic_call:
		if (is_pic_call(b, ip))
			break;
		return new_call(b, fid, 0);
	case ptic_jump: {
		uint64_t start = symbolizer_function_start(t->history->symbols, fid);

		/* A jump to the start of a function is a tail call. */
		if (start == ip)
			return new_call(b, fid, HWTR_SEG_UP_LINKS_TO_TAILCALL);
		/* _Unwind_* "return" to a handler with an indirect jump. */
		if (!strncmp(function_name(t, bfun->function), "_Unwind_", 8)) {
			struct segment *c;

			for (c = seg(t, bfun->up); c; c = seg(t, c->up))
				if (c->function == fid)
					return new_return(b, fid);
		}
		if (start == 0 && fid != bfun->function)
			return new_call(b, fid, HWTR_SEG_UP_LINKS_TO_TAILCALL);
		break;
	}
	default:
		break;
	}
	/* Any other change of function: longjmp, odd calling conventions. */
	if (fid != bfun->function)
		return new_switch(b, fid);
	return 0;
}

/* ------------------------------------------------------------------ gaps */

static char *gap_message(struct hwtr_thread *t, const struct walk_item *item)
{
	char text[1024];

	switch (item->gap) {
	case gap_overflow:
		snprintf(text, sizeof(text),
			 "overflow: the trace source dropped trace (offset %llu)",
			 (unsigned long long)item->offset);
		break;
	case gap_disabled:
		snprintf(text, sizeof(text),
			 "tracing was disabled and resumed at 0x%llx (offset %llu)",
			 (unsigned long long)item->ip,
			 (unsigned long long)item->offset);
		break;
	case gap_truncated:
		snprintf(text, sizeof(text),
			 "trace truncated: the stream ends inside a packet at "
			 "offset %llu", (unsigned long long)item->offset);
		break;
	case gap_unsynced:
		snprintf(text, sizeof(text),
			 "%llu bytes at offset %llu precede the first PSB and "
			 "cannot be decoded", (unsigned long long)item->ip,
			 (unsigned long long)item->offset);
		break;
	case gap_no_progress:
		snprintf(text, sizeof(text),
			 "code at 0x%llx loops without producing trace (offset "
			 "%llu); decoding resumes at the next PSB",
			 (unsigned long long)item->ip,
			 (unsigned long long)item->offset);
		break;
	case gap_decode_error:
	default: {
		const struct image_mapping *m =
			item->ip ? image_set_lookup(t->history->images, item->ip, 0)
				 : NULL;

		if (item->pt_error == pte_nomap && item->ip && m && m->problem)
			snprintf(text, sizeof(text), "%s at 0x%llx (offset %llu): %s",
				 pt_errstr(pte_nomap), (unsigned long long)item->ip,
				 (unsigned long long)item->offset, m->problem);
		else if (item->pt_error == pte_nomap && item->ip)
			snprintf(text, sizeof(text),
				 "%s at 0x%llx (offset %llu): no binary is mapped there",
				 pt_errstr(pte_nomap), (unsigned long long)item->ip,
				 (unsigned long long)item->offset);
		else
			snprintf(text, sizeof(text), "%s (offset %llu)",
				 pt_errstr((enum pt_error_code)item->pt_error),
				 (unsigned long long)item->offset);
		break;
	}
	}
	return strdup(text);
}

static int add_gap(struct builder *b, const struct walk_item *item)
{
	struct hwtr_thread *t = b->thread;
	struct gap_entry *g;
	struct segment *s;
	int err;

	if ((err = grow((void **)&t->gaps, &b->cap_gaps, t->ngaps,
			sizeof(*t->gaps))) ||
	    (err = new_segment(b, 0, &s)))
		return err;
	s->flags = HWTR_SEG_GAP;
	g = &t->gaps[t->ngaps++];
	memset(g, 0, sizeof(*g));
	g->insn = t->ninsns + 1;
	g->segment = t->nsegments;
	g->gap.pt_error = item->gap == gap_decode_error ? item->pt_error : 0;
	g->gap.offset = item->offset;
	g->gap.message = gap_message(t, item);
	if (!g->gap.message)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	t->ninsns++;
	b->have_last = false;
	return 0;
}

/* ---------------------------------------------------------------- chunks */

static uint64_t next_tsc_after(const struct psb_scan *scan, uint64_t offset)
{
	size_t i;

	for (i = psb_scan_index_after(scan, offset); i < scan->count; i++)
		if (scan->psbs[i].has_tsc)
			return scan->psbs[i].tsc;
	return UINT64_MAX;
}

/* The image of the chunk starting at a PSB: the mappings of its time window,
 * from its own TSC to the next PSB's.  Index and on-demand decoding both ask
 * this, so they decode with the same code. */
static int image_for_psb(void *ctx, uint64_t psb_offset, struct pt_image **image)
{
	struct hwtr_thread *t = ctx;
	const struct psb_info *psb = psb_scan_find(&t->scan, psb_offset);
	uint64_t begin = 0, end = UINT64_MAX;
	unsigned epoch;

	if (psb && psb->has_tsc) {
		begin = psb->tsc;
		end = next_tsc_after(&t->scan, psb_offset);
	}
	return image_set_for_window(t->history->images, begin, end, image, &epoch);
}

static int add_chunk(struct builder *b, uint64_t psb_offset, uint64_t tsc,
		     bool has_tsc)
{
	struct hwtr_thread *t = b->thread;
	struct chunk *c;
	int err = grow((void **)&t->chunks, &b->cap_chunks, t->nchunks,
		       sizeof(*t->chunks));

	if (err)
		return err;
	c = &t->chunks[t->nchunks++];
	memset(c, 0, sizeof(*c));
	c->psb_offset = psb_offset;
	c->first_insn = t->ninsns + 1;
	c->tsc_begin = has_tsc ? tsc : 0;
	return 0;
}

static bool psb_has_tsc(const struct psb_scan *scan, uint64_t offset)
{
	const struct psb_info *psb = psb_scan_find(scan, offset);

	return psb && psb->has_tsc;
}

static int index_thread(struct hwtr_thread *t, uint64_t trace_start)
{
	struct builder b = { .thread = t };
	struct pt_walk *walk;
	struct walk_item item;
	int status, err;

	err = pt_walk_begin(&t->config, &t->scan, trace_start, image_for_psb, t,
			    &walk);
	if (err)
		return err;
	while ((status = pt_walk_next(walk, &item)) > 0) {
		switch (item.kind) {
		case walk_chunk_start:
			err = add_chunk(&b, item.offset, item.tsc,
					psb_has_tsc(&t->scan, item.offset));
			break;
		case walk_block: {
			struct chunk *c;

			if (t->nchunks == 0)
				err = add_chunk(&b, NO_PSB, 0, false);
			if (err)
				break;
			c = &t->chunks[t->nchunks - 1];
			if (!c->entry_ip && c->first_insn == t->ninsns + 1)
				c->entry_ip = item.block.ip;
			item.block.iclass = last_insn_class(t->history, &item.block);
			if ((err = update_function(&b, item.block.ip)))
				break;
			page_filter_add(c->pages, item.block.ip, item.block.end_ip);
			t->ninsns += item.block.ninsn;
			{
				struct segment *s = &t->segments[t->nsegments - 1];

				if (item.block.iclass == ptic_call)
					s->flags |= SEG_ENDS_WITH_CALL;
				else
					s->flags &= ~SEG_ENDS_WITH_CALL;
			}
			b.have_last = true;
			b.last_iclass = item.block.iclass;
			b.last_end_ip = item.block.end_ip;
			b.last_isid = item.block.isid;
			break;
		}
		case walk_gap:
			/* Gaps before any chunk get a chunk of their own. */
			if (t->nchunks == 0)
				err = add_chunk(&b, NO_PSB, 0, false);
			if (!err)
				err = add_gap(&b, &item);
			break;
		}
		if (err)
			break;
	}
	pt_walk_free(walk);
	if (!err && status < 0)
		err = status;
	if (!err) {
		int32_t min_level = 0;
		size_t i;

		for (i = 0; i < t->nsegments; i++)
			if (t->segments[i].level < min_level)
				min_level = t->segments[i].level;
		t->level_base = -min_level;
	}
	return err;
}

/* ------------------------------------------------------------ the history */

static void thread_release(struct hwtr_thread *t)
{
	size_t i;

	for (i = 0; i < t->ngaps; i++)
		free((char *)t->gaps[i].gap.message);
	free(t->gaps);
	free(t->chunks);
	free(t->segments);
	psb_scan_release(&t->scan);
}

int hwtr_history_build(struct hwtr_recording *rec,
		       const struct hwtr_history_options *options,
		       struct hwtr_history **out)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	const char *const *debug_dirs = options ? options->debug_dirs : NULL;
	size_t cache_bytes = options && options->cache_bytes
				     ? options->cache_bytes
				     : DEFAULT_CACHE_BYTES;
	struct hwtr_history *h;
	csh capstone;
	size_t i;
	int err;

	if (!rec || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_history_build: bad argument");
	h = calloc(1, sizeof(*h));
	if (!h)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	h->recording = rec;
	h->threads = calloc(info->nthreads + 1, sizeof(*h->threads));
	h->cache_slots = cache_bytes / (1u << 20);
	if (h->cache_slots < 4)
		h->cache_slots = 4;
	h->cache = calloc(h->cache_slots, sizeof(*h->cache));
	h->lengths = calloc((size_t)1 << LENGTH_CACHE_BITS, sizeof(*h->lengths));
	if (!h->threads || !h->cache || !h->lengths) {
		hwtr_history_free(h);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < h->cache_slots; i++)
		h->cache[i].key = UINT64_MAX;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &capstone) != CS_ERR_OK) {
		hwtr_history_free(h);
		return hwtr_fail(hwtr_err_nomem, "capstone: cannot open x86-64");
	}
	h->capstone = (void *)(uintptr_t)capstone;
	if ((err = image_set_build(rec, debug_dirs, &h->images)) ||
	    (err = symbolizer_build(h->images, debug_dirs, &h->symbols))) {
		hwtr_history_free(h);
		return err;
	}
	for (i = 0; i < info->nthreads; i++) {
		struct hwtr_thread *t = &h->threads[i];
		const uint8_t *bytes;
		size_t size;

		t->history = h;
		t->index = i;
		t->tid = info->threads[i].tid;
		h->nthreads = i + 1;
		hwtr_recording_trace(rec, i, &bytes, &size);
		t->trace_bytes = size - info->threads[i].trace_start;
		pt_config_from_recording(&t->config, &info->pt, bytes, size);
		if (options && options->progress)
			fprintf(options->progress, "hwtrec: decoding thread %u "
				"(%zu bytes of trace)...\n", t->tid, size);
		if (size == 0)
			continue;	/* an empty trace is an empty history */
		err = psb_scan_stream(&t->config, info->threads[i].trace_start,
				      &t->scan);
		if (!err)
			err = index_thread(t, info->threads[i].trace_start);
		if (err) {
			hwtr_fail_context(err, "%s/%s: ", hwtr_recording_path(rec),
					  info->threads[i].stream);
			hwtr_history_free(h);
			return err;
		}
	}
	*out = h;
	return 0;
}

void hwtr_history_free(struct hwtr_history *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nthreads; i++)
		thread_release(&h->threads[i]);
	for (i = 0; h->cache && i < h->cache_slots; i++)
		free(h->cache[i].insns);
	free(h->cache);
	free(h->lengths);
	free(h->failed_message);
	free(h->threads);
	if (h->capstone) {
		csh capstone = (csh)(uintptr_t)h->capstone;

		cs_close(&capstone);
	}
	symbolizer_free(h->symbols);
	image_set_free(h->images);
	free(h);
}

size_t hwtr_history_nthreads(const struct hwtr_history *h)
{
	return h ? h->nthreads : 0;
}

struct hwtr_thread *hwtr_history_thread(struct hwtr_history *h, size_t index)
{
	return h && index < h->nthreads ? &h->threads[index] : NULL;
}

struct hwtr_thread *hwtr_history_find_thread(struct hwtr_history *h,
					     uint32_t tid)
{
	size_t i;

	for (i = 0; h && i < h->nthreads; i++)
		if (h->threads[i].tid == tid)
			return &h->threads[i];
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
	s->index_bytes = t->nchunks * sizeof(*t->chunks) +
			 t->nsegments * sizeof(*t->segments) +
			 t->ngaps * sizeof(*t->gaps) +
			 t->scan.count * sizeof(*t->scan.psbs);
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

uint64_t history_segment_of(const struct hwtr_thread *t, uint64_t number)
{
	size_t lo = 0, hi = t->nsegments;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->segments[mid].insn_begin <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;	/* segment numbers are 1-based */
}

const struct gap_entry *history_gap_at(const struct hwtr_thread *t,
				       uint64_t number)
{
	size_t lo = 0, hi = t->ngaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->gaps[mid].insn < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ngaps && t->gaps[lo].insn == number ? &t->gaps[lo] : NULL;
}

void history_segment_view(const struct hwtr_thread *t, uint64_t number,
			  struct hwtr_segment *out)
{
	const struct segment *s = &t->segments[number - 1];

	memset(out, 0, sizeof(*out));
	out->number = number;
	out->up = s->up;
	out->prev = s->prev;
	out->next = s->next;
	out->level = s->level + t->level_base;
	out->flags = s->flags & SEG_PUBLIC_FLAGS;
	out->insn_begin = s->insn_begin;
	out->insn_end = number < t->nsegments ? t->segments[number].insn_begin
					      : t->ninsns + 1;
	out->function = symbolizer_function_name(t->history->symbols, s->function);
	out->function_start =
		symbolizer_function_start(t->history->symbols, s->function);
	if (s->flags & HWTR_SEG_GAP) {
		const struct gap_entry *g = history_gap_at(t, s->insn_begin);

		out->gap = g ? &g->gap : NULL;
	}
}

int hwtr_thread_segment(const struct hwtr_thread *t, uint64_t number,
			struct hwtr_segment *segment)
{
	if (!t || !segment)
		return hwtr_fail(hwtr_err_invalid, "hwtr_thread_segment: bad argument");
	if (number == 0 || number > t->nsegments)
		return hwtr_fail(hwtr_err_range,
				 "thread %u has no function segment %llu (it has "
				 "%zu)", t->tid, (unsigned long long)number,
				 t->nsegments);
	history_segment_view(t, number, segment);
	return 0;
}

/* ---------------------------------------------------- on-demand decoding */

static enum hwtr_insn_class insn_class(enum pt_insn_class c)
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
	default: return hwtr_ic_unknown;
	}
}

/* Hot code is decoded again and again: instruction lengths by IP (and
 * section, since code at one IP can change with the image). */
static size_t length_cache_get(struct hwtr_history *h, uint64_t ip, int isid)
{
	const struct length_slot *slot =
		&h->lengths[(ip * 0x9e3779b97f4a7c15ULL) >> (64 - LENGTH_CACHE_BITS)];

	return slot->ip == ip && slot->isid == isid ? slot->len : 0;
}

static void length_cache_put(struct hwtr_history *h, uint64_t ip, int isid,
			     size_t len)
{
	struct length_slot *slot =
		&h->lengths[(ip * 0x9e3779b97f4a7c15ULL) >> (64 - LENGTH_CACHE_BITS)];

	slot->ip = ip;
	slot->isid = isid;
	slot->len = (uint8_t)len;
}

/* Length of the instruction at CODE (capstone), or 0 if it does not know it. */
static size_t insn_length(csh capstone, cs_insn *insn, const uint8_t *code,
			  size_t left, uint64_t ip)
{
	uint64_t addr = ip;

	if (!cs_disasm_iter(capstone, &code, &left, &addr, insn))
		return 0;
	return insn->size;
}

/* Capstone does not know every instruction (CET's rdsspq, newer
 * extensions).  The block tells how many instructions lie between its first
 * IP and its last: the unknown instruction's length is the one after which
 * the rest of the block decodes to exactly that. */
static size_t guess_length(csh capstone, cs_insn *insn, const uint8_t *buf,
			   size_t have, uint64_t base, uint64_t ip, size_t left_insns,
			   uint64_t end_ip)
{
	size_t len;

	for (len = 1; len <= 15; len++) {
		uint64_t pos = ip + len;
		size_t k = 1;

		while (k < left_insns && pos < end_ip && pos + 1 <= base + have) {
			size_t n = insn_length(capstone, insn, buf + (pos - base),
					       have - (size_t)(pos - base), pos);

			if (!n)
				break;
			pos += n;
			k++;
		}
		if (k == left_insns && pos == end_ip)
			return len;
	}
	return 0;
}

/* Split a block into instructions: blocks end at every branch, so the
 * instructions in between are contiguous and only their lengths are needed. */
static int expand_block(struct hwtr_thread *t, const struct pt_block *block,
			struct decoded_insn *out, size_t room)
{
	struct hwtr_history *h = t->history;
	csh capstone = (csh)(uintptr_t)h->capstone;
	uint8_t buf[4096];
	uint64_t ip = block->ip;
	size_t i, have = 0;
	uint64_t base = ip;
	cs_insn *insn;

	if (block->ninsn > room)
		return hwtr_fail(hwtr_err_decode, "chunk holds more instructions "
				 "than the index says");
	insn = cs_malloc(capstone);
	if (!insn)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < block->ninsn; i++) {
		struct decoded_insn *d = &out[i];
		size_t len;

		d->ip = ip;
		d->isid = block->isid;
		d->speculative = block->speculative;
		d->iclass = hwtr_ic_other;
		if (i + 1 == block->ninsn) {
			d->iclass = (uint8_t)insn_class(last_insn_class(h, block));
			if (block->truncated) {
				d->size = block->size;
				break;
			}
		}
		len = length_cache_get(h, ip, block->isid);
		if (len && i + 1 < block->ninsn) {
			d->size = (uint8_t)len;
			ip += len;
			continue;
		}
		if (ip < base || ip + 16 > base + have) {
			int n = block->isid > 0
					? pt_iscache_read(image_set_iscache(h->images),
							  buf, sizeof(buf),
							  block->isid, ip)
					: -pte_nomap;

			if (n <= 0) {
				cs_free(insn, 1);
				return hwtr_fail(hwtr_err_decode,
						 "cannot read code at 0x%llx again",
						 (unsigned long long)ip);
			}
			base = ip;
			have = (size_t)n;
		}
		len = insn_length(capstone, insn, buf + (ip - base),
				  have - (size_t)(ip - base), ip);
		if (!len && i + 1 < block->ninsn)
			len = guess_length(capstone, insn, buf, have, base, ip,
					   block->ninsn - i - 1, block->end_ip);
		if (len)
			length_cache_put(h, ip, block->isid, len);
		if (!len && i + 1 < block->ninsn) {
			cs_free(insn, 1);
			return hwtr_fail(hwtr_err_decode,
					 "cannot find the length of the instruction "
					 "at 0x%llx", (unsigned long long)ip);
		}
		d->size = (uint8_t)len;	/* 0: an unknown last instruction */
		if (!len)
			d->iclass = hwtr_ic_unknown;
		ip += len;
	}
	cs_free(insn, 1);
	if (out[block->ninsn - 1].ip != block->end_ip)
		return hwtr_fail(hwtr_err_decode,
				 "block 0x%llx..0x%llx re-decoded to end at 0x%llx",
				 (unsigned long long)block->ip,
				 (unsigned long long)block->end_ip,
				 (unsigned long long)out[block->ninsn - 1].ip);
	return 0;
}

static int fill_chunk(struct hwtr_thread *t, size_t k, struct decoded_insn *insns,
		      size_t count)
{
	const struct chunk *c = &t->chunks[k];
	struct pt_walk *walk;
	struct walk_item item;
	size_t filled = 0;
	bool first_chunk_item = true;
	int status, err;

	if (c->psb_offset == NO_PSB) {
		/* Gaps only: they come from the index. */
		for (filled = 0; filled < count; filled++) {
			memset(&insns[filled], 0, sizeof(insns[filled]));
			insns[filled].is_gap = 1;
		}
		return 0;
	}
	if ((err = pt_walk_at(&t->config, &t->scan, c->psb_offset, image_for_psb,
			      t, &walk)))
		return err;
	while (filled < count && (status = pt_walk_next(walk, &item)) > 0) {
		if (item.kind == walk_chunk_start) {
			if (!first_chunk_item)
				break;	/* the next chunk: ours is complete */
			first_chunk_item = false;
			continue;
		}
		if (item.kind == walk_gap) {
			memset(&insns[filled], 0, sizeof(insns[filled]));
			insns[filled++].is_gap = 1;
			continue;
		}
		err = expand_block(t, &item.block, insns + filled, count - filled);
		if (err)
			break;
		filled += item.block.ninsn;
	}
	pt_walk_free(walk);
	if (err)
		return hwtr_fail_context(err, "thread %u, chunk at offset %llu: ",
					 t->tid, (unsigned long long)c->psb_offset);
	if (filled != count || (c->entry_ip && count && !insns[0].is_gap &&
				insns[0].ip != c->entry_ip))
		return hwtr_fail(hwtr_err_decode,
				 "thread %u: the chunk at offset %llu decoded to %zu "
				 "instructions on demand, the index has %zu",
				 t->tid, (unsigned long long)c->psb_offset, filled,
				 count);
	return 0;
}

static uint64_t cache_key(const struct hwtr_thread *t, size_t k)
{
	return (uint64_t)t->index << 40 | k;
}

int history_decode_chunk(struct hwtr_thread *t, size_t k,
			 const struct decoded_chunk **out)
{
	struct hwtr_history *h = t->history;
	struct decoded_chunk *slot = NULL;
	uint64_t end;
	size_t i, count;
	int err;

	if (k >= t->nchunks)
		return hwtr_fail(hwtr_err_range, "no chunk %zu", k);
	for (i = 0; i < h->cache_slots; i++) {
		struct decoded_chunk *d = &h->cache[i];

		if (d->key == cache_key(t, k)) {
			d->last_use = ++h->cache_clock;
			*out = d;
			return 0;
		}
		if (!slot || d->last_use < slot->last_use)
			slot = d;
	}
	if (h->failed_message && h->failed_key == cache_key(t, k))
		return hwtr_fail(hwtr_err_decode, "%s", h->failed_message);
	end = k + 1 < t->nchunks ? t->chunks[k + 1].first_insn : t->ninsns + 1;
	count = (size_t)(end - t->chunks[k].first_insn);
	free(slot->insns);
	slot->insns = NULL;
	slot->key = UINT64_MAX;
	slot->last_use = 0;
	slot->insns = calloc(count ? count : 1, sizeof(*slot->insns));
	if (!slot->insns)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	err = fill_chunk(t, k, slot->insns, count);
	if (err) {
		/* Remember the failure: a cursor stepping through this chunk
		 * must not decode it again at every step. */
		free(slot->insns);
		slot->insns = NULL;
		free(h->failed_message);
		h->failed_message = strdup(hwtr_last_error());
		h->failed_key = cache_key(t, k);
		return err;
	}
	slot->key = cache_key(t, k);
	slot->first_insn = t->chunks[k].first_insn;
	slot->count = count;
	slot->last_use = ++h->cache_clock;
	*out = slot;
	return 0;
}

/* ------------------------------------------------------------- searching */

static bool block_may_hold(const struct pt_block *block, const uint64_t *addrs,
			   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addrs[i] >= block->ip && addrs[i] <= block->end_ip)
			return true;
	return false;
}

static bool in_addrs(uint64_t ip, const uint64_t *addrs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addrs[i] == ip)
			return true;
	return false;
}

int history_find_in_chunk(struct hwtr_thread *t, size_t k,
			  const uint64_t *addrs, size_t naddrs, uint64_t lo,
			  uint64_t hi, int direction, uint64_t *found)
{
	const struct chunk *c = &t->chunks[k];
	struct decoded_insn *insns = NULL;
	size_t cap = 0;
	uint64_t number = c->first_insn, end;
	struct pt_walk *walk;
	struct walk_item item;
	bool first_chunk_item = true;
	int status, err = 0, hit = 0;

	end = k + 1 < t->nchunks ? t->chunks[k + 1].first_insn : t->ninsns + 1;
	if (hi > end)
		hi = end;
	if (c->psb_offset == NO_PSB || lo >= hi)
		return 0;
	/* Decoded already: look in the cache. */
	{
		struct hwtr_history *h = t->history;
		size_t i;

		for (i = 0; i < h->cache_slots; i++)
			if (h->cache[i].key == cache_key(t, k)) {
				const struct decoded_chunk *d = &h->cache[i];
				uint64_t n;

				for (n = lo; n < hi; n++) {
					uint64_t m = direction < 0 ? hi - 1 - (n - lo) : n;
					const struct decoded_insn *di =
						&d->insns[m - d->first_insn];

					if (!di->is_gap && in_addrs(di->ip, addrs, naddrs)) {
						*found = m;
						return 1;
					}
				}
				return 0;
			}
	}
	/* Otherwise walk the blocks and split only those that may hold an
	 * address: most of a chunk needs no instruction lengths at all. */
	if ((err = pt_walk_at(&t->config, &t->scan, c->psb_offset, image_for_psb,
			      t, &walk)))
		return err;
	while (number < hi && (status = pt_walk_next(walk, &item)) > 0) {
		size_t i;

		if (item.kind == walk_chunk_start) {
			if (!first_chunk_item)
				break;
			first_chunk_item = false;
			continue;
		}
		if (item.kind == walk_gap) {
			number++;
			continue;
		}
		if (number + item.block.ninsn > lo &&
		    block_may_hold(&item.block, addrs, naddrs)) {
			if (item.block.ninsn > cap) {
				free(insns);
				cap = item.block.ninsn;
				insns = calloc(cap, sizeof(*insns));
				if (!insns) {
					err = hwtr_fail(hwtr_err_nomem, "out of memory");
					break;
				}
			}
			if ((err = expand_block(t, &item.block, insns, cap)))
				break;
			for (i = 0; i < item.block.ninsn; i++) {
				uint64_t m = number + i;

				if (m < lo || m >= hi ||
				    !in_addrs(insns[i].ip, addrs, naddrs))
					continue;
				*found = m;
				hit = 1;
				if (direction > 0)
					break;
			}
			if (hit && direction > 0)
				break;
		}
		number += item.block.ninsn;
	}
	pt_walk_free(walk);
	free(insns);
	return err ? err : hit;
}
