/* record.h: the parts of `hwtrec record` (record*.c) and what they share. */
#ifndef HWTREC_RECORD_H
#define HWTREC_RECORD_H

#include "hwtrecord.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit status of `hwtrec record` when it is not the program's, as a shell
 * reports them: Valgrind could not follow the program to its end (see
 * record-valgrind-limits.c), the recorder failed before the program ran,
 * PROGRAM cannot be executed, PROGRAM does not exist. */
#define EXIT_VALGRIND_LIMIT 124	/* Valgrind gave up on the program */
#define EXIT_RECORDER 125
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127

/* The manifest's CPU: a real Skylake server part, so libipt, GDB and perf
 * accept the configuration; pt_cpu_errata() for it changes nothing in how
 * our streams decode (no address filters, no VMX, no OVF at PGE). */
#define HWTREC_CPU_FAMILY 6
#define HWTREC_CPU_MODEL 0x55
#define HWTREC_CPU_STEPPING 4
#define HWTREC_DEFAULT_PSB_PERIOD 4096

struct record_options {
	uint32_t psb_period;		/* bytes between PSB+ */
	bool ret_compression;
	bool no_tsc;			/* no TSC packets (FreeBSD's PT backend) */
	bool no_core;			/* valgrind: no core of the end state */
	bool no_data;			/* valgrind: no data log (values) */
	uint64_t max_size;		/* bytes kept per thread, 0 = all */
	uint64_t buffer_size;		/* kernel trace buffer per thread, 0 =
					 * the source's default */
};

struct record_request;

/* PROGRAM as execve would find it into OUT: 0, or EXIT_NOTFOUND /
 * EXIT_NOEXEC with a message on stderr that starts with WHO. */
int record_resolve_program(const char *prog, char *out, size_t size,
			   const char *who);

/* record.c: the recording's name: -o NAME, else PROGRAM-PID.hwtrec in the
 * current directory (PID is the recorded process's). */
void record_name(const struct record_request *req, pid_t pid, char *out,
		 size_t size);

/* record-encode.c: one Intel PT stream per thread, built with libipt's
 * encoder from the tool's events. */
struct pt_stream;

int pt_stream_new(struct hwtr_writer *writer, uint32_t tid,
		  const struct record_options *options, uint64_t tsc,
		  struct pt_stream **stream);
/* The same, handing the encoded bytes to SINK instead of a writer. */
typedef int pt_sink_fn(void *ctx, const void *bytes, size_t size);
int pt_stream_new_sink(pt_sink_fn *sink, void *ctx, uint32_t tid,
		       const struct record_options *options, uint64_t tsc,
		       struct pt_stream **stream);
void pt_stream_free(struct pt_stream *stream);
uint32_t pt_stream_tid(const struct pt_stream *stream);
int pt_stream_tnt(struct pt_stream *s, unsigned nbits, uint64_t bits);
int pt_stream_tip(struct pt_stream *s, uint64_t target);
int pt_stream_psb(struct pt_stream *s, uint64_t ip, uint64_t tsc);
int pt_stream_disable_syscall(struct pt_stream *s);
int pt_stream_disable_async(struct pt_stream *s, uint64_t ip);
int pt_stream_enable(struct pt_stream *s, uint64_t ip, uint64_t tsc);
/* Encode what is pending and hand the bytes to the writer (or the ring). */
int pt_stream_flush(struct pt_stream *s);
/* Encode pending TNT bits too: everything so far is in the stream (live
 * mode, at a debugger stop). */
int pt_stream_sync(struct pt_stream *s);
/* Ring mode: write the kept part and mark where it starts. */
int pt_stream_finish(struct pt_stream *s);
uint64_t pt_stream_bytes(const struct pt_stream *s);

/* record-event-log.c: the Valgrind tool's event log (event-log.h), read
 * from a FIFO and decoded record by record. */
struct vg_event {
	uint8_t type;			/* HWTREC_EV_* */
	uint32_t version, pid, tid;	/* HELLO and CHILD; SWITCH and
					 * THREAD_EXIT */
	uint64_t tsc;
	unsigned nbits;			/* TNT */
	uint64_t bits;
	uint64_t ip;			/* TIP, PSB, PGD_ASYNC, PGE,
					 * UNDECODABLE */
	uint64_t addr, len, pgoff;	/* MMAP, MUNMAP, OBJECT (addr) */
	int prot;			/* MMAP: HWTR_PROT_* */
	const char *path;		/* HELLO, MMAP: not NUL-terminated */
	size_t path_len;
	size_t count;			/* AUXV pairs, OBJECT and UNDECODABLE
					 * bytes */
	const uint8_t *bytes;
	int32_t code;			/* EXIT */
};
/* Return 0, or a positive number when the log is malformed (the reader
 * drops the rest of it). */
