/* server.c: the request loop of hwtrec-server's replay mode (see server.h).
 *
 * Thread selection: Hg picks the thread whose registers and btrace GDB
 * reads, Hc (or a vCont action's thread) the one a resume moves; 0 and -1
 * mean the thread of the last stop.  A step of "any thread" (Hc0 then bs
 * or s: GDB names no thread for a reverse step unless scheduler-locking
 * is on for steps, which the plugin sets) moves the thread whose
 * registers GDB read last since the last stop (after `thread N` GDB reads
 * N's), else the thread of the last stop: not merely Hg's, which GDB also
 * sends before reading other threads' memory (at connect) and does not
 * send back.  A continue of "any
 * thread" moves them all on one time axis from the time of the last stop
 * or goto (replay_resume_all), and the stop names the thread that hit the
 * breakpoint; without time stamps it moves Hg's thread alone.
 */
#include "server.h"

#include "btrace.h"
#include "libraries.h"
#include "served-files.h"
#include "tdesc.h"
#include "tls.h"
#include "vfile.h"

#include <errno.h>
#include <hwtrecord.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGTRAP_GDB 5

/* Error codes in replies ("E NN"). */
enum {
	err_malformed = 1,
	err_thread = 2,
	err_memory = 14,	/* EFAULT, as gdbserver */
	err_readonly = 30,	/* EROFS: the recording cannot change */
};

struct session {
	struct replay *replay;
	struct rsp_conn *conn;
	uint32_t current;	/* thread of the last stop */
	uint32_t g_thread;	/* 0: current */
	uint32_t c_thread;	/* 0: current */
	uint32_t read_thread;	/* whose registers GDB read last since the
				 * last stop (g, p), or 0 */
	int last_signal;
	enum rsp_stop_reason last_reason;
	uint64_t watch_addr;	/* of a watchpoint stop */
	size_t nthreads;
	bool *btrace_on;	/* per thread index */
	bool *btrace_sent;
	uint32_t *tids;
	struct served_files *files;	/* vFile */
	char tls_said[256];	/* the last qGetTLSAddr failure said */
	bool done;
};

static uint32_t pick(struct session *s, uint32_t selected)
{
	return selected ? selected : s->current;
}

static size_t thread_index(struct session *s, uint32_t tid)
{
	size_t i;

	for (i = 0; i < s->nthreads; i++)
		if (s->tids[i] == tid)
			return i;
	return (size_t)-1;
}

static int reply_stop(struct session *s, uint32_t tid, int signal,
		      enum rsp_stop_reason reason, const char *exec_path)
{
	const struct tdesc *d = replay_tdesc(s->replay);
	uint8_t regs[TDESC_G_SIZE], valid[TDESC_G_SIZE];
	struct rsp_stop stop = { .signal = signal, .tid = tid, .reason = reason,
				 .watch_addr = s->watch_addr,
				 .exec_path = exec_path };
	size_t i;

	if (replay_registers(s->replay, tid, regs, valid) == 0) {
		for (i = 0; i < d->nexpedite; i++) {
			int off = tdesc_offset(d, d->expedite[i]);

			if (!valid[off])
				continue;
			stop.regs[stop.nregs].regnum = d->expedite[i];
			stop.regs[stop.nregs].size = 8;
			memcpy(stop.regs[stop.nregs].bytes, regs + off, 8);
			stop.nregs++;
		}
	}
	s->current = tid;
	s->read_thread = 0;
	s->last_signal = signal;
	s->last_reason = reason;
	return rsp_reply_stop(s->conn, &stop);
}

static char *supported_features(struct session *s)
{
	size_t auxv_size;
	char *text;

	if (asprintf(&text,
		     "PacketSize=%x;QStartNoAckMode+;qXfer:features:read+;"
		     "%sqXfer:exec-file:read+;qXfer:threads:read+;"
		     "qXfer:siginfo:read+;"
		     "qXfer:libraries-svr4:read+;swbreak+;hwbreak+;"
		     "vContSupported+;ReverseContinue+;ReverseStep+;"
		     "Qbtrace:off+;Qbtrace:pt+;qXfer:btrace:read+;"
		     "qXfer:btrace-conf:read+",
		     RSP_MAX_PAYLOAD,
		     replay_auxv(s->replay, &auxv_size) ? "qXfer:auxv:read+;" : "") < 0)
		return NULL;
	return text;
}

