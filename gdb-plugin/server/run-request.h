/* run-request.h: what the next `run` starts (live mode, extended-remote).
 *
 * GDB's `run` sends, before vRun, its environment changes and working
 * directory (when the server offers them in qSupported), then
 * vRun;HEX(FILENAME);HEX(ARG)...; gdbserver takes them the same way.  This
 * keeps them and turns them into a tracer_config for the new program; it
 * knows no process and no stub (live.c does).
 */
#ifndef HWTREC_RUN_REQUEST_H
#define HWTREC_RUN_REQUEST_H

#include "tracer.h"

#include <stddef.h>

/* A NULL-terminated list of "NAME=VALUE" or NAME strings (owned). */
struct run_names {
	char **v;
	size_t n;
};

/* Where `run`'s redirections send fds 0, 1 and 2 (`< FILE`, `> FILE`,
 * `>> FILE`, `2> FILE`, `2>> FILE`, `2>&1`): natively GDB runs the program
 * through a shell, which makes them; GDB 13 passes them to a remote `run`
 * as arguments.  A path is NULL where the fd is left as it is. */
struct run_redirects {
	char *path[3];			/* owned */
	bool append[3];
	bool err_to_out;		/* 2>&1 */
};

struct run_request {
	char **argv;			/* of the last vRun (owned), or NULL */
	struct run_redirects redirect;	/* of the last vRun */
	struct run_names env_set;	/* set environment NAME=VALUE */
	struct run_names env_unset;	/* unset environment NAME */
	char *cwd;			/* set cwd, or NULL: the server's */
};

/* The qSupported features that make GDB send the settings. */
#define RUN_REQUEST_FEATURES \
	"QEnvironmentHexEncoded+;QEnvironmentUnset+;QEnvironmentReset+;" \
	"QSetWorkingDir+"

/* True if PAYLOAD is one of those settings. */
bool run_request_is_setting(const char *payload, size_t len);
/* Keep one: QEnvironmentReset (back to the server's environment),
 * QEnvironmentHexEncoded:HEX(NAME=VALUE), QEnvironmentUnset:HEX(NAME),
 * QSetWorkingDir:HEX(DIR) (empty: the server's).  0, or -1 with hwtr_last_error() saying why. */
int run_request_setting(struct run_request *run, const char *payload,
			size_t len);
/* The arguments of vRun (after "vRun;"): the new argv, replacing the last;
 * redirections among the arguments are taken out of it into RUN->redirect.
 * An empty file name is DEFAULT_PROGRAM (gdbserver runs its last program);
 * a relative path with a '/' is made absolute against our directory, so
 * that `set cwd` does not change which program runs.  0, or -1 with hwtr_last_error() saying why. */
int run_request_vrun(struct run_request *run, const char *args, size_t len,
		     const char *default_program);
/* CONFIG's program, environment and directory are RUN's (pointers into it:
 * valid until RUN changes). */
void run_request_apply(const struct run_request *run,
		       struct tracer_config *config);
void run_request_fini(struct run_request *run);

#endif /* HWTREC_RUN_REQUEST_H */
