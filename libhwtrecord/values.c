/* values.c: registers and memory at past positions, from the data log
 * (hwtrecord.h, "values"; the log's format in values-format.h, its index in
 * values-index.c).
 *
 * Positions: the log counts a thread's instructions as the tool ran them;
 * the history numbers them the same way but gives each gap a number too,
 * so a history number maps to a log position by leaving the gaps before it
 * out.  Before any value is given, the log must agree with the history: the
 * same instruction count per thread (when the log is whole) and the same
 * PC at every register snapshot.  A log that disagrees is refused: its
 * values would be wrong.  After an exec the log is the last image's
 * (data-log.c): a thread's count is then the end of its history's, placed
 * right after the exec's gap (place_after_exec); before it, nothing.
 *
 * A tail history (hwtr_history_build_tail) holds only the whole history's
 * last instructions, and which number the first of them has in the whole is
 * known only after the whole build.  The log's end is known, though: a whole
 * log's last sync counts each thread's instructions, and the tail's last
 * instruction is the thread's last, so the tail counts back from there
 * (log_base).  That is believed only where the log proves it: the log
 * whole, no more instructions in the tail than in the log, and the PC of
 * every register snapshot that falls in the tail (at least one) the tail's
 * at that position; else the log is refused for the tail (the caller waits
 * for the whole history).  A thread whose tail is its whole trace is
 * checked as in a whole history.
 *
 * The log's last part only (hwtr_values_load_tail, version 5): a tail needs
 * no record before the restart point (values-format.h, "Seeking") just
 * before each thread's tail: registers start from a snapshot, which comes
 * right after it, and memory is the end state undone back to the position,
 * for which only the records after it count; records before the restart
 * point have smaller global counts than any position after it.  So only
 * that part is indexed, from the earliest such restart point of all the
 * threads, its segments' CRCs checked; a thread whose positions it does
 * not reach back to (check_coverage) is refused, so no value comes from a
 * part of the log that was not read.  hwtr_values_load_tail_back reads
 * less: each thread's last BACK instructions only (from the restart point
 * before them); the positions before the part's start are then not known
 * (first_known), not refused, and the caller reads again further back
 * when it needs them.
 *
 * Registers: the latest value logged at or before the position, found from
 * the nearest snapshot.  Memory: the end state with the undo records from
 * the end back to the position applied, that is, for each byte the first
 * record at or after the position that touches it; only a whole log (with
 * its end record, or live, a stop's SYNC as its last record) can say that,
 * so memory of a log that was cut off is not known.
 */
#include "values-index.h"
#include "values-format.h"
#include "values-seek.h"
#include "values-access.h"
#include "values-registers.h"
#include "values-regstate.h"
#include "error.h"
#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct values_history_thread {
	struct hwtr_thread *thread;
	struct values_thread *log;	/* NULL: the log has nothing of it */
	uint64_t *gaps;		/* history numbers of gaps, ascending */
	size_t ngaps;
	uint64_t instructions;	/* of the history, gaps included */
	/* Log positions before the history's first instruction: 0, but for
	 * the tail of a longer trace (see the top). */
	uint64_t log_base;
	/* History positions (gaps left out) before the log's first: 0, but
	 * for the thread that exec'd when the log is the last image's (see
	 * place_after_exec); they have no values. */
	uint64_t unlogged;
	/* The first log position the part of the log read gives values of
	 * (hwtr_values_load_tail_back: the part may begin after log_base); 0
	 * when it holds every position of the history. */
	uint64_t first_known;
	struct hwtr_cursor *cursor;	/* for rip */
};

struct hwtr_values {
	struct hwtr_recording *recording;
	struct values_index index;
	/* The history bound (hwtr_values_bind): none while NTHREADS is 0. */
	struct values_history_thread *threads;
	size_t nthreads;
	bool memory_known;	/* the log is whole and matches the history */
	/* Read from restart points (hwtr_values_load_tail_back): how many
	 * instructions before each thread's end the part must reach back to
	 * (UINT64_MAX: to the start of the tail). */
	uint64_t back;
	/* Read for one thread (ONE_THREAD, lwpid FOR_LWPID): the others are
	 * held as far back as the part happens to reach, never refused for
	 * it; UNREAD lists those the seek table names that the part lacks
	 * (logged but not read: nothing known of them, not unlogged). */
	bool one_thread;
	uint32_t for_lwpid;
	uint32_t *unread;
	size_t nunread;
	/* The registers of the position read last (values-regstate.h). */
	struct values_regstate registers;
};

/* Most snapshots are checked against the history's PC: at most this many,
 * spread over each thread. */
#define SNAPSHOT_CHECKS 256

static int collect_gaps(struct values_history_thread *ht)
{
	struct hwtr_thread_stats stats;
	struct hwtr_segment seg;
	uint64_t n;
	size_t cap = 0;
	int err;

	if ((err = hwtr_thread_stats(ht->thread, &stats)))
		return err;
	ht->instructions = stats.instructions;
	if (!stats.gaps)
		return 0;
	for (n = 1; n <= stats.segments; n++) {
		if ((err = hwtr_thread_segment(ht->thread, n, &seg)))
			return err;
		if (!(seg.flags & HWTR_SEG_GAP))
			continue;
		if (ht->ngaps == cap) {
			uint64_t *p = realloc(ht->gaps, (cap ? 2 * cap : 16) *
						     sizeof(*p));

			if (!p)
				return hwtr_fail(hwtr_err_nomem, "out of memory");
			ht->gaps = p;
			cap = cap ? 2 * cap : 16;
		}
		ht->gaps[ht->ngaps++] = seg.insn_begin;
	}
	return 0;
}