/* The threads alive at the time of the last stop (replay_thread_alive),
 * as GDB on the live program or the core would list them; *N of them. */
static uint32_t *alive_threads(struct session *s, size_t *n)
{
	uint32_t *tids = malloc((s->nthreads ? s->nthreads : 1) * sizeof(*tids));
	size_t i;

	*n = 0;
	if (!tids)
		return NULL;
	for (i = 0; i < s->nthreads; i++)
		if (replay_thread_alive(s->replay, s->current, s->tids[i]))
			tids[(*n)++] = s->tids[i];
	return tids;
}

static char *threads_xml(struct session *s)
{
	size_t i, cap = 64 + 48 * s->nthreads, n, nalive;
	uint32_t *alive = alive_threads(s, &nalive);
	char *xml = alive ? malloc(cap) : NULL;

	if (!xml) {
		free(alive);
		return NULL;
	}
	n = (size_t)sprintf(xml, "<?xml version=\"1.0\"?>\n<threads>\n");
	for (i = 0; i < nalive; i++)
		n += (size_t)sprintf(xml + n, "<thread id=\"%x\"/>\n", alive[i]);
	free(alive);
	strcpy(xml + n, "</threads>\n");
	return xml;
}

/* qXfer:btrace:read:{all,new,delta} for the Hg thread.  A replay's trace
 * never grows: "new" is the whole trace the first time, then empty; "delta"
 * is refused, as Linux's PT backend does, and GDB falls back to "new". */
static char *btrace_read(struct session *s, const char *annex, char *err,
			 size_t errlen)
{
	uint32_t tid = pick(s, s->g_thread);
	size_t i = thread_index(s, tid);
	const uint8_t *trace;
	const char *vendor;
	unsigned family, model, stepping;
	size_t size;

	if (i == (size_t)-1 || !s->btrace_on[i]) {
		snprintf(err, errlen, "btrace is not enabled for thread %x", tid);
		return NULL;
	}
	if (!strcmp(annex, "delta")) {
		snprintf(err, errlen, "delta reads are not supported");
		return NULL;
	}
	if (strcmp(annex, "all") && strcmp(annex, "new")) {
		snprintf(err, errlen, "unknown btrace read type '%.64s'", annex);
		return NULL;
	}
	if (!strcmp(annex, "new") && s->btrace_sent[i])
		return btrace_xml_empty();
	if (replay_raw_trace(s->replay, tid, &trace, &size) < 0) {
		snprintf(err, errlen, "thread %x has no trace", tid);
		return NULL;
	}
	replay_trace_cpu(s->replay, &vendor, &family, &model, &stepping);
	s->btrace_sent[i] = true;
	return btrace_xml(trace, size, vendor, family, model, stepping);
}

