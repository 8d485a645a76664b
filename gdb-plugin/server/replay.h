/* replay.h: the replay engine behind hwtrec-server.
 *
 * Knows the recording (libhwtrecord history, one cursor per thread, the core
 * and the mapped binaries) and nothing of packet syntax.  Every thread starts
 * at the end of its history, where the program stopped (crashed).  At that
 * position the registers and memory are the core's; at earlier positions
 * only the PC is known (from the history) and the other registers are
 * unavailable, and of memory only what cannot have changed since (the
 * bytes of files mapped read-only: code, constants).
 *
 * Threads move independently: a resume moves only the thread it names.
 */
#ifndef HWTREC_REPLAY_H
#define HWTREC_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plugin-packets.h"
#include "tdesc.h"

struct hwtr_recording;

struct replay;

struct replay_options {
	FILE *progress;		/* decode progress (a terminal), or NULL */
	bool no_history;	/* serve the core only (testing, or no decoder) */
	bool background;	/* build the history in a thread; a failed build
				 * then leaves the server serving the end state */
	/* Live mode: where each thread stands now (there is no core).  A
	 * thread whose PC here is not its last instruction gets the "tail"
	 * position at this PC, as a core's thread does. */
	const uint32_t *end_tids;
	const uint64_t *end_pcs;
	size_t nends;
	/* Live mode: the thread the stop's signal stopped (GDB's signal
	 * number, which is Linux's for the ones that matter here), or 0. */
	uint32_t signal_tid;
	int signal;
	/* Live mode: the end state's memory, the stopped process's (there is
	 * no core): up to LEN bytes at ADDR into BUF, how many it read.  With
	 * the data log, a past position's bytes that did not change since
	 * come from it. */
	size_t (*read_end_memory)(void *ctx, uint64_t addr, void *buf,
				  size_t len);
	void *end_memory_ctx;
};

/* Open the recording directory DIR and build its history.  On failure the
 * message (naming the file and what was wrong) is hwtr_last_error();
 * -ENODATA: the recording holds no thread and no core (live, nothing ran
 * since recording started). */
int replay_open(const char *dir, const struct replay_options *options,
		struct replay **replay);
void replay_close(struct replay *replay);

/* Live mode: the recording grew (the program ran on and stopped again).
 * Read what is new and extend the history (in proportion to the new trace,
 * not the whole history); every thread stands at its new end, with its tail
 * at its PC in OPTIONS (end_tids, end_pcs, nends; the rest is ignored).
 * Breakpoints stay.  On failure (hwtr_last_error() says why) the replay may
 * only be closed. */
int replay_refresh(struct replay *replay, const struct replay_options *options);

/* Instructions the last build or refresh decoded, over all threads. */
uint64_t replay_decoded(struct replay *replay);

size_t replay_nthreads(const struct replay *replay);
uint32_t replay_thread_tid(const struct replay *replay, size_t index);
bool replay_has_thread(const struct replay *replay, uint32_t tid);
/* The thread GDB is shown first: the one that received the fatal signal;
 * without a core, the first one whose history knows a PC. */
uint32_t replay_initial_thread(struct replay *replay);
/* The recording's registers: target description and 'g' layout. */
const struct tdesc *replay_tdesc(const struct replay *replay);
/* The fatal signal (from the core), or 0. */
int replay_end_signal(const struct replay *replay);
/* The process id of the recording. */
int32_t replay_pid(const struct replay *replay);

enum replay_event {
	replay_stepped,		/* one instruction done */
	replay_breakpoint,	/* stopped at a breakpoint address */
	replay_history_begin,	/* at the first instruction; nothing earlier */
	replay_history_end,	/* at the end of history; nothing later */
	replay_watchpoint,	/* an instruction touched a watched range
				 * (replay_watch_hit says which) */
};

/* Is TID at the end of its history (the tail, or the last instruction
 * when it has no tail), where the state is the live (or the core's) one? */
bool replay_at_end(struct replay *replay, uint32_t tid);
/* Is thread TID in the end state (its registers and memory the core's, or
 * live the process's)?  As replay_at_end, and also before the instruction
 * at a signal's stop, which never ran (a position record full's log has). */
bool replay_at_end_state(struct replay *replay, uint32_t tid);

/* TID's position and the number of its end position (0, 0 without a
 * history). */
