/* standin.h: the parts of the hwt(4) stand-in (README.md) and what they
 * share.  standin-kernel.c is the kernel side (devices, contexts, ioctls,
 * buffers, records) and the seam table the hwt source calls; standin-feed.c
 * is what the hardware and the kernel's hooks would do with the pt backend
 * (a thread that reads the Valgrind tool's event log, writes Intel PT into
 * the circular buffers and queues records); standin-etm.c the same with the
 * coresight backend (a thread that plays a captured ETM trace out through
 * the ETR's buffer).  One lock guards everything.
 */
#ifndef HWT_STANDIN_H
#define HWT_STANDIN_H

#include "../../kernel/freebsd/hwt-abi.h"
#include "../../kernel/freebsd/hwt-sys.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define STANDIN_PAGE 4096u

struct encoder_stream;
struct event_reader;

/* One hwt thread: its buffer and the trace being written into it. */
struct sthread {
	struct sctx *ctx;
	int index;
	uint32_t lwpid;
	bool exited;
	int memfd;
	uint8_t *mem;		/* the kernel's view of the buffer */
	uint64_t pos;		/* absolute bytes written */
	uint64_t visible;	/* what BUFPTR_GET says (absolute) */
	uint64_t pmi_at;	/* a BUFFER record is due at this position */
	bool pmi_due;
	struct encoder_stream *stream;
	FILE *dump;		/* every byte written, for the tests */
	uint64_t records;	/* BUFFER records queued */
	uint64_t fetched;	/* ... and read by the owner */
};

struct smapping {
	uint64_t start, end, offset;
	int prot;
	char path[1024];
};

enum sctx_state { SCTX_STOPPED, SCTX_RUNNING };

struct sctx {
	int ident;
	pid_t pid;
	pid_t owner;
	size_t bufsize;
	enum sctx_state state;
	bool configured;
	bool pause_on_mmap;
	struct hwt_abi_pt_config config;
	/* the coresight backend */
	bool coresight;
	uint8_t etm_config[HWT_ABI_MAXCONFIGSIZE];	/* as SET_CONFIG gave it */
	size_t etm_config_size;
	int etm_config_version;
	uint64_t etm_quota;		/* a paced ETR writes up to here */
	char etm_done[1100];		/* FIFO that lets the child exit */
	struct sthread **threads;
	size_t nthreads;
	struct hwt_abi_record *queue;	/* FIFO of records */
	size_t qhead, qlen, qcap;
	/* the feed */
	char fifo[1100];
	int fifo_fd;
	pthread_t feeder;
	bool feeder_running;
	bool feed_done;			/* the log is consumed: the process
					 * has ended, as far as the model goes */
	bool reaped;			/* the real process is gone */
	int status;			/* its wait status */
	bool quit;
	struct event_reader *reader;
	struct sthread *cur;		/* the thread the log is about */
	bool exec_pending;		/* HELLO seen, EXECUTABLE not queued */
	bool fed;			/* the tool is sending its log */
	char exec_path[1024];
	int paused;			/* index held at an exec/mmap, or -1 */
	unsigned creates_delivered, creates_listed, creates_made;
	struct smapping *maps;
	size_t nmaps;
	unsigned starts;
	bool yield_due;			/* a PMI: let the reader run */
	uint64_t lap_mark;		/* bytes written at the last RECORD_GET */
};

/* The one lock, and the condition that every change signals. */
extern pthread_mutex_t standin_lock;
extern pthread_cond_t standin_cond;

struct standin_config {
	bool hwt_loaded, pt_loaded, cpu_has_pt, hooks, dev_denied;
	bool coresight_loaded;		/* HWT_STANDIN_MODULES has coresight */
	const char *etm_capture;	/* HWT_STANDIN_ETM: a snapshot dir */
	const char *etm_source;		/* HWT_STANDIN_ETM_SOURCE: its source */
	unsigned etm_page_us;		/* HWT_STANDIN_ETM_PAGE_US */
	uint64_t etm_paced_bytes;	/* HWT_STANDIN_ETM_PACED_BYTES */
	bool thread_race;
	bool paced;
	unsigned record_delay_ms;
	bool lapped;			/* HWT_STANDIN_LAPPED: see record_get */
	unsigned fetch_delay_ms;
	bool dump;
	char dir[1024];
};
extern struct standin_config standin_config;

/* standin-kernel.c */
void standin_queue(struct sctx *ctx, const struct hwt_abi_record *rec);
struct sthread *standin_thread_new(struct sctx *ctx, uint32_t lwpid);
/* The real process is gone (its log may still be unread). */
bool standin_real_gone(const struct sctx *ctx);
void standin_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The ABI test acts as other processes (owner checks). */
void standin_set_caller(pid_t pid);

/* standin-feed.c */
#define HOLD_LIMIT 20		/* seconds a hold may last */
void standin_deadline(struct timespec *ts, int seconds);
/* Hold thread INDEX at an exec or mmap until WAKEUP on its node (with
 * pause_on_mmap; lock held). */
void standin_hold(struct sctx *ctx, int index);
/* Make and open (read-write, non-blocking) the FIFO DIR/fifo.PID through
 * which the traced child talks to the feeder. */
int standin_fifo_open(struct sctx *ctx);
int standin_feed_start(struct sctx *ctx);
void standin_feed_stop(struct sctx *ctx);
/* The traced process is gone: wait until its whole log is in the buffers. */
void standin_feed_settle(struct sctx *ctx);
/* Write trace bytes into a thread's buffer (lock held). */
int standin_write(struct sthread *t, const void *bytes, size_t size);
void standin_switch_out(struct sthread *t);

/* standin-etm.c */
/* The capture is there and loads (once): 0, or -1 with WHY. */
int standin_etm_capture(char *why, size_t size);
/* sysctl: the capture's trace units as the ETM driver's idrN. */
int standin_etm_sysctl(const char *name, void *value, size_t *size);
int standin_etm_feed_start(struct sctx *ctx);
/* In the forked child: wait as the traced program would run, then exit. */
void standin_etm_exec(void);

#endif