/* Every qXfer read: the document is built (or found) whole, then sliced. */
static int handle_xfer(struct session *s, const struct rsp_request *r)
{
	const void *data = NULL;
	char *owned = NULL;
	char err[256] = "";
	size_t size = 0;
	int rc;

	if (!strcmp(r->object, "features")) {
		if (strcmp(r->annex, "target.xml"))
			return rsp_reply_error(s->conn, err_malformed);
		data = replay_tdesc(s->replay)->xml;
		size = strlen(data);
	} else if (!strcmp(r->object, "auxv")) {
		data = replay_auxv(s->replay, &size);
		if (!data)
			return rsp_reply_error(s->conn, err_memory);
	} else if (!strcmp(r->object, "siginfo")) {
		/* $_siginfo: the signal at the end of the history only. */
		data = replay_siginfo(s->replay, pick(s, s->g_thread), &size);
		if (!data)
			return rsp_reply_error(s->conn, err_memory);
	} else if (!strcmp(r->object, "exec-file")) {
		data = replay_executable(s->replay);
		if (!data)
			return rsp_reply_error(s->conn, err_memory);
		size = strlen(data);
	} else if (!strcmp(r->object, "threads")) {
		data = owned = threads_xml(s);
	} else if (!strcmp(r->object, "libraries-svr4")) {
		data = owned = libraries_svr4_xml(s->replay);
		if (!owned)	/* GDB then walks the list through memory */
			return rsp_reply_error(s->conn, err_memory);
	} else if (!strcmp(r->object, "btrace")) {
		data = owned = btrace_read(s, r->annex, err, sizeof(err));
		if (!owned)
			return rsp_reply_error_text(s->conn, err);
	} else if (!strcmp(r->object, "btrace-conf")) {
		size_t i = thread_index(s, pick(s, s->g_thread));

		if (i == (size_t)-1 || !s->btrace_on[i])
			return rsp_reply_error_text(s->conn, "btrace is not enabled");
		data = owned = btrace_conf_xml(0x4000);
	} else {
		return rsp_reply_empty(s->conn);
	}
	if (!data)
		return rsp_reply_error(s->conn, 12);
	if (owned)
		size = strlen(owned);
	rc = rsp_reply_xfer(s->conn, data, size, r->offset, r->length);
	free(owned);
	return rc;
}

static int handle_resume(struct session *s, const struct rsp_request *r)
{
	/* Hc0/Hc-1 ("any thread", GDB's default): a step moves the thread
	 * whose registers GDB read last (see the top of this file); a
	 * continue without time stamps the one GDB selected with Hg. */
	bool step = r->action == rsp_action_step;
	uint32_t tid = r->thread.tid > 0 ? (uint32_t)r->thread.tid
		       : s->c_thread ? s->c_thread
		       : pick(s, step ? s->read_thread : s->g_thread);
	enum replay_event event;
	enum rsp_stop_reason reason = rsp_stop_none;
	size_t image = replay_image(s->replay);

	/* A continue of every thread (Hc0/Hc-1 then c or bc; vCont;c with no
	 * thread) searches them all on one time axis from the time of the
	 * last stop: where its thread stands (the selected thread may stand
	 * at a later instruction of its own, one not run at that time).
	 * Without time stamps TID, the selected thread, moves alone. */
	bool all = r->action == rsp_action_continue && r->thread.tid <= 0 &&
		   !s->c_thread;
	int rc;

	if (!replay_has_thread(s->replay, tid))
		return rsp_reply_error(s->conn, err_thread);
	rc = all ? replay_resume_all(s->replay, s->current, tid, r->reverse, &tid,
				     &event)
		 : replay_resume(s->replay, tid, r->reverse,
				 step, &event);
	if (rc < 0) {
		fprintf(stderr, "hwtrec-server: resume: %s\n", hwtr_last_error());
		return rsp_reply_error_text(s->conn, hwtr_last_error());
	}
	switch (event) {
	case replay_stepped:
		break;
	case replay_breakpoint:
		reason = rsp_stop_swbreak;
		break;
	case replay_history_begin:
		reason = rsp_stop_history_begin;
		break;
	case replay_history_end:
		reason = rsp_stop_history_end;
		break;
	case replay_watchpoint: {
		int type;

		replay_watch_hit(s->replay, &type, &s->watch_addr);
		reason = type == 2 ? rsp_stop_watch
			 : type == 3 ? rsp_stop_rwatch : rsp_stop_awatch;
		break;
	}
	}
	/* As rr: after a stop, resume and query follow the stopped thread. */
	s->c_thread = 0;
	s->g_thread = 0;
	/* Into another program's history (across an exec, either way): GDB
	 * follows it as an exec, loading that program and its libraries. */
	return reply_stop(s, tid, SIGTRAP_GDB, reason,
			  replay_image(s->replay) != image ? replay_executable(s->replay)
							   : NULL);
}

