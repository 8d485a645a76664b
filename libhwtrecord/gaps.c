/* gaps.c: the gaps of a thread's history, in words.
 *
 * Every gap the walk reports (decoder.h: an overflow, trace disabled, a
 * cut packet, bytes before the first chunk start, a loss, code that loops
 * without trace, a decode error) takes one instruction number and a
 * function segment of its own.  Its message says what happened and where
 * (the trace offset, the address, and for a decode error with no code the
 * reason: the mapping's problem, a kernel address, no binary mapped); its
 * kind names it for listings (doc/json-schema.md).
 */
#include "gaps.h"

#include "error.h"
#include "index-builder.h"
#include "segments.h"

#include <stdlib.h>
#include <string.h>

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
			 "%llu bytes at offset %llu precede the first %s and "
			 "cannot be decoded", (unsigned long long)item->ip,
			 (unsigned long long)item->offset, t->ops->chunk_start_name);
		break;
	case gap_lost:
		snprintf(text, sizeof(text), "trace lost at offset %llu: %s",
			 (unsigned long long)item->offset,
			 item->reason ? item->reason
				      : "the trace source lost trace");
		break;
	case gap_no_progress:
		snprintf(text, sizeof(text),
			 "code at 0x%llx loops without producing trace (offset "
			 "%llu); decoding resumes at the next %s",
			 (unsigned long long)item->ip,
			 (unsigned long long)item->offset, t->ops->chunk_start_name);
		break;
	case gap_decode_error:
	default: {
		const struct image_mapping *m =
			item->ip ? image_set_lookup(t->history->images, item->ip, 0)
				 : NULL;
		const char *what = t->ops->errstr(item->error);

		if (item->no_code && item->ip && m && m->problem)
			snprintf(text, sizeof(text), "%s at 0x%llx (offset %llu): %s",
				 what, (unsigned long long)item->ip,
				 (unsigned long long)item->offset, m->problem);
		else if (item->no_code && item->ip >> 63)
			/* The upper half is the kernel's (Linux and FreeBSD on
			 * x86-64 and AArch64); sideband maps only the program. */
			snprintf(text, sizeof(text),
				 "%s at 0x%llx (offset %llu): a kernel address; "
				 "decoding there needs the traced kernel's image "
				 "(its vmlinux), which the recording does not have",
				 what, (unsigned long long)item->ip,
				 (unsigned long long)item->offset);
		else if (item->no_code && item->ip)
			snprintf(text, sizeof(text),
				 "%s at 0x%llx (offset %llu): no binary is mapped there",
				 what, (unsigned long long)item->ip,
				 (unsigned long long)item->offset);
		else
			snprintf(text, sizeof(text), "%s (offset %llu)", what,
				 (unsigned long long)item->offset);
		break;
	}
	}
	return strdup(text);
}

/* What kind of gap it is, in words for listings (doc/json-schema.md). */
static const char *gap_kind_name(struct hwtr_thread *t,
				 const struct walk_item *item, const char *message)
{
	switch (item->gap) {
	case gap_overflow:
		return "overflow";
	case gap_disabled:
		return "disabled";
	case gap_truncated:
		return "truncated";
	case gap_lost:
		return "trace-loss";
	case gap_unsynced:
		/* Not the decoder's name for error 0 (libipt's is "OK"). */
		return "no sync";
	case gap_no_progress:
		return "no-progress";
	default:
		break;
	}
	if (strstr(message, "missing binary") || strstr(message, "build-id mismatch"))
		return "missing-binary";
	return t->ops->errstr(item->gap == gap_decode_error ? item->error : 0);
}

int gap_add(struct builder *b, const struct walk_item *item)
{
	struct hwtr_thread *t = b->thread;
	struct gap_entry *g;
	struct segment *s;
	int err;

	if ((err = history_grow((void **)&t->gaps, &b->cap_gaps, t->ngaps,
			sizeof(*t->gaps))) ||
	    (err = segment_new(b, 0, &s)))
		return err;
	s->flags = HWTR_SEG_GAP;
	g = &t->gaps[t->ngaps++];
	memset(g, 0, sizeof(*g));
	g->insn = t->ninsns + 1;
	g->segment = t->nsegments;
	g->gap.error = item->gap == gap_decode_error ? item->error : 0;
	g->gap.pt_error = t->ops->libipt_errors ? g->gap.error : 0;
	g->gap.offset = item->offset;
	g->gap.message = gap_message(t, item);
	if (!g->gap.message)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	g->gap.kind = gap_kind_name(t, item, g->gap.message);
	t->ninsns++;
	b->last.have_last = false;
	return 0;
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

int hwtr_thread_next_gap(const struct hwtr_thread *t, uint64_t number,
			 int direction, uint64_t *gap)
{
	size_t lo = 0, hi = t ? t->ngaps : 0;

	if (!t || !gap || !direction)
		return hwtr_fail(hwtr_err_invalid, "hwtr_thread_next_gap: bad argument");
	/* lo: the first gap after NUMBER. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->gaps[mid].insn <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (direction > 0) {
		if (lo == t->ngaps)
			return 0;
		*gap = t->gaps[lo].insn;
		return 1;
	}
	/* Before NUMBER: the last gap at or before it, unless it is NUMBER. */
	while (lo > 0 && t->gaps[lo - 1].insn >= number)
		lo--;
	if (lo == 0)
		return 0;
	*gap = t->gaps[lo - 1].insn;
	return 1;
}
