/* live.c: live mode: GDB <-> hwtrec-server <-> a live stub (see live.h).
 *
 * Live: every packet goes to the stub and its reply comes back unchanged,
 * except qSupported (we add ReverseStep+/ReverseContinue+), qAttached (we
 * started the program: GDB kills it on quit), qHwtr:* (ours) and Z/z
 * (forwarded, and mirrored into the replay's breakpoints).  While the
 * program runs, a ^C from GDB is passed on.
 *
 * At a stop of a recording session, when something needs the history (a
 * reverse resume, a history request), the tracer brings the recording up
 * to the stop and the history follows it, with each thread's live PC as its
 * end (the "tail").  The first time it is built (replay_open on the growing
 * recording); afterwards it is extended (replay_refresh: the library reads
 * what the recording gained and decodes on from each thread's last chunk),
 * so a stop costs in proportion to the trace since the last one, not to the
 * whole history (bench-live.sh measures both).  While the program runs live
 * the history is kept but stale: nothing is served from it until it has
 * been brought up to the next stop.  An extension that fails falls back to
 * building the history again.
 *
 * Replay: entered by bs/bc or qHwtr:goto.  A thread away from its end
 * answers registers in the stub's 'g' layout with what the replay knows at
 * its position (replay_registers: the PC, and with the session's data log
 * every register the log holds; the rest unavailable) and refuses writes;
 * of its memory only what the replay knows at that position is served
 * (replay_read_memory_at: the data log's old bytes, and for bytes unchanged
 * since the stopped process's, stub-memory.c), never the live process's
 * present bytes where they may have changed since.  Forward s/c move
 * through the history and stop at its end, saying so (GDB prints "No more
 * reverse-execution history.", as with record full); a resume from the end
 * goes to the stub and the program runs live again.
 *
 * Runs (GDB's extended-remote mode, which `hwtrec gdb` uses): '!' is
 * answered OK; `run`/`start` send vRun, which a stub under Valgrind cannot
 * do (Valgrind cannot start its program again), so the server closes the
 * old program's tracer and starts the program (vRun's file name, else the
 * one it was started with, and vRun's arguments) under a new one, tells
 * the new stub what GDB negotiated with the first, and answers with its
 * stop at the first instruction; GDB's environment changes and working
 * directory, which it sends before vRun (QEnvironment*, QSetWorkingDir),
 * are the server's to apply.  vKill and 'k' kill the program and leave
 * the server waiting for the next run; 'D' leaves it running and waits too.
 *
 * When the program exits or is killed while recording (kill, or a run over
 * it), the history is discarded with the process, as GDB's record btrace
 * does (the process is gone); `hwtrec gdb -o NAME` keeps the recording
 * (the first in NAME, later ones as NAME-2, NAME-3...), and `record save`
 * copies it beforehand.
 *
 * Not done: non-stop mode, following forks, threads of the replay moving
 * together (each thread moves alone, as in post-mortem replay).
 */
#include "live.h"

#include "plugin-packets.h"
#include "replay.h"
#include "run-request.h"
#include "server.h"
#include "stub-memory.h"
#include "valgrind-x87.h"

#include <errno.h>
#include <hwtrecord.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 1024
#define MAX_POINTS 1024
#define MAX_SETTINGS 16
#define RIP_OFFSET 128	/* amd64: rax..r15, then rip (gdbserver and vgdb) */

struct live {
	const struct live_options *opt;
	struct rsp_conn *gdb;
	struct rsp_conn stub;
	struct stub_memory end_memory;	/* the stub's process, while stopped */
	struct tracer *tracer;		/* NULL between a kill and the next run */
	struct tracer_config config;	/* the program of this run */
	struct run_request run;		/* what `run` starts */
	struct tracer **detached;	/* programs left running by a detach */
	size_t ndetached;
	char *gdb_supported;		/* GDB's qSupported, for each new stub */
	char *settings[MAX_SETTINGS];	/* GDB's settings packets (see
					 * remember_setting) */
	size_t nsettings;
	int kept;			/* recordings kept under -o so far */
	bool extended;			/* GDB said '!' (extended-remote) */
	char dir[PATH_MAX];		/* the session's recording */
	int sessions;
	struct replay *replay;		/* the history at the last stop */
	bool stale;			/* the program ran since it was brought
					 * up to a stop: not to be served */
	char history_error[512];	/* why there is none */
	bool history_empty;		/* none: nothing ran since record hwt */
	uint32_t end_tids[MAX_THREADS];
	uint64_t end_pcs[MAX_THREADS];
	/* The last stop's signal (GDB's number) and the thread it names. */
	int stop_signal;
	uint32_t stop_tid;
	size_t nends;
	struct { int type; uint64_t addr; } points[MAX_POINTS];
	size_t npoints;
	uint32_t current, g_thread, c_thread;
	bool stub_swbreak;	/* GDB and the stub agreed on swbreak stops */
	bool program_gone, done;
};

static FILE *logf_(struct live *l)
{
	return l->opt->tracer.log;
}

/* Why nothing is written at a past position: the live process is at the end. */
#define LIVE_PAST_READ_ONLY \
	"cannot write registers or memory while replaying (`record goto " \
	"end` returns to the live program)"

