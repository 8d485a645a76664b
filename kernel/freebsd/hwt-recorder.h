/* hwt-recorder.h: recording one process through hwt(4) thread mode.
 *
 * The recorder starts PROGRAM stopped (or attaches to PID), allocates the
 * context, configures it, starts it at the right moment, maps every thread's
 * buffer (the coresight backend: thread 0's, which holds them all) and drains
 * records and buffers until the process ends.  What it
 * learns goes to a sink (the recording, in hwt-source.c): the
 * process, threads named by LWP id, trace bytes, losses, exec and the
 * executable mappings.  See README.md beside this file for the sequence.
 */
#ifndef HWT_RECORDER_H
#define HWT_RECORDER_H

#include "hwt-backend.h"
#include "hwt-sys.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct hwt_recorder_sink {
	void *ctx;
	/* The traced process is PID; its trace is BACKEND's (the format and
	 * arch), described by PT for Intel PT.  A shared-buffer backend's
	 * trace is one stream for all threads. */
	int (*begin)(void *ctx, pid_t pid, const struct hwt_backend *backend,
		     const struct hwtr_pt_config *pt);
	/* A thread, with its trace unit (ETM: its trace ID in it) or NULL. */
	int (*thread)(void *ctx, uint32_t tid, const struct hwtr_etm_config *etm);
	/* Trace bytes of thread TID's buffer (shared: thread 0's, which holds
	 * every thread's frames), and losses in that stream. */
	int (*trace)(void *ctx, uint32_t tid, const void *bytes, size_t size);
	int (*loss)(void *ctx, uint32_t tid, uint64_t offset, uint64_t len,
		    const char *reason);
	int (*exec)(void *ctx, const char *path);
	int (*mmap)(void *ctx, const struct hwt_vm_entry *mapping);
	int (*munmap)(void *ctx, uint64_t start, uint64_t len);
};

struct hwt_recorder_options {
	const struct hwt_sys *sys;
	const struct hwt_backend *backend;
	size_t bufsize;			/* per thread, a page multiple */
	pid_t attach;			/* -p PID, else 0 */
	const char *program;		/* when not attaching */
	char *const *argv;
};

struct hwt_recorder_result {
	bool started;		/* the program ran (or was attached to) */
	bool traced;		/* ... and tracing began (START) */
	bool ended;		/* ... and ended; status is waitpid's */
	int status;
	pid_t pid;
	int exec_errno;		/* the program could not be executed */
	size_t threads;
	size_t unnamed;		/* threads named by index, not LWP id */
	uint64_t records;
	uint64_t written, kept, lost;
	unsigned losses;
	double seconds;		/* from START to the last copy */
	char msg[1024];		/* why it failed */
};

/* Record; 0, or -1 with res->msg saying why (res->started says whether the
 * program ran regardless). */
int hwt_record(const struct hwt_recorder_options *options,
	       const struct hwt_recorder_sink *sink,
	       struct hwt_recorder_result *res);

/* Stop an attached recording (from a signal handler). */
void hwt_record_interrupt(void);

#endif
