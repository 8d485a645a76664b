/* record-source.h: the trace sources behind `hwtrec record --source=NAME`.
 *
 * record.c parses the command line into a record_request and hands it to
 * one source; each source is one file (record-NAME.c) defining
 * record_source_NAME, listed in record-source.c's table.
 */
#ifndef HWTREC_RECORD_SOURCE_H
#define HWTREC_RECORD_SOURCE_H

#include "record.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct record_request {
	char *const *argv;	/* PROGRAM and its arguments; NULL with pid */
	const char *program;	/* PROGRAM as execve finds it, or NULL */
	pid_t pid;		/* -p PID: attach to it; 0: start PROGRAM */
	const char *output;	/* -o NAME, or NULL: PROGRAM-PID.hwtrec */
	const char *from;	/* --from FUNCTION, or NULL */
	const char *hwt_backend;	/* --hwt-backend NAME, or NULL */
	struct record_options options;
	bool quiet;
};

struct record_source {
	const char *name;		/* what --source= takes */
	const char *summary;		/* one line for --help */
	bool can_attach;		/* supports -p PID */
	/* Can this machine record with it?  If not, one line in why saying
	 * what is missing and what to do. */
	bool (*available)(char *why, size_t size);
	/* Record; returns the exit status (record.h's EXIT_* conventions). */
	int (*record)(const struct record_request *req);
};

extern const struct record_source record_source_perf;
extern const struct record_source record_source_valgrind;
extern const struct record_source record_source_hwt;

/* `hwtrec gdb`: the valgrind executable and the VALGRIND_LIB directory
 * holding the hwtrec tool; false, with the reason in WHY, if unusable. */
bool record_valgrind_paths(char *valgrind, size_t size, const char **tool_dir,
			   char *why, size_t whysize);

/* The sources in the order --source=auto tries them, NULL-terminated. */
extern const struct record_source *const record_sources[];

const struct record_source *record_source_find(const char *name);

/* NAME, or for "auto" the first available source (saying on stderr which
 * one and why the ones before it were not usable, unless quiet).  NULL,
 * with the reason on stderr, when there is none.  A source named that
 * cannot record here says why when it is asked to record. */
const struct record_source *record_source_choose(const char *name,
						 bool attach, bool quiet);

#endif
