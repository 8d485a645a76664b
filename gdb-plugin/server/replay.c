/* replay.c: moving through a recording's history (see replay.h).
 *
 * Each thread has a cursor (its position) and a scratch cursor for looking
 * at other instructions (call stacks) without moving.  A step backward or
 * forward moves the cursor one instruction, stepping over gaps (whose PC is
 * unknown) but for a signal's delivery, where record full has a stop at the
 * PC the signal interrupted (signal-delivery.c); a continue searches with
 * hwtr_cursor_find for the nearest instruction at a breakpoint address,
 * which skips every chunk of the trace that cannot contain one.
 *
 * Without a history (--no-history, or a recording with no trace) the server
 * still serves the core: every thread stands at the end, and any resume says
 * that there is no more history.
 *
 * When the core's PC is not the history's last instruction (a crash: the
 * faulting instruction did not complete), the core's state is one more
 * position after the history, the "tail" (number instructions + 1).  For
 * the thread a fatal signal stopped, the tail has two positions with the
 * core's state, as `record full`'s log has: the instruction at the stop,
 * logged but never run, then the end (signal_before_tail_insn).  Live,
 * the tail is the live PC at the stop.  The tail's frames are those the
 * history would give an instruction at its PC after the last one
 * (hwtr_thread_callstack_next: after a return, the caller's), so that they
 * pair with the frames GDB unwinds from the real registers there.
 *
 * Before a thread's end, memory is only what cannot have changed since
 * (replay_read_memory_at): the end state's bytes would be silently wrong
 * wherever the program wrote them later.
 *
 * Threads share one time axis for a continue of every thread
 * (replay_resume_all, by the instructions' stamps, insn-stamp.c); a step
 * moves one thread.
 */
#include "replay.h"
#include "replay-private.h"

#include <elf.h>

#include "breakpoints.h"
#include "corefile.h"
#include "fault-store.h"
#include "fpu-insn.h"
#include "insn-reads.h"
#include "loaded-objects.h"
#include "memory.h"
#include "program-images.h"
#include "say.h"
#include "signal-delivery.h"
#include "valgrind-x87.h"
#include "signal-frames.h"

#include <errno.h>
#include <fcntl.h>
#include <hwtrecord.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Where a thread's end state is: the last instruction, or the tail. */
static uint64_t end_position(const struct replay_thread *t)
{
	return t->instructions + t->tail_len;
}

/* At the last position: nothing left to replay forward. */
static bool at_end(const struct replay_thread *t)
{
	return at_end_state(t) && t->tail_step == t->tail_len;
}

