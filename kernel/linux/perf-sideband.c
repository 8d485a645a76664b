/* perf-sideband.c: perf sideband records -> recording events (see .h). */
#include "perf-sideband.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

void perf_sideband_init(struct perf_sideband *sb, uint32_t pid, bool have_time,
			const struct perf_tsc_conv *tc,
			const struct perf_sideband_ops *ops, void *ctx)
{
	memset(sb, 0, sizeof(*sb));
	sb->pid = pid;
	sb->have_time = have_time;
	if (tc)
		sb->tc = *tc;
	sb->ops = ops;
	sb->ctx = ctx;
}

uint64_t perf_sideband_tsc(struct perf_sideband *sb, const struct perf_rec *rec)
{
	uint64_t tsc = 0;

	/* perf's own synthesized records (the process as it was when perf
	 * started) have time 0: they come before everything. */
	if (sb->have_time && rec->sample.has_time && rec->sample.time)
		tsc = perf_time_to_tsc(&sb->tc, rec->sample.time);
	/* Recordings keep times as signed 64-bit numbers. */
	if (tsc > INT64_MAX)
		tsc = INT64_MAX;
	if (tsc < sb->last_tsc)
		tsc = sb->last_tsc;
	sb->last_tsc = tsc;
	return tsc;
}

static void hex(const uint8_t *id, size_t n, char *buf, size_t size)
{
	size_t i;

	buf[0] = 0;
	for (i = 0; i < n && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}

static int mmap_event(struct perf_sideband *sb, const struct perf_rec *r,
		      uint64_t tsc)
{
	const struct perf_rec_mmap *m = &r->u.mmap;
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_mmap, .tsc = tsc, .addr = m->addr,
		.len = m->len, .pgoff = m->pgoff, .path = m->filename,
	};
	char id[2 * PERF_BUILD_ID_MAX + 1];

	/* Not a mapping a process can have (a damaged record). */
	if (m->pid != sb->pid || m->len > INT64_MAX || m->pgoff > INT64_MAX)
		return 0;
	if (r->type == PERF_RECORD_MMAP2)
		ev.prot = ((m->prot & PROT_READ) ? HWTR_PROT_READ : 0) |
			  ((m->prot & PROT_WRITE) ? HWTR_PROT_WRITE : 0) |
			  ((m->prot & PROT_EXEC) ? HWTR_PROT_EXEC : 0);
	else	/* MMAP: executable unless it says data */
		ev.prot = HWTR_PROT_READ | ((r->misc & PERF_RECORD_MISC_MMAP_DATA)
					    ? 0 : HWTR_PROT_EXEC);
	/* Anonymous memory has no file to name ("//anon"). */
	if (ev.path && (!strcmp(ev.path, "//anon") || !ev.path[0]))
		ev.path = NULL;
	if (r->type == PERF_RECORD_MMAP2 &&
	    (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && m->build_id_size) {
		hex(m->build_id, m->build_id_size, id, sizeof(id));
		ev.build_id = id;
	} else if (ev.path && (ev.prot & HWTR_PROT_EXEC) && sb->ops->build_id) {
		ev.build_id = sb->ops->build_id(sb->ctx, ev.path, id, sizeof(id));
	}
	return sb->ops->event(sb->ctx, &ev);
}

static int loss_event(struct perf_sideband *sb, uint32_t tid, uint64_t tsc,
		      uint64_t offset, uint64_t len, const char *reason)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_loss, .tsc = tsc, .tid = tid,
		.offset = offset, .len = len, .reason = reason,
	};

	return sb->ops->event(sb->ctx, &ev);
}

const char *perf_aux_loss_reason(uint64_t flags)
{
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		return "perf's AUX buffer was full: the kernel dropped trace "
		       "until there was room";
	if (flags & PERF_AUX_FLAG_COLLISION)
		return "perf's AUX sample collided with another: trace "
		       "overwritten";
	if (flags & PERF_AUX_FLAG_PARTIAL)
		return "the PMU reported missing trace in this AUX data";
	return NULL;
}

int perf_sideband_apply(struct perf_sideband *sb, const struct perf_rec *r)
{
	uint64_t tsc;

	if (!r->known)
		return 0;
	tsc = perf_sideband_tsc(sb, r);
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return mmap_event(sb, r, tsc);
	case PERF_RECORD_COMM: {
		struct hwtr_sideband_event ev = {
			.kind = hwtr_ev_exec, .tsc = tsc, .path = r->u.comm.comm,
		};

		if (r->u.comm.pid != sb->pid ||
		    !(r->misc & PERF_RECORD_MISC_COMM_EXEC))
			return 0;
		return sb->ops->event(sb->ctx, &ev);
	}
	case PERF_RECORD_FORK:
		/* A thread of ours; a new process (pid == tid) is not. */
		if (r->u.task.pid != sb->pid || r->u.task.tid == r->u.task.pid)
			return 0;
		return sb->ops->thread_start(sb->ctx, r->u.task.tid, tsc);
	case PERF_RECORD_EXIT:
		if (r->u.task.pid != sb->pid)
			return 0;
		return sb->ops->thread_exit(sb->ctx, r->u.task.tid, tsc);
	case PERF_RECORD_AUX: {
		const struct perf_rec_aux *a = &r->u.aux;
		uint32_t tid = r->sample.has_tid ? r->sample.tid : sb->pid;
		const char *why = perf_aux_loss_reason(a->flags);

		if (!why)
			return 0;
		return loss_event(sb, tid, tsc,
				  sb->ops->stream_offset(sb->ctx, tid,
							 a->aux_offset + a->aux_size),
				  0, why);
	}
	case PERF_RECORD_LOST: {
		uint32_t tid = r->sample.has_tid ? r->sample.tid : sb->pid;

		sb->lost_records += r->u.lost.lost;
		return loss_event(sb, tid, tsc, sb->ops->stream_end(sb->ctx, tid),
				  0, "perf's data buffer overflowed: sideband "
				  "records (mappings, AUX notices) were lost");
	}
	default:
		return 0;
	}
}