static int reply_error(struct live *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int reply_error(struct live *l, const char *fmt, ...)
{
	char text[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return rsp_reply_error_text(l->gdb, text);
}

/* The live registers ('g'): the stub's, its x87 ones and segment
 * selectors corrected (valgrind-x87.h: the one stub is Valgrind's
 * gdbserver). */
static int forward_registers(struct live *l, const char *payload, size_t len)
{
	if (!l->tracer)
		return rsp_reply_error(l->gdb, 1);	/* no program */
	if (stub_request(&l->stub, payload, len) < 0) {
		l->program_gone = true;
		return rsp_reply_error(l->gdb, 1);
	}
	valgrind_x87_fix(l->stub.payload, l->stub.payload_len);
	valgrind_selectors_fix(l->stub.payload, l->stub.payload_len);
	return rsp_send(l->gdb, l->stub.payload, l->stub.payload_len);
}

/* Send to the stub, relay its reply to GDB. */
static int forward(struct live *l, const char *payload, size_t len)
{
	if (!l->tracer)
		return rsp_reply_error(l->gdb, 1);	/* no program */
	if (stub_request(&l->stub, payload, len) < 0) {
		l->program_gone = true;
		return rsp_reply_error(l->gdb, 1);
	}
	return rsp_send(l->gdb, l->stub.payload, l->stub.payload_len);
}

/* $_siginfo at the live stop.  Valgrind's gdbserver answers a
 * qXfer:siginfo:read from the start of its siginfo whatever offset is
 * asked (it copies from &info, not &info + ofs), so GDB, which reads one
 * member alone (`p $_siginfo._sifields._sigfault.si_addr`), got si_signo
 * for the fault address: ask for all of it and answer the part asked. */
static int live_siginfo(struct live *l, const struct rsp_request *r)
{
	static const char whole[] = "qXfer:siginfo:read::0,80";
	uint8_t info[128];	/* Linux's siginfo_t */
	size_t size;

	if (!l->tracer)
		return rsp_reply_error(l->gdb, 1);	/* no program */
	if (stub_request(&l->stub, whole, sizeof(whole) - 1) < 0) {
		l->program_gone = true;
		return rsp_reply_error(l->gdb, 1);
	}
	if (!l->stub.payload_len || (l->stub.payload[0] != 'l' &&
				     l->stub.payload[0] != 'm'))
		return rsp_send(l->gdb, l->stub.payload, l->stub.payload_len);
	size = l->stub.payload_len - 1;
	if (size > sizeof(info))
		size = sizeof(info);
	memcpy(info, l->stub.payload + 1, size);
	return rsp_reply_xfer(l->gdb, info, size, r->offset, r->length);
}

static uint32_t stop_thread(const char *reply)
{
	const char *p = strstr(reply, "thread:");

	if (!p)
		return 0;
	p += 7;
	if (*p == 'p' && strchr(p, '.'))
		p = strchr(p, '.') + 1;
	return (uint32_t)strtoul(p, NULL, 16);
}

static bool replaying_thread(struct live *l, uint32_t tid)
{
	return l->replay && !l->stale && !replay_at_end(l->replay, tid);
}

/* Is thread TID at a past state, whose registers and memory the replay
 * has (not the live process)? */
static bool past_state(struct live *l, uint32_t tid)
{
	return l->replay && !l->stale && !replay_at_end_state(l->replay, tid);
}

static bool replaying(struct live *l)
{
	size_t i;

	for (i = 0; l->replay && !l->stale && i < l->nends; i++)
		if (!replay_at_end(l->replay, l->end_tids[i]))
			return true;
	return false;
}

static void drop_history(struct live *l)
{
	replay_close(l->replay);
	l->replay = NULL;
	l->stale = false;
}

/* ------------------------------------------------------------ history */

/* Make TID the stub's general thread (Hg). */
static int select_stub_thread(struct live *l, uint32_t tid)
{
	char hg[16];
	int n = snprintf(hg, sizeof hg, "Hg%x", (unsigned)tid);

	return stub_request(&l->stub, hg, (size_t)n);
}

/* Where every live thread stands: its PC, from the stub. */
static int live_pcs(struct live *l)
{
	const char *p;
	size_t i;

	l->nends = 0;
	if (stub_request(&l->stub, "qfThreadInfo", 12) < 0)
		return -1;
	for (;;) {
		p = l->stub.payload;
		if (*p++ != 'm')
			break;
		while (*p && l->nends < MAX_THREADS) {
			l->end_tids[l->nends++] = (uint32_t)strtoul(p, (char **)&p, 16);
			if (*p == ',')
				p++;
			else
				break;
		}
		if (stub_request(&l->stub, "qsThreadInfo", 12) < 0)
			return -1;
	}
	for (i = 0; i < l->nends; i++) {
		uint8_t pc[8] = { 0 };

		if (select_stub_thread(l, l->end_tids[i]) < 0)
			return -1;
		/* 'g', not 'p': Valgrind's gdbserver has no 'p'. */
		if (stub_request(&l->stub, "g", 1) < 0)
			return -1;
		if (l->stub.payload_len >= 2 * RIP_OFFSET + 16)
			rsp_unhex(l->stub.payload + 2 * RIP_OFFSET, 8, pc);
		memcpy(&l->end_pcs[i], pc, 8);
	}
	return select_stub_thread(l, l->g_thread ? l->g_thread : l->current);
}

/* The end state of the replay's data log (replay_options): the stopped
 * process's memory. */
static size_t end_memory(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct live *l = ctx;

	return stub_memory_read(&l->end_memory, addr, buf, len);
}

/* The history, brought up to the stop if the program ran since it was
 * last brought up.  Only when something needs it (a reverse resume, a
 * history request, qHwtr:info:1): GDB stops many times for one `next` or a
 * breakpoint condition, and each flush of the trace costs a round trip to
 * the tool and the recorder. */
static void rebuild_history(struct live *l);

static struct replay *history(struct live *l)
{
	if (l->stale && tracer_recording(l->tracer))
		rebuild_history(l);
	l->stale = false;
	return l->replay;
}

static void rebuild_history(struct live *l)
{
	struct replay_options ro = { 0 };
	char err[512] = "";
	size_t i;
	int rc;
	struct timespec t0, t1;

	const char *how = "built";

	clock_gettime(CLOCK_MONOTONIC, &t0);
	l->history_error[0] = 0;
	l->history_empty = false;
	if (tracer_sync(l->tracer) < 0)
		snprintf(err, sizeof(err), "%s", hwtr_last_error());
	else if (live_pcs(l) < 0)
		snprintf(err, sizeof(err), "the stub went away");
	if (err[0]) {
		drop_history(l);
		snprintf(l->history_error, sizeof(l->history_error),
			 "the recording could not be brought up to the stop: %s",
			 err);
		fprintf(stderr, "hwtrec-server: %s\n", l->history_error);
		return;
	}
	ro.end_tids = l->end_tids;
	ro.end_pcs = l->end_pcs;
	ro.nends = l->nends;
	ro.signal = l->stop_signal;
	ro.signal_tid = l->stop_tid ? l->stop_tid : l->current;
	ro.read_end_memory = end_memory;
	ro.end_memory_ctx = l;
	if (l->replay && !l->opt->rebuild) {
		if (replay_refresh(l->replay, &ro) == 0) {
			how = "extended";
			goto done;
		}
		fprintf(stderr, "hwtrec-server: extending the history failed, "
			"building it again: %s\n", hwtr_last_error());
	}
	drop_history(l);
	if ((rc = replay_open(l->dir, &ro, &l->replay)) < 0) {
		l->replay = NULL;
		l->history_empty = rc == -ENODATA;
		snprintf(l->history_error, sizeof(l->history_error),
			 "no history yet (%s)", hwtr_last_error());
		return;
	}
	for (i = 0; i < l->npoints; i++)
		replay_insert_breakpoint(l->replay, l->points[i].type,
					 l->points[i].addr);
done:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (logf_(l) || l->opt->timing)
		fprintf(l->opt->timing ? l->opt->timing : logf_(l),
			"hwtrec-server: history brought up to the stop in %.3f s "
			"(%s, %llu instructions decoded)\n",
			(double)(t1.tv_sec - t0.tv_sec) +
			(t1.tv_nsec - t0.tv_nsec) / 1e9, how,
			(unsigned long long)replay_decoded(l->replay));
}

static void end_session(struct live *l, const char *state, int code,
			bool keep)
{

	drop_history(l);
	if (!tracer_recording(l->tracer))
		return;
	if (tracer_record_end(l->tracer, state, code) < 0)
		fprintf(stderr, "hwtrec-server: ending the recording: %s\n",
			hwtr_last_error());
	if (!keep) {
		remove_directory(l->dir);
		return;
	}
	l->kept++;
	fprintf(stderr, "hwtrec-server: the recording is kept in %s "
		"(hwtrec replay %s)\n", l->dir, l->dir);
}

/* ---------------------------------------------------------- running */

/* The stub's stop reply: bring the history up to it, then tell GDB. */
static int stopped(struct live *l)
{
	char *reply = strndup(l->stub.payload, l->stub.payload_len);
	size_t len = l->stub.payload_len;
	int rc;

	if (!reply)
		return -1;
	if (reply[0] == 'T' || reply[0] == 'S') {
		uint32_t tid = stop_thread(reply);
		unsigned sig = 0;

		/* TAA / SAA: the signal is the two hex digits after the letter. */
		l->stop_signal = sscanf(reply + 1, "%2x", &sig) == 1 ? (int)sig : 0;
		/* Stopped before the program ends by itself: no signal, as
		 * record full stops there ("Program stopped."). */
		if (l->stop_signal == 5 && len >= 3 &&
		    tracer_recording(l->tracer) && tracer_at_exit(l->tracer)) {
			reply[1] = reply[2] = '0';
			l->stop_signal = 0;
			fprintf(stderr, "hwtrec-server: the program is about to "
				"exit (its exit_group system call): stopped "
				"here, at the end of its history, which "
				"would go with the process; `continue` lets "
				"it exit\n");
		}
		l->stop_tid = tid;
		if (tid)
			l->current = tid;
		l->g_thread = l->c_thread = 0;
		l->stale = tracer_recording(l->tracer);
	} else if (reply[0] == 'W' || reply[0] == 'X') {
		int code = (int)strtol(reply + 1, NULL, 16);

		l->program_gone = true;
		tracer_program_done(l->tracer);
		if (tracer_recording(l->tracer)) {
			end_session(l, reply[0] == 'W' ? "exited" : "signaled",
				    code, l->opt->output != NULL);
			if (!l->opt->output)
				fprintf(stderr, "hwtrec-server: the program ended "
					"while recording; its history is "
					"discarded with it, as record btrace "
					"does (hwtrec gdb -o NAME.hwtrec keeps "
					"it)\n");
		}
	}
	rc = rsp_send(l->gdb, reply, len);
	free(reply);
	return rc;
}

/* Send a resume to the stub and wait for the program to stop, passing on
 * GDB's ^C and the program's console output. */
static int run_live(struct live *l, const char *payload, size_t len)
{
	if (!l->tracer)
		return reply_error(l, "The program is not being run.");
	/* The history is kept, to be extended at the next stop. */
	l->stale = l->replay != NULL;
	stub_memory_forget(&l->end_memory);
	if (rsp_send(&l->stub, payload, len) < 0) {
		l->program_gone = true;
		return rsp_reply_error(l->gdb, 1);
	}
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = l->gdb->in_fd, .events = POLLIN },
			{ .fd = l->stub.in_fd, .events = POLLIN },
		};
		enum rsp_recv rc;

		if (!rsp_buffered(l->gdb) && !rsp_buffered(&l->stub) &&
		    poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (rsp_buffered(l->gdb) || (p[0].revents & (POLLIN | POLLHUP))) {
			rc = rsp_receive(l->gdb);
			if (rc == rsp_recv_eof)
				return -1;
			if (rc == rsp_recv_interrupt) {
				char c = 3;

				if (write(l->stub.out_fd, &c, 1) != 1)
					return -1;
			}
			continue;	/* all-stop: nothing else while running */
		}
		if (rsp_buffered(&l->stub) || (p[1].revents & (POLLIN | POLLHUP))) {
			rc = rsp_receive(&l->stub);
			if (rc == rsp_recv_eof) {
				l->program_gone = true;
				return rsp_send(l->gdb, "X09", 3);
			}
			if (rc != rsp_recv_packet)
				continue;
			if (l->stub.payload[0] == 'O' && l->stub.payload_len > 1 &&
			    l->stub.payload[1] != 'K') {
				if (rsp_send(l->gdb, l->stub.payload,
					     l->stub.payload_len) < 0)
					return -1;
				continue;
			}
			return stopped(l);
		}
	}
}