void replay_position(struct replay *replay, uint32_t tid, uint64_t *position,
		     uint64_t *end);

/* Step one instruction or continue to the nearest breakpoint, backward or
 * forward, in thread TID.  On failure (a decode error) the thread stays
 * where it was and hwtr_last_error() says why. */
int replay_resume(struct replay *replay, uint32_t tid, bool reverse, bool step,
		  enum replay_event *event);
/* Continue every thread (GDB resuming "any thread") to the nearest
 * breakpoint hit in recording time over all threads, backward or forward
 * from the time thread NOW_TID stands at (the last stop's); *STOPPED is the
 * thread that hit it, and every other thread then stands where it was at
 * that time.  Where the threads' traces have no time stamps (or the
 * process exec'd), only SELECTED_TID moves, as replay_resume. */
int replay_resume_all(struct replay *replay, uint32_t now_tid,
		      uint32_t selected_tid, bool reverse, uint32_t *stopped,
		      enum replay_event *event);
/* Is thread TID alive at the time thread NOW_TID stands at (the last
 * stop's), as GDB would list it there: at the end with a core, the core's
 * threads; elsewhere those created by then (the sideband's thread-start,
 * else the first instruction) and not exited while others ran on.  Every
 * thread while the history is being built, or without time stamps. */
bool replay_thread_alive(struct replay *replay, uint32_t now_tid, uint32_t tid);

/* Why registers and memory cannot be written (an inferior call, `set
 * var`): the recording is what the program did. */
#define REPLAY_READ_ONLY \
	"the recording is read-only: hwtrec replays what the program did " \
	"and cannot run code in it (such as a function call in an " \
	"expression) or change its registers and memory"

/* Breakpoints (software and hardware alike: the trace sees both). */
int replay_insert_breakpoint(struct replay *replay, int type, uint64_t addr);
int replay_remove_breakpoint(struct replay *replay, int type, uint64_t addr);

/* Watchpoints (GDB's Z2 write, Z3 read, Z4 access of LEN bytes at ADDR),
 * served from the data log (replay-watch.c): -EOPNOTSUPP without one (a
 * recording made with --no-data, a hardware trace, live mode), where the
 * addresses an instruction touches are not all known; GDB then makes
 * software watchpoints. */
bool replay_watchpoints_supported(const struct replay *replay);
int replay_insert_watchpoint(struct replay *replay, int type, uint64_t addr,
			     uint64_t len);
int replay_remove_watchpoint(struct replay *replay, int type, uint64_t addr,
			     uint64_t len);
/* After a replay_watchpoint event: its type (2, 3, 4) and the first
 * watched byte the instruction touched. */
void replay_watch_hit(const struct replay *replay, int *type, uint64_t *addr);

/* Registers of TID at its position, in the 'g' layout; valid[i] is 0 for
 * every unavailable byte. */
int replay_registers(struct replay *replay, uint32_t tid,
		     uint8_t regs[TDESC_G_SIZE], uint8_t valid[TDESC_G_SIZE]);

/* Memory of the end state (the core, the mapped files), for the server's
 * own needs (the dynamic linker's list).  Up to LEN bytes contiguous from
 * ADDR; returns how many (0: none). */
size_t replay_read_memory(struct replay *replay, uint64_t addr, void *buf,
			  size_t len);
/* Memory as thread TID sees it at its position, for GDB: at its end the end
 * state; before it only the bytes known to be the same then (read-only file
 * mappings), never the end state's value of a byte that may have changed
 * since, and nothing below REPLAY_SYNTHETIC_LIMIT.  Same return as above. */
/* The plugin's unwinder gives frames that are gone by the end frame ids
 * (stack addresses) below this (gdb-plugin/python/hwtrecord/unwinder.py's
 * SYNTHETIC_LIMIT): GDB would read their locals there. */
#define REPLAY_SYNTHETIC_LIMIT 0x10000u
size_t replay_read_memory_at(struct replay *replay, uint32_t tid, uint64_t addr,
			     void *buf, size_t len);

/* The auxiliary vector: the core's (in the last image), else the one the
 * image's objects imply (loaded-objects.h); NULL if neither is known. */
const void *replay_auxv(const struct replay *replay, size_t *size);
/* The siginfo of the signal that ended thread TID (the core's NT_SIGINFO,
 * CORE_SIGINFO_SIZE bytes), or NULL: the core holds none, or the thread
 * is not at the end of the history, where no signal stopped it. */