static int handle_register(struct session *s, const struct rsp_request *r)
{
	const struct tdesc *d = replay_tdesc(s->replay);
	uint8_t regs[TDESC_G_SIZE], valid[TDESC_G_SIZE];
	int off, size;

	if (replay_registers(s->replay, pick(s, s->g_thread), regs, valid) < 0)
		return rsp_reply_error(s->conn, err_thread);
	s->read_thread = pick(s, s->g_thread);
	if (r->kind == rsp_read_registers)
		return rsp_reply_hex(s->conn, regs, valid, d->g_size);
	off = tdesc_offset(d, r->regnum);
	size = d->size(r->regnum);
	if (off < 0)
		return rsp_reply_error(s->conn, err_malformed);
	return rsp_reply_hex(s->conn, regs + off, valid + off, (size_t)size);
}

int server_read_memory(struct replay *replay, struct rsp_conn *conn,
		       const struct rsp_request *r, uint32_t tid)
{
	/* 'm' doubles every byte; 'x' may escape every byte. */
	uint64_t max = RSP_MAX_PAYLOAD / 2 - 2;
	size_t len = (size_t)(r->length < max ? r->length : max), n;
	uint8_t *buf;
	int rc;

	if (len == 0)
		return r->kind == rsp_read_memory_binary
			       ? rsp_reply_binary(conn, NULL, 0)
			       : rsp_reply_text(conn, "");
	buf = malloc(len);
	if (!buf)
		return rsp_reply_error(conn, 12);
	/* At a past position unknown bytes are an error ("Cannot access
	 * memory"): the protocol has no "unavailable" for plain reads (see
	 * doc/gdb-packets.md), and the end state's value may be wrong. */
	n = replay_read_memory_at(replay, tid, r->addr, buf, len);
	if (n == 0)
		rc = rsp_reply_error(conn, err_memory);
	else if (r->kind == rsp_read_memory_binary)
		rc = rsp_reply_binary(conn, buf, n);
	else
		rc = rsp_reply_hex(conn, buf, NULL, n);
	free(buf);
	return rc;
}

struct listing {
	struct replay *replay;
	const struct plugin_request *request;
};

static int list(void *context, FILE *out)
{
	const struct listing *l = context;
	const struct plugin_request *p = l->request;

	return replay_listing(l->replay, p->tid, p->kind == plugin_call_history,
			      p->first, p->last, p->flags, out);
}

/* The plugin's history requests (doc/gdb-packets.md). */
int server_hwtr(struct replay *replay, struct rsp_conn *conn,
		const struct plugin_request *p, uint32_t *current)
{
	struct plugin_frame frames[REPLAY_MAX_FRAMES];
	struct plugin_info info;
	struct listing listing = { replay, p };
	size_t n;
	int rc;

	if (p->error)
		return plugin_reply_error(conn, p->error);
	switch (p->kind) {
	case plugin_info:
		if (replay_info(replay, p->wait, &info) < 0)
			return plugin_reply_error(conn, hwtr_last_error());
		rc = plugin_reply_info(conn, &info);
		free(info.threads);
		return rc;
	case plugin_insn_history:
	case plugin_call_history:
		return plugin_reply_listing(conn, list, &listing);
	case plugin_goto:
		if (replay_goto(replay, p->tid, p->number) < 0)
			return plugin_reply_error(conn, hwtr_last_error());
		*current = p->tid;
		return plugin_reply_ok(conn);
	case plugin_frames:
		if (replay_frames(replay, p->tid, p->has_at ? &p->at : NULL, frames,
				  &n) < 0)
			return plugin_reply_error(conn, hwtr_last_error());
		return plugin_reply_frames(conn, frames, n);
	case plugin_end_frames:
		if (replay_end_frames(replay, p->tid, frames, &n) < 0)
			return plugin_reply_error(conn, hwtr_last_error());
		return plugin_reply_frames(conn, frames, n);
	case plugin_end_register:
		if (replay_note_end_register(replay, p->tid, p->frame, p->regno,
					     p->value) < 0)
			return plugin_reply_error(conn, hwtr_last_error());
		return plugin_reply_ok(conn);
	default:	/* live mode's (record-start, ...), or not ours */
		return plugin_reply_unknown(conn);
	}
}