static int reply_replay_stop(struct live *l, uint32_t tid,
			     enum replay_event event)
{
	struct rsp_stop stop = { .signal = 5, .tid = tid };

	switch (event) {
	case replay_stepped:
	case replay_watchpoint:	/* live mode has none of the replay's */
		break;
	case replay_breakpoint:
		/* Without swbreak GDB finds the breakpoint from the PC. */
		if (l->stub_swbreak)
			stop.reason = rsp_stop_swbreak;
		break;
	case replay_history_begin:
		stop.reason = rsp_stop_history_begin;
		break;
	case replay_history_end:
		stop.reason = rsp_stop_history_end;
		break;
	}
	l->current = tid;
	l->g_thread = l->c_thread = 0;
	/* GDB takes the stop's thread for the stub's general thread and
	 * sends no Hg for it; a thread at its end reads its registers from
	 * the stub, which would answer for the thread an earlier Hg chose. */
	if (select_stub_thread(l, tid) < 0)
		return -1;
	return rsp_reply_stop(l->gdb, &stop);
}

static int resume(struct live *l, const struct rsp_request *r,
		  const char *payload, size_t len)
{
	uint32_t tid = r->thread.tid > 0 ? (uint32_t)r->thread.tid
		       : (l->c_thread ? l->c_thread : l->current);
	enum replay_event event;

	if (!r->reverse && !replaying_thread(l, tid))
		return run_live(l, payload, len);
	if (!history(l)) {
		if (!tracer_recording(l->tracer))
			return reply_error(l, "hwtrec: not recording: `record "
					   "hwt` starts the history");
		/* Recording, nothing ran yet: the history begins here, as
		 * record full's log does before its first instruction. */
		if (r->reverse && l->history_empty) {
			/* No thread chosen yet (l->current comes with a
			 * history): the stub's first, which GDB knows. */
			if (tid == 0 && l->nends > 0)
				tid = l->end_tids[0];
			return reply_replay_stop(l, tid, replay_history_begin);
		}
		return reply_error(l, "hwtrec: %s", l->history_error);
	}
	if (!replay_has_thread(l->replay, tid)) {
		/* A thread that ran nothing traced: no history to move in. */
		if (!r->reverse)
			return run_live(l, payload, len);
		return reply_replay_stop(l, tid, replay_history_begin);
	}
	if (replay_resume(l->replay, tid, r->reverse,
			  r->action == rsp_action_step, &event) < 0)
		return reply_error(l, "hwtrec: %s", hwtr_last_error());
	/* Forward to the end: the stop there says the history ran out, as
	 * record full's and btrace's do, whether a continue got there without
	 * a breakpoint or a step landed there; the next resume, from the end,
	 * runs the program live. */
	if (!r->reverse && event == replay_stepped &&
	    replay_at_end(l->replay, tid))
		event = replay_history_end;
	return reply_replay_stop(l, tid, event);
}

