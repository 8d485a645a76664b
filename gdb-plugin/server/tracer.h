/* tracer.h: what live mode (live.c) needs from a trace source: a program
 * started stopped behind a GDB stub, and recording sessions on it.
 *
 * live.c talks to the stub through an rsp_conn and to the source only
 * through a tracer_ops table (as the recorders' record_source in
 * kernel/source.h), reached by the tracer_* functions below (tracer.c), so
 * that another source (Linux perf beside gdbserver) is another table.  The
 * one there is is tracer_valgrind (live-valgrind.c): the program under the
 * hwtrec Valgrind tool in live mode, Valgrind's own gdbserver reached
 * through vgdb, and one `hwtrec _live-recorder` process per recording
 * session.
 */
#ifndef HWTREC_TRACER_H
#define HWTREC_TRACER_H

#include "rsp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct tracer_ops;

struct tracer_config {
	const struct tracer_ops *ops;	/* the source: &tracer_valgrind */
	char *const *argv;		/* PROGRAM and its arguments */
	/* GDB's changes to the environment the server got, NULL-terminated
	 * (or NULL): "NAME=VALUE" set, NAME unset; and its `set cwd` (or
	 * NULL: the server's) */
	char *const *env_set;
	char *const *env_unset;
	const char *cwd;
	/* `run`'s redirections of fds 0-2 (or NULL), relative to cwd */
	const char *redirect[3];
	bool redirect_append[3];
	bool err_to_out;		/* 2>&1 */
	const char *valgrind;		/* the valgrind executable */
	const char *valgrind_lib;	/* VALGRIND_LIB holding our tool */
	const char *recorder;		/* the hwtrec executable */
	uint32_t psb_period;		/* 0: the recorder's default */
	bool no_ret_compression;
	bool no_data;			/* no data log (values at past positions) */
	FILE *log;			/* --debug: packets and commands */
};

/* One traced program.  Each source's tracer begins with this. */
struct tracer {
	const struct tracer_ops *ops;
};

/* A source's side of live mode; every op but start gets its own tracer.
 * The tracer_* functions below say what each does. */
struct tracer_ops {
	const char *name;
	int (*start)(const struct tracer_config *config, struct tracer **tracer,
		     struct rsp_conn *stub);
	pid_t (*pid)(const struct tracer *tracer);
	int (*record_start)(struct tracer *tracer, const char *dir);
	int (*sync)(struct tracer *tracer);
	int (*save)(struct tracer *tracer, const char *dir);
	int (*record_end)(struct tracer *tracer, const char *state, int code);
	bool (*recording)(const struct tracer *tracer);
	bool (*at_exit)(struct tracer *tracer);	/* optional */
	void (*program_done)(struct tracer *tracer);
	void (*detach)(struct tracer *tracer);
	void (*close)(struct tracer *tracer);
};

/* The software source: the hwtrec Valgrind tool (live-valgrind.c). */
extern const struct tracer_ops tracer_valgrind;

/* Start the program with CONFIG->ops, stopped before its first instruction,
 * and connect STUB (initialised here) to its debugger stub.  Each of these returns 0, or -1
 * with hwtr_last_error() saying why. */
int tracer_start(const struct tracer_config *config, struct tracer **tracer,
		 struct rsp_conn *stub);
/* 0 for no tracer (NULL: live.c between a kill and the next run). */
pid_t tracer_pid(const struct tracer *tracer);

/* A recording session into the new directory DIR: from now on every thread
 * is traced.  The program is stopped. */
int tracer_record_start(struct tracer *tracer, const char *dir);
/* The program stopped: everything it ran up to here is on disk in DIR. */
int tracer_sync(struct tracer *tracer);
/* A finished copy of the recording so far into DIR. */
int tracer_save(struct tracer *tracer, const char *dir);
/* End the session.  STATE is "running" (record stop, detach: the program
 * goes on untraced), "exited" or "signaled" with CODE.  The recording is
 * finished (complete). */
int tracer_record_end(struct tracer *tracer, const char *state, int code);
bool tracer_recording(const struct tracer *tracer);  /* false for NULL */
/* The program stopped where it ends by itself (at the entry of exit_group),
 * which the source makes a stop while recording, so that the history is
 * not lost with the process: its next resume lets it end. */
bool tracer_at_exit(struct tracer *tracer);

/* The stub said the program ended (W or X): reap it. */
void tracer_program_done(struct tracer *tracer);
/* Detach (once the stub answered D): the stub connection is closed, the
 * program runs on; tracer_close then waits for it to end. */
void tracer_detach(struct tracer *tracer);
/* Kill what is left (the program, the stub; a recorder still in a session
 * is told nothing more, so its recording is kept marked cut off), wait for
 * every process and remove the scratch files. */
void tracer_close(struct tracer *tracer);

/* Remove DIR and everything in it (scratch files, a recording). */
void remove_directory(const char *dir);

/* A monitor command through the stub (qRcmd); its output in OUT. */
int stub_monitor(struct rsp_conn *stub, const char *command, char *out,
		 size_t outlen);
/* Send PAYLOAD to the stub and wait for its reply (console output packets
 * are skipped); the reply is in stub->payload.  -1 if the stub is gone. */
int stub_request(struct rsp_conn *stub, const char *payload, size_t len);

#endif /* HWTREC_TRACER_H */