/* GDB reading the program's files (vfile.h): the recording's, never the
 * host's by name (served-files.h). */
static int handle_vfile(struct session *s)
{
	struct vfile_request v;
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	size_t count;
	int rc;

	vfile_parse(s->conn->payload, s->conn->payload_len, &v);
	switch (v.kind) {
	case vfile_unknown:
		return rsp_reply_empty(s->conn);
	case vfile_malformed:
		fprintf(stderr, "hwtrec-server: malformed packet: %s\n", v.error);
		return vfile_reply_errno(s->conn, EINVAL);
	case vfile_setfs:	/* one file system for every process */
		return vfile_reply_result(s->conn, 0);
	case vfile_open:
		if (v.flags & VFILE_O_WRITING)
			return vfile_reply_errno(s->conn, EROFS);
		rc = served_files_open(s->files, v.path);
		return rc < 0 ? vfile_reply_errno(s->conn, -rc)
			      : vfile_reply_result(s->conn, rc);
	case vfile_pread:
		count = v.count < vfile_max_data() ? (size_t)v.count : vfile_max_data();
		buf = malloc(count ? count : 1);
		if (!buf)
			return vfile_reply_errno(s->conn, ENOMEM);
		n = v.fd > INT32_MAX ? -EBADF
				     : served_files_pread(s->files, (int)v.fd, buf,
							  count, v.offset);
		rc = n < 0 ? vfile_reply_errno(s->conn, (int)-n)
			   : vfile_reply_data(s->conn, buf, (size_t)n);
		free(buf);
		return rc;
	case vfile_fstat:
		rc = v.fd > INT32_MAX ? -EBADF
				      : served_files_fstat(s->files, (int)v.fd, &st);
		return rc < 0 ? vfile_reply_errno(s->conn, -rc)
			      : vfile_reply_stat(s->conn, &st);
	case vfile_close:
		rc = v.fd > INT32_MAX ? -EBADF : served_files_close(s->files, (int)v.fd);
		return rc < 0 ? vfile_reply_errno(s->conn, -rc)
			      : vfile_reply_result(s->conn, 0);
	case vfile_readlink:	/* the recording holds files, not links */
		rc = served_files_open(s->files, v.path);
		if (rc >= 0)
			served_files_close(s->files, rc);
		return vfile_reply_errno(s->conn, rc >= 0 ? EINVAL : -rc);
	case vfile_pwrite:
	case vfile_unlink:
		return vfile_reply_errno(s->conn, EROFS);
	}
	return rsp_reply_empty(s->conn);
}

/* qGetTLSAddr: the thread's copy of a TLS variable at its position; an
 * error when it is not known there (GDB: "Cannot find thread-local
 * storage ... Remote target failed to process qGetTLSAddr request"). */
static int handle_tls_address(struct session *s, const struct rsp_request *r)
{
	uint32_t tid = r->thread.tid > 0 ? (uint32_t)r->thread.tid : pick(s, s->g_thread);
	uint64_t addr;
	char text[17];

	if (!replay_has_thread(s->replay, tid))
		return rsp_reply_error(s->conn, err_thread);
	if (tls_address(s->replay, tid, r->addr, r->offset, &addr) < 0) {
		/* Said once until the reason changes: a software watchpoint
		 * on a TLS variable asks at every step (thousands of lines
		 * before the thread's TLS is set up). */
		if (strncmp(s->tls_said, hwtr_last_error(),
			    sizeof(s->tls_said) - 1)) {
			fprintf(stderr, "hwtrec-server: %s\n", hwtr_last_error());
			snprintf(s->tls_said, sizeof(s->tls_said), "%s",
				 hwtr_last_error());
		}
		return rsp_reply_error(s->conn, err_memory);
	}
	s->tls_said[0] = '\0';
	snprintf(text, sizeof(text), "%llx", (unsigned long long)addr);
	return rsp_reply_text(s->conn, text);
}

/* Z2/Z3/Z4 and z2/z3/z4: served from the data log; without one an empty
 * reply (not supported), and GDB makes software watchpoints for `watch`
 * (the plugin sets hardware-watchpoint-limit 0 for such recordings). */