/* ---------------------------------------------------------- registers */

/* Write register REGNUM of the replay (REGS, VALID: replay_registers) as
 * hex at TEXT, where its bytes not known stay "xx". */
static void put_register(char *text, unsigned regnum,
			 const uint8_t regs[TDESC_G_SIZE],
			 const uint8_t valid[TDESC_G_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	int off = tdesc_register_offset(regnum);
	int size = tdesc_register_size(regnum), i;

	for (i = 0; i < size; i++)
		if (valid[off + i]) {
			text[2 * i] = hex[regs[off + i] >> 4];
			text[2 * i + 1] = hex[regs[off + i] & 15];
		}
}

/* The registers a replaying thread's answer fills in: rax to mxcsr, which
 * the stub numbers and lays out as the replay does (Valgrind's amd64
 * descriptions and ours agree up to orig_rax; after it Valgrind has the
 * ymm upper halves, which the replay does not give). */
#define LIVE_REPLAY_REGS (tdesc_mxcsr + 1)

/* A replaying thread's registers in the stub's layout: those the replay
 * knows at its position (the PC; with the data log every logged register,
 * replay_registers), the others unavailable. */
static int replay_registers_reply(struct live *l, const struct rsp_request *r,
				  const char *payload, size_t len)
{
	uint32_t tid = l->g_thread ? l->g_thread : l->current;
	uint8_t regs[TDESC_G_SIZE], valid[TDESC_G_SIZE];
	char *text;
	size_t n;
	unsigned regnum;
	int rc;

	/* The stub's answer gives the layout (its size). */
	if (stub_request(&l->stub, payload, len) < 0)
		return rsp_reply_error(l->gdb, 1);
	n = l->stub.payload_len;
	if (l->stub.payload[0] == 'E' && n == 3)
		return rsp_send(l->gdb, l->stub.payload, n);
	text = malloc(n + 1);
	if (!text)
		return rsp_reply_error(l->gdb, 12);
	memset(text, 'x', n);
	text[n] = 0;
	replay_registers(l->replay, tid, regs, valid);
	for (regnum = 0; regnum < LIVE_REPLAY_REGS; regnum++) {
		size_t at = (size_t)tdesc_register_offset(regnum);
		size_t size = (size_t)tdesc_register_size(regnum);

		if (r->kind == rsp_read_registers && 2 * (at + size) <= n)
			put_register(text + 2 * at, regnum, regs, valid);
		else if (r->kind == rsp_read_register &&
			 r->regnum == regnum && 2 * size <= n)
			put_register(text, regnum, regs, valid);
	}
	rc = rsp_send(l->gdb, text, n);
	free(text);
	return rc;
}

/* ------------------------------------------------------------ qHwtr */

/* qHwtr:info:1, or qHwtr:info: the same without bringing the history up
 * to the stop (GDB's stop handlers ask it at every stop; every thread then
 * stands at its end, and no thread is listed). */
static int reply_info(struct live *l, bool build)
{
	struct plugin_info info = { 0 };
	int rc;

	if (build)
		history(l);
	if (!l->replay || l->stale || replay_info(l->replay, true, &info) < 0) {
		memset(&info, 0, sizeof(info));
		info.source = "valgrind";
		info.format = "intel-pt";
		if (!l->replay && l->history_error[0])
			info.history_error = l->history_error;
	}
	info.live = true;
	info.tracing = tracer_recording(l->tracer);
	info.replaying = replaying(l);
	info.history_pending = l->stale;
	info.recording = tracer_recording(l->tracer) ? l->dir : NULL;
	rc = plugin_reply_info(l->gdb, &info);
	free(info.threads);
	return rc;
}

/* -o NAME.hwtrec keeps the recording of every session that ends with its
 * program; after `run` a later one goes beside the first, as NAME-N.hwtrec. */
static void numbered_output(char *out, size_t size, const char *output, int n)
{
	size_t len = strlen(output);
	const char *suffix = ".hwtrec";

	while (len > 1 && output[len - 1] == '/')	/* NAME.hwtrec/ */
		len--;
	if (len > strlen(suffix) &&
	    !strncmp(output + len - strlen(suffix), suffix, strlen(suffix)))
		snprintf(out, size, "%.*s-%d%s", (int)(len - strlen(suffix)),
			 output, n, suffix);
	else
		snprintf(out, size, "%.*s-%d", (int)len, output, n);
}

static int record_start(struct live *l)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	if (tracer_recording(l->tracer))
		return reply_error(l, "The process is already being recorded.  "
				   "Use \"record stop\" to stop recording first.");
	if (l->program_gone)
		return reply_error(l, "The program is not being run.");
	l->sessions++;
	if (l->opt->output && !l->kept)
		snprintf(l->dir, sizeof(l->dir), "%s", l->opt->output);
	else if (l->opt->output)
		numbered_output(l->dir, sizeof(l->dir), l->opt->output,
				l->kept + 1);
	else
		snprintf(l->dir, sizeof(l->dir), "%s/hwtrec-live-%d-%d.hwtrec",
			 tmp, (int)getpid(), l->sessions);
	if (tracer_record_start(l->tracer, l->dir) < 0)
		return reply_error(l, "hwtrec: cannot record: %s", hwtr_last_error());
	l->history_error[0] = 0;
	l->stale = true;
	return rsp_reply_ok(l->gdb);
}