static int add_thread(struct replay *r, uint32_t tid)
{
	struct replay_thread *t;

	if (find(r, tid))
		return 0;
	t = realloc(r->threads, (r->nthreads + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	r->threads = t;
	t += r->nthreads++;
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	if (r->core)
		t->core = core_find_thread(r->core, tid);
	return 0;
}

/* The files the program mapped: sideband first, then the core's own list
 * (the end state wins); each file found as the library finds it. */
static int add_mappings(struct replay *r)
{
	size_t i, n = hwtr_recording_nevents(r->recording);

	for (i = r->nevents; i < n; i++) {
		const struct hwtr_sideband_event *ev =
			hwtr_recording_event(r->recording, i);
		struct memory_mapping m;
		char *file = NULL;
		int rc;

		if (ev->kind != hwtr_ev_mmap || !ev->path)
			continue;
		m = (struct memory_mapping){ ev->addr, ev->addr + ev->len,
					     ev->pgoff, ev->path,
					     sideband_read_only(ev) };
		/* The library's lookup: the recording's copies first, a file
		 * of another build-id never (then no memory from it). */
		rc = hwtr_recording_find_code(r->recording, ev, NULL, &file);
		if (rc == -hwtr_err_nomem)
			return -ENOMEM;
		if (rc)
			continue;
		m.path = file;
		rc = memory_add_mapping(r->memory, &m);
		free(file);
		if (rc < 0)
			return -ENOMEM;
	}
	for (i = 0; r->core && !r->nevents && i < r->core->nfiles; i++) {
		const struct core_file_map *f = &r->core->files[i];
		/* NT_FILE gives no permissions: writable for all we know. */
		struct memory_mapping m = { f->start, f->end, f->pgoff, f->path,
					    false };

		if (memory_add_mapping(r->memory, &m) < 0)
			return -ENOMEM;
	}
	r->nevents = n;
	return 0;
}

/* The last image's objects, whose memory is the replay's own. */
static const struct loaded_objects *last_objects(const struct replay *r)
{
	return program_images_objects(r->images, program_images_count(r->images) - 1);
}

/* The image thread T stands in. */
size_t replay_thread_image(const struct replay *r, const struct replay_thread *t)
{
	size_t k = program_images_count(r->images) - 1;
	uint64_t pos;

	if (!t->image_starts || !t->cursor)
		return k;
	pos = hwtr_cursor_position(t->cursor) + t->tail_step;
	while (k > 0 && t->image_starts[k] > pos)
		k--;
	return k;
}

/* Without a core the end is where the history last knows the PC: gaps
 * after it (a trace that ends in code with no image) have none to show.
 * -1 if no instruction of the thread has one. */
static int end_at_last_pc(struct replay_thread *t)
{
	for (;;) {
		struct hwtr_insn insn;

		if (hwtr_cursor_insn(t->cursor, &insn) == 0 && !insn.gap)
			break;
		if (hwtr_cursor_step(t->cursor, -1) != 0)
			return -1;
	}
	t->instructions = hwtr_cursor_position(t->cursor);
	return 0;
}

/* A delay the tests ask for in the environment variable NAME (ms):
 * HWTREC_TEST_BUILD_DELAY_MS, how long the builder waits between the tail
 * and the whole history, for the tests that show the answers come from
 * the tail while the build runs; HWTREC_TEST_TAIL_DELAY_MS, before the
 * tail, for those that show what GDB's first questions wait for;
 * HWTREC_TEST_LOG_DELAY_MS, before the
 * data log's whole pass, for those that show the tail's values come from
 * the log's last part (hwtr_values_load_tail), not from that pass. */
static void test_delay(const char *name)
{
	const char *s = getenv(name);
	struct timespec ts;
	unsigned long ms;

	if (!s || !*s)
		return;
	ms = strtoul(s, NULL, 10);
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

static void *build_history(void *arg)
{
	struct replay *r = arg;

	test_delay("HWTREC_TEST_TAIL_DELAY_MS");
	if (r->tail_bytes) {
		struct hwtr_history_options topt = r->hopt;

		topt.progress = NULL;
		if (hwtr_history_build_tail(r->recording, &topt, r->tail_bytes,
					    &r->tail) < 0) {
			fprintf(stderr, "hwtrec-server: the end of the history is "
				"not decoded ahead of the rest: %s\n", hwtr_last_error());
			r->tail = NULL;
		}
		pthread_mutex_lock(&r->tail_lock);
		r->tail_done = true;
		pthread_cond_broadcast(&r->tail_cond);
		pthread_mutex_unlock(&r->tail_lock);
		test_delay("HWTREC_TEST_BUILD_DELAY_MS");
	}
	r->build_rc = hwtr_history_build(r->recording, &r->hopt, &r->whole);
	if (r->build_rc < 0)
		snprintf(r->build_err, sizeof(r->build_err), "%s", hwtr_last_error());
	atomic_store(&r->built, true);
	return NULL;
}

/* Live mode: the PC where TID stands now. */
static bool end_pc(const struct replay *r, uint32_t tid, uint64_t *pc)
{
	size_t i;

	for (i = 0; i < r->opt.nends; i++)
		if (r->opt.end_tids[i] == tid) {
			*pc = r->opt.end_pcs[i];
			return true;
		}
	return false;
}

static bool core_readable(void *ctx, uint64_t addr, size_t len)
{
	uint8_t buf[64];

	return len <= sizeof(buf) &&
	       memory_read(((struct replay *)ctx)->memory, addr, buf, len) == len;
}

/* Does the x86-64 instruction at T's tail PC store where the core has no
 * memory (fault-store.h), given the core's registers? */
static bool core_store_to_missing(struct replay *r, const struct replay_thread *t)
{
	struct fault_store_regs regs;
	uint8_t code[16];
	size_t len, i;
	int fs = tdesc_offset(r->tdesc, tdesc_fs_base);
	int gs = tdesc_offset(r->tdesc, tdesc_gs_base);

	if (r->tdesc != &tdesc_amd64_linux)
		return false;
	memset(&regs, 0, sizeof(regs));
	len = memory_read(r->memory, t->tail_pc, code, sizeof(code));
	for (i = 0; i < 16; i++)
		memcpy(&regs.gpr[i], t->core->regs + tdesc_offset(r->tdesc, (unsigned)i), 8);
	if (fs >= 0 && t->core->valid[fs]) {
		memcpy(&regs.fs_base, t->core->regs + fs, 8);
		regs.fs_base_known = true;
	}
	if (gs >= 0 && t->core->valid[gs]) {
		memcpy(&regs.gs_base, t->core->regs + gs, 8);
		regs.gs_base_known = true;
	}
	return fault_store_to_missing(code, len, t->tail_pc, &regs, core_readable, r);
}

/* Did a signal stop thread T before the instruction at its tail PC?
 * GDB's `record full` logs each instruction before it runs it, so when a
 * signal stops the program (a fault of that instruction, or one sent by a
 * system call just done: raise, abort) the log holds the instruction at
 * the stop although it never ran: from there the first reverse-stepi
 * stays at the same PC, the next goes to the last instruction done.  The
 * tail has those two positions, with the same state.  Only the thread
 * that received the signal (a core's first, or live the one the stop
 * names); not a breakpoint's or a step's SIGTRAP, nor an interrupt; not an
 * instruction record full cannot log: one it cannot read (a call through
 * NULL) or decode (SIGILL: ud2, an instruction the CPU lacks), or one whose
 * store it cannot save (fault-store.h), where it stops before it with an
 * error instead. */
static bool signal_before_tail_insn(struct replay *r, const struct replay_thread *t)
{
	int signal = 0;
	uint8_t byte;

	if (t->core && t->core == &r->core->threads[0])
		signal = t->core->signal;
	else if (!r->core && r->opt.signal_tid == t->tid)
		signal = r->opt.signal;
	if (signal <= 0 || signal == SIGILL || signal == SIGTRAP ||
	    signal == SIGINT)
		return false;
	if (!r->core && r->opt.read_end_memory)
		return r->opt.read_end_memory(r->opt.end_memory_ctx, t->tail_pc,
					      &byte, 1) == 1;
	if (memory_read(r->memory, t->tail_pc, &byte, 1) != 1)
		return false;
	return !t->core || !core_store_to_missing(r, t);
}

/* Thread T at the end of its history, and its tail: after a build, and
 * after an extension (live mode: the program ran on, the threads are live
 * again).  Its cursors move there; they stay valid across an extension. */
static int thread_at_end(struct replay *r, struct replay_thread *t,
			 struct hwtr_history *history)
{
	struct hwtr_thread_stats st;

	t->history = hwtr_history_find_thread(history, t->tid);
	t->end_level = 0;
	t->tail_len = t->tail_step = 0;
	hwtr_recovery_free(t->recovery);	/* of a shorter history */
	t->recovery = NULL;
	t->recovery_tried = false;
	if (!t->history || hwtr_thread_stats(t->history, &st) < 0 ||
	    st.instructions == 0) {
		hwtr_cursor_free(t->cursor);
		hwtr_cursor_free(t->scratch);
		t->cursor = t->scratch = NULL;
		t->history = NULL;
		t->instructions = 0;
		return 0;
	}
	t->instructions = st.instructions;
	if ((!t->cursor && hwtr_cursor_alloc(t->history, &t->cursor) < 0) ||
	    (!t->scratch && hwtr_cursor_alloc(t->history, &t->scratch) < 0)) {
		snprintf(r->build_err, sizeof(r->build_err), "thread %u: %s",
			 t->tid, hwtr_last_error());
		return r->build_rc = -ENOMEM;
	}
	hwtr_cursor_goto(t->cursor, t->instructions);
	if (t->core || end_pc(r, t->tid, &t->tail_pc)) {
		int off = tdesc_offset(r->tdesc, r->tdesc->pc);
		struct hwtr_insn last;

		if (t->core)
			memcpy(&t->tail_pc, t->core->regs + off, 8);
		if (hwtr_cursor_insn(t->cursor, &last) < 0 || last.gap ||
		    last.ip != t->tail_pc)
			t->tail_len = 1 + signal_before_tail_insn(r, t);
		t->tail_step = t->tail_len;
	} else if (end_at_last_pc(t) < 0) {
		hwtr_cursor_free(t->cursor);
		hwtr_cursor_free(t->scratch);
		t->cursor = t->scratch = NULL;
		t->history = NULL;
		return 0;
	}
	{
		struct hwtr_segment innermost;
		int n = t->tail_len ? hwtr_thread_callstack_next(t->history, t->tail_pc,
								 &innermost, 1)
				    : hwtr_cursor_callstack(t->cursor, &innermost, 1);

		t->end_level = n > 0 ? innermost.level : 0;
	}
	return 0;
}

/* The data log, when the recording has one.  One that does not fit the
 * history would give wrong values: the server goes on without it and says
 * why (only the PC and the unchanging memory are known then). */
static void open_values(struct replay *r)
{
	hwtr_values_free(r->values);
	r->values = NULL;
	if (r->tdesc != &tdesc_amd64_linux)
		return;		/* its register numbers are amd64's */
	if (hwtr_values_open(r->history, &r->values) < 0) {
		fprintf(stderr, "hwtrec-server: the recording's data log is not used, "
			"values before the end are unknown: %s\n", hwtr_last_error());
		r->values = NULL;
	}
}

/* How much of the data log's end load_log reads first: the tail's first
 * values need the part from a thread's last restart point (32,768
 * instructions, some 0.3 MB on a call-heavy program) and the seek table,
 * both at the end. */
#define LOG_END_FIRST (16u << 20)

/* Read the last LOG_END_FIRST bytes of the data log into the page cache
 * before the pass over all of it: on a cold cache that pass reads the log
 * from its start at the disk's speed, and the tail's first values, read
 * from its end meanwhile, waited behind it (reverse-finish 0.8-2.0 s
 * instead of 32 ms on a 3.3 GB log).  Best effort: errors are the pass's
 * to report. */
static void read_log_end_first(const struct replay *r)
{
	const size_t chunk = 1u << 20;
	char path[4096], *buf = malloc(chunk);
	struct stat st;
	off_t at;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", r->dir, r->info->values);
	fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		at = st.st_size > (off_t)LOG_END_FIRST ? st.st_size - LOG_END_FIRST : 0;
		while (at < st.st_size && pread(fd, buf, chunk, at) > 0)
			at += (off_t)chunk;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void *load_log(void *arg)
{
	struct replay *r = arg;

	read_log_end_first(r);
	test_delay("HWTREC_TEST_LOG_DELAY_MS");
	if (hwtr_values_load(r->recording, &r->log) < 0) {
		snprintf(r->log_err, sizeof(r->log_err), "%s", hwtr_last_error());
		r->log = NULL;
	}
	pthread_mutex_lock(&r->tail_lock);
	r->log_done = true;
	pthread_cond_broadcast(&r->tail_cond);
	pthread_mutex_unlock(&r->tail_lock);
	return NULL;
}

/* The data log's reader (load_log), done. */
static void join_log_loader(struct replay *r)
{
	if (!r->loading_log)
		return;
	pthread_join(r->log_loader, NULL);
	r->loading_log = false;
}

/* After a background build: the log load_log read, bound to the whole
 * history (hwtr_values_open without a second pass over the log). */
static void bind_whole_values(struct replay *r)
{
	r->values = NULL;
	join_log_loader(r);
	if (r->log && hwtr_values_bind(r->log, r->history) < 0) {
		snprintf(r->log_err, sizeof(r->log_err), "%s", hwtr_last_error());
		hwtr_values_free(r->log);
		r->log = NULL;
	}
	if (!r->log) {
		fprintf(stderr, "hwtrec-server: the recording's data log is not "
			"used, values before the end are unknown: %s\n", r->log_err);
		return;
	}
	r->values = r->log;
}

/* After the build: a cursor per thread, at the end, and the tail (the
 * data log is the caller's). */
static int finish_history(struct replay *r)
{
	size_t i;
	int rc;

	if (r->build_rc < 0)
		return r->build_rc;
	for (i = 0; i < r->nthreads; i++)
		if ((rc = thread_at_end(r, &r->threads[i], r->history)) < 0)
			return rc;
	/* Live, GDB debugs the program running now, and live.c reports no
	 * exec: the history is not split into programs. */
	for (i = 0; program_images_count(r->images) > 1 && !r->opt.nends &&
		    i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		if (!t->cursor)
			continue;
		t->image_starts = calloc(program_images_count(r->images),
					 sizeof(*t->image_starts));
		if (!t->image_starts)
			return -ENOMEM;
		program_images_starts(r->images, t->scratch, t->instructions,
				      t->image_starts);
	}
	return 0;
}

/* How much of each thread's trace the tail holds: the environment's
 * HWTREC_TAIL_BYTES (0: no tail), else DEFAULT_TAIL_BYTES: on a call-heavy
 * trace (0.2 bits an instruction) about a million instructions, decoded in
 * 0.06 s (64 KiB: 2.8 million, 0.19 s, which the first reverse-stepi of a
 * 1 G-instruction crash had to wait for, its prompt coming first). */
#define DEFAULT_TAIL_BYTES (16u << 10)

static uint64_t tail_bytes(void)
{
	const char *s = getenv("HWTREC_TAIL_BYTES");
	char *end;
	unsigned long long n;

	if (!s || !*s)
		return DEFAULT_TAIL_BYTES;
	n = strtoull(s, &end, 10);
	if (*end) {
		fprintf(stderr, "hwtrec-server: HWTREC_TAIL_BYTES=%s is not a "
			"number of bytes: the default, %u, is used\n", s,
			DEFAULT_TAIL_BYTES);
		return DEFAULT_TAIL_BYTES;
	}
	return n;
}

/* Without a core, GDB's first packets ask where the threads stand: find
 * their ends from the end of the trace alone (a chunk's decoding) before the
 * whole history is built, which can take minutes.  Not knowing is no error:
 * the registers then wait for the build. */
static void find_early_ends(struct replay *r)
{
	size_t n = r->info->nthreads, i;
	uint64_t *ips = calloc(n ? n : 1, sizeof(*ips));
	enum hwtr_end_ip_status *status = calloc(n ? n : 1, sizeof(*status));

	if (ips && status &&
	    hwtr_history_end_ips(r->recording, &r->hopt, ips, status) == 0)
		for (i = 0; i < n; i++) {
			struct replay_thread *t = find(r, r->info->threads[i].tid);

			/* A tid listed twice: its first stream's end. */
			if (t && t->early_end == hwtr_end_ip_unknown) {
				t->early_end = status[i];
				t->early_end_pc = ips[i];
			}
		}
	free(ips);
	free(status);
}

/* Is the history still being built in the background? */
static bool still_building(struct replay *r)
{
	return r->building && !atomic_load(&r->built);
}

/* Where a thread stood in the tail: its tail thread and position. */
struct tail_place {
	const struct hwtr_thread *thread;	/* NULL: no cursor, or at the end */
	uint64_t position;
	unsigned tail_step;
};

/* Leave the tail: note where each thread stands, and let go of what the
 * tail history owns (cursors, recoveries). */
static struct tail_place *leave_tail(struct replay *r)
{
	struct tail_place *places = calloc(r->nthreads ? r->nthreads : 1,
					   sizeof(*places));
	size_t i;

	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		if (places && t->cursor && !at_end(t)) {
			places[i].thread = t->history;
			places[i].position = hwtr_cursor_position(t->cursor);
			places[i].tail_step = t->tail_step;
		}
		hwtr_cursor_free(t->cursor);
		hwtr_cursor_free(t->scratch);
		hwtr_recovery_free(t->recovery);
		t->cursor = t->scratch = NULL;
		t->recovery = NULL;
		t->history = NULL;
	}
	r->in_tail = false;
	return places;
}

/* Each thread where it stood in the tail, in the whole history. */
static void enter_places(struct replay *r, const struct tail_place *places)
{
	size_t i;

	for (i = 0; places && i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];
		uint64_t base;

		if (!places[i].thread || !t->cursor)
			continue;
		if (hwtr_thread_tail_base(places[i].thread, t->history, &base) < 0 ||
		    hwtr_cursor_goto(t->cursor, places[i].position + base) < 0) {
			/* Not expected: the tail is the whole one's end. */
			fprintf(stderr, "hwtrec-server: thread %u goes back to the "
				"end of its history: %s\n", t->tid, hwtr_last_error());
			hwtr_cursor_goto(t->cursor, t->instructions);
			t->tail_step = t->tail_len;
			continue;
		}
		t->tail_step = places[i].tail_step;
	}
}

/* Wait for a background build; without a history the server goes on
 * serving the core.  Threads that moved in the tail stand at the same
 * instructions of the whole history. */
void replay_wait_history(struct replay *r)
{
	struct tail_place *places = NULL;

	if (!r->building)
		return;
	pthread_join(r->builder, NULL);
	r->building = false;
	if (r->in_tail)
		places = leave_tail(r);
	r->values = NULL;	/* bound to the tail, or to nothing */
	hwtr_values_free(r->tail_log);	/* before the tail it is bound to */
	r->tail_log = NULL;
	r->history = r->whole;
	r->whole = NULL;
	if (finish_history(r) < 0) {
		fprintf(stderr, "hwtrec-server: no history, serving the end state only: %s\n",
			r->build_err);
		join_log_loader(r);
		hwtr_values_free(r->log);	/* its cursors are the tail's */
		r->log = NULL;
	} else {
		enter_places(r, places);
		if (r->loading_log || r->log || r->log_err[0])
			bind_whole_values(r);	/* load_log read it */
		else
			open_values(r);
	}
	free(places);
	hwtr_history_free(r->tail);
	r->tail = NULL;
}

/* Whether the log's last part may be read for the tail: not with the
 * environment's HWTREC_VALUES_SEEK=0 (for benchmarks: the tail then waits
 * for the whole log's pass, as before the seek table). */
static bool values_seek_allowed(void)
{
	const char *s = getenv("HWTREC_VALUES_SEEK");

	return !s || strcmp(s, "0");
}

/* How far back the log's part for the tail is read first: to the last
 * restart point of the thread asked for (one every 32,768 instructions),
 * so that the first past values cost that much of the log, not the whole
 * tail's part (which takes ten times as long on a call-heavy program's
 * 16 KiB tail), nor the part back to where another thread ran last (one
 * that exited long before the end). */
#define FIRST_TAIL_BACK 1

/* In the tail, while the whole log is still being read: the log's last
 * part for T bound to the tail (hwtr_values_load_tail_back), when its seek
 * table allows; true when VALUES is that. */
static bool tail_log_values(struct replay *r, struct replay_thread *t)
{
	bool done;

	pthread_mutex_lock(&r->tail_lock);
	done = r->log_done;
	pthread_mutex_unlock(&r->tail_lock);
	if (done || !values_seek_allowed())
		return false;	/* bound as it is: no second read */
	if (hwtr_values_load_tail_back(r->tail, t->history, FIRST_TAIL_BACK,
				       &r->tail_log) == 0 && r->tail_log) {
		r->values = r->tail_log;
		r->tail_back = FIRST_TAIL_BACK;
		return true;
	}
	fprintf(stderr, "hwtrec-server: the end of the data log alone does not "
		"give the values at the end of the history, the whole log is "
		"read: %s\n", hwtr_last_error());
	return false;
}

/* VALUES is the log's part for the tail: it holds T's position, read
 * again for T further back when it does not (at least twice as far each
 * time, so that walking back re-reads the log's end a few times only; at
 * last the whole tail's part).  True, or false when the part cannot be
 * read back so far: it is let go, and the whole log waited for, as
 * without a seek table. */
static bool tail_log_reach(struct replay *r, struct replay_thread *t)
{
	uint64_t first, pos, back = r->tail_back;
	struct hwtr_values *wider;

	if (!t->cursor)
		return true;
	pos = hwtr_cursor_position(t->cursor);
	while (hwtr_values_first_known(r->tail_log, t->history, &first) == 0 &&
	       pos < first) {
		if (back == UINT64_MAX)
			return true;	/* the whole tail's part: not logged */
		back = back >= t->instructions / 2 ? UINT64_MAX : 2 * back;
		if (back < t->instructions - pos + 1)
			back = t->instructions - pos + 1;
		if (hwtr_values_load_tail_back(r->tail, back == UINT64_MAX ? NULL
					       : t->history, back, &wider) < 0 ||
		    !wider) {
			fprintf(stderr, "hwtrec-server: the data log's end cannot "
				"be read back %llu instructions, the whole log is "
				"read: %s\n", (unsigned long long)back,
				hwtr_last_error());
			r->values = NULL;
			hwtr_values_free(r->tail_log);
			r->tail_log = NULL;
			return false;
		}
		hwtr_values_free(r->tail_log);
		r->values = r->tail_log = wider;
		r->tail_back = back;
	}
	return true;
}

/* In the tail, before a value at T's past position is given: the data
 * log's part that holds it (tail_log_values, tail_log_reach), or the whole
 * log bound to the tail, once its reader is done (load_log) and it places
 * the tail (hwtr_values_bind); when it cannot, the whole history is waited
 * for, whose positions it has checked: never a value from another
 * position.  The threads may then stand in the whole history. */
static void tail_values(struct replay *r, struct replay_thread *t)
{
	if (!r->in_tail || !r->info->values || r->tdesc != &tdesc_amd64_linux)
		return;
	/* After an exec the log is the last program's (data-log.c), and so
	 * is the tail (in_tail): the tail counts back from the log's end as
	 * without an exec. */
	if (r->values && (r->values != r->tail_log || tail_log_reach(r, t)))
		return;
	if (!r->tail_values_refused && (r->loading_log || r->log)) {
		if (!r->tail_log && r->tail_back == 0 && tail_log_values(r, t) &&
		    tail_log_reach(r, t))
			return;
		pthread_mutex_lock(&r->tail_lock);
		while (!r->log_done)
			pthread_cond_wait(&r->tail_cond, &r->tail_lock);
		pthread_mutex_unlock(&r->tail_lock);
		join_log_loader(r);
		if (r->log && hwtr_values_bind(r->log, r->tail) == 0) {
			r->values = r->log;
			return;
		}
		fprintf(stderr, "hwtrec-server: values at past positions wait "
			"for the whole history: %s\n",
			r->log ? hwtr_last_error() : r->log_err);
		r->tail_values_refused = true;
	}
	replay_wait_history(r);
}

/* Is GDB served from the tail (see tail_bytes)?  Entered at the first
 * request that needs a history once the tail is decoded (with WAIT, a
 * request that moves waits for that, not for the whole history; one that
 * only looks is answered from the end meanwhile); left when the whole
 * history is built (wait_history, at the next request). */
static bool in_tail(struct replay *r, bool wait)
{
	bool done;
	size_t i;

	if (!still_building(r))
		return false;
	if (r->in_tail)
		return true;
	if (!r->tail_bytes)
		return false;
	pthread_mutex_lock(&r->tail_lock);
	while (wait && !r->tail_done)
		pthread_cond_wait(&r->tail_cond, &r->tail_lock);
	done = r->tail_done;
	pthread_mutex_unlock(&r->tail_lock);
	if (!done || !r->tail)
		return false;
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];

		/* After an exec, positions belong to programs (image_starts,
		 * from the whole history): a tail that holds only the last
		 * program is that program's throughout. */
		if (thread_at_end(r, t, r->tail) < 0 ||
		    (t->scratch && !program_images_last_started_before(
				r->images, t->scratch, t->instructions))) {
			free(leave_tail(r));
			return false;
		}
	}
	r->in_tail = true;
	return true;
}

