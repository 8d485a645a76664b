/* source.h: what every trace source (kernel/linux, kernel/freebsd,
 * kernel/valgrind) shares with the `hwtrec record` command that drives it:
 * the request, the options, the exit statuses and the recording's name.
 *
 * The command (tools/record.c) parses the command line into a
 * record_request and hands it to one source's record_source table; its
 * driver (tools/record-driver.c) owns what every recording ends with.
 * Nothing here knows of the command line; nothing under kernel/ includes
 * tools/.
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
/* The largest --snapshot-every the Valgrind tool takes. */
#define HWTREC_MAX_SNAPSHOT_EVERY (1ull << 40)

struct record_options {
	uint32_t psb_period;		/* bytes between PSB+ */
	bool ret_compression;
	bool no_tsc;			/* no TSC packets (FreeBSD's PT backend) */
	bool no_core;			/* valgrind: no core of the end state */
	bool no_data;			/* valgrind: no data log (values) */
	uint64_t snapshot_every;	/* valgrind: instructions between the
					 * data log's full register snapshots
					 * (a testing knob), 0 = the default */
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
	bool pack;		/* --pack: the driver packs the recording */
};

/* One recording in progress: each source defines its own. */
struct source_run;

/* How a recording ended, as the source tells the driver: the driver turns
 * the wait status into the manifest's end and the exit status, finishes the
 * recording and prints the summary line. */
struct source_result {
	/* The program. */
	bool ended;			/* it ended; status is its wait status */
	int status;
	bool has_fault_address;		/* it died of a fault the kernel raised */
	uint64_t fault_address;		/* at this address (siginfo's si_addr) */
	/* The recording. */
	struct hwtr_writer *writer;	/* to finish, or NULL: leave it as it
					 * is (none was made, it was removed,
					 * or writing failed and the source
					 * said so: it stays marked cut off) */
	const char *name;		/* its directory */
	const char *aborted;		/* non-NULL: it ends early, for this
					 * reason (hwtr_writer_finish_aborted) */
	int exit_status;		/* non-zero: exit with this (EXIT_*, 2)
					 * instead of the program's status */
	/* The summary line. */
	size_t threads;
	uint64_t trace_bytes;		/* UINT64_MAX: not counted */
	uint64_t losses;
	double seconds;			/* of tracing; 0: not measured */
};

/* A trace source, as FreeBSD's hwt_backend_ops: the driver (tools/record.c
 * and record-driver.c) never asks which source it has.  The driver calls
 * start, then with job-control signals set drain, then with them restored
 * finish, and free; ops marked optional may be NULL. */
struct record_source {
	const char *name;		/* what --source= takes */
	const char *summary;		/* one line for --help */
	bool can_attach;		/* supports -p PID */
	/* Can this machine record with it?  If not, one line in why saying
	 * what is missing and what to do. */
	bool (*available)(char *why, size_t size);
	/* Refuse what the source cannot do, start PROGRAM (held before its
	 * first instruction where the source can) or attach to PID, and make
	 * the recording where the program is known.  0, or the exit status
	 * (EXIT_*, 2 for a usage error) with the reason on stderr. */
	int (*start)(const struct record_request *req, struct source_run **run);
	/* Optional: the process that job-control signals (SIGTERM, SIGHUP)
	 * are passed on to; 0 while there is none.  Called from a signal
	 * handler: it may only read a pid the source keeps. */
	pid_t (*program)(const struct source_run *run);
	/* Optional, for sources that can attach: stop recording (the program
	 * runs on).  Called from a signal handler: async-signal-safe only. */
	void (*interrupt)(void);
	/* Let the program run and record until it ends, or, attached, until
	 * interrupted; fill RES's program part. */
	void (*drain)(struct source_run *run, struct source_result *res);
	/* The rest of the trace and what the source adds at the end (gaps, a
	 * core); fill RES's recording and summary parts.  RES->writer, if
	 * set, is finished by the driver after this. */
	void (*finish)(struct source_run *run, struct source_result *res);
	void (*free)(struct source_run *run);
};

/* The recording's name: -o NAME, else PROGRAM-PID.hwtrec in the current
 * directory (PID is the recorded process's). */
void record_name(const struct record_request *req, pid_t pid, char *out,
		 size_t size);

#endif