const void *replay_siginfo(struct replay *replay, uint32_t tid, size_t *size);
/* The image's program (at the end: the one running after any exec): the
 * path its executable was mapped by, else the path the manifest names. */
const char *replay_executable(const struct replay *replay);
/* The image's ELF objects, from the recording's mappings. */
const struct loaded_objects *replay_loaded_objects(const struct replay *replay);
/* The program image GDB is shown (program-images.h): the one the thread
 * that last moved stands in.  The auxv, executable, objects and memory
 * above are that image's; a resume that changes it is an exec for GDB. */
size_t replay_image(const struct replay *replay);
/* Every image's objects (IMAGE < replay_nimages), and the recording, for
 * the files GDB reads (served-files.h). */
size_t replay_nimages(const struct replay *replay);
const struct loaded_objects *replay_image_objects(const struct replay *replay,
						  size_t image);
const struct hwtr_recording *replay_recording(const struct replay *replay);
/* Whether the recording names PATH without a build-id to check it by: the
 * manifest's executable, or a file of the core's NT_FILE note. */
bool replay_names_file(const struct replay *replay, const char *path);
/* The recording's directory. */
const char *replay_path(const struct replay *replay);

/* ---------------------------------------------------- history for the plugin */

/* The answers to the plugin's history requests, as the plain values of
 * plugin-packets.h (which turns them into doc/gdb-packets.md's documents).
 * On failure -1 (or a negative code) with hwtr_last_error() saying why. */
/* The info document's values; INFO->threads is malloc'd (the caller frees
 * it), its strings are the replay's.  Unless WAIT, answered at once while
 * the history is still being built (the plugin asks at GDB's first stop,
 * before the prompt): every thread is then at its end, and the counts are
 * not known yet. */
int replay_info(struct replay *replay, bool wait, struct plugin_info *info);
/* The call stack at TID's position, or at instruction *AT when AT is set
 * (the thread does not move): *N frames, innermost first.  Function names
 * are the history's. */
#define REPLAY_MAX_FRAMES 256
int replay_frames(struct replay *replay, uint32_t tid, const uint64_t *at,
		  struct plugin_frame frames[REPLAY_MAX_FRAMES], size_t *n);
/* The listing goes to OUT as it is made (memory does not grow with the
 * range); 0, or -1 with hwtr_last_error() (nothing was written when the
 * thread or the range is wrong). */
/* The call stack at thread TID's end state (as qHwtr:frames at its end
 * position), answered from the tail while the history is built: the
 * plugin pairs it with GDB's own frames there.  0, or -1 (said). */
int replay_end_frames(struct replay *replay, uint32_t tid,
		      struct plugin_frame frames[REPLAY_MAX_FRAMES], size_t *n);
/* What GDB's own unwinders (the binaries' CFI on the core) give at thread
 * TID's end state: register REGNO (enum hwtr_amd64_regno, 16 the PC) of
 * its frame FRAME (1: frame 0's caller; inline and tail-call frames not
 * counted).  Frame 1's PC starts a new set.  Without a data log the
 * recovery takes each caller's rsp and rbx, rbp, r12-r15 there as its
 * registers at its pending call (replay.c, end_anchors).  0, or -1. */
#define REPLAY_END_FRAMES 4096
int replay_note_end_register(struct replay *replay, uint32_t tid,
			     unsigned frame, unsigned regno, uint64_t value);
int replay_listing(struct replay *replay, uint32_t tid, bool calls,
		   uint64_t first, uint64_t last, unsigned flags, FILE *out);
int replay_goto(struct replay *replay, uint32_t tid, uint64_t number);

/* ------------------------------------------------------------- btrace mode */

/* Thread TID's raw Intel PT (from its trace start), and the CPU it ran on;
 * -EPROTONOSUPPORT for a trace of another format. */
int replay_raw_trace(struct replay *replay, uint32_t tid, const uint8_t **bytes,
		     size_t *size);
/* CPU of the trace: vendor "intel" or other, family, model, stepping. */
void replay_trace_cpu(const struct replay *replay, const char **vendor,
		      unsigned *family, unsigned *model, unsigned *stepping);

#endif /* HWTREC_REPLAY_H */
