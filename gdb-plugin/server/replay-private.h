/* replay-private.h: the replay's state, shared by replay.c (moving,
 * registers, memory, the plugin's requests) and replay-threads.c (threads
 * on one time axis, which are alive when); nothing else includes it. */
#ifndef HWTR_REPLAY_PRIVATE_H
#define HWTR_REPLAY_PRIVATE_H

#include "replay.h"

#include "corefile.h"

#include <hwtrecord.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A watchpoint GDB inserted (Z2 write, Z3 read, Z4 access), or a hit:
 * TYPE, the first watched byte the instruction touched (LEN 0), the
 * instruction's number (INSN) and the watchpoint's range (WATCH_ADDR,
 * WATCH_LEN). */
struct replay_watch {
	int type;
	uint64_t addr, len;
	uint64_t insn;
	uint64_t watch_addr, watch_len;
};

/* The last stop at a watchpoint: thread TID at POSITION (and TAIL_STEP)
 * after instruction INSN, going the way REVERSE says, and the watchpoints
 * reported there.  One instruction may touch several (a rep movsb writes
 * one and reads another, on hardware at two iterations, two stops): the
 * next resume the same way from there reports the others first. */
#define REPLAY_WATCH_REPORTED 16
struct replay_watch_stop {
	bool valid, reverse;
	uint32_t tid;
	uint64_t insn, position;
	unsigned tail_step;
	size_t nreported;
	struct replay_watch reported[REPLAY_WATCH_REPORTED];
};

struct insn_reads_cache;

struct replay_thread {
	uint32_t tid;
	struct hwtr_thread *history;	/* NULL without a history */
	struct hwtr_cursor *cursor;
	struct hwtr_cursor *scratch;
	uint64_t instructions;
	const struct core_thread *core;	/* NULL if the core lacks it */
	/* The core's PC is not the last instruction of the history (a fault:
	 * the faulting instruction never completed, so the trace does not
	 * list it).  The thread then has positions after the history, the
	 * "tail", where it stands in the core, as GDB's btrace appends the
	 * current PC after the trace: one, or two when the thread ended on a
	 * signal before the instruction at that PC (signal_before_tail_insn).  tail_step is
	 * 0 outside the tail, else 1..tail_len. */
	unsigned tail_len;
	unsigned tail_step;
	uint64_t tail_pc;
	/* Where each program image starts (program-images.h), or NULL when
	 * the process never exec'd. */
	uint64_t *image_starts;
	/* Without a core, where the history will end (hwtr_history_end_ips):
	 * the end's PC while the history is being built, or that it will
	 * have no instruction. */
	enum hwtr_end_ip_status early_end;
	uint64_t early_end_pc;
	/* The sideband's thread-start and thread-exit times (0: none), once
	 * lifetimes_known (thread_lifetimes). */
	uint64_t start_tsc, exit_tsc;
	/* Without a data log: registers recovered from the core and the
	 * history (hwtr_recovery_*), made at the first question over the
	 * last RECOVERY_WINDOW instructions, made again over more when a
	 * question is older. */
	struct hwtr_recovery *recovery;
	uint64_t recovery_window;
	bool recovery_tried;
	/* GDB's frames at the end state, unwound from the core
	 * (replay_note_end_register): [i] is frame i's, [0] unused. */
	struct end_frame_registers {
		uint64_t regs[17];	/* enum hwtr_amd64_regno; [16] the PC */
		uint32_t known;		/* bit per REGS entry */
	} *end_unwound;
	size_t end_nunwound, end_unwound_cap;
	/* The level of the innermost frame at the end state: frame levels
	 * are given from it (qHwtr:frames), so that the tail's and the whole
	 * history's agree (a tail's levels start where it does). */
	int32_t end_level;
};