static int handle_hwtr(struct live *l, const struct rsp_request *r)
{
	struct plugin_request p;

	plugin_parse(r, &p);
	switch (p.kind) {
	case plugin_info:
		if (p.error)	/* as any packet not ours */
			return plugin_reply_unknown(l->gdb);
		return reply_info(l, p.wait);
	case plugin_record_start:
		return record_start(l);
	case plugin_record_stop:
		if (!tracer_recording(l->tracer))
			return reply_error(l, "No recording is currently active.");
		end_session(l, "running", 0, false);
		return plugin_reply_ok(l->gdb);
	case plugin_insn_history:
	case plugin_call_history:
	case plugin_goto:
	case plugin_frames:
	case plugin_end_frames:
		if (!history(l))
			return reply_error(l, "hwtrec: %s", tracer_recording(l->tracer)
					   ? l->history_error
					   : "not recording: `record hwt` starts the history");
		return server_hwtr(l->replay, l->gdb, &p, &l->current);
	default:
		return plugin_reply_unknown(l->gdb);
	}
}

/* qHwtr:save:HEXPATH */
static int handle_save(struct live *l, const struct plugin_request *p)
{

	if (p->error)
		return plugin_reply_error(l->gdb, p->error);
	if (!tracer_recording(l->tracer))
		return reply_error(l, "No recording is currently active.");
	if (tracer_save(l->tracer, p->path) < 0)
		return reply_error(l, "hwtrec: cannot save %s: %s", p->path,
				   hwtr_last_error());
	return plugin_reply_ok(l->gdb);
}