typedef int vg_event_fn(void *ctx, const struct vg_event *ev);
struct event_reader;

int event_reader_new(struct event_reader **reader);
void event_reader_free(struct event_reader *reader);
/* Read what FD holds and hand each complete record to CB: bytes read, 0 if
 * none, -1 on a read error. */
ssize_t event_reader_read(struct event_reader *reader, int fd, vg_event_fn *cb,
			  void *ctx);
bool event_reader_malformed(const struct event_reader *reader);
uint64_t vg_event_auxv(const struct vg_event *ev, size_t i);
/* TNT, TIP, PSB, PGD_*, PGE: the records that are packets. */
bool vg_event_is_trace(const struct vg_event *ev);
int vg_event_encode(struct pt_stream *stream, const struct vg_event *ev);

/* record-valgrind.c: in a child process, exec Valgrind with the hwtrec tool
 * on PROGRAM, sending its event log to FIFO, Valgrind's own log (and core)
 * to LOGDIR.  Returns only on failure (with the message printed). */
void valgrind_exec(const char *fifo, const char *logdir,
		   const struct record_options *options, const char *from,
		   const char *program, char *const argv[]);

/* record-valgrind-limits.c: whether Valgrind, not the program, ended the
 * run.  The recorder notes the tool's UNDECODABLE events and the threads
 * that resumed after one (a handler caught the SIGILL). */
struct vg_limits {
	bool undecodable;		/* pending: no handler ran since */
	uint32_t tid;
	uint64_t ip;
	uint8_t bytes[16];
	size_t nbytes;
};

void vg_limits_undecodable(struct vg_limits *limits, uint32_t tid,
			   uint64_t ip, const uint8_t *bytes, size_t n);
void vg_limits_resumed(struct vg_limits *limits, uint32_t tid);
/* True if Valgrind gave up, with the reason in words: STATUS is the wait
 * status of Valgrind (process PID), GOT_EXIT whether the tool reported the
 * program's exit, LOGDIR holds Valgrind's logs (vglog.PID). */
bool vg_limits_reached(const struct vg_limits *limits, pid_t pid, int status,
		       bool got_exit, const char *logdir, char *reason,
		       size_t size);

/* record-scratch.c: the recorder's private directory hwtrec-XXXXXX in
 * $TMPDIR (or /tmp), made into DIR and held (*LOCK_FD) while the recorder
 * lives; those of recorders that died are removed first.  -1 with a message
 * on stderr if it cannot be made. */
int scratch_create(char *dir, size_t size, int *lock_fd);
/* Remove DIR and the files in it. */
void scratch_remove(const char *dir);

/* Fill the manifest's PT configuration. */
void record_pt_config(struct hwtr_pt_config *config, bool ret_compression,
		      uint32_t psb_period);

/* record-sideband.c: mappings with build-ids, saved in-memory objects. */
struct sideband;

struct sideband *sideband_new(struct hwtr_writer *writer);
void sideband_free(struct sideband *sb);
int sideband_mmap(struct sideband *sb, uint64_t addr, uint64_t len,
		  uint64_t pgoff, int prot, const char *path, uint64_t tsc);
int sideband_munmap(struct sideband *sb, uint64_t addr, uint64_t len,
		    uint64_t tsc);
int sideband_object(struct sideband *sb, uint64_t addr, const void *bytes,
		    size_t size, uint64_t tsc);
void sideband_auxv(struct sideband *sb, const uint64_t *pairs, size_t n);
/* What the core writer needs: the auxv and the file mappings. */
struct mapping {
	uint64_t addr, len, pgoff;
	char *path;
};
const uint64_t *sideband_get_auxv(const struct sideband *sb, size_t *npairs);
const struct mapping *sideband_get_mappings(const struct sideband *sb,
					    size_t *n);

/* record-core.c: make Valgrind's core usable by GDB (add NT_AUXV and
 * NT_FILE) and write it to OUT. */
int core_add_notes(const char *vgcore, const char *out,
		   const struct sideband *sb, char *err, size_t errsize);

#endif