static int handle_watchpoint(struct session *s, const struct rsp_request *r)
{
	int rc;

	if (!replay_watchpoints_supported(s->replay))
		return rsp_reply_empty(s->conn);
	rc = r->kind == rsp_insert_point
		     ? replay_insert_watchpoint(s->replay, r->point_type, r->addr,
						r->length)
		     : replay_remove_watchpoint(s->replay, r->point_type, r->addr,
						r->length);
	if (rc == -EINVAL)
		return rsp_reply_error(s->conn, err_malformed);
	return rc < 0 ? rsp_reply_error(s->conn, 12) : rsp_reply_ok(s->conn);
}

static int handle_hwtr(struct session *s, const struct rsp_request *r)
{
	struct plugin_request p;

	plugin_parse(r, &p);
	return server_hwtr(s->replay, s->conn, &p, &s->current);
}

static int handle(struct session *s, const struct rsp_request *r)
{
	switch (r->kind) {
	case rsp_unknown:
		return rsp_reply_empty(s->conn);
	case rsp_malformed:
		fprintf(stderr, "hwtrec-server: malformed packet: %s\n", r->error);
		return rsp_reply_error(s->conn, err_malformed);
	case rsp_supported: {
		char *features = supported_features(s);
		int rc;

		if (!features)
			return rsp_reply_error(s->conn, 12);
		rc = rsp_reply_text(s->conn, features);
		free(features);
		return rc;
	}
	case rsp_no_ack: {
		int rc = rsp_reply_ok(s->conn);

		s->conn->ack_mode = false;
		return rc;
	}
	case rsp_halt_reason:
		return reply_stop(s, s->current, s->last_signal, s->last_reason, NULL);
	case rsp_read_registers:
	case rsp_read_register:
		return handle_register(s, r);
	case rsp_write_registers:
	case rsp_write_register:
		/* GDB 13 prints an E.text reply to P and G ("Could not write
		 * register ...; remote failure reply '...'"): say why.  An
		 * inferior call writes its arguments' registers first. */
		return rsp_reply_error_text(s->conn, REPLAY_READ_ONLY);
	case rsp_write_memory:
		/* To M and X GDB 13 says only "Cannot access memory at
		 * address ...", which reads as if the variable were unknown
		 * (`set var x = 5`): say why on our stderr, GDB's terminal
		 * (not to the empty X with which GDB probes for X). */
		if (r->length)
			fprintf(stderr, "hwtrec-server: memory at 0x%llx not "
				"written: %s.\n", (unsigned long long)r->addr,
				REPLAY_READ_ONLY);
		return rsp_reply_error(s->conn, err_readonly);
	case rsp_read_memory:
	case rsp_read_memory_binary:
		return server_read_memory(s->replay, s->conn, r, pick(s, s->g_thread));
	case rsp_insert_point:
	case rsp_remove_point:
		if (r->point_type > 1)
			return handle_watchpoint(s, r);
		if ((r->kind == rsp_insert_point
			     ? replay_insert_breakpoint(s->replay, r->point_type, r->addr)
			     : replay_remove_breakpoint(s->replay, r->point_type, r->addr)) < 0)
			return rsp_reply_error(s->conn, 12);
		return rsp_reply_ok(s->conn);
	case rsp_set_thread:
		if (r->thread.tid > 0 &&
		    !replay_has_thread(s->replay, (uint32_t)r->thread.tid))
			return rsp_reply_error(s->conn, err_thread);
		if (r->thread_op == 'g')
			s->g_thread = r->thread.tid > 0 ? (uint32_t)r->thread.tid : 0;
		else
			s->c_thread = r->thread.tid > 0 ? (uint32_t)r->thread.tid : 0;
		return rsp_reply_ok(s->conn);
	case rsp_thread_alive:
		if (r->thread.tid > 0 &&
		    replay_thread_alive(s->replay, s->current, (uint32_t)r->thread.tid))
			return rsp_reply_ok(s->conn);
		return rsp_reply_error(s->conn, err_thread);
	case rsp_thread_list_first: {
		size_t n;
		uint32_t *alive = alive_threads(s, &n);
		int rc;

		if (!alive)
			return rsp_reply_error(s->conn, 12);	/* ENOMEM */
		rc = rsp_reply_thread_list(s->conn, alive, n);
		free(alive);
		return rc;
	}
	case rsp_thread_list_next:
		return rsp_reply_thread_list(s->conn, NULL, 0);
	case rsp_current_thread:
		return rsp_reply_current_thread(s->conn, s->current);
	case rsp_attached:
		return rsp_reply_text(s->conn, "1");	/* quit detaches */
	case rsp_symbol:
		return rsp_reply_ok(s->conn);
	case rsp_tls_address:
		return handle_tls_address(s, r);
	case rsp_xfer_read:
		return handle_xfer(s, r);
	case rsp_resume:
		return handle_resume(s, r);
	case rsp_vcont_query:
		return rsp_reply_text(s->conn, "vCont;c;C;s;S");
	case rsp_kill:
		s->done = true;
		return rsp_reply_ok(s->conn);
	case rsp_detach:
		s->done = true;
		return rsp_reply_ok(s->conn);
	case rsp_btrace_enable: {
		uint32_t tid = pick(s, s->g_thread);
		size_t i = thread_index(s, tid);
		const uint8_t *trace;
		size_t size;

		int rc;

		if (strcmp(r->object, "pt"))
			return rsp_reply_error_text(s->conn, "only Intel PT traces are recorded");
		rc = i == (size_t)-1 ? -ESRCH : replay_raw_trace(s->replay, tid, &trace, &size);
		if (rc == -EPROTONOSUPPORT)
			return rsp_reply_error_text(s->conn, "this recording's trace is not "
						    "Intel PT: GDB's btrace cannot read it");
		if (rc < 0)
			return rsp_reply_error_text(s->conn, "this thread has no trace");
		s->btrace_on[i] = true;
		s->btrace_sent[i] = false;
		return rsp_reply_ok(s->conn);
	}
	case rsp_btrace_disable: {
		size_t i = thread_index(s, pick(s, s->g_thread));

		if (i != (size_t)-1)
			s->btrace_on[i] = false;
		return rsp_reply_ok(s->conn);
	}
	case rsp_hwtr:
		return handle_hwtr(s, r);
	case rsp_vfile:
		return handle_vfile(s);
	}
	return rsp_reply_empty(s->conn);
}