/* ------------------------------------------------------------- runs */

/* GDB sends these settings when they change and remembers what it sent,
 * not which process it sent them for: the stub of a program started by
 * `run` gets the last of each again (else a new stub stops for every
 * signal, even those GDB was told to pass silently). */
static const char *const setting_names[] = {
	"QPassSignals:", "QProgramSignals:", "QCatchSyscalls:", "QThreadEvents:",
};

static void remember_setting(struct live *l, const char *payload, size_t len)
{
	size_t i, j, name;

	for (i = 0; i < sizeof(setting_names) / sizeof(setting_names[0]); i++)
		if (!strncmp(payload, setting_names[i], strlen(setting_names[i])))
			break;
	if (i == sizeof(setting_names) / sizeof(setting_names[0]))
		return;
	name = strlen(setting_names[i]);
	for (j = 0; j < l->nsettings; j++)
		if (!strncmp(l->settings[j], payload, name))
			break;
	if (j == MAX_SETTINGS)
		return;
	if (j == l->nsettings)
		l->nsettings++;
	else
		free(l->settings[j]);
	l->settings[j] = strndup(payload, len);
}

/* A new stub learns what GDB negotiated with the first (its replies were
 * GDB's answer then, and it is the same kind of stub). */
static int stub_setup(struct live *l)
{
	size_t i;

	if (l->gdb_supported) {
		if (stub_request(&l->stub, l->gdb_supported,
				 strlen(l->gdb_supported)) < 0)
			return -1;
		l->stub_swbreak = strstr(l->stub.payload, "swbreak+") != NULL;
	}
	for (i = 0; i < l->nsettings; i++)
		if (l->settings[i] &&
		    stub_request(&l->stub, l->settings[i],
				 strlen(l->settings[i])) < 0)
			return -1;
	return 0;
}

/* Every process of the program goes; the stub connection is closed. */
static void close_program(struct live *l)
{
	drop_history(l);
	stub_memory_forget(&l->end_memory);
	tracer_close(l->tracer);
	l->tracer = NULL;
	rsp_conn_fini(&l->stub);
	rsp_conn_init(&l->stub, -1, -1);
	l->program_gone = true;
	l->nends = 0;
}

/* k, vKill, or a vRun over a running program: a session still recording
 * ends as at an exit (kept with -o, up to the stop where it was killed;
 * else discarded). */
static void kill_program(struct live *l)
{

	/* What the tool still holds goes into the recording first: the
	 * history then ends where the program stood when it was killed. */
	if (tracer_recording(l->tracer) && !l->program_gone &&
	    l->opt->output && tracer_sync(l->tracer) < 0)
		fprintf(stderr, "hwtrec-server: the end of the recording is "
			"missing: %s\n", hwtr_last_error());
	if (tracer_recording(l->tracer))
		end_session(l, "signaled", 9, l->opt->output != NULL);
	close_program(l);
}

/* `run`/`start` (extended-remote): vRun.  Valgrind cannot start its
 * program again, so a new Valgrind, stub and vgdb start the program from
 * its first instruction; the reply is the new stub's stop there.  Not
 * recording: as with GDB's own record targets, which a kill ends, `record
 * hwt` starts the new run's history. */