int replay_open(const char *dir, const struct replay_options *options,
		struct replay **out)
{
	struct replay *r;
	size_t i;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r || breakpoints_new(&r->breakpoints) < 0) {
		free(r);
		say("%s: out of memory", dir);
		return -ENOMEM;
	}
	pthread_mutex_init(&r->tail_lock, NULL);
	pthread_cond_init(&r->tail_cond, NULL);
	/* Absolute, so that the plugin can name it wherever GDB runs. */
	r->dir = realpath(dir, NULL);
	if (!r->dir)
		r->dir = strdup(dir);
	if (!r->dir) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = hwtr_recording_open(dir, &r->recording);
	if (rc < 0) {
		say("%s", hwtr_last_error());
		goto fail;
	}
	r->info = hwtr_recording_info(r->recording);
	r->tdesc = tdesc_for_arch(r->info->arch);
	if (!r->tdesc) {
		say("%s: arch \"%s\": the server has no target "
		    "description for it (it serves x86_64 and aarch64)", dir,
		    r->info->arch);
		rc = -EINVAL;
		goto fail;
	}
	if (r->info->core) {
		char *path;

		if (asprintf(&path, "%s/%s", dir, r->info->core) < 0) {
			rc = -ENOMEM;
			goto fail;
		}
		rc = core_open(path, &r->core);
		free(path);
		if (rc < 0)
			goto fail;
	}
	if ((rc = program_images_build(r->recording, r->dir, &r->images)) < 0)
		goto fail;
	r->image = program_images_count(r->images) - 1;
	rc = memory_create(r->core, &r->memory);
	if (rc < 0 || add_mappings(r) < 0 ||
	    program_images_add_segments(r->memory, last_objects(r)) < 0) {
		rc = -ENOMEM;
		goto fail;
	}
	/* The core's threads first: the one with the fatal signal leads. */
	for (i = 0; r->core && i < r->core->nthreads; i++)
		if ((rc = add_thread(r, r->core->threads[i].tid)) < 0)
			goto fail;
	for (i = 0; i < r->info->nthreads; i++)
		if ((rc = add_thread(r, r->info->threads[i].tid)) < 0)
			goto fail;
	if (!r->nthreads) {
		say("%s: the recording has no threads and no core", dir);
		rc = -ENODATA;
		goto fail;
	}
	if (options && options->no_history) {
		*out = r;
		return 0;
	}
	r->hopt.progress = options ? options->progress : NULL;
	if (options)
		r->opt = *options;
	if (options && options->background) {
		if (!r->core && !r->opt.nends)
			find_early_ends(r);
		/* Live mode extends its history at every stop.  A process
		 * that exec'd is served from the tail only when the tail
		 * holds its last program alone (in_tail).  Intel PT only so
		 * far: an ETM stream read from an A-sync in CoreSight frames
		 * is not tested against the whole yet.  A data log is read
		 * beside the build (load_log) and counts the tail's positions
		 * back from its end (tail_values). */
		if (!r->opt.nends &&
		    r->info->trace_format && !strcmp(r->info->trace_format, "intel-pt"))
			r->tail_bytes = tail_bytes();
		rc = pthread_create(&r->builder, NULL, build_history, r);
		if (rc) {
			say("cannot start a thread: %s", strerror(rc));
			rc = -rc;
			goto fail;
		}
		r->building = true;
		if (r->tail_bytes && r->info->values && r->tdesc == &tdesc_amd64_linux) {
			/* Without a thread of its own, the log is read
			 * after the whole build (open_values). */
			r->loading_log = !pthread_create(&r->log_loader, NULL,
							 load_log, r);
		}
		*out = r;
		return 0;
	}
	build_history(r);
	r->history = r->whole;
	r->whole = NULL;
	if ((rc = finish_history(r)) < 0) {
		say("%s", r->build_err);
		goto fail;
	}
	open_values(r);
	*out = r;
	return 0;

fail:
	if (rc == -ENOMEM)	/* the paths above that say nothing */
		say("%s: out of memory", dir);
	replay_close(r);
	return rc < 0 ? rc : -EINVAL;
}