int server_run(struct replay *replay, struct rsp_conn *conn)
{
	struct session s = { .replay = replay, .conn = conn };
	struct rsp_request request;
	size_t i;
	int rc = 0;

	s.nthreads = replay_nthreads(replay);
	s.tids = calloc(s.nthreads, sizeof(*s.tids));
	s.btrace_on = calloc(s.nthreads, sizeof(bool));
	s.btrace_sent = calloc(s.nthreads, sizeof(bool));
	if (!s.tids || !s.btrace_on || !s.btrace_sent ||
	    served_files_create(replay, &s.files) < 0) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < s.nthreads; i++)
		s.tids[i] = replay_thread_tid(replay, i);
	s.current = replay_initial_thread(replay);
	s.last_signal = replay_end_signal(replay);
	if (!s.last_signal)
		s.last_signal = SIGTRAP_GDB;
	while (!s.done) {
		switch (rsp_receive(conn)) {
		case rsp_recv_eof:
			goto out;
		case rsp_recv_interrupt:
			/* Nothing runs between requests: nothing to stop. */
			continue;
		case rsp_recv_oversized:
			fprintf(stderr, "hwtrec-server: packet longer than %#x bytes dropped\n",
				RSP_MAX_PAYLOAD);
			if (rsp_reply_error(conn, err_malformed) < 0)
				goto out;
			continue;
		case rsp_recv_packet:
			break;
		}
		rsp_parse(conn->payload, conn->payload_len, &request);
		if (handle(&s, &request) < 0)
			break;
	}
out:
	served_files_free(s.files);
	free(s.tids);
	free(s.btrace_on);
	free(s.btrace_sent);
	return rc;
}