static int run_program(struct live *l, const char *args, size_t len)
{
	char err[1024] = "";

	if (run_request_vrun(&l->run, args, len, l->opt->tracer.argv[0]) < 0) {
		/* GDB 13 shows no text of an error reply to vRun. */
		fprintf(stderr, "hwtrec-server: %s\n", hwtr_last_error());
		return reply_error(l, "%s", hwtr_last_error());
	}
	if (l->tracer && !l->program_gone)
		kill_program(l);	/* GDB kills first; a bare vRun too */
	else
		close_program(l);
	run_request_apply(&l->run, &l->config);
	l->npoints = 0;		/* GDB inserts its breakpoints anew */
	l->current = l->g_thread = l->c_thread = 0;
	l->history_error[0] = 0;
	if (tracer_start(&l->config, &l->tracer, &l->stub) < 0) {
		l->tracer = NULL;
		rsp_conn_fini(&l->stub);
		rsp_conn_init(&l->stub, -1, -1);
		snprintf(err, sizeof(err), "%s", hwtr_last_error());
		fprintf(stderr, "hwtrec-server: %s\n", err);
		return reply_error(l, "%s", err);
	}
	l->program_gone = false;
	if (stub_setup(l) < 0 || stub_request(&l->stub, "?", 1) < 0) {
		close_program(l);
		return reply_error(l, "the new program's stub did not answer");
	}
	l->current = stop_thread(l->stub.payload);
	return rsp_send(l->gdb, l->stub.payload, l->stub.payload_len);
}

/* D: the program runs on untraced.  Extended-remote GDB stays, and may
 * `run` another: the detached one is waited for when the server ends. */
static int detach_program(struct live *l, const char *payload, size_t len)
{
	struct tracer **more;
	int rc;

	if (!l->tracer)
		return rsp_reply_error(l->gdb, 1);
	if (tracer_recording(l->tracer))
		end_session(l, "running", 0, l->opt->output != NULL);
	rc = forward(l, payload, len);
	tracer_detach(l->tracer);
	if (!l->extended) {
		l->done = true;
		return rc;
	}
	more = realloc(l->detached, (l->ndetached + 1) * sizeof(*more));
	if (more) {
		l->detached = more;
		l->detached[l->ndetached++] = l->tracer;
	} else {
		tracer_close(l->tracer);	/* waits for it */
	}
	l->tracer = NULL;
	close_program(l);
	return rc;
}

/* ------------------------------------------------------------ requests */

static int supported(struct live *l, const char *payload, size_t len)
{
	char *text;
	int rc;

	free(l->gdb_supported);
	l->gdb_supported = strndup(payload, len);
	if (stub_request(&l->stub, payload, len) < 0)
		return rsp_reply_error(l->gdb, 1);
	l->stub_swbreak = strstr(l->stub.payload, "swbreak+") != NULL;
	/* The run settings are ours (run-request.c), not the stub's. */
	if (asprintf(&text, "%.*s;ReverseStep+;ReverseContinue+;"
		     RUN_REQUEST_FEATURES,
		     (int)l->stub.payload_len, l->stub.payload) < 0)
		return rsp_reply_error(l->gdb, 12);
	rc = rsp_send(l->gdb, text, strlen(text));
	free(text);
	return rc;
}

static int points(struct live *l, const struct rsp_request *r,
		  const char *payload, size_t len)
{
	size_t i;

	if (stub_request(&l->stub, payload, len) < 0)
		return rsp_reply_error(l->gdb, 1);
	if (!strcmp(l->stub.payload, "OK") && r->point_type <= 1) {
		for (i = 0; i < l->npoints; i++)
			if (l->points[i].type == r->point_type &&
			    l->points[i].addr == r->addr)
				break;
		if (r->kind == rsp_insert_point && i == l->npoints &&
		    l->npoints < MAX_POINTS) {
			l->points[l->npoints].type = r->point_type;
			l->points[l->npoints++].addr = r->addr;
		} else if (r->kind == rsp_remove_point && i < l->npoints) {
			l->points[i] = l->points[--l->npoints];
		}
		if (l->replay) {
			if (r->kind == rsp_insert_point)
				replay_insert_breakpoint(l->replay, r->point_type, r->addr);
			else
				replay_remove_breakpoint(l->replay, r->point_type, r->addr);
		}
	}
	return rsp_send(l->gdb, l->stub.payload, l->stub.payload_len);
}

/* qThreadExtraInfo: the stub's text, and in replay where the thread is. */
static int thread_extra(struct live *l, const char *payload, size_t len)
{
	uint32_t tid = (uint32_t)strtoul(payload + 17, NULL, 16);
	uint64_t pos, end;

	if (!l->replay || !replaying(l))
		return forward(l, payload, len);
	if (stub_request(&l->stub, payload, len) < 0)
		return rsp_reply_error(l->gdb, 1);
	replay_position(l->replay, tid, &pos, &end);
	return plugin_reply_thread_extra(l->gdb, l->stub.payload,
					 l->stub.payload_len, pos, end);
}