int replay_refresh(struct replay *r, const struct replay_options *options)
{
	size_t i;
	int rc;

	replay_wait_history(r);
	r->lifetimes_known = false;	/* the threads run on */
	if (!r->history) {
		say("no history to extend");
		return -EINVAL;
	}
	if (options) {
		r->opt.end_tids = options->end_tids;
		r->opt.end_pcs = options->end_pcs;
		r->opt.nends = options->nends;
		r->opt.signal = options->signal;
		r->opt.signal_tid = options->signal_tid;
	}
	if (hwtr_recording_refresh(r->recording) < 0 ||
	    hwtr_history_extend(r->history) < 0) {
		say("%s", hwtr_last_error());
		return -EIO;
	}
	if (add_mappings(r) < 0) {
		say("out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < r->info->nthreads; i++)
		if ((rc = add_thread(r, r->info->threads[i].tid)) < 0) {
			say("out of memory");
			return rc;
		}
	for (i = 0; i < r->nthreads; i++)
		if ((rc = thread_at_end(r, &r->threads[i], r->history)) < 0) {
			say("%s", r->build_err);
			return rc;
		}
	open_values(r);		/* the log grew with the recording */
	return 0;
}

uint64_t replay_decoded(struct replay *r)
{
	uint64_t n = 0;
	size_t i;

	replay_wait_history(r);
	for (i = 0; r->history && i < hwtr_history_nthreads(r->history); i++) {
		struct hwtr_thread_stats st;

		if (hwtr_thread_stats(hwtr_history_thread(r->history, i), &st) == 0)
			n += st.decoded_instructions;
	}
	return n;
}

/* The session replay_close leaves to the process's exit (volatile: it is
 * never read, and the store must stay). */
static struct replay *volatile left_to_the_exit;

void replay_close(struct replay *r)
{
	bool log_reading;
	size_t i;

	if (!r)
		return;
	if (r->building && atomic_load(&r->built))
		replay_wait_history(r);	/* done but never asked for: joined */
	pthread_mutex_lock(&r->tail_lock);
	log_reading = r->loading_log && !r->log_done;
	pthread_mutex_unlock(&r->tail_lock);
	if (r->building || log_reading) {
		/* GDB left before the history was built (or the log read):
		 * the process is about to exit, and the builder (the log's
		 * reader) still uses everything.  Kept where a leak checker
		 * finds it, also after that thread has ended. */
		left_to_the_exit = r;
		return;
	}
	join_log_loader(r);
	if (r->log != r->values)
		hwtr_values_free(r->log);	/* not bound to the history */
	for (i = 0; i < r->nthreads; i++) {
		hwtr_cursor_free(r->threads[i].cursor);
		hwtr_cursor_free(r->threads[i].scratch);
		hwtr_recovery_free(r->threads[i].recovery);
		free(r->threads[i].image_starts);
		free(r->threads[i].end_unwound);
	}
	free(r->threads);
	if (r->tail_log != r->values)
		hwtr_values_free(r->tail_log);
	hwtr_values_free(r->values);
	if (r->history)
		hwtr_history_free(r->history);
	hwtr_history_free(r->tail);
	memory_free(r->memory);
	core_close(r->core);
	program_images_free(r->images);
	if (r->recording)
		hwtr_recording_close(r->recording);
	breakpoints_free(r->breakpoints);
	free(r->watches);
	insn_reads_cache_free(r->reads_cache);
	pthread_mutex_destroy(&r->tail_lock);
	pthread_cond_destroy(&r->tail_cond);
	free(r->dir);
	free(r);
}

size_t replay_nthreads(const struct replay *r)
{
	return r->nthreads;
}

uint32_t replay_thread_tid(const struct replay *r, size_t index)
{
	return index < r->nthreads ? r->threads[index].tid : 0;
}

bool replay_has_thread(const struct replay *r, uint32_t tid)
{
	return find(r, tid) != NULL;
}

uint32_t replay_initial_thread(struct replay *r)
{
	size_t i;

	if (r->core || r->opt.nends)
		return r->threads[0].tid;
	/* No end state: the first thread the history knows a PC for. */
	if (still_building(r))
		for (i = 0; i < r->nthreads; i++)
			if (r->threads[i].early_end == hwtr_end_ip_found)
				return r->threads[i].tid;
	replay_wait_history(r);
	for (i = 0; i < r->nthreads; i++)
		if (r->threads[i].cursor)
			return r->threads[i].tid;
	return r->threads[0].tid;
}

const struct tdesc *replay_tdesc(const struct replay *r)
{
	return r->tdesc;
}

int replay_end_signal(const struct replay *r)
{
	if (r->core && r->core->signal)
		return r->core->signal;
	if (r->info->end.state == hwtr_end_signaled)
		return r->info->end.code;
	return 0;
}

int32_t replay_pid(const struct replay *r)
{
	return r->info->pid;
}

static bool last_image(const struct replay *r)
{
	return r->image + 1 == program_images_count(r->images);
}

const void *replay_auxv(const struct replay *r, size_t *size)
{
	if (r->core && r->core->auxv && last_image(r)) {
		*size = r->core->auxv_size;
		return r->core->auxv;
	}
	return program_images_auxv(r->images, r->image, size);
}

const void *replay_siginfo(struct replay *r, uint32_t tid, size_t *size)
{
	struct replay_thread *t = find(r, tid);

	if (!t || !t->core || !t->core->has_siginfo || !last_image(r))
		return NULL;
	replay_wait_history(r);
	if (!at_end_state(t))
		return NULL;
	*size = CORE_SIGINFO_SIZE;
	return t->core->siginfo;
}

const char *replay_executable(const struct replay *r)
{
	const struct loaded_objects *lo = replay_loaded_objects(r);

	/* The program's own name for it: GDB reads the file through vFile
	 * (vfile.c), which serves the copy the library found. */
	if (lo && lo->exe != (size_t)-1)
		return lo->objects[lo->exe].path;
	return r->info->executable;
}

size_t replay_nimages(const struct replay *r)
{
	return r->images ? program_images_count(r->images) : 0;
}

const struct loaded_objects *replay_image_objects(const struct replay *r,
						  size_t image)
{
	return r->images ? program_images_objects(r->images, image) : NULL;
}

const struct hwtr_recording *replay_recording(const struct replay *r)
{
	return r->recording;
}

bool replay_names_file(const struct replay *r, const char *path)
{
	size_t i;

	if (r->info->executable && !strcmp(r->info->executable, path))
		return true;
	for (i = 0; r->core && i < r->core->nfiles; i++)
		if (!strcmp(r->core->files[i].path, path))
			return true;
	return false;
}

const struct loaded_objects *replay_loaded_objects(const struct replay *r)
{
	return r->images ? program_images_objects(r->images, r->image) : NULL;
}

size_t replay_image(const struct replay *r)
{
	return r->image;
}

const char *replay_path(const struct replay *r)
{
	return r->dir;
}

/* ----------------------------------------------------------------- moving */

/* 1 if the position is a gap, 0 if not, or a negative error (a chunk that
 * does not decode). */
static int gap_at(struct replay_thread *t)
{
	struct hwtr_insn insn;
	int rc = hwtr_cursor_insn(t->cursor, &insn);

	return rc < 0 ? rc : insn.gap != NULL;
}

bool replay_is_breakpoint(const struct replay *r, uint64_t pc)
{
	return breakpoints_at(r->breakpoints, pc);
}

static int step(struct replay_thread *t, bool reverse, enum replay_event *event)
{
	uint64_t pos = hwtr_cursor_position(t->cursor);

	*event = replay_stepped;
	if (t->tail_step) {
		if (!reverse) {
			/* Over the faulting instruction, as record full replays
			 * it (same PC, nothing changes). */
			if (t->tail_step < t->tail_len)
				t->tail_step++;
			else
				*event = replay_history_end;
			return 0;
		}
		if (t->tail_step > 1) {
			t->tail_step--;	/* before the faulting instruction */
			return 0;
		}
		/* Back from the core's state to the last instruction done. */
		int gap = gap_at(t);

		if (gap < 0)
			return gap;
		t->tail_step = 0;
		if (!gap)
			return 0;
	} else if (!reverse && pos >= t->instructions && t->tail_len) {
		t->tail_step = 1;
		return 0;
	}
	if (reverse ? pos <= 1 : pos >= t->instructions) {
		*event = reverse ? replay_history_begin : replay_history_end;
		return 0;
	}
	/* A gap has no PC to stop at: step over it (GDB's btrace stops there
	 * with a message; we have no way to show a PC-less position), unless
	 * it is a signal's delivery, where record full stops at the PC the
	 * signal interrupted (signal-delivery.c). */
	for (;;) {
		int rc = hwtr_cursor_step(t->cursor, reverse ? -1 : 1), gap;
		struct delivery_stop d;

		if (rc == -hwtr_err_eos || rc == hwtr_err_eos)
			break;
		if (rc < 0)
			return rc;
		pos = hwtr_cursor_position(t->cursor);
		gap = gap_at(t);
		if (gap < 0)
			return gap;
		if (!gap || (reverse ? pos <= 1 : pos >= t->instructions) ||
		    delivery_stop_at(t, pos, &d))
			break;
	}
	return 0;
}

/* The nearest stop at a signal's delivery (signal-delivery.c) strictly
 * between FROM and TO, going the way REVERSE says, whose PC has a
 * breakpoint: true with its position in *AT. */
static bool delivery_breakpoint(struct replay *r, struct replay_thread *t,
				uint64_t from, uint64_t to, bool reverse,
				uint64_t *at)
{
	struct delivery_stop d;
	uint64_t g = from;

	while (hwtr_thread_next_gap(t->history, g, reverse ? -1 : 1, &g) == 1 &&
	       (reverse ? g > to : g < to))
		if (delivery_stop_at(t, g, &d) && replay_is_breakpoint(r, d.pc)) {
			*at = g;
			return true;
		}
	return false;
}

/* Continue T to its nearest breakpoint hit, or to an end of its history. */
static int cont_to_breakpoint(struct replay *r, struct replay_thread *t,
			      bool reverse, enum replay_event *event)
{
	struct hwtr_insn insn;
	const uint64_t *addrs;
	uint64_t from, at;
	size_t naddrs;
	int rc = breakpoints_addresses(r->breakpoints, &addrs, &naddrs);

	if (rc < 0)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (t->tail_step) {
		if (!reverse) {
			t->tail_step = t->tail_len;
			*event = replay_history_end;
			return 0;
		}
		/* Before the faulting instruction, then the last instruction
		 * done: the first candidates. */
		if (t->tail_step > 1 && replay_is_breakpoint(r, t->tail_pc)) {
			t->tail_step = 1;
			*event = replay_breakpoint;
			return 0;
		}
		t->tail_step = 0;
		if (hwtr_cursor_insn(t->cursor, &insn) == 0 && !insn.gap &&
		    replay_is_breakpoint(r, insn.ip)) {
			*event = replay_breakpoint;
			return 0;
		}
	}
	from = hwtr_cursor_position(t->cursor);
	if (naddrs)
		rc = hwtr_cursor_find(t->cursor, reverse ? -1 : 1, addrs, naddrs);
	if (rc < 0)
		return rc;
	/* A stop at a signal's delivery on the way, at a breakpoint's PC,
	 * comes first (the search looks at instructions only). */
	if (naddrs && delivery_breakpoint(r, t, from,
					  rc > 0 ? hwtr_cursor_position(t->cursor) :
					  reverse ? 0 : t->instructions + 1,
					  reverse, &at)) {
		*event = replay_breakpoint;
		return hwtr_cursor_goto(t->cursor, at);
	}
	if (rc > 0) {
		*event = replay_breakpoint;
		return 0;
	}
	rc = hwtr_cursor_goto(t->cursor, reverse ? 1 : t->instructions);
	if (rc < 0)
		return rc;
	*event = reverse ? replay_history_begin : replay_history_end;
	if (!reverse && t->tail_len) {
		/* A breakpoint at the tail's PC stops at its first position
		 * (before a faulting instruction there). */
		t->tail_step = t->tail_len;
		if (replay_is_breakpoint(r, t->tail_pc)) {
			t->tail_step = 1;
			*event = replay_breakpoint;
		}
	}
	return 0;
}

/* A reverse move that arrives at the history's first instruction stops
 * as the history's start, whatever stopped it there (a step, a breakpoint,
 * a watchpoint), as record full does: its log has no state before that
 * instruction, so GDB says "No more reverse-execution history." and never
 * hears of a breakpoint there.  Reporting the breakpoint would also make
 * GDB step back over it when it does not stop (an ignore count, a false
 * condition), and GDB 13 keeps its step-over under way after the
 * no-history answer: its next resume then resumes nothing and waits for
 * ever. */
static void first_insn_is_begin(const struct replay_thread *t, bool reverse,
				enum replay_event *event)
{
	if (reverse && !t->tail_step &&
	    hwtr_cursor_position(t->cursor) <= 1 &&
	    (*event == replay_stepped || *event == replay_breakpoint ||
	     *event == replay_watchpoint))
		*event = replay_history_begin;
}

int replay_cont(struct replay *r, struct replay_thread *t, bool reverse,
		enum replay_event *event)
{
	uint64_t from = hwtr_cursor_position(t->cursor);
	unsigned from_tail = t->tail_step;
	int rc = cont_to_breakpoint(r, t, reverse, event);

	if (rc < 0)
		return rc;
	rc = replay_watch_after_move(r, t, reverse, from, from_tail, event);
	first_insn_is_begin(t, reverse, event);
	return rc;
}

/* A continue that went past an exec (from IMAGE into another program)
 * stops on the other side of it, at the first instruction of the program it
 * came into: GDB follows the exec there, sets the breakpoints that program
 * has, and continues. */
static void stop_at_exec(struct replay *r, struct replay_thread *t, size_t image,
			 bool reverse, enum replay_event *event)
{
	size_t next = image + 1;
	uint64_t boundary;

	if (replay_thread_image(r, t) == image)
		return;
	if (reverse) {
		boundary = t->image_starts[image] - 1;	/* the exec itself */
	} else {
		while (t->image_starts[next] == UINT64_MAX)	/* not found */
			next++;
		boundary = t->image_starts[next];
	}
	hwtr_cursor_goto(t->cursor, boundary);
	/* Back in the first program: its last instruction that has a PC
	 * (the exec system call), not the gap the exec left in the trace. */
	while (reverse && gap_at(t) > 0 && hwtr_cursor_step(t->cursor, -1) == 0)
		;
	t->tail_step = 0;
	*event = replay_stepped;
}

/* Move T one instruction or to the next breakpoint.  A failed move (a
 * decode error) leaves the thread where it was, as does one that reached
 * the start of a tail (then *OLDER is set: the whole history goes on). */
static int move(struct replay *r, struct replay_thread *t, bool reverse,
		bool step_one, enum replay_event *event, bool *older)
{
	uint64_t pos = hwtr_cursor_position(t->cursor);
	unsigned tail_step = t->tail_step;
	size_t image = replay_thread_image(r, t);
	int rc;

	*older = false;
	rc = step_one ? step(t, reverse, event) : replay_cont(r, t, reverse, event);
	/* A step that ran (or undid) an instruction touching a watched range
	 * stops as a watchpoint, as on hardware. */
	if (rc >= 0 && step_one && *event == replay_stepped)
		rc = replay_watch_after_move(r, t, reverse, pos, tail_step, event);
	if (rc >= 0 && step_one)
		first_insn_is_begin(t, reverse, event);
	if (rc >= 0 && r->in_tail && *event == replay_history_begin)
		*older = true;
	if (rc < 0 || *older) {
		if (rc < 0)
			say("%s", hwtr_last_error());
		hwtr_cursor_goto(t->cursor, pos);
		t->tail_step = tail_step;
	} else if (!step_one) {
		stop_at_exec(r, t, image, reverse, event);
	}
	r->image = replay_thread_image(r, t);
	return rc;
}

int replay_resume(struct replay *r, uint32_t tid, bool reverse, bool step_one,
		  enum replay_event *event)
{
	struct replay_thread *t = find(r, tid);
	bool older;
	int rc;

	if (!t) {
		say("no thread %x in the recording", tid);
		return -ESRCH;
	}
	/* Watchpoints search the whole history's data log. */
	if (r->nwatches)
		replay_wait_history(r);
	/* In the tail a thread without instructions there may have older
	 * ones: the whole history says. */
	if (!in_tail(r, true) || !t->cursor)
		replay_wait_history(r);
	if (!t->cursor) {
		*event = reverse ? replay_history_begin : replay_history_end;
		return 0;
	}
	rc = replay_watch_pending(r, &tid, reverse);
	if (rc > 0) {
		*event = replay_watchpoint;
		rc = 0;
		older = false;
	} else if (rc == 0) {
		rc = move(r, t, reverse, step_one, event, &older);
	}
	if (rc >= 0 && older) {
		/* Older than the tail: from the same instruction of the
		 * whole history, once it is built. */
		replay_wait_history(r);
		if (!t->cursor) {
			*event = replay_history_begin;
			return 0;
		}
		rc = move(r, t, reverse, step_one, event, &older);
	}
	if (rc >= 0)
		replay_watch_note_stop(r, tid, reverse, *event);
	return rc;
}

int replay_insert_breakpoint(struct replay *r, int type, uint64_t addr)
{
	return breakpoints_insert(r->breakpoints, type, addr);
}

int replay_remove_breakpoint(struct replay *r, int type, uint64_t addr)
{
	return breakpoints_remove(r->breakpoints, type, addr);
}

/* -------------------------------------------------------------- registers */

/* The data log's number for our amd64 register REGNUM (tdesc.h), or -1:
 * the same up to mxcsr; orig_rax is not logged. */
static int logged_regno(unsigned regnum)
{
	if (regnum <= tdesc_mxcsr)
		return (int)regnum;
	if (regnum == tdesc_fs_base)
		return hwtr_amd64_fs_base;
	if (regnum == tdesc_gs_base)
		return hwtr_amd64_gs_base;
	return -1;
}

/* Fill in, at T's position (before its end), every register the data log
 * knows there; the others stay unavailable. */
static void logged_registers(struct replay *r, struct replay_thread *t,
			     uint8_t regs[TDESC_G_SIZE], uint8_t valid[TDESC_G_SIZE])
{
	uint64_t pos = hwtr_cursor_position(t->cursor);
	unsigned regnum;

	if (!r->values)
		return;
	for (regnum = 0; regnum < r->tdesc->nregs; regnum++) {
		int regno = logged_regno(regnum), off = tdesc_offset(r->tdesc, regnum);
		int size = r->tdesc->size(regnum);
		uint8_t bytes[16];

		if (regno < 0 || off < 0 || size <= 0 || size > (int)sizeof(bytes) ||
		    regnum == r->tdesc->pc)
			continue;
		if (hwtr_values_register(r->values, t->history, pos, (unsigned)regno,
					 bytes, sizeof(bytes)) < 0)
			continue;
		memcpy(regs + off, bytes, (size_t)size);
		memset(valid + off, 1, (size_t)size);
	}
}

/* How many instructions before the end recovery looks at: the
 * environment's HWTREC_RECOVERY_WINDOW (0 turns recovery off), else the
 * library's default. */
static uint64_t recovery_window(void)
{
	const char *s = getenv("HWTREC_RECOVERY_WINDOW");
	char *end;
	unsigned long long n;

	if (!s || !*s)
		return HWTR_RECOVERY_WINDOW;
	n = strtoull(s, &end, 10);
	if (*end) {
		fprintf(stderr, "hwtrec-server: HWTREC_RECOVERY_WINDOW=%s is not "
			"a number of instructions: the default, %u, is used\n",
			s, HWTR_RECOVERY_WINDOW);
		return HWTR_RECOVERY_WINDOW;
	}
	return n;
}

static struct memory *image_memory(struct replay *r);

/* The end state's memory for the recovery: the core's writable segments
 * (what only the program's stores change; not a read-only page the kernel
 * updates, like the vDSO's data), else bytes that never change. */
static size_t end_memory(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay *r = ctx;

	if (r->core && hwtr_core_memory_writable(r->core->memory, addr))
		return hwtr_core_memory_read(r->core->memory, addr, buf, len);
	return memory_read_fixed(image_memory(r), addr, buf, len);
}

/* The end state's bytes the program could not write: the core's read-only
 * segments (recovery trusts them back to the last call that may have
 * changed a mapping, hwtr_recovery_end). */
static size_t fixed_end_memory(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay *r = ctx;
	const struct hwtr_core_memory *cm = r->core ? r->core->memory : NULL;

	if (!cm || !len || !hwtr_core_memory_read_only(cm, addr) ||
	    !hwtr_core_memory_read_only(cm, addr + len - 1))
		return 0;
	return hwtr_core_memory_read(cm, addr, buf, len);
}

/* The first recovery's window: small, so that the first question (the
 * first reverse-stepi) is answered in tens of milliseconds, not the half
 * second a million instructions take; grown 16 times at a time, up to
 * recovery_window(), when a question is older. */
#define FIRST_RECOVERY_WINDOW 65536u
/* In the tail, while the whole history is built on the other core, the
 * first recovery is smaller still: the first reverse-stepi there took
 * 0.18 s with 65,536 instructions, 0.05 s with 4,096. */
#define FIRST_TAIL_RECOVERY_WINDOW 4096u

static bool made_under_valgrind(const struct replay *r);
static int caller_pc(struct replay_thread *t, const struct hwtr_segment *callee,
		     const struct hwtr_segment *caller, uint64_t *pc,
		     struct hwtr_insn *read);
static uint64_t resume_position(const struct hwtr_segment *callee,
				const struct hwtr_segment *caller);

/* The registers an end frame anchors: rbx, rbp, rsp, r12-r15. */
#define RECOVERY_ANCHORED 0xf0c2u

static struct hwtr_symbolizer *moving_symbolizer(struct replay *r);

/* Whether the binaries' CFI gives the CFA at IP as a register plus a
 * constant: GDB's own unwinder then unwinds the frame standing there from
 * it, not by guessing from the code. */
static bool has_cfi(struct replay *r, uint64_t ip)
{
	struct hwtr_symbolizer *sym = moving_symbolizer(r);
	unsigned regno;
	int64_t offset;

	return sym && hwtr_symbolize_cfa(sym, ip, &regno, &offset) == 0;
}

/* The registers of each frame of T's end state that GDB unwound from the
 * core with the binaries' CFI (replay_note_end_register), as anchors for
 * the recovery: a caller's rsp and rbx, rbp, r12-r15 where it resumes are
 * what it had just before its pending call (the callee saved them, or
 * kept them, as the ABI says).  GDB's frames are paired with the
 * history's end stack in order, by PC, up to the first that differs (a
 * signal frame, a frame GDB unwound otherwise) and while every frame
 * inside has CFI where it stands (a frame without, GDB unwinds by
 * analysing the code: not taken as proven); tail callers, which GDB does
 * not count, are passed over.  *ANCHORS (to free), ascending. */
static size_t end_anchors(struct replay *r, struct replay_thread *t,
			  struct hwtr_recovery_anchor **anchors)
{
	struct hwtr_segment segs[REPLAY_MAX_FRAMES];
	struct hwtr_recovery_anchor *a;
	size_t frame = 1, n = 0, k;
	int nsegs, i;

	*anchors = NULL;
	if (t->end_nunwound < 2 || !t->history)
		return 0;
	if (t->tail_len)
		nsegs = hwtr_thread_callstack_next(t->history, t->tail_pc, segs,
						   REPLAY_MAX_FRAMES);
	else
		nsegs = hwtr_cursor_goto(t->scratch, t->instructions) < 0 ? -1 :
			hwtr_cursor_callstack(t->scratch, segs,
					      REPLAY_MAX_FRAMES);
	if (nsegs < 2 || !has_cfi(r, t->tail_pc) ||
	    !(a = calloc((size_t)nsegs, sizeof(*a))))
		return 0;
	for (i = 1; i < nsegs && frame < t->end_nunwound; i++) {
		const struct end_frame_registers *u = &t->end_unwound[frame];
		struct hwtr_insn insn;
		uint64_t pc;

		if (segs[i - 1].flags & (HWTR_SEG_UP_LINKS_TO_SIGNAL |
					 HWTR_SEG_GAP))
			break;
		if (segs[i - 1].flags & HWTR_SEG_UP_LINKS_TO_TAILCALL)
			continue;
		if (caller_pc(t, &segs[i - 1], &segs[i], &pc, NULL) < 0 ||
		    !(u->known >> 16 & 1) || u->regs[16] != pc)
			break;
		a[n].position = resume_position(&segs[i - 1], &segs[i]);
		/* GDB unwound this frame's callers from the CFI at its call. */
		if (hwtr_cursor_goto(t->scratch, a[n].position) < 0 ||
		    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap ||
		    !has_cfi(r, insn.ip))
			break;
		memcpy(a[n].regs, u->regs, sizeof(a[n].regs));
		a[n].known = (uint16_t)(u->known & RECOVERY_ANCHORED);
		n++;
		frame++;
	}
	for (k = 0; k < n / 2; k++) {	/* outermost (earliest) first */
		struct hwtr_recovery_anchor x = a[k];

		a[k] = a[n - 1 - k];
		a[n - 1 - k] = x;
	}
	*anchors = a;
	return n;
}

int replay_note_end_register(struct replay *r, uint32_t tid, unsigned frame,
			     unsigned regno, uint64_t value)
{
	struct replay_thread *t = find(r, tid);
	struct end_frame_registers *u;

	if (!t)
		return hwtr_fail(hwtr_err_notfound, "no thread %x in the "
				 "recording", tid);
	if (frame < 1 || frame >= REPLAY_END_FRAMES || regno > 16)
		return hwtr_fail(hwtr_err_invalid, "frame %u or register %u "
				 "out of range", frame, regno);
	if (frame == 1 && regno == 16)
		t->end_nunwound = 0;	/* a new set */
	if (frame >= t->end_nunwound) {
		if (hwtr_array_grow((void **)&t->end_unwound,
				    &t->end_unwound_cap, frame + 1,
				    sizeof(*t->end_unwound)) < 0)
			return -1;
		memset(&t->end_unwound[t->end_nunwound], 0,
		       (frame + 1 - t->end_nunwound) * sizeof(*t->end_unwound));
		t->end_nunwound = frame + 1;
	}
	u = &t->end_unwound[frame];
	u->regs[regno] = value;
	u->known |= 1u << regno;
	/* Made again with them at the next question. */
	hwtr_recovery_free(t->recovery);
	t->recovery = NULL;
	t->recovery_tried = false;
	return 0;
}

/* Without a data log: T's recovery from its end state in the core (a
 * thread without one, or live mode, has none), over a window that holds
 * position POS if the limit allows.  Memory only for a single thread:
 * another thread's stores are not in T's history. */
static struct hwtr_recovery *thread_recovery(struct replay *r,
					     struct replay_thread *t,
					     uint64_t pos)
{
	struct hwtr_recovery_end end;
	struct hwtr_recovery_anchor *anchors = NULL;
	uint64_t limit = recovery_window(), window, back;
	unsigned regnum;

	memset(&end, 0, sizeof(end));
	/* The core's state holds from the tail's first position on. */
	end.position = t->instructions + (t->tail_len > 0);
	back = end.position > pos ? end.position - pos : 0;
	if (back > limit)
		return NULL;	/* out of reach of every window */
	if (t->recovery) {
		if (back <= t->recovery_window || t->recovery_window >= limit ||
		    t->recovery_window >= end.position)
			return t->recovery;
		window = t->recovery_window;	/* older: a wider one */
		hwtr_recovery_free(t->recovery);
		t->recovery = NULL;
	} else if (t->recovery_tried) {
		return NULL;
	} else {
		window = r->in_tail ? FIRST_TAIL_RECOVERY_WINDOW : FIRST_RECOVERY_WINDOW;
	}
	t->recovery_tried = true;
	while (window < back && window < limit)
		window *= 16;
	if (window > limit)
		window = limit;
	if (!t->core || !t->history || !window || r->tdesc != &tdesc_amd64_linux)
		return NULL;
	end.pc = t->tail_pc;
	for (regnum = 0; regnum < 16; regnum++) {
		int off = tdesc_offset(r->tdesc, regnum);

		if (off < 0 || !t->core->valid[off])
			continue;
		memcpy(&end.regs[regnum], t->core->regs + off, 8);
		end.known |= (uint16_t)(1u << regnum);
	}
	{
		int off = tdesc_offset(r->tdesc, tdesc_fs_base);

		if (off >= 0 && t->core->valid[off]) {
			memcpy(&end.fs_base, t->core->regs + off, 8);
			end.fs_base_known = true;
		}
		off = tdesc_offset(r->tdesc, tdesc_eflags);
		if (off >= 0 && t->core->valid[off]) {
			memcpy(&end.eflags, t->core->regs + off, 4);
			end.eflags_known = true;
		}
	}
	end.under_valgrind = made_under_valgrind(r);
	end.nanchors = end_anchors(r, t, &anchors);
	end.anchors = anchors;
	if (r->nthreads == 1 && r->core) {
		end.read_memory = end_memory;
		end.read_fixed_memory = fixed_end_memory;
		end.memory_ctx = r;
	}
	t->recovery_window = window;
	if (hwtr_recovery_open(t->history, &end, window, &t->recovery) < 0) {
		fprintf(stderr, "hwtrec-server: thread %u: registers before the "
			"end are not recovered: %s\n", t->tid, hwtr_last_error());
		t->recovery = NULL;
	}
	free(anchors);
	return t->recovery;
}

/* Fill in, at T's position, the general registers and eflags recovered
 * there.  Under Valgrind eflags lacks IF and bit 1, which are set whenever
 * user code runs: given as the data log gives them. */
static void recovered_registers(struct replay *r, struct replay_thread *t,
				uint8_t regs[TDESC_G_SIZE],
				uint8_t valid[TDESC_G_SIZE])
{
	uint64_t pos = hwtr_cursor_position(t->cursor);
	struct hwtr_recovery *rec = thread_recovery(r, t, pos);
	int off = tdesc_offset(r->tdesc, tdesc_eflags);
	unsigned regnum;
	uint64_t flags;
	uint32_t eflags;

	if (rec && off >= 0 &&
	    hwtr_recovery_register(rec, pos, hwtr_amd64_eflags, &flags,
				   sizeof(flags)) == 8) {
		eflags = (uint32_t)flags | (made_under_valgrind(r) ? 0x202u : 0);
		memcpy(regs + off, &eflags, 4);
		memset(valid + off, 1, 4);
	}

	for (regnum = 0; rec && regnum < 16; regnum++) {
		int off = tdesc_offset(r->tdesc, regnum);
		uint64_t v;

		if (off < 0 || hwtr_recovery_register(rec, pos, regnum, &v,
						      sizeof(v)) < 0)
			continue;
		memcpy(regs + off, &v, 8);
		memset(valid + off, 1, 8);
	}
}

/* Whether the recording was made under Valgrind (the software source),
 * with or without a data log. */
static bool made_under_valgrind(const struct replay *r)
{
	return r->values ||
	       (r->info->source && !strcmp(r->info->source, "valgrind"));
}

/* The segment selectors of a software recording (made under Valgrind):
 * at every position what Linux gives every x86-64 process
 * (valgrind-x87.h: VEX has none; Valgrind's core says 0 for cs and ss). */
static void software_selectors(const struct replay *r,
			       uint8_t regs[TDESC_G_SIZE],
			       uint8_t valid[TDESC_G_SIZE])
{
	const uint32_t *linux_user = linux_user_selectors;
	unsigned regnum;

	if (!made_under_valgrind(r) || r->tdesc != &tdesc_amd64_linux)
		return;
	for (regnum = tdesc_cs; regnum <= tdesc_gs; regnum++) {
		int off = tdesc_offset(r->tdesc, regnum);

		memcpy(regs + off, &linux_user[regnum - tdesc_cs], 4);
		memset(valid + off, 1, 4);
	}
}

/* Whether the x86-64 system call numbered NR may change the calling
 * thread's fs or gs base: arch_prctl, set_thread_area, rt_sigreturn, the
 * execs, or a number not read.  clone, clone3, fork and vfork set only the
 * child's (CLONE_SETTLS); the caller keeps its own.  A thread blocked in a
 * system call at the end (futex, read, nanosleep, a parent Valgrind never
 * ran again after clone) so keeps the base its TLS is found through. */
static bool syscall_may_set_bases(bool nr_known, uint64_t nr)
{
	if (!nr_known)
		return true;
	switch (nr) {
	case 15:	/* rt_sigreturn */
	case 59:	/* execve */
	case 158:	/* arch_prctl */
	case 205:	/* set_thread_area */
	case 322:	/* execveat */
		return true;
	default:
		return false;
	}
}

/* At the end of a software recording, the registers Valgrind's core gets
 * wrong.  fs_base and gs_base: it writes 0 (the thread's TLS pointer is
 * never 0 under glibc).  The x87 registers and mxcsr: it writes zeros
 * (an fctrl of 0 unmasks every exception; Linux starts a process with
 * 0x37f).  The data log has them before the last instruction, the same
 * after it unless that instruction may change them: a system call that
 * may set this thread's bases (syscall_may_set_bases) or
 * fpu_insn_may_change; then, and without a log, unknown.  mxcsr is never
 * known (values-x87.h). */
static void software_end_state(struct replay *r, struct replay_thread *t,
			       uint8_t regs[TDESC_G_SIZE],
			       uint8_t valid[TDESC_G_SIZE])
{
	static const struct { unsigned regnum; int logged; } bases[] = {
		{ tdesc_fs_base, hwtr_amd64_fs_base },
		{ tdesc_gs_base, hwtr_amd64_gs_base },
	};
	struct hwtr_insn last;
	uint64_t pos;
	bool syscall, fpu;
	unsigned regnum;
	size_t i;
	int rc;

	if (!made_under_valgrind(r) || r->tdesc != &tdesc_amd64_linux)
		return;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		memset(valid + tdesc_offset(r->tdesc, bases[i].regnum), 0, 8);
	for (regnum = tdesc_st0; regnum <= tdesc_fop; regnum++)
		memset(valid + tdesc_offset(r->tdesc, regnum), 0,
		       (size_t)r->tdesc->size(regnum));
	memset(valid + tdesc_offset(r->tdesc, tdesc_mxcsr), 0, 4);
	if (!r->values || !t->cursor || !t->instructions)
		return;		/* no log: unknown */
	pos = hwtr_cursor_position(t->cursor);
	rc = hwtr_cursor_goto(t->cursor, t->instructions);
	if (rc >= 0)
		rc = hwtr_cursor_insn(t->cursor, &last);
	hwtr_cursor_goto(t->cursor, pos);
	if (rc < 0 || last.gap)
		return;
	syscall = last.size == 2 && last.raw[0] == 0x0f && last.raw[1] == 0x05;
	if (syscall) {
		uint8_t nr[16];
		uint64_t n = 0;
		bool known = hwtr_values_register(r->values, t->history,
						  t->instructions,
						  hwtr_amd64_rax, nr,
						  sizeof(nr)) == 8;

		if (known)
			memcpy(&n, nr, sizeof(n));
		syscall = syscall_may_set_bases(known, n);
	}
	fpu = fpu_insn_may_change(last.raw, last.size);
	for (regnum = 0; regnum < tdesc_nregs; regnum++) {
		int off = tdesc_offset(r->tdesc, regnum), regno = -1;
		int size = r->tdesc->size(regnum);
		uint8_t bytes[16];

		for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
			if (bases[i].regnum == regnum && !syscall)
				regno = bases[i].logged;
		if (regnum >= tdesc_st0 && regnum <= tdesc_fop && !fpu)
			regno = (int)regnum;	/* the same numbers */
		if (regno < 0 || off < 0 || size <= 0 ||
		    size > (int)sizeof(bytes) ||
		    hwtr_values_register(r->values, t->history, t->instructions,
					 (unsigned)regno, bytes,
					 sizeof(bytes)) != size)
			continue;
		memcpy(regs + off, bytes, (size_t)size);
		memset(valid + off, 1, (size_t)size);
	}
}

/* The end state of a software recording takes fs_base, gs_base and the x87
 * registers from the data log (software_end_state), which needs the
 * thread's history: while it is being built, wait for the tail (or, without
 * one, for the whole history) rather than answer GDB's first question with
 * those registers unknown. */
static void end_state_values(struct replay *r, struct replay_thread *t)
{
	if (!r->info->values || !made_under_valgrind(r) ||
	    r->tdesc != &tdesc_amd64_linux ||
	    (r->values && t->cursor && t->instructions))
		return;
	if (in_tail(r, true))
		tail_values(r, t);
	else
		replay_wait_history(r);
}

int replay_registers(struct replay *r, uint32_t tid,
		     uint8_t regs[TDESC_G_SIZE], uint8_t valid[TDESC_G_SIZE])
{
	struct replay_thread *t = find(r, tid);
	struct hwtr_insn insn;
	int off = tdesc_offset(r->tdesc, r->tdesc->pc);

	if (!t)
		return -ESRCH;
	memset(regs, 0, TDESC_G_SIZE);
	memset(valid, 0, TDESC_G_SIZE);
	/* Without a core, even the end's PC comes from the history: from its
	 * end alone while it is being built (every thread is at its end),
	 * or from the tail. */
	if (!in_tail(r, false)) {
		if (!t->core && still_building(r) &&
		    t->early_end == hwtr_end_ip_found) {
			memcpy(regs + off, &t->early_end_pc, 8);
			memset(valid + off, 1, 8);
			return 0;
		}
		if (!t->core && still_building(r) && t->early_end == hwtr_end_ip_none)
			return 0;	/* no history will know a PC either */
		if (!t->core)
			replay_wait_history(r);
	}
	if (!at_end_state(t))
		tail_values(r, t);
	if (at_end_state(t) && t->core)
		end_state_values(r, t);
	if (at_end_state(t) && t->core) {
		memcpy(regs, t->core->regs, TDESC_G_SIZE);
		memcpy(valid, t->core->valid, TDESC_G_SIZE);
		software_selectors(r, regs, valid);
		software_end_state(r, t, regs, valid);
		return 0;
	}
	if (t->tail_step) {
		insn.ip = t->tail_pc;	/* live mode: no core */
	} else if (!t->cursor || hwtr_cursor_insn(t->cursor, &insn) < 0) {
		return 0;	/* nothing known */
	} else if (insn.gap) {
		struct delivery_stop d;

		if (!delivery_stop_at(t, hwtr_cursor_position(t->cursor), &d))
			return 0;	/* nothing known */
		memcpy(regs + off, &d.pc, 8);
		memset(valid + off, 1, 8);
		delivery_stop_registers(r, t, &d, regs, valid);
		software_selectors(r, regs, valid);
		return 0;
	}
	memcpy(regs + off, &insn.ip, 8);
	memset(valid + off, 1, 8);
	if (!t->tail_step && r->values)
		logged_registers(r, t, regs, valid);
	else if (!t->tail_step)
		recovered_registers(r, t, regs, valid);
	software_selectors(r, regs, valid);
	return 0;
}

bool replay_at_end(struct replay *r, uint32_t tid)
{
	struct replay_thread *t = find(r, tid);

	if (!t)
		return true;
	replay_wait_history(r);
	return at_end(t);
}

bool replay_at_end_state(struct replay *r, uint32_t tid)
{
	struct replay_thread *t = find(r, tid);

	if (!t)
		return true;
	replay_wait_history(r);
	return at_end_state(t);
}

void replay_position(struct replay *r, uint32_t tid, uint64_t *position,
		     uint64_t *end)
{
	struct replay_thread *t = find(r, tid);

	*position = *end = 0;
	replay_wait_history(r);
	if (!t || !t->cursor)
		return;
	*position = hwtr_cursor_position(t->cursor) + t->tail_step;
	*end = end_position(t);
}

static struct memory *image_memory(struct replay *r)
{
	struct memory *own = program_images_memory(r->images, r->image);

	return own ? own : r->memory;
}

size_t replay_read_memory(struct replay *r, uint64_t addr, void *buf, size_t len)
{
	return memory_read(image_memory(r), addr, buf, len);
}

/* Memory at T's position from the data log or, without one, the recovery
 * (hwtr_recovery_memory): a byte changed since has its old value there;
 * one unchanged since is the end state's, when there is one (the core, or
 * live the stopped process: without either the files hold only a writable
 * byte's first value); the bytes of read-only files are known anyway. */
static size_t past_memory(struct replay *r, struct replay_thread *t,
			  struct hwtr_recovery *rec, uint64_t pos, uint64_t addr,
			  uint8_t *buf, size_t len)
{
	uint8_t *state = malloc(len), *end = malloc(len), *fixed = malloc(len);
	size_t n_end = 0, n_fixed, i = 0;
	int rc;

	if (!state || !end || !fixed)
		goto out;
	rc = rec ? hwtr_recovery_memory(rec, pos, addr, buf, state, len)
		 : hwtr_values_memory(r->values, t->history, pos, addr, buf,
				      state, len);
	if (rc < 0)
		memset(state, hwtr_value_unknown, len);
	if (r->core)
		n_end = memory_read(image_memory(r), addr, end, len);
	else if (r->opt.read_end_memory)
		n_end = r->opt.read_end_memory(r->opt.end_memory_ctx, addr,
					       end, len);
	n_fixed = memory_read_fixed(image_memory(r), addr, fixed, len);
	for (i = 0; i < len; i++) {
		if (i < n_fixed)
			buf[i] = fixed[i];
		else if (state[i] == hwtr_value_same && i < n_end)
			buf[i] = end[i];
		else if (state[i] != hwtr_value_old)
			break;
	}
out:
	free(state);
	free(end);
	free(fixed);
	return i;
}

size_t replay_logged_memory(struct replay *r, struct replay_thread *t,
			    uint64_t pos, uint64_t addr, uint8_t *buf, size_t len)
{
	return r->values ? past_memory(r, t, NULL, pos, addr, buf, len) : 0;
}

/* Memory at the stop before a signal's delivery (signal-delivery.c): the
 * handler's entry's, but for the bytes of the frame the delivery wrote. */
static size_t delivery_memory(struct replay *r, struct replay_thread *t,
			      const struct delivery_stop *d, uint64_t addr,
			      uint8_t *buf, size_t len)
{
	uint64_t lo, hi;

	if (!delivery_frame_bytes(r, t, d, &lo, &hi))
		return 0;
	if (addr >= lo && addr < hi)
		return 0;
	if (addr < lo && len > lo - addr)
		len = (size_t)(lo - addr);
	return past_memory(r, t, NULL, d->position + 1, addr, buf, len);
}

/* Before the end the end state may be wrong: only bytes that never change
 * (memory.h) are known.  While the history is being built every thread is
 * at its end (nothing can move before it is built).  Below
 * REPLAY_SYNTHETIC_LIMIT lie the plugin's synthetic frame addresses
 * (unwinder.py), where GDB looks for the locals of frames gone by the end:
 * nothing is served there before the end, even where a program mapped
 * low memory. */
static int thread_frames(struct replay *r, struct replay_thread *t,
			 struct plugin_frame frames[REPLAY_MAX_FRAMES],
			 size_t *nframes);

size_t replay_read_memory_at(struct replay *r, uint32_t tid, uint64_t addr,
			     void *buf, size_t len)
{
	struct replay_thread *t = find(r, tid);

	if (t && !in_tail(r, false)) {
		if (still_building(r))	/* nothing moved yet */
			return memory_read(image_memory(r), addr, buf, len);
		replay_wait_history(r);
	}
	if (t && !at_end_state(t))
		tail_values(r, t);
	if (!t || at_end_state(t))
		return memory_read(image_memory(r), addr, buf, len);
	if (addr < REPLAY_SYNTHETIC_LIMIT)
		return 0;
	/* No program's memory: the signal frames the plugin's unwinder
	 * gives handlers (signal-frames.c), with or without a data log. */
	if (signal_frame_address(addr)) {
		struct plugin_frame frames[REPLAY_MAX_FRAMES];
		size_t n;

		if (!t->cursor || thread_frames(r, t, frames, &n) < 0)
			return 0;
		return signal_frame_read(frames, n, addr, buf, len);
	}
	if (r->values && t->cursor && last_image(r)) {
		struct delivery_stop d;

		if (delivery_stop_at(t, hwtr_cursor_position(t->cursor), &d))
			return delivery_memory(r, t, &d, addr, buf, len);
		return past_memory(r, t, NULL, hwtr_cursor_position(t->cursor),
				   addr, buf, len);
	}
	if (!r->values && t->cursor && last_image(r) &&
	    thread_recovery(r, t, hwtr_cursor_position(t->cursor)))
		return past_memory(r, t, t->recovery,
				   hwtr_cursor_position(t->cursor), addr, buf, len);
	return memory_read_fixed(image_memory(r), addr, buf, len);
}

/* ------------------------------------------------------- plugin requests */

static struct replay_thread *history_thread(struct replay *r, uint32_t tid)
{
	struct replay_thread *t;

	replay_wait_history(r);
	t = find(r, tid);
	if (t && !t->cursor && r->build_rc < 0) {
		say("%s", r->build_err);
		return NULL;
	}

	if (!t)
		say("no thread %x in the recording", tid);
	else if (!t->cursor)
		say("thread %x has no history", tid);
	return t && t->cursor ? t : NULL;
}

/* A thread for a request that needs no instruction numbers: in the tail
 * when GDB is there, else as history_thread. */
static struct replay_thread *current_thread(struct replay *r, uint32_t tid)
{
	struct replay_thread *t = in_tail(r, true) ? find(r, tid) : NULL;

	return t && t->cursor ? t : history_thread(r, tid);
}

/* Whether T's registers at past positions come from the data log: bound
 * to the history GDB moves in, or, in the tail, to be bound there or to the
 * whole (tail_values waits for it).  Without an end state (a core, or live
 * the process) the stack's unchanged bytes are unknown, so GDB's unwinders
 * cannot walk it: the plugin's does.  After an exec the log is the last
 * image's, from its first instruction on (libhwtrecord/values.c): before
 * that, nothing is logged. */
static bool registers_logged(const struct replay *r, const struct replay_thread *t)
{
	bool logged = r->values || (r->in_tail && (r->loading_log || r->log));
	uint64_t rsp;

	if (!logged || !t->cursor || !(r->core || r->opt.read_end_memory))
		return false;
	if (program_images_count(r->images) == 1)
		return true;
	/* A log of the first program (recorded before the tool logged the
	 * last one) is bound too: ask whether it knows this position. */
	return r->values && t->history &&
	       hwtr_values_register(r->values, t->history,
				    hwtr_cursor_position(t->cursor),
				    hwtr_amd64_rsp, &rsp, sizeof(rsp)) == 8;
}

int replay_info(struct replay *r, bool wait, struct plugin_info *info)
{
	bool building;
	size_t i;

	if (wait || (r->building && atomic_load(&r->built)))
		replay_wait_history(r);
	building = r->building;
	memset(info, 0, sizeof(*info));
	info->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof(*info->threads));
	if (!info->threads) {
		say("out of memory");
		return -ENOMEM;
	}
	info->has_history = true;
	info->recording = r->dir;
	info->source = r->info->source ? r->info->source : "";
	info->format = r->info->trace_format ? r->info->trace_format : "";
	info->replaying = true;
	info->building = building;
	info->watchpoints = replay_watchpoints_supported(r);
	info->nthreads = r->nthreads;
	for (i = 0; i < r->nthreads; i++) {
		struct replay_thread *t = &r->threads[i];
		struct plugin_thread_info *j = &info->threads[i];
		struct hwtr_thread_stats st = { 0 };

		j->tid = t->tid;
		/* Building, a thread moves only in the tail. */
		j->at_end = (building && !r->in_tail) || at_end_state(t);
		/* Without them (no core: a program that exited) GDB cannot
		 * unwind at the end, and the plugin's unwinder does it. */
		j->registers_at_end = t->core || r->opt.nends;
		j->registers_logged = registers_logged(r, t);
		if (building)
			continue;
		if (t->history)
			hwtr_thread_stats(t->history, &st);
		j->counted = true;
		j->instructions = st.instructions;
		j->segments = st.segments;
		j->gaps = st.gaps;
		j->position = t->cursor ? hwtr_cursor_position(t->cursor) + t->tail_step : 0;
		j->end = end_position(t);
	}
	return 0;
}

/* The position of the instruction at which CALLER resumes when CALLEE
 * returns: its first after the return if the callee's up link came from a
 * return, else its last, the call (or the jump that left it for a tail
 * call). */
static uint64_t resume_position(const struct hwtr_segment *callee,
				const struct hwtr_segment *caller)
{
	return (callee->flags & HWTR_SEG_UP_LINKS_TO_RET) ?
	       caller->insn_begin : caller->insn_end - 1;
}

/* The PC at which frame SEGS[I] (I >= 1) resumes, as GDB's btrace unwinder
 * computes it: the return site if the callee's up link came from a return,
 * else the caller's last instruction (the call) plus its length.  READ,
 * when not NULL, gets the instruction at resume_position. */
static int caller_pc(struct replay_thread *t, const struct hwtr_segment *callee,
		     const struct hwtr_segment *caller, uint64_t *pc,
		     struct hwtr_insn *read)
{
	struct hwtr_insn insn;
	bool ret = callee->flags & HWTR_SEG_UP_LINKS_TO_RET;
	uint64_t n = resume_position(callee, caller);

	if (hwtr_cursor_goto(t->scratch, n) < 0 ||
	    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap)
		return -1;
	*pc = ret ? insn.ip : insn.ip + insn.size;
	if (read)
		*read = insn;
	return 0;
}

/* The registers a function preserves for its caller (the System V ABI):
 * rbx, rbp, r12-r15, with rsp, which GDB unwinds as the callee's CFA. */
static const unsigned preserved_registers[] = {
	hwtr_amd64_rbx, hwtr_amd64_rbp, hwtr_amd64_r12, hwtr_amd64_r13,
	hwtr_amd64_r14, hwtr_amd64_r15,
};

/* Without a data log, what the recovery proves of CALLER (frame i > 0)
 * where it resumes after CALLEE returns, from the registers just before
 * the instruction caller_pc reads (its call, or its first after a
 * return): its stack pointer, and the registers CALLEE preserves for it.
 * REC is the recovery already open for the current position (NULL: none):
 * frames are built at every stop, and a wider window costs a second. */
static void caller_registers(struct hwtr_recovery *rec,
			     const struct hwtr_segment *callee,
			     const struct hwtr_segment *caller,
			     struct plugin_frame *f)
{
	uint64_t n = resume_position(callee, caller);
	uint64_t v;
	size_t i;

	if (!rec)
		return;
	if (hwtr_recovery_register(rec, n, hwtr_amd64_rsp, &v, sizeof(v)) == 8) {
		f->has_sp = true;
		f->sp = v;
	}
	for (i = 0; i < sizeof(preserved_registers) /
			sizeof(preserved_registers[0]); i++) {
		unsigned regno = preserved_registers[i];

		if (hwtr_recovery_register(rec, n, regno, &v, sizeof(v)) != 8)
			continue;
		f->preserved_known |= 1u << regno;
		f->preserved[regno] = v;
	}
}

/* rsp's number in DWARF's x86-64 register numbering. */
#define DWARF_AMD64_RSP 7

/* The symbolizer of the history GDB moves in. */
static struct hwtr_symbolizer *moving_symbolizer(struct replay *r)
{
	struct hwtr_history *h = r->in_tail ? r->tail : r->history;

	return h ? hwtr_history_symbolizer(h) : NULL;
}

/* Without a data log, where CALLER (frame i > 0) resumes from its call
 * into CALLEE: the CFI's rule for its CFA just before that call, when it is
 * rsp plus a constant (f->call_cfa_offset).  The plugin's unwinder then
 * gives the callee the CFA GDB's own unwinder would, from the caller's,
 * the same for every activation it calls from there.  RESUME is the
 * instruction caller_pc read there. */
static void caller_cfa_rule(struct replay *r, struct replay_thread *t,
			    const struct hwtr_segment *callee,
			    const struct hwtr_insn *resume,
			    struct plugin_frame *f)
{
	struct hwtr_symbolizer *sym;
	unsigned regno;
	int64_t offset;

	if (r->values || t->tail_step ||
	    (callee->flags & (HWTR_SEG_UP_LINKS_TO_RET |
			      HWTR_SEG_UP_LINKS_TO_TAILCALL)) ||
	    r->tdesc != &tdesc_amd64_linux || !(sym = moving_symbolizer(r)) ||
	    resume->iclass != hwtr_ic_call ||
	    hwtr_symbolize_cfa(sym, resume->ip, &regno, &offset) < 0 ||
	    regno != DWARF_AMD64_RSP)
		return;
	f->has_call_cfa_offset = true;
	f->call_cfa_offset = offset;
}

/* rbp's number in DWARF's x86-64 register numbering. */
#define DWARF_AMD64_RBP 6

/* Without a data log, what GDB's own (DWARF) unwinder finds of frame F at
 * POS from the registers and memory the server serves there and the
 * plugin's unwinder gives F (frame 0: the position's; an outer frame: its
 * stack pointer and rbp where it resumes, f->sp and f->preserved): its CFA
 * by the CFI's rule at its PC (rsp or rbp plus a constant) and the return
 * address in the slot below it, where the recovery proves them.  The
 * plugin's unwinder leaves such a frame to GDB where GDB shows callers a
 * Python unwinder cannot make (the artificial frames of tail calls). */
static void cfi_unwind(struct replay *r, struct replay_thread *t,
		       struct hwtr_recovery *rec, uint64_t pos, bool innermost,
		       struct plugin_frame *f)
{
	struct hwtr_symbolizer *sym;
	unsigned regno;
	int64_t offset;
	uint64_t base, cfa, ret;
	bool known;

	/* An outer frame's PC is a return address: GDB looks up the CFI
	 * of the call before it. */
	if (!rec || r->values || t->tail_step || !f->has_pc || f->sigtramp ||
	    f->in_sigtramp || r->tdesc != &tdesc_amd64_linux ||
	    !(sym = moving_symbolizer(r)) ||
	    hwtr_symbolize_cfa(sym, innermost ? f->pc : f->pc - 1, &regno,
			       &offset) < 0)
		return;
	if (regno == DWARF_AMD64_RSP && innermost)
		known = hwtr_recovery_register(rec, pos, hwtr_amd64_rsp, &base,
					       sizeof(base)) == 8;
	else if (regno == DWARF_AMD64_RBP && innermost)
		known = hwtr_recovery_register(rec, pos, hwtr_amd64_rbp, &base,
					       sizeof(base)) == 8;
	else if (regno == DWARF_AMD64_RSP)
		known = f->has_sp, base = f->sp;
	else if (regno == DWARF_AMD64_RBP)
		known = f->preserved_known & (1u << hwtr_amd64_rbp),
		base = f->preserved[hwtr_amd64_rbp];
	else
		known = false;
	if (!known)
		return;
	cfa = base + (uint64_t)offset;
	if (past_memory(r, t, rec, pos, cfa - 8, (uint8_t *)&ret,
			sizeof(ret)) != sizeof(ret))
		return;
	f->has_cfi_unwind = true;
	f->cfi_cfa = cfa;
	f->cfi_return = ret;
}

/* The most tail jumps followed back to the call that began a chain. */
#define MAX_TAIL_JUMPS 64

/* The position that names SEG's activation, the same at every instruction
 * of it: the call that entered it (before the tail jumps that led to it),
 * or the first instruction after the return the history found it by.
 * Just before it the stack pointer is the activation's CFA.  -1 for a
 * signal handler's or where the history does not say. */
static int activation_entry(struct replay_thread *t,
			    const struct hwtr_segment *seg, uint64_t *n)
{
	struct hwtr_segment s = *seg, up;
	struct hwtr_insn insn;
	int hops;

	for (hops = 0; hops <= MAX_TAIL_JUMPS; hops++) {
		if (!s.number || !s.up ||
		    (s.flags & (HWTR_SEG_UP_LINKS_TO_SIGNAL | HWTR_SEG_GAP)) ||
		    hwtr_thread_segment(t->history, s.up, &up) < 0 ||
		    (up.flags & HWTR_SEG_GAP))
			return -1;
		if (s.flags & HWTR_SEG_UP_LINKS_TO_RET) {
			*n = up.insn_begin;
			return 0;
		}
		if (s.flags & HWTR_SEG_UP_LINKS_TO_TAILCALL) {
			s = up;
			continue;
		}
		if (hwtr_cursor_goto(t->scratch, up.insn_end - 1) < 0 ||
		    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap ||
		    insn.iclass != hwtr_ic_call)
			return -1;
		*n = up.insn_end - 1;
		return 0;
	}
	return -1;
}

/* Without a data log, the activation of frame F (segment SEG) and its CFA
 * where the recovery open for the current position proves it: the plugin's
 * unwinder gives the frame that id, so that GDB finds its locals and
 * arguments in the program's stack. */
static void frame_activation(struct replay *r, struct replay_thread *t,
			     struct hwtr_recovery *rec,
			     const struct hwtr_segment *seg,
			     struct plugin_frame *f)
{
	uint64_t n, cfa;

	if (r->values || t->tail_step || !t->cursor ||
	    activation_entry(t, seg, &n) < 0)
		return;
	f->has_activation = true;
	f->activation = n;
	if (rec && hwtr_recovery_register(rec, n, hwtr_amd64_rsp, &cfa,
					  sizeof(cfa)) == 8) {
		f->has_cfa = true;
		f->cfa = cfa;
	}
}

/* Where frame 0 stands on the last instruction of a non-local exit (the
 * jump with which libgcc's _Unwind_Resume enters a landing pad, the end of
 * glibc's __longjmp): its segment leaves to a frame further out than its
 * caller.  The binaries' CFI there already describes the exit's target as
 * the caller (eh_return's epilogue reads the return address from the
 * target's stack, __longjmp says so with cfi_register (rip, rdx)), and GDB
 * on real registers unwinds so; reverse-step from a landing pad decides by
 * it that it stepped back into a callee.  So the callers are those of the
 * exit's target: the next instruction's call stack, after SEGS[0].  Returns
 * the number of segments in SEGS, and whether they changed in *EXIT. */
static int nonlocal_exit_callers(struct replay_thread *t,
				 struct hwtr_segment segs[REPLAY_MAX_FRAMES],
				 int n, bool *exit)
{
	struct hwtr_segment next[REPLAY_MAX_FRAMES - 1];
	uint64_t last = segs[0].insn_end - 1;
	int m, caller = 1;

	if (n < 2 || t->tail_step || hwtr_cursor_position(t->cursor) != last ||
	    segs[0].insn_end > t->instructions)
		return n;
	if (hwtr_cursor_goto(t->scratch, segs[0].insn_end) < 0)
		return n;
	/* A function a tail-caller jumped to returns to the tail-caller's
	 * caller: that is no exit past its caller. */
	while (caller < n - 1 &&
	       (segs[caller - 1].flags & HWTR_SEG_UP_LINKS_TO_TAILCALL))
		caller++;
	m = hwtr_cursor_callstack(t->scratch, next, REPLAY_MAX_FRAMES - 1);
	if (m < 1 || (next[0].flags & HWTR_SEG_GAP) ||
	    next[0].level >= segs[caller].level)
		return n;
	memcpy(&segs[1], next, (size_t)m * sizeof(next[0]));
	*exit = true;
	return m + 1;
}

/* The PC at which frame 1 resumes when frame 0 stands on a non-local exit
 * (nonlocal_exit_callers): the exit's target, TARGET's first instruction. */
static int exit_target_pc(struct replay_thread *t, const struct hwtr_segment *target,
			  uint64_t *pc)
{
	struct hwtr_insn insn;

	if (hwtr_cursor_goto(t->scratch, target->insn_begin) < 0 ||
	    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap)
		return -1;
	*pc = insn.ip;
	return 0;
}

/* The PC a signal interrupted, in CALLER (the segment before the gap of its
 * delivery): after its last instruction when that goes on to the next one
 * (a branch's target is not known here).  A system call the kernel restarts
 * after the handler (SA_RESTART, or one that is never interrupted) has
 * the call's own address in the signal frame: then the handler's return
 * resumes the caller at that `syscall` again (its next segment), which
 * says so; an EINTR return resumes after it. */
static int interrupted_pc(struct replay_thread *t,
			  const struct hwtr_segment *caller, uint64_t *pc)
{
	struct hwtr_segment resumed;
	struct hwtr_insn insn;
	uint64_t call;

	if (hwtr_cursor_goto(t->scratch, caller->insn_end - 1) < 0 ||
	    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap || !insn_goes_on(&insn))
		return -1;
	*pc = insn.ip + insn.size;
	if (insn.iclass != hwtr_ic_far_call || !caller->next)
		return 0;
	call = insn.ip;
	if (hwtr_thread_segment(t->history, caller->next, &resumed) == 0 &&
	    hwtr_cursor_goto(t->scratch, resumed.insn_begin) >= 0 &&
	    hwtr_cursor_insn(t->scratch, &insn) == 0 && !insn.gap &&
	    insn.ip == call)
		*pc = call;
	return 0;
}

/* Whether SEG, linked to the frame a signal interrupted, is in the signal
 * return trampoline the handler returned to (not in the handler): its
 * activation's first segment is not the one right after the delivery's gap
 * (segments.c links the trampoline to the interrupted frame on the
 * handler's return). */
static bool in_trampoline(const struct hwtr_segment *seg)
{
	return seg->prev == 0 && seg->number != seg->up + 2;
}

/* The signal return trampoline the handler HANDLER (a segment of its
 * activation) returned to, in the history, as frame F: 0, or -1 when it
 * never did. */
static int trampoline_frame(struct replay_thread *t,
			    const struct hwtr_segment *handler,
			    struct plugin_frame *f)
{
	struct hwtr_segment s = *handler, after;
	struct hwtr_insn insn;

	while (s.next && hwtr_thread_segment(t->history, s.next, &s) == 0)
		;
	if (hwtr_thread_segment(t->history, s.number + 1, &after) < 0 ||
	    !(after.flags & HWTR_SEG_UP_LINKS_TO_SIGNAL) ||
	    after.up != handler->up || !in_trampoline(&after) ||
	    hwtr_cursor_goto(t->scratch, after.insn_begin) < 0 ||
	    hwtr_cursor_insn(t->scratch, &insn) < 0 || insn.gap)
		return -1;
	f->has_pc = true;
	f->pc = insn.ip;
	f->function = after.function;
	f->function_start = after.function_start;
	return 0;
}

/* Whether F, the last frame of a call stack, is the outermost one by the
 * binaries' CFI (f->outermost): where the history does not know its
 * caller (a thread's clone or _start), GDB's own unwinder ends the stack
 * there on the live process.  An outer frame's PC is a return address:
 * the CFI of the call before it. */
static void mark_outermost(struct replay *r, struct plugin_frame *f,
			   bool innermost)
{
	struct hwtr_symbolizer *sym;

	if (!f->has_pc || f->sigtramp || f->in_sigtramp ||
	    !(sym = moving_symbolizer(r)))
		return;
	f->outermost = hwtr_symbolize_outermost(sym, innermost ? f->pc :
						f->pc - 1) == 1;
}

static int thread_frames(struct replay *r, struct replay_thread *t,
			 struct plugin_frame frames[REPLAY_MAX_FRAMES],
			 size_t *nframes)
{
	struct hwtr_segment segs[REPLAY_MAX_FRAMES];
	struct delivery_stop d;
	struct hwtr_insn insn, resume;
	struct hwtr_recovery *rec = NULL;
	bool exit_frames, delivery;
	int n, i;
	size_t k;

	/* Without a data log: what the recovery open for the position proves
	 * of each frame (caller_registers, frame_activation). */
	if (!r->values && !t->tail_step && t->cursor)
		rec = thread_recovery(r, t, hwtr_cursor_position(t->cursor));
	/* The tail is not in the trace: its frames are those the history
	 * would give an instruction at its PC after the last one (after a
	 * return, the caller's), as GDB's unwinders see them there.  At a
	 * signal's delivery: the frames of the instruction the signal
	 * interrupted, frame 0 at the interrupted PC. */
	delivery = !t->tail_step &&
		   delivery_stop_at(t, hwtr_cursor_position(t->cursor), &d);
	if (t->tail_step)
		n = hwtr_thread_callstack_next(t->history, t->tail_pc, segs,
					       REPLAY_MAX_FRAMES);
	else if (delivery)
		n = hwtr_cursor_goto(t->scratch, d.position - 1) < 0 ? -1 :
		    hwtr_cursor_callstack(t->scratch, segs, REPLAY_MAX_FRAMES);
	else
		n = hwtr_cursor_callstack(t->cursor, segs, REPLAY_MAX_FRAMES);
	if (n < 0) {
		say("call stack: %s", hwtr_last_error());
		return -1;
	}
	exit_frames = false;
	n = nonlocal_exit_callers(t, segs, n, &exit_frames);
	for (i = 0, k = 0; i < n && k < REPLAY_MAX_FRAMES; i++) {
		struct plugin_frame *f = &frames[k];
		bool signal = i > 0 && (segs[i - 1].flags & HWTR_SEG_UP_LINKS_TO_SIGNAL);
		uint64_t pc = 0;

		memset(f, 0, sizeof(*f));
		/* A handler's caller is the trampoline it returns to, GDB's
		 * <signal handler called> frame: one more frame, of no
		 * segment, at the handler's level. */
		if (signal && !in_trampoline(&segs[i - 1])) {
			f->sigtramp = true;
			trampoline_frame(t, &segs[i - 1], f);
			f->level = segs[i - 1].level - t->end_level;
			if (++k == REPLAY_MAX_FRAMES)
				break;
			f = &frames[k];
			memset(f, 0, sizeof(*f));
		}
		if (i == 0 && t->tail_step)
			f->has_pc = (pc = t->tail_pc, true);
		else if (i == 0 && delivery)
			f->has_pc = (pc = d.pc, true);
		else if (i == 0)
			f->has_pc = hwtr_cursor_insn(t->cursor, &insn) == 0 && !insn.gap &&
				    ((pc = insn.ip), true);
		else if (i == 1 && exit_frames)
			f->has_pc = exit_target_pc(t, &segs[1], &pc) == 0;
		else if (signal)
			f->has_pc = interrupted_pc(t, &segs[i], &pc) == 0;
		else if ((f->has_pc = caller_pc(t, &segs[i - 1], &segs[i],
						 &pc, &resume) == 0)) {
			caller_registers(rec, &segs[i - 1], &segs[i], f);
			caller_cfa_rule(r, t, &segs[i - 1], &resume, f);
			/* Left by a jump: its callee is where GDB's own
			 * unwinder would show it as a tail-caller. */
			if ((resume.iclass == hwtr_ic_jump ||
			     resume.iclass == hwtr_ic_cond_jump) &&
			    !(segs[i - 1].flags & HWTR_SEG_UP_LINKS_TO_RET) &&
			    k > 0 && !(k == 1 && delivery))
				cfi_unwind(r, t, rec,
					   hwtr_cursor_position(t->cursor),
					   k == 1, &frames[k - 1]);
		}
		f->exit_target = i == 1 && exit_frames;
		f->in_sigtramp = i == 0 &&
				 (segs[0].flags & HWTR_SEG_UP_LINKS_TO_SIGNAL) &&
				 in_trampoline(&segs[0]);
		f->pc = pc;
		if (!f->in_sigtramp)
			frame_activation(r, t, rec, &segs[i], f);
		f->segment = segs[i].number;
		f->function = segs[i].function;
		f->function_start = segs[i].function_start;
		f->level = segs[i].level - t->end_level;
		k++;
	}
	if (k > 0)
		mark_outermost(r, &frames[k - 1], k == 1);
	*nframes = k;
	return 0;
}

int replay_frames(struct replay *r, uint32_t tid, const uint64_t *at,
		  struct plugin_frame frames[REPLAY_MAX_FRAMES], size_t *n)
{
	struct replay_thread *t = at ? history_thread(r, tid) : current_thread(r, tid);
	uint64_t pos;
	unsigned tail_step;
	int rc;

	if (!t)
		return -1;
	if (!at)
		return thread_frames(r, t, frames, n);
	/* The stack at another position: look, then come back. */
	pos = hwtr_cursor_position(t->cursor);
	tail_step = t->tail_step;
	if (replay_goto(r, tid, *at) < 0)
		return -1;
	rc = thread_frames(r, t, frames, n);
	hwtr_cursor_goto(t->cursor, pos);
	t->tail_step = tail_step;
	return rc;
}

int replay_end_frames(struct replay *r, uint32_t tid,
		      struct plugin_frame frames[REPLAY_MAX_FRAMES], size_t *n)
{
	struct replay_thread *t = current_thread(r, tid);
	uint64_t pos;
	unsigned tail_step;
	int rc;

	if (!t)
		return -1;
	pos = hwtr_cursor_position(t->cursor);
	tail_step = t->tail_step;
	if (hwtr_cursor_goto(t->cursor, t->instructions) < 0) {
		say("%s", hwtr_last_error());
		return -1;
	}
	t->tail_step = t->tail_len;
	rc = thread_frames(r, t, frames, n);
	hwtr_cursor_goto(t->cursor, pos);
	t->tail_step = tail_step;
	return rc;
}

int replay_listing(struct replay *r, uint32_t tid, bool calls, uint64_t first,
		   uint64_t last, unsigned flags, FILE *out)
{
	struct replay_thread *t = history_thread(r, tid);
	struct hwtr_insn insn;
	uint64_t mark_pc = 0;
	int rc;

	if (!t)
		return -1;
	/* GDB marks the instructions at the current PC with "=> ". */
	if (!calls && t->tail_step)
		mark_pc = t->tail_pc;
	else if (!calls && hwtr_cursor_insn(t->cursor, &insn) == 0 && !insn.gap)
		mark_pc = insn.ip;
	rc = calls ? hwtr_list_calls(t->history, first, last, flags, false, out)
		   : hwtr_list_insns(t->history, first, last, flags, false,
				     mark_pc, out);
	if (rc < 0) {
		say("%s", hwtr_last_error());
		return -1;
	}
	return 0;
}

int replay_goto(struct replay *r, uint32_t tid, uint64_t number)
{
	struct replay_thread *t = history_thread(r, tid);
	int rc;

	if (!t)
		return -ESRCH;
	if (number > t->instructions && number <= end_position(t)) {
		t->tail_step = (unsigned)(number - t->instructions);
		return hwtr_cursor_goto(t->cursor, t->instructions);
	}
	rc = hwtr_cursor_goto(t->cursor, number);
	if (rc < 0)
		say("%s", hwtr_last_error());
	else
		t->tail_step = 0;
	/* GDB is not told of an exec here (no stop reply): the image it is
	 * shown changes at the next resume, which reports the exec. */
	return rc;
}

/* ------------------------------------------------------------- btrace mode */

int replay_raw_trace(struct replay *r, uint32_t tid, const uint8_t **bytes,
		     size_t *size)
{
	size_t i;

	/* GDB's btrace reads Intel PT only. */
	if (strcmp(r->info->trace_format, "intel-pt"))
		return -EPROTONOSUPPORT;
	for (i = 0; i < r->info->nthreads; i++) {
		uint64_t start = r->info->threads[i].trace_start;
		int rc;

		if (r->info->threads[i].tid != tid)
			continue;
		rc = hwtr_recording_trace(r->recording, i, bytes, size);
		if (rc < 0)
			return rc;
		if (start > *size)
			start = *size;
		*bytes += start;
		*size -= (size_t)start;
		return 0;
	}
	return -ESRCH;
}

void replay_trace_cpu(const struct replay *r, const char **vendor,
		      unsigned *family, unsigned *model, unsigned *stepping)
{
	*vendor = r->info->pt.vendor;
	*family = r->info->pt.family;
	*model = r->info->pt.model;
	*stepping = r->info->pt.stepping;
}
