/* plugin-packets.h: the plugin's packets (doc/gdb-packets.md), typed.
 *
 * The one place that knows the qHwtr: packets' syntax and the JSON
 * documents they answer with.  A qHwtr request (as rsp.c split it into a
 * command and numbers) becomes a plain struct plugin_request; each reply is
 * a typed call (plugin_reply_info, plugin_reply_frames, ...) that takes
 * plain values.  The replay engine (replay.c) fills those values and live
 * mode (live.c) adds its own; neither sees a packet or a JSON key, as rr's
 * GdbServer answers through GdbServerConnection's reply_* functions.
 */
#ifndef HWTREC_PLUGIN_PACKETS_H
#define HWTREC_PLUGIN_PACKETS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rsp_conn;
struct rsp_request;

/* ---------------------------------------------------------------- requests */

enum plugin_kind {
	plugin_unknown = 0,	/* not a command we know: an empty reply */
	plugin_info,		/* qHwtr:info[:WAIT] */
	plugin_insn_history,	/* qHwtr:insn-history:TID:FIRST,LAST:FLAGS */
	plugin_call_history,	/* qHwtr:call-history:TID:FIRST,LAST:FLAGS */
	plugin_goto,		/* qHwtr:goto:TID:N */
	plugin_frames,		/* qHwtr:frames:TID[:POS] */
	plugin_end_frames,	/* qHwtr:end-frames:TID */
	plugin_end_register,	/* qHwtr:end-register:TID:FRAME:REGNO:VALUE */
	plugin_record_start,	/* qHwtr:record-start (live) */
	plugin_record_stop,	/* qHwtr:record-stop (live) */
	plugin_save,		/* qHwtr:save:HEXPATH (live) */
};

struct plugin_request {
	enum plugin_kind kind;
	/* A known command whose arguments are wrong: the reply is this
	 * error (plugin_reply_error), and the fields below are not set. */
	const char *error;
	bool wait;		/* info: wait for the history */
	uint32_t tid;		/* histories, goto, frames, end-frames */
	uint64_t first, last;	/* histories: the range */
	unsigned flags;		/* histories: HWTR_INSN_* or HWTR_CALL_* */
	uint64_t number;	/* goto: the instruction */
	bool has_at;		/* frames: at instruction AT, not the position */
	uint64_t at;
	/* end-register: GDB's frame FRAME (1: frame 0's caller) at the end,
	 * its register REGNO (enum hwtr_amd64_regno; 16: its PC) */
	unsigned frame, regno;
	uint64_t value;
	char path[PATH_MAX];	/* save: the directory */
};

/* The typed form of REQUEST (an rsp_hwtr request). */
void plugin_parse(const struct rsp_request *request,
		  struct plugin_request *plugin);

/* qHwtr:save's argument is a hex-encoded path, not a number, so rsp.c's
 * split does not fit it: true if PAYLOAD is a save request (then PLUGIN
 * holds it, or its error). */
bool plugin_parse_save(const char *payload, size_t len,
		       struct plugin_request *plugin);

/* ----------------------------------------------------------------- replies */

/* One thread in the info document. */
struct plugin_thread_info {
	uint32_t tid;
	bool at_end;		/* stands at the end state */
	bool registers_at_end;	/* GDB has the real registers there */
	bool registers_logged;	/* and before the end (a data log) */
	bool counted;		/* the history is built: the rest is known */
	uint64_t instructions, segments, gaps;
	uint64_t position;	/* the current instruction number */
	uint64_t end;		/* the position of the end state */
};

/* The info document (doc/gdb-packets.md, qHwtr:info). */
struct plugin_info {
	/* From a history (replay_info); false in live mode before one. */
	bool has_history;
	const char *recording;	/* NULL: null */
	const char *source, *format;
	bool replaying;
	bool building;		/* only with has_history */
	/* Z2/Z3/Z4 are served (from the data log): the plugin leaves GDB's
	 * hardware watchpoints on. */
	bool watchpoints;
	struct plugin_thread_info *threads;
	size_t nthreads;
	/* Live mode */
	bool live;
	bool tracing, history_pending;
	const char *history_error;	/* NULL: left out */
};

/* One frame of qHwtr:frames, innermost first. */
struct plugin_frame {
	uint64_t segment;	/* 0: not in the history yet */
	const char *function;	/* NULL: unknown */
	uint64_t function_start;
	bool has_pc;
	uint64_t pc;
	int level;
	bool exit_target;	/* pc: where frame 0's non-local exit goes */
	/* The signal return trampoline: GDB's <signal handler called>
	 * frame (signal-frames.c), its caller the frame the signal
	 * interrupted; its PC unknown when the handler never returned to it
	 * in the history. */
	bool sigtramp;
	/* Frame 0 in that trampoline, after the handler returned. */
	bool in_sigtramp;
	/* The frame's stack pointer where it resumes (its callee's CFA),
	 * when proven without a data log (recovered); else unknown. */
	bool has_sp;
	uint64_t sp;
	/* The position that names this frame's activation (the call that
	 * entered it), and its CFA where proven without a data log. */
	bool has_activation;
	uint64_t activation;
	bool has_cfa;
	uint64_t cfa;
	/* Where this frame resumes from a call: the binaries' CFI there says
	 * its CFA is rsp + CALL_CFA_OFFSET just before the call (so its
	 * callee's CFA is its own less that). */
	bool has_call_cfa_offset;
	int64_t call_cfa_offset;
	/* Frame 0 only, without a data log: the CFA and the return address
	 * GDB's own (DWARF) unwinder finds from the registers and memory
	 * the server serves at this position, where it finds them. */
	bool has_cfi_unwind;
	uint64_t cfi_cfa;
	uint64_t cfi_return;
	/* The outermost frame: the CFI at its PC says its return address is
	 * undefined (_start, a new thread's clone), as GDB's own unwinder
	 * reads it. */
	bool outermost;
	/* The registers the callee preserves for this frame (rbx, rbp,
	 * r12-r15, by enum hwtr_amd64_regno), where proven: their values
	 * where this frame resumes. */
	uint32_t preserved_known;
	uint64_t preserved[16];
};

/* Each sends one reply and returns 0, or -1 if the connection failed. */
int plugin_reply_info(struct rsp_conn *conn, const struct plugin_info *info);
int plugin_reply_frames(struct rsp_conn *conn, const struct plugin_frame *frames,
			size_t n);
/* A listing of any length, streamed as LIST writes it to its stream
 * (memory does not grow with the range).  LIST returns 0, or -1 with
 * hwtr_last_error() saying why: before any text went out the reply is that
 * error, after it the text ends with a line that says it was cut short. */
int plugin_reply_listing(struct rsp_conn *conn,
			 int (*list)(void *context, FILE *out), void *context);
int plugin_reply_ok(struct rsp_conn *conn);
/* "E.MESSAGE" */
int plugin_reply_error(struct rsp_conn *conn, const char *message);
/* Not ours (a live-only packet in replay mode, an unknown command). */
int plugin_reply_unknown(struct rsp_conn *conn);

/* qThreadExtraInfo of a replaying thread in live mode: the stub's text
 * (hex, as the stub sent it; an error reply counts as none) and where the
 * thread stands: POSITION of END, END 0 without a history. */
int plugin_reply_thread_extra(struct rsp_conn *conn, const char *stub_hex,
			      size_t stub_len, uint64_t position, uint64_t end);

#endif /* HWTREC_PLUGIN_PACKETS_H */