/* How many of the thread's gaps come before history number NUMBER. */
static size_t gaps_before(const struct values_history_thread *ht,
			  uint64_t number)
{
	size_t lo = 0, hi = ht->ngaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ht->gaps[mid] < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The log position of history number NUMBER, or 0 for a gap. */
static uint64_t log_position(const struct values_history_thread *ht,
			     uint64_t number)
{
	size_t lo = gaps_before(ht, number);

	if (lo < ht->ngaps && ht->gaps[lo] == number)
		return 0;
	if (number - lo <= ht->unlogged)
		return 0;
	return ht->log_base + number - lo - ht->unlogged;
}

/* The history number of log position POS (not a gap, after log_base). */
static uint64_t history_number(const struct values_history_thread *ht,
			       uint64_t pos)
{
	size_t i;
	uint64_t number = pos - ht->log_base + ht->unlogged;

	for (i = 0; i < ht->ngaps && ht->gaps[i] <= number; i++)
		number++;
	return number;
}

static int history_ip(struct values_history_thread *ht, uint64_t number,
		      uint64_t *ip)
{
	struct hwtr_insn insn;
	int err;

	if (!ht->cursor && (err = hwtr_cursor_alloc(ht->thread, &ht->cursor)))
		return err;
	if ((err = hwtr_cursor_goto(ht->cursor, number)) ||
	    (err = hwtr_cursor_insn(ht->cursor, &insn)))
		return err;
	if (insn.gap)
		return -hwtr_err_notfound;
	*ip = insn.ip;
	return 0;
}

/* Whether the log holds every record up to the state the caller reads as
 * the end: it ended (the core), or live mode's program is stopped right
 * after its last record (the live process). */
static bool log_whole(const struct hwtr_values *v)
{
	return v->index.ended || v->index.stopped;
}

/* Positions 1..N of LT whose registers the log holds: up to its last sync
 * (a faulting instruction's record after it did not run), else up to the
 * last position a record names (the log was cut off). */
static uint64_t known_positions(const struct values_thread *lt)
{
	return lt->synced ? lt->sync_count : lt->last_pos;
}

/* The PC of each of LT's snapshots FIRST..END-1 (spread, at most
 * SNAPSHOT_CHECKS) is the history's at that position: 0, or refuse. */
static int check_snapshots(struct values_history_thread *ht,
			   const struct values_thread *lt, size_t first,
			   size_t end)
{
	size_t i, step, n = end - first;
	uint64_t ip;
	int err;

	step = n > SNAPSHOT_CHECKS ? n / SNAPSHOT_CHECKS : 1;
	for (i = first; i < end; i += step) {
		const struct values_snapshot *s = &lt->snapshots[i];

		if ((err = history_ip(ht, history_number(ht, s->pos), &ip)))
			return hwtr_fail_context(-err, "values: thread %u: "
						 "position %llu: ", lt->lwpid,
						 (unsigned long long)s->pos);
		if (ip != s->rip)
			return hwtr_fail(hwtr_err_format, "values: thread %u: "
					 "the data log has rip 0x%llx at "
					 "position %llu, the history 0x%llx: "
					 "not used", lt->lwpid,
					 (unsigned long long)s->rip,
					 (unsigned long long)s->pos,
					 (unsigned long long)ip);
	}
	return 0;
}

/* The index of LT's first snapshot after position POS. */
static size_t first_snapshot_after(const struct values_thread *lt,
				   uint64_t pos)
{
	size_t lo = 0, hi = lt->nsnapshots;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (lt->snapshots[mid].pos <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A tail history's thread (see the top): its log_base, counted back from
 * the log's end, once the log proves it; else refuse. */
static int place_tail(struct hwtr_values *v, struct values_history_thread *ht)
{
	const struct values_thread *lt = ht->log;
	uint64_t counted = ht->instructions - ht->ngaps;
	size_t first, end;

	if (!log_whole(v) || !lt->synced)
		return hwtr_fail(hwtr_err_notfound, "values: thread %u: the "
				 "data log has no end record, so where the end "
				 "of the trace is in it is not known before the "
				 "whole history is built", lt->lwpid);
	if (lt->sync_count < counted)
		return hwtr_fail(hwtr_err_format, "values: thread %u: the data "
				 "log counts %llu instructions, the end of the "
				 "trace alone %llu: the log does not match the "
				 "trace and is not used", lt->lwpid,
				 (unsigned long long)lt->sync_count,
				 (unsigned long long)counted);
	ht->log_base = lt->sync_count - counted;
	first = first_snapshot_after(lt, ht->log_base);
	end = first_snapshot_after(lt, lt->sync_count);
	if (first == end)
		return hwtr_fail(hwtr_err_notfound, "values: thread %u: no "
				 "register snapshot of the data log falls in "
				 "the end of the trace decoded first (positions "
				 "%llu to %llu), so that it matches the log is "
				 "not proven before the whole history is built",
				 lt->lwpid,
				 (unsigned long long)ht->log_base + 1,
				 (unsigned long long)lt->sync_count);
	return check_snapshots(ht, lt, first, end);
}

/* Whether the part read must hold thread LWPID's positions (all threads'
 * but when it was read for one). */
static bool required(const struct hwtr_values *v, uint32_t lwpid)
{
	return !v->one_thread || lwpid == v->for_lwpid;
}

/* Whether the part read lacks thread LWPID, which the log has. */
static bool unread(const struct hwtr_values *v, uint32_t lwpid)
{
	size_t i;

	for (i = 0; i < v->nunread; i++)
		if (v->unread[i] == lwpid)
			return true;
	return false;
}

/* The first position of LT that a log read from a restart point
 * (hwtr_values_load_tail_back) gives values of: positions after its first slice
 * there (memory: every record after them is read), registers from its
 * first snapshot on; UINT64_MAX when it has neither. */
static uint64_t part_start(const struct values_thread *lt)
{
	uint64_t after_slice;

	if (!lt->nslices || !lt->nsnapshots)
		return UINT64_MAX;
	after_slice = lt->slices[0].pos + 1;
	return lt->snapshots[0].pos > after_slice ? lt->snapshots[0].pos
						  : after_slice;
}

/* Whether the part of the log read holds every position after BASE. */
static bool part_covers(const struct values_thread *lt, uint64_t base)
{
	return part_start(lt) <= base + 1;
}

/* The log position the part read must reach back to for thread LT (whose
 * history starts after log position BASE), given how far back V was asked
 * to read: BASE + 1, or V->back instructions before the thread's end. */
static uint64_t part_needed(const struct hwtr_values *v,
			    const struct values_thread *lt, uint64_t base)
{
	uint64_t end = lt->synced ? lt->sync_count : lt->last_pos;

	if (v->back < end && end - v->back > base)
		return end - v->back + 1;
	return base + 1;
}

/* The positions the part of the log read must hold (after log_base, or
 * the last V->back of them) are in it: else refuse.  Sets first_known. */
static int check_coverage(struct hwtr_values *v,
			  struct values_history_thread *ht)
{
	const struct values_thread *lt = ht->log;
	uint64_t needed;

	ht->first_known = 0;
	if (!lt || v->index.from == HWTR_VALUES_HEADER_SIZE)
		return 0;
	needed = part_needed(v, lt, ht->log_base);
	if (part_start(lt) <= needed || !required(v, lt->lwpid)) {
		ht->first_known = part_start(lt) > ht->log_base + 1
				  ? part_start(lt) : 0;
		return 0;
	}
	return hwtr_fail(hwtr_err_notfound, "values: thread %u: the data log "
			 "read from offset %zu does not reach back to position "
			 "%llu", lt->lwpid, v->index.from,
			 (unsigned long long)needed);
}

/* A thread whose log counts fewer instructions than its history: the log
 * is its last image's, begun at an exec (data-log.c), when its count,
 * placed back from the end, begins right after a gap (an exec leaves one
 * in the trace) and every snapshot's PC (spread) is the history's there.
 * Then the positions before are unlogged; -hwtr_err_notfound when it does
 * not begin after a gap (the caller refuses the log). */
static int place_after_exec(struct values_history_thread *ht)
{
	const struct values_thread *lt = ht->log;
	uint64_t counted = ht->instructions - ht->ngaps, first;
	size_t i;

	ht->unlogged = counted - lt->sync_count;
	first = history_number(ht, 1);
	i = gaps_before(ht, first - 1);
	if (i == ht->ngaps || ht->gaps[i] != first - 1) {
		ht->unlogged = 0;
		return -hwtr_err_notfound;
	}
	return check_snapshots(ht, lt, 0,
			       first_snapshot_after(lt, known_positions(lt)));
}

/* The log and the history count the same instructions: else refuse. */
static int check_alignment(struct hwtr_values *v,
			   struct values_history_thread *ht)
{
	const struct values_thread *lt = ht->log;
	uint64_t counted = ht->instructions - ht->ngaps;
	int err;

	if (!lt)
		return 0;
	if (ht->thread->tail_from) {
		err = place_tail(v, ht);
		if (err == -hwtr_err_notfound && !required(v, lt->lwpid)) {
			ht->first_known = UINT64_MAX;	/* not proven: none */
			return 0;
		}
		return err ? err : check_coverage(v, ht);
	}
	if ((err = check_coverage(v, ht)))
		return err;
	if (lt->synced && log_whole(v) && lt->sync_count < counted &&
	    (err = place_after_exec(ht)) != -hwtr_err_notfound)
		return err;
	if (lt->synced && log_whole(v) && lt->sync_count != counted)
		return hwtr_fail(hwtr_err_format, "values: thread %u: the data "
				 "log counts %llu instructions, the history "
				 "%llu: the log does not match the trace and "
				 "is not used", lt->lwpid,
				 (unsigned long long)lt->sync_count,
				 (unsigned long long)counted);
	if (!lt->synced && lt->last_pos > counted)
		return hwtr_fail(hwtr_err_format, "values: thread %u: the data "
				 "log reaches position %llu, the history has "
				 "%llu instructions: not used", lt->lwpid,
				 (unsigned long long)lt->last_pos,
				 (unsigned long long)counted);
	/* Not a snapshot after the known positions: that of an instruction
	 * that faulted at the end and did not run (a fatal signal). */
	return check_snapshots(ht, lt, 0,
			       first_snapshot_after(lt, known_positions(lt)));
}

/* What the finished recording's manifest says of the log's length and
 * CRC-32, or NULL.  Checked when the log is read (values_index_open), not
 * at every open of the recording (recording.c leaves it out there): most
 * opens never read it, and reading it costs a pass over it anyway. */
static const struct hwtr_file_check *log_check(
	const struct hwtr_recording_info *info)
{
	size_t k;

	if (!info->complete)
		return NULL;
	for (k = 0; k < info->nfiles; k++)
		if (!strcmp(info->files[k].name, info->values))
			return &info->files[k];
	return NULL;
}

int hwtr_values_load(struct hwtr_recording *rec, struct hwtr_values **out)
{
	const struct hwtr_recording_info *info;
	struct hwtr_values *v;
	int err;

	if (!rec || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_load: NULL");
	*out = NULL;
	info = hwtr_recording_info(rec);
	if (!info->values)
		return 0;
	if (info->values_version < HWTR_VALUES_OLDEST_VERSION ||
	    info->values_version > HWTR_VALUES_VERSION)
		return hwtr_fail(hwtr_err_version, "%s: manifest: data log "
				 "\"%s\" is version %d; this reader reads "
				 "versions %d to %d", hwtr_recording_path(rec),
				 info->values, info->values_version,
				 HWTR_VALUES_OLDEST_VERSION, HWTR_VALUES_VERSION);
	v = calloc(1, sizeof(*v));
	if (!v)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if ((err = values_index_open(hwtr_recording_path(rec), info->values,
				     log_check(info), &v->index))) {
		free(v);
		return err;
	}
	v->recording = rec;
	v->back = UINT64_MAX;
	*out = v;
	return 0;
}

/* hwtr_values_load_tail: where each thread of TAIL needs the log from
 * (see the top), moving *FROM (the offset of seek entry *ENTRY) back to
 * it; *MOVED says whether it moved.  Before anything is indexed (INDEXED
 * false) the END sync's counts are used; after, the index's. */
static int restart_points(struct hwtr_values *v, struct hwtr_history *tail,
			  const struct values_seek *seek, bool indexed,
			  size_t *from, size_t *entry, bool *moved)
{
	struct values_seek_entry e;
	size_t i, k;
	int err;

	*moved = false;
	for (i = 0; i < hwtr_history_nthreads(tail); i++) {
		struct hwtr_thread *t = hwtr_history_thread(tail, i);
		const struct values_thread *lt = NULL;
		struct hwtr_thread_stats stats;
		uint64_t counted, count = 0, base;
		bool known;

		if ((err = hwtr_thread_stats(t, &stats)))
			return err;
		counted = stats.instructions - stats.gaps;
		if (!counted || !required(v, stats.tid))
			continue;
		if (indexed) {
			lt = values_index_thread(&v->index, stats.tid);
			known = lt && lt->synced;
			if (known)
				count = lt->sync_count;
		} else {
			known = values_seek_end_count(seek, stats.tid, &count);
		}
		if (!known) {
			/* Not at the end: an earlier part may have it (a thread
			 * that exited); the log may also have none of it. */
			k = values_seek_last_before_offset(seek, stats.tid, *from);
			if (k == SIZE_MAX)
				continue;
		} else {
			if (count < counted)
				return hwtr_fail(hwtr_err_format, "values: thread "
						 "%u: the data log counts %llu "
						 "instructions, the trace %llu: "
						 "the log does not match the trace "
						 "and is not used", stats.tid,
						 (unsigned long long)count,
						 (unsigned long long)counted);
			base = t->tail_from ? count - counted : 0;
			if (v->back < count && count - v->back > base)
				base = count - v->back;	/* its last part */
			if (lt && part_covers(lt, base))
				continue;
			k = values_seek_restart_before(seek, stats.tid, base);
			if (k == SIZE_MAX)
				return hwtr_fail(hwtr_err_notfound, "values: "
						 "thread %u: no restart point of "
						 "the data log at or before "
						 "position %llu", stats.tid,
						 (unsigned long long)base);
		}
		values_seek_entry(seek, k, &e);
		if (e.offset < *from) {
			*from = (size_t)e.offset;
			*entry = k;
			*moved = true;
		} else if (indexed && known) {
			/* it is read from there, yet not covered */
			return hwtr_fail(hwtr_err_format, "values: thread %u: "
					 "the data log from its restart point at "
					 "offset %llu does not hold its positions",
					 stats.tid, (unsigned long long)e.offset);
		}
	}
	return 0;
}

int hwtr_values_load_tail(struct hwtr_history *tail, struct hwtr_values **out)
{
	return hwtr_values_load_tail_back(tail, NULL, UINT64_MAX, out);
}

/* hwtr_values_load_tail_back for one thread: the threads of TAIL that the
 * seek table names and the part read lacks (V->unread). */
static int note_unread(struct hwtr_values *v, struct hwtr_history *tail,
		       const struct values_seek *seek)
{
	size_t i;

	for (i = 0; i < hwtr_history_nthreads(tail); i++) {
		struct hwtr_thread_stats stats;
		uint32_t *p;
		int err;

		if ((err = hwtr_thread_stats(hwtr_history_thread(tail, i),
					     &stats)))
			return err;
		if (values_index_thread(&v->index, stats.tid) ||
		    values_seek_last_before_offset(seek, stats.tid,
						   SIZE_MAX) == SIZE_MAX)
			continue;
		p = realloc(v->unread, (v->nunread + 1) * sizeof(*p));
		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		v->unread = p;
		v->unread[v->nunread++] = stats.tid;
	}
	return 0;
}

int hwtr_values_load_tail_back(struct hwtr_history *tail,
			       struct hwtr_thread *thread, uint64_t back,
			       struct hwtr_values **out)
{
	const struct hwtr_recording_info *info;
	struct values_seek seek;
	struct hwtr_values *v;
	size_t from = SIZE_MAX, entry = SIZE_MAX, round;
	const char *dir;
	char path[4096];
	bool moved;
	int err;

	if (!tail || !out || !back || (thread && thread->history != tail))
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_load_tail_back: NULL, "
				 "no instruction back or a thread of another "
				 "history");
	*out = NULL;
	info = hwtr_recording_info(tail->recording);
	if (!info->values)
		return 0;
	dir = hwtr_recording_path(tail->recording);
	snprintf(path, sizeof(path), "%s/%s", dir, info->values);
	v = calloc(1, sizeof(*v));
	if (!v)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	v->recording = tail->recording;
	v->back = back;
	if (thread) {
		struct hwtr_thread_stats stats;

		if ((err = hwtr_thread_stats(thread, &stats)))
			goto fail;
		v->one_thread = true;
		v->for_lwpid = stats.tid;
	}
	if ((err = values_index_map(dir, info->values, &v->index)) ||
	    (err = values_seek_read(&v->index, path, &seek)) ||
	    (err = restart_points(v, tail, &seek, false, &from, &entry,
				  &moved)))
		goto fail;
	if (from == SIZE_MAX) {
		err = hwtr_fail(hwtr_err_notfound, "values: %s: the tail has "
				"no instruction the data log holds", path);
		goto fail;
	}
	/* Each round reads further back, for a thread the last did not
	 * reach: at most once per restart point. */
	for (round = 0; round <= seek.n; round++) {
		if ((err = values_seek_check(&seek, entry, path)) ||
		    (err = values_index_from(&v->index, from, dir,
					     info->values)) ||
		    (err = restart_points(v, tail, &seek, true, &from, &entry,
					  &moved)))
			goto fail;
		if (!moved)
			break;
	}
	if (!v->index.ended) {
		err = hwtr_fail(hwtr_err_format, "values: %s: no END sync "
				"record where the seek table puts it", path);
		goto fail;
	}
	if (v->one_thread && (err = note_unread(v, tail, &seek)))
		goto fail;
	if ((err = hwtr_values_bind(v, tail)))
		goto fail;
	*out = v;
	return 0;
fail:
	hwtr_values_free(v);
	return err;
}

/* Let go of V's history: its threads' gaps and cursors. */
static void unbind(struct hwtr_values *v)
{
	size_t i;

	for (i = 0; v->threads && i < v->nthreads; i++) {
		free(v->threads[i].gaps);
		hwtr_cursor_free(v->threads[i].cursor);
	}
	free(v->threads);
	v->threads = NULL;
	v->nthreads = 0;
	v->memory_known = false;
	values_regstate_forget(&v->registers);
}

int hwtr_values_bind(struct hwtr_values *v, struct hwtr_history *history)
{
	bool absent_ran = false, after_exec = false;
	size_t i;
	int err;

	if (!v || !history || history->recording != v->recording)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_bind: NULL, or "
				 "a history of another recording");
	unbind(v);
	v->threads = calloc(hwtr_history_nthreads(history) + 1,
			    sizeof(*v->threads));
	if (!v->threads)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	v->nthreads = hwtr_history_nthreads(history);
	v->memory_known = log_whole(v);
	for (i = 0; i < v->nthreads; i++) {
		struct values_history_thread *ht = &v->threads[i];
		struct hwtr_thread_stats stats;

		ht->thread = hwtr_history_thread(history, i);
		if ((err = hwtr_thread_stats(ht->thread, &stats)) ||
		    (err = collect_gaps(ht)))
			goto fail;
		ht->log = values_index_thread(&v->index, stats.tid);
		if (unread(v, stats.tid)) {
			ht->first_known = UINT64_MAX;	/* logged, not read */
			continue;
		}
		if ((err = check_alignment(v, ht)))
			goto fail;
		if (ht->unlogged)
			after_exec = true;
		if (!ht->log && stats.instructions > stats.gaps)
			absent_ran = true;
	}
	/* A thread the history has and the log has not ran unlogged: its
	 * stores are missing; but not when the log begins at an exec, which
	 * ended every other thread of the old image (the tool logs each
	 * thread of the new one). */
	if (absent_ran && !after_exec)
		v->memory_known = false;
	return 0;
fail:
	unbind(v);
	return err;
}

int hwtr_values_open(struct hwtr_history *history, struct hwtr_values **out)
{
	int err;

	if (!history || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_open: NULL");
	if ((err = hwtr_values_load(history->recording, out)) || !*out)
		return err;
	if ((err = hwtr_values_bind(*out, history))) {
		hwtr_values_free(*out);
		*out = NULL;
	}
	return err;
}

void hwtr_values_free(struct hwtr_values *v)
{
	if (!v)
		return;
	unbind(v);
	values_index_close(&v->index);
	free(v->unread);
	free(v);
}

static struct values_history_thread *find_thread(struct hwtr_values *v,
						 struct hwtr_thread *thread)
{
	size_t i;

	for (i = 0; i < v->nthreads; i++)
		if (v->threads[i].thread == thread)
			return &v->threads[i];
	return NULL;
}

/* The last snapshot of LT at or before POS, or NULL. */
static const struct values_snapshot *snapshot_before(
	const struct values_thread *lt, uint64_t pos)
{
	size_t lo = 0, hi = lt->nsnapshots;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (lt->snapshots[mid].pos <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &lt->snapshots[lo - 1] : NULL;
}

int hwtr_values_register(struct hwtr_values *v, struct hwtr_thread *thread,
			 uint64_t number, unsigned regno, void *buf,
			 size_t size)
{
	struct values_history_thread *ht;
	const struct values_snapshot *snap;
	unsigned bit, offset, rsize;
	uint8_t value[16];
	uint64_t pos, ip;
	int err;

	if (!v || !thread || !buf)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_register: NULL");
	ht = find_thread(v, thread);
	if (!ht)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_register: a "
				 "thread of another history");
	if (number < 1 || number > ht->instructions)
		return hwtr_fail(hwtr_err_range, "values: position %llu is "
				 "outside the history (1..%llu)",
				 (unsigned long long)number,
				 (unsigned long long)ht->instructions);
	pos = log_position(ht, number);
	if (!ht->log || pos == 0 || pos > known_positions(ht->log) ||
	    pos < ht->first_known)
		return -hwtr_err_notfound;
	if (regno == hwtr_amd64_rip) {
		if (size < 8)
			return hwtr_fail(hwtr_err_invalid, "values: rip needs "
					 "8 bytes, not %zu", size);
		if ((err = history_ip(ht, number, &ip)))
			return err;
		memcpy(buf, &ip, 8);
		return 8;
	}
	if (!values_register_bit(regno, &bit, &offset, &rsize))
		return -hwtr_err_notfound;
	if (size < rsize)
		return hwtr_fail(hwtr_err_invalid, "values: register %u needs "
				 "%u bytes, not %zu", regno, rsize, size);
	snap = snapshot_before(ht->log, pos);
	if (!snap)
		return -hwtr_err_notfound;
	if ((err = values_regstate_at(&v->index, ht->log, snap, pos,
				      &v->registers)))
		return err;
	if (!((v->registers.have >> bit) & 1) ||
	    !values_bit_gdb_register(regno, v->registers.value[bit], value))
		return -hwtr_err_notfound;
	memcpy(buf, value, rsize);
	return (int)rsize;
}

int hwtr_values_first_known(struct hwtr_values *v, struct hwtr_thread *thread,
			    uint64_t *number)
{
	struct values_history_thread *ht;

	if (!v || !thread || !number)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_first_known: NULL");
	ht = find_thread(v, thread);
	if (!ht)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_first_known: a "
				 "thread of another history");
	*number = ht->first_known == UINT64_MAX ? UINT64_MAX
		  : ht->first_known > ht->log_base + 1
		  ? history_number(ht, ht->first_known)
		  : ht->unlogged ? history_number(ht, ht->log_base + 1) : 1;
	return 0;
}

uint64_t values_register_records_read(const struct hwtr_values *v)
{
	return v->registers.records;
}

/* All threads' instruction count when THREAD's log position POS began. */
static bool global_of(const struct values_thread *lt, uint64_t pos,
		      uint64_t *global)
{
	size_t lo = 0, hi = lt->nslices;

	/* the last slice that starts before POS */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (lt->slices[mid].pos < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*global = lt->slices[lo - 1].global + (pos - lt->slices[lo - 1].pos);
	return true;
}

/* LT's slice whose THREAD record is at OFFSET. */
static const struct values_slice *slice_at(const struct values_thread *lt,
					   size_t offset)
{
	size_t lo = 0, hi = lt ? lt->nslices : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (lt->slices[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (lt ? lt->nslices : 0) && lt->slices[lo].offset == offset
	       ? &lt->slices[lo] : NULL;
}

/* The first chunk whose memory records may reach GLOBAL. */
static size_t first_chunk_from(const struct values_index *ix, uint64_t global)
{
	size_t lo = 0, hi = ix->nchunks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (!ix->chunks[mid].has_memory ||
		    ix->chunks[mid].max_global < global)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Resolve the bytes of [ADDR, ADDR+SIZE) that record R (stamped GLOBAL)
 * touches and that are still open; returns how many it resolved. */
static size_t apply_record(const struct values_record *r, uint64_t addr,
			   uint8_t *buf, uint8_t *state, uint8_t *open,
			   size_t size)
{
	uint64_t lo = r->addr > addr ? r->addr : addr;
	uint64_t hi = r->addr + r->len < addr + size ? r->addr + r->len
						     : addr + size;
	size_t n = 0;
	uint64_t a;

	if (r->len == 0 || lo >= hi)
		return 0;
	for (a = lo; a < hi; a++) {
		size_t i = (size_t)(a - addr);

		if (!open[i])
			continue;
		open[i] = 0;
		n++;
		if (r->type == HWTR_VREC_STORE) {
			buf[i] = r->values[a - r->addr];
			state[i] = hwtr_value_old;
		} else {
			state[i] = hwtr_value_unknown;
		}
	}
	return n;
}

int hwtr_values_memory(struct hwtr_values *v, struct hwtr_thread *thread,
		       uint64_t number, uint64_t addr, void *bufp,
		       uint8_t *state, size_t size)
{
	const struct values_index *ix;
	struct values_history_thread *ht;
	uint8_t *buf = bufp, *open;
	uint64_t pos, global;
	size_t left = size, k, walked = 0;
	int err = 0;

	if (!v || !thread || (!buf && size) || (!state && size))
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_memory: NULL");
	if (addr + size < addr)
		return hwtr_fail(hwtr_err_invalid, "values: 0x%llx + %zu "
				 "wraps around", (unsigned long long)addr, size);
	ht = find_thread(v, thread);
	if (!ht)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_memory: a "
				 "thread of another history");
	if (number < 1 || number > ht->instructions)
		return hwtr_fail(hwtr_err_range, "values: position %llu is "
				 "outside the history (1..%llu)",
				 (unsigned long long)number,
				 (unsigned long long)ht->instructions);
	memset(state, hwtr_value_unknown, size);
	pos = log_position(ht, number);
	if (!v->memory_known || !ht->log || pos == 0 || pos < ht->first_known ||
	    !global_of(ht->log, pos, &global) || size == 0)
		return 0;
	memset(state, hwtr_value_same, size);
	open = malloc(size);
	if (!open)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	memset(open, 1, size);
	ix = &v->index;
	for (k = first_chunk_from(ix, global); k < ix->nchunks && left; k++) {
		const struct values_chunk *c = &ix->chunks[k];
		size_t off, end = k + 1 < ix->nchunks ? ix->chunks[k + 1].offset
						      : ix->end;
		const struct values_thread *lt;
		const struct values_slice *s;
		struct values_record r;
		struct values_base base;

		values_index_walked(ix, &walked);
		if (!values_chunk_may_touch(ix, k, addr, size, open))
			continue;
		lt = c->thread == SIZE_MAX ? NULL : &ix->threads[c->thread];
		s = lt ? &lt->slices[c->slice] : NULL;
		for (off = c->offset, base = c->base; off < end && left;
		     off = r.next, values_base_next(&base, &r)) {
			if ((err = values_record_read(ix, off, &base, &r)))
				goto out;
			if (r.type == HWTR_VREC_THREAD) {
				lt = values_index_thread(ix, r.lwpid);
				s = slice_at(lt, off);
				continue;
			}
			if (r.type != HWTR_VREC_STORE &&
			    r.type != HWTR_VREC_UNKNOWN)
				continue;
			if (!s || s->global + (r.pos - s->pos) < global)
				continue;
			left -= apply_record(&r, addr, buf, state, open, size);
		}
	}
out:
	free(open);
	if (err)
		memset(state, hwtr_value_unknown, size);
	return err;
}

/* The log position of history number NUMBER, or of the instruction after
 * it when NUMBER is a gap (or is one past the history): log_position
 * without the gap's 0.  Before the log's first position (unlogged): 1. */
static uint64_t log_position_from(const struct values_history_thread *ht,
				  uint64_t number)
{
	uint64_t counted = number - gaps_before(ht, number);

	if (counted <= ht->unlogged)
		return ht->log_base + 1;
	return ht->log_base + counted - ht->unlogged;
}

/* The log position of the last instruction at or before NUMBER. */
static uint64_t log_position_upto(const struct values_history_thread *ht,
				  uint64_t number)
{
	size_t lo = 0, hi = ht->ngaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ht->gaps[mid] <= number)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (number - lo <= ht->unlogged)
		return ht->log_base;	/* before the log's first position */
	return ht->log_base + number - lo - ht->unlogged;
}

/* Whether memory record R touches [ADDR, ADDR+SIZE); *HIT its first byte
 * there. */
static bool record_touches(const struct values_record *r, uint64_t addr,
			   uint64_t size, uint64_t *hit)
{
	if ((r->type != HWTR_VREC_STORE && r->type != HWTR_VREC_UNKNOWN) ||
	    r->len == 0 || r->addr >= addr + size || addr >= r->addr + r->len)
		return false;
	*hit = r->addr > addr ? r->addr : addr;
	return true;
}

/* Scan chunk K for LT's memory records touching the range whose position
 * is in [FROM, TO]: the first one (FIRST) or the last one, into *POS and
 * *HIT.  1 found, 0 not, or an error. */
static int scan_chunk_changes(const struct values_index *ix, size_t k,
			      const struct values_thread *ours, uint64_t from,
			      uint64_t to, bool first, uint64_t addr,
			      uint64_t size, uint64_t *pos, uint64_t *hit)
{
	const struct values_chunk *c = &ix->chunks[k];
	size_t off, end = k + 1 < ix->nchunks ? ix->chunks[k + 1].offset : ix->end;
	const struct values_thread *lt;
	struct values_record r;
	struct values_base base;
	bool found = false;
	uint64_t h;
	int err;

	lt = c->thread == SIZE_MAX ? NULL : &ix->threads[c->thread];
	for (off = c->offset, base = c->base; off < end;
	     off = r.next, values_base_next(&base, &r)) {
		if ((err = values_record_read(ix, off, &base, &r)))
			return err;
		if (r.type == HWTR_VREC_THREAD) {
			lt = values_index_thread(ix, r.lwpid);
			continue;
		}
		if (lt != ours || r.pos < from || r.pos > to ||
		    !record_touches(&r, addr, size, &h))
			continue;
		*pos = r.pos;
		*hit = h;
		found = true;
		if (first)
			return 1;
	}
	return found;
}

static int before_log(const struct values_history_thread *ht)
{
	return hwtr_fail(hwtr_err_notfound, "values: thread %u: the data log "
			 "begins at its last exec, %llu instructions into the "
			 "history: what changed before is not known",
			 ht->log->lwpid, (unsigned long long)ht->unlogged);
}

int hwtr_values_find_change(struct hwtr_values *v, struct hwtr_thread *thread,
			    uint64_t number, int direction, uint64_t limit,
			    uint64_t addr, uint64_t size, uint64_t *found,
			    uint64_t *hit_addr)
{
	const struct values_index *ix;
	struct values_history_thread *ht;
	uint64_t pos, from, to, global, known, at = 0, hit = 0;
	size_t k, walked = 0;
	int rc = 0;

	if (!v || !thread || !found || !hit_addr || direction == 0)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_find_change: "
				 "NULL or no direction");
	if (size == 0 || addr + size < addr)
		return hwtr_fail(hwtr_err_invalid, "values: the range 0x%llx + "
				 "%llu is empty or wraps around",
				 (unsigned long long)addr,
				 (unsigned long long)size);
	ht = find_thread(v, thread);
	if (!ht)
		return hwtr_fail(hwtr_err_invalid, "hwtr_values_find_change: a "
				 "thread of another history");
	if (number < 1 || number > ht->instructions + 1 || limit < 1 ||
	    limit > ht->instructions)
		return hwtr_fail(hwtr_err_range, "values: position %llu or "
				 "limit %llu is outside the history (1..%llu)",
				 (unsigned long long)number,
				 (unsigned long long)limit,
				 (unsigned long long)ht->instructions);
	if (!v->memory_known || !ht->log || ht->first_known > ht->log_base + 1)
		return hwtr_fail(hwtr_err_notfound, "values: the data log cannot "
				 "say where memory changed (it is cut off, or "
				 "lacks the thread, or was read from its end "
				 "only)");
	/* Before the log's first position (the programs before an exec)
	 * nothing is known: a search may not start there, and one that
	 * reaches back there and finds nothing cannot say. */
	if (direction > 0 && ht->unlogged &&
	    number - gaps_before(ht, number) <= ht->unlogged)
		return before_log(ht);
	ix = &v->index;
	pos = log_position_from(ht, number);
	known = known_positions(ht->log);
	if (direction < 0) {
		if (number <= limit)
			return 0;
		from = log_position_from(ht, limit);
		to = pos - 1;
	} else {
		if (number > limit)
			return 0;
		from = pos;
		to = log_position_upto(ht, limit);
	}
	if (to > known)
		to = known;	/* a fault's records after the last sync */
	if (from > to || ix->nchunks == 0)
		return 0;
	/* Records come in the order the threads ran (global counts only
	 * grow along the log): the chunks that may hold FROM..TO. */
	k = global_of(ht->log, from, &global) ? first_chunk_from(ix, global) : 0;
	if (direction > 0) {
		uint64_t end_global = UINT64_MAX;

		if (!global_of(ht->log, to, &end_global))
			end_global = UINT64_MAX;
		for (; k < ix->nchunks; k++) {
			if (k > 0 && ix->chunks[k - 1].max_global > end_global)
				break;	/* every record here is later than TO */
			values_index_walked(ix, &walked);
			if (!values_chunk_may_touch(ix, k, addr, size, NULL))
				continue;
			rc = scan_chunk_changes(ix, k, ht->log, from, to, true,
						addr, size, &at, &hit);
			if (rc != 0)
				break;
		}
	} else {
		size_t last = global_of(ht->log, to + 1, &global)
			      ? first_chunk_from(ix, global) : ix->nchunks - 1;

		if (last >= ix->nchunks)
			last = ix->nchunks - 1;
		uint64_t start_global = 0;

		if (!global_of(ht->log, from, &start_global))
			start_global = 0;
		for (k = last + 1; k-- > 0;) {
			if (ix->chunks[k].max_global < start_global)
				break;	/* every record here is older than FROM */
			values_index_walked(ix, &walked);
			if (!values_chunk_may_touch(ix, k, addr, size, NULL))
				continue;
			rc = scan_chunk_changes(ix, k, ht->log, from, to, false,
						addr, size, &at, &hit);
			if (rc != 0)
				break;
		}
	}
	if (rc == 0 && direction < 0 && ht->unlogged &&
	    limit - gaps_before(ht, limit) <= ht->unlogged)
		return before_log(ht);
	if (rc <= 0)
		return rc;
	*found = history_number(ht, at);
	*hit_addr = hit;
	return 1;
}

int values_locate(struct hwtr_values *v, struct hwtr_thread *thread,
		  uint64_t number, const struct values_index **index,
		  const struct values_thread **log, uint64_t *pos,
		  uint64_t *complete, bool *memory_known)
{
	struct values_history_thread *ht;

	if (!v || !thread)
		return hwtr_fail(hwtr_err_invalid, "values_locate: NULL");
	ht = find_thread(v, thread);
	if (!ht)
		return hwtr_fail(hwtr_err_invalid, "values: a thread of another "
				 "history");
	if (number < 1 || number > ht->instructions)
		return hwtr_fail(hwtr_err_range, "values: position %llu is "
				 "outside the history (1..%llu)",
				 (unsigned long long)number,
				 (unsigned long long)ht->instructions);
	*index = &v->index;
	*pos = log_position(ht, number);
	/* Before the part of the log read: as a thread it has nothing of. */
	*log = *pos < ht->first_known ? NULL : ht->log;
	/* Records of the last position may follow the last sync, unless the
	 * log ended there. */
	*complete = !*log ? 0
		    : ht->log->synced ? (log_whole(v) ? ht->log->sync_count
					 : ht->log->sync_count ? ht->log->sync_count - 1 : 0)
		    : (ht->log->last_pos ? ht->log->last_pos - 1 : 0);
	*memory_known = v->memory_known;
	return 0;
}
