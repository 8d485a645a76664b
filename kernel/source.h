/* source.h: what every trace source (kernel/linux, kernel/freebsd,
 * kernel/valgrind) shares with the `hwtrec record` command that drives it:
 * the request, the options, the exit statuses and the recording's name.
 *
 * The command (tools/record.c) parses the command line into a
 * record_request and hands it to one source's record_source table.  Nothing
 * here knows of the command line; nothing under kernel/ includes tools/.
 */
#ifndef HWTREC_SOURCE_H
#define HWTREC_SOURCE_H

#include "hwtrecord.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit status of `hwtrec record` when it is not the program's, as a shell
 * reports them: Valgrind could not follow the program to its end (see
 * valgrind/host/valgrind-limits.c), the recorder failed before the program
 * ran, PROGRAM cannot be executed, PROGRAM does not exist. */
#define EXIT_VALGRIND_LIMIT 124	/* Valgrind gave up on the program */
#define EXIT_RECORDER 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

/* The manifest's CPU for software Intel PT: a real Skylake server part, so
 * libipt, GDB and perf accept the configuration; pt_cpu_errata() for it
 * changes nothing in how our streams decode (no address filters, no VMX, no
 * OVF at PGE). */
#define HWTREC_CPU_FAMILY 6
#define HWTREC_CPU_MODEL 0x55
#define HWTREC_CPU_STEPPING 4
#define HWTREC_DEFAULT_PSB_PERIOD 4096

struct record_options {
	uint32_t psb_period;		/* bytes between PSB+ */
	bool ret_compression;
	bool no_tsc;			/* no TSC packets (FreeBSD's PT backend) */
	bool no_core;			/* valgrind: no core of the end state */
	uint64_t max_size;		/* bytes kept per thread, 0 = all */
	uint64_t buffer_size;		/* kernel trace buffer per thread, 0 =
					 * the source's default */
};

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
	/* Record; returns the exit status (the EXIT_* conventions above). */
	int (*record)(const struct record_request *req);
};

/* The recording's name: -o NAME, else PROGRAM-PID.hwtrec in the current
 * directory (PID is the recorded process's). */
void record_name(const struct record_request *req, pid_t pid, char *out,
		 size_t size);

#endif