static int handle(struct live *l, const char *payload, size_t len)
{
	struct rsp_request r;
	uint32_t g = l->g_thread ? l->g_thread : l->current;
	struct plugin_request save;

	if (plugin_parse_save(payload, len, &save))
		return handle_save(l, &save);
	if (len > 17 && !strncmp(payload, "qThreadExtraInfo,", 17))
		return thread_extra(l, payload, len);
	if (len == 1 && payload[0] == '!') {
		l->extended = true;
		return rsp_reply_ok(l->gdb);
	}
	if (len >= 5 && !strncmp(payload, "vRun;", 5))
		return run_program(l, payload + 5, len - 5);
	if (run_request_is_setting(payload, len)) {
		if (run_request_setting(&l->run, payload, len) < 0)
			return reply_error(l, "%s", hwtr_last_error());
		return rsp_reply_ok(l->gdb);
	}
	if (payload[0] == 'Q')
		remember_setting(l, payload, len);
	rsp_parse(payload, len, &r);
	switch (r.kind) {
	case rsp_supported:
		return supported(l, payload, len);
	case rsp_no_ack: {
		int rc = rsp_reply_ok(l->gdb);

		l->gdb->ack_mode = false;
		return rc;
	}
	case rsp_attached:
		return rsp_reply_text(l->gdb, "0");	/* we started it */
	case rsp_hwtr:
		return handle_hwtr(l, &r);
	case rsp_resume:
		return resume(l, &r, payload, len);
	case rsp_read_registers:
	case rsp_read_register:
		if (past_state(l, g))
			return replay_registers_reply(l, &r, payload, len);
		if (r.kind == rsp_read_registers)
			return forward_registers(l, payload, len);
		break;
	case rsp_read_memory:
	case rsp_read_memory_binary:
		/* The live process's bytes may have changed since. */
		if (past_state(l, g))
			return server_read_memory(l->replay, l->gdb, &r, g);
		break;
	case rsp_write_registers:
	case rsp_write_register:
	case rsp_write_memory:
		if (replaying(l)) {
			/* GDB 13 shows no text of an error reply to M or X
			 * (see server.c): say it on our stderr too. */
			if (r.kind == rsp_write_memory && r.length)
				fprintf(stderr, "hwtrec-server: memory at 0x%llx "
					"not written: %s.\n",
					(unsigned long long)r.addr, LIVE_PAST_READ_ONLY);
			return reply_error(l, "hwtrec: %s", LIVE_PAST_READ_ONLY);
		}
		stub_memory_forget(&l->end_memory);
		break;
	case rsp_xfer_read:
		if (!strcmp(r.object, "siginfo") && !past_state(l, g))
			return live_siginfo(l, &r);
		break;
	case rsp_insert_point:
	case rsp_remove_point:
		return points(l, &r, payload, len);
	case rsp_set_thread:
		if (r.thread_op == 'g')
			l->g_thread = r.thread.tid > 0 ? (uint32_t)r.thread.tid : 0;
		else
			l->c_thread = r.thread.tid > 0 ? (uint32_t)r.thread.tid : 0;
		break;
	case rsp_kill:
		kill_program(l);
		/* Extended-remote GDB stays for another `run`; 'k' has no
		 * reply there (GDB reads none). */
		if (!l->extended) {
			l->done = true;
			return rsp_reply_ok(l->gdb);
		}
		return payload[0] == 'k' ? 0 : rsp_reply_ok(l->gdb);
	case rsp_detach:
		return detach_program(l, payload, len);
	default:
		break;
	}
	return forward(l, payload, len);
}

int live_run(const struct live_options *opt, struct rsp_conn *gdb)
{
	struct live l = { .opt = opt, .gdb = gdb, .config = opt->tracer };
	size_t i;

	stub_memory_init(&l.end_memory, &l.stub);
	if (tracer_start(&l.config, &l.tracer, &l.stub) < 0) {
		fprintf(stderr, "hwtrec-server: %s\n", hwtr_last_error());
		return 1;
	}
	while (!l.done) {
		enum rsp_recv rc = rsp_receive(gdb);

		if (rc == rsp_recv_eof)
			break;
		if (rc == rsp_recv_interrupt)
			continue;	/* stopped already */
		if (rc == rsp_recv_oversized) {
			if (rsp_reply_error(gdb, 1) < 0)
				break;
			continue;
		}
		if (handle(&l, gdb->payload, gdb->payload_len) < 0)
			break;
	}
	if (!l.done && tracer_recording(l.tracer) && !opt->output) {
		/* GDB went away: nobody can use this history. */
		drop_history(&l);
		tracer_close(l.tracer);
		remove_directory(l.dir);
	} else {
		drop_history(&l);
		/* A session still open here is cut off (its recorder sees
		 * the end of its input): kept when -o asked for it. */
		tracer_close(l.tracer);
	}
	rsp_conn_fini(&l.stub);
	for (i = 0; i < l.ndetached; i++)
		tracer_close(l.detached[i]);
	free(l.detached);
	for (i = 0; i < l.nsettings; i++)
		free(l.settings[i]);
	free(l.gdb_supported);
	run_request_fini(&l.run);
	return 0;
}