struct replay {
	char *dir;
	struct hwtr_recording *recording;
	const struct hwtr_recording_info *info;
	const struct tdesc *tdesc;	/* the recording's registers */
	struct hwtr_history *history;
	/* The data log (registers and memory at past positions), or NULL:
	 * a recording without one, or one that cannot be used. */
	struct hwtr_values *values;
	struct core *core;
	/* The programs the process ran (one per exec), and the one GDB is
	 * shown: the one the last thread to move stands in. */
	struct program_images *images;
	size_t image;
	struct memory *memory;
	size_t nthreads;
	struct replay_thread *threads;
	size_t nevents;		/* sideband events whose mappings are added */
	struct breakpoints *breakpoints;
	/* Watchpoints (replay-watch.c), and what the last move stopped at. */
	struct replay_watch *watches;
	size_t nwatches, cap_watches;
	struct replay_watch hit;
	struct replay_watch_stop watch_stop;
	struct insn_reads_cache *reads_cache;
	/* The history is built in the background so that GDB's first
	 * packets are answered at once (GDB gives up on a packet after
	 * `remotetimeout`, 2 s); requests that need it wait for it. */
	struct hwtr_history_options hopt;
	struct replay_options opt;
	pthread_t builder;
	bool building;
	atomic_bool built;	/* set by the builder when it is done */
	int build_rc;
	char build_err[512];
	struct hwtr_history *whole;	/* the builder's, until it is joined */
	/* Answer first, build later: the builder decodes the end of each
	 * thread's trace first (hwtr_history_build_tail, TAIL_BYTES of it),
	 * and until the whole history is built GDB moves in that tail; a
	 * move older than the tail, or a request that needs instruction
	 * numbers (listings, goto, qHwtr:info:1), waits for the whole one,
	 * where each thread then stands at the same instruction
	 * (hwtr_thread_tail_base). */
	uint64_t tail_bytes;	/* 0: no tail */
	struct hwtr_history *tail;	/* the builder's, once tail_done */
	pthread_mutex_t tail_lock;	/* tail_done, log_done, for a move
					 * that waits */
	pthread_cond_t tail_cond;
	bool tail_done;
	bool in_tail;		/* the threads' cursors are the tail's */
	/* With a tail, the data log is read (hwtr_values_load: a pass over
	 * all of it) by a thread of its own beside the build, then bound to
	 * the tail at the first request for a value there (tail_values),
	 * then to the whole history (bind_whole_values); VALUES is LOG
	 * while it is bound to the history GDB moves in. */
	pthread_t log_loader;
	bool loading_log;	/* LOG_LOADER runs or is not joined yet */
	bool log_done;		/* under tail_lock */
	struct hwtr_values *log;
	char log_err[512];	/* why LOG is NULL */
	bool tail_values_refused;	/* the log cannot place the tail */
	/* The log's last part only, bound to the tail
	 * (hwtr_values_load_tail_back), while LOG_LOADER still reads all of
	 * it: TAIL_BACK instructions before the end of the thread asked
	 * about last, read further back as older positions are asked for
	 * (tail_log_reach); UINT64_MAX: the whole tail's part. */
	struct hwtr_values *tail_log;
	uint64_t tail_back;
	/* Which threads are alive when (replay_thread_alive): the threads'
	 * start and exit times, and the stamp of the last instruction any
	 * thread ran (an exit before it ended a thread while others ran on;
	 * the exits at the process's end come after it). */
	bool lifetimes_known;
	uint64_t last_run;
	bool share_time;	/* threads_share_time, once lifetimes_known */
};

static inline struct replay_thread *find(const struct replay *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->nthreads; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	return NULL;
}

/* At the end state: its registers and memory are the core's (or live,
 * the process's).  Also before a signal's instruction at the stop, which
 * never ran (signal_before_tail_insn). */
static inline bool at_end_state(const struct replay_thread *t)
{
	return !t->cursor || t->tail_step ||
	       (!t->tail_len && hwtr_cursor_position(t->cursor) == t->instructions);
}

/* The program image thread T stands in (program-images.h). */
size_t replay_thread_image(const struct replay *r, const struct replay_thread *t);
/* Wait for the whole history (a request older than the tail, or one
 * that needs instruction numbers), and move every thread into it. */
void replay_wait_history(struct replay *r);
/* Whether a breakpoint is inserted at PC. */
bool replay_is_breakpoint(const struct replay *r, uint64_t pc);
/* Continue thread T alone to its nearest breakpoint hit (or either end of
 * its history): *EVENT says which. */
int replay_cont(struct replay *r, struct replay_thread *t, bool reverse,
		enum replay_event *event);

/* Memory [ADDR, ADDR+LEN) of T just before position POS, from the data
 * log (and the end state for bytes unchanged since): how many bytes from
 * ADDR on are known. */
size_t replay_logged_memory(struct replay *r, struct replay_thread *t,
			    uint64_t pos, uint64_t addr, uint8_t *buf, size_t len);

/* After thread T moved from FROM_POS (its tail step FROM_TAIL) in the
 * direction REVERSE says: the first instruction on the way that touched a
 * watched range ends the move instead (replay-watch.c), *EVENT
 * replay_watchpoint.  0, or an error (the thread may then have moved). */
int replay_watch_after_move(struct replay *r, struct replay_thread *t,
			    bool reverse, uint64_t from_pos, unsigned from_tail,
			    enum replay_event *event);
/* Before a resume of TID (0: the thread of the last stop) going the way
 * REVERSE says: 1 when the instruction of the last watchpoint stop touched
 * another watchpoint, not reported yet (r->hit; the thread stays), with
 * *TID the stopped thread; 0, or an error. */
int replay_watch_pending(struct replay *r, uint32_t *tid, bool reverse);
/* After a resume that stopped TID with EVENT: what the next resume's
 * replay_watch_pending goes on from. */
void replay_watch_note_stop(struct replay *r, uint32_t tid, bool reverse,
			    enum replay_event event);

#endif
