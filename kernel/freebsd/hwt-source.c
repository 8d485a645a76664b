/* hwt-source.c: the hwt source of `hwtrec record`: FreeBSD's
 * hwt(4) thread mode (kernel/freebsd/), written into a recording.
 *
 * kernel/freebsd/hwt-recorder.c talks to the kernel through the seam of
 * hwt-sys.h and hands what it learns to the sink here, which writes the
 * recording with libhwtrecord's writer: manifest source "freebsd-hwt", one
 * stream per thread named by LWP id (Intel PT), or one stream of CoreSight
 * frames that every thread's source names, each with its trace ID and
 * trace unit (ETM, format version 2), exec and mmap events with build-ids
 * (../sideband.c), and loss events where the circular buffer was
 * overwritten before it was read.  FreeBSD's trace has no timestamps (the
 * PT backend clears TSCEn; we leave the ETM's off), so the sideband's "tsc"
 * is only an order: a counter, one step per event.
 *
 * Outside FreeBSD the seam is empty and the source says so; the test suite
 * links a stand-in into its own hwtrec (testsuite/hwt-standin).
 */
#include "hwt-source.h"
#include "hwt-abi.h"
#include "hwt-recorder.h"
#include "../sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BUFFER_SIZE (16u << 20)

struct adapter {
	const struct record_request *req;
	struct hwtr_writer *writer;
	struct sideband *sb;
	uint64_t seq;		/* the sideband's order, there being no clock */
	const char *shared;	/* the one stream of a shared buffer, or NULL */
	volatile sig_atomic_t pid;	/* the program, once it exists */
	char name[PATH_MAX];
};

static int on_begin(void *ctx, pid_t pid, const struct hwt_backend *backend,
		    const struct hwtr_pt_config *pt)
{
	struct adapter *a = ctx;
	struct hwtr_writer_info info = {
		.source = "freebsd-hwt", .trace_format = backend->trace_format,
		.arch = backend->arch, .pid = pid, .executable = a->req->program,
	};
	int err;

	if (a->req->argv)
		while (a->req->argv[info.argc])
			info.argc++;
	info.argv = (const char *const *)a->req->argv;
	record_name(a->req, pid, a->name, sizeof(a->name));
	if (!a->req->pid)
		a->pid = pid;
	if (!backend->trace_unit)
		info.pt = *pt;
	if ((err = hwtr_writer_create(a->name, &info, &a->writer)))
		return err;
	/* The ETR's buffer: every thread's frames, as they come. */
	if (backend->shared_buffer &&
	    (err = hwtr_writer_open_trace(a->writer, "etr.bin", &a->shared)))
		return err;
	a->sb = sideband_new(a->writer);
	return a->sb ? 0 : -hwtr_err_nomem;
}

static int on_thread(void *ctx, uint32_t tid, const struct hwtr_etm_config *etm)
{
	struct adapter *a = ctx;

	if (etm)
		return hwtr_writer_add_source(a->writer, tid, ++a->seq,
					      a->shared, etm);
	return hwtr_writer_add_thread(a->writer, tid, ++a->seq);
}

static int on_trace(void *ctx, uint32_t tid, const void *bytes, size_t size)
{
	struct adapter *a = ctx;

	if (a->shared)
		return hwtr_writer_append_trace(a->writer, a->shared, bytes, size);
	return hwtr_writer_trace(a->writer, tid, bytes, size);
}

static int on_loss(void *ctx, uint32_t tid, uint64_t offset, uint64_t len,
		   const char *reason)
{
	struct adapter *a = ctx;
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_loss, .tsc = ++a->seq, .tid = tid,
		.offset = offset, .len = len, .reason = reason,
	};

	return hwtr_writer_event(a->writer, &ev);
}

static int on_exec(void *ctx, const char *path)
{
	struct adapter *a = ctx;
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_exec, .tsc = ++a->seq, .path = path,
	};

	return hwtr_writer_event(a->writer, &ev);
}

static int on_mmap(void *ctx, const struct hwt_vm_entry *m)
{
	struct adapter *a = ctx;

	return sideband_mmap(a->sb, m->start, m->end - m->start, m->offset,
			     m->prot, m->path, ++a->seq);
}

static int on_munmap(void *ctx, uint64_t start, uint64_t len)
{
	struct adapter *a = ctx;

	return sideband_munmap(a->sb, start, len, ++a->seq);
}

static const struct hwt_backend *backend_of(const struct record_request *req,
					    char *why, size_t size)
{
	const struct hwt_backend *b;

	if (!req || !req->hwt_backend)
		b = hwt_backend_default();
	else if (!(b = hwt_backend_find(req->hwt_backend))) {
		snprintf(why, size, "--hwt-backend=%s: no such backend (one of "
			 "%s)", req->hwt_backend, hwt_backend_names());
		return NULL;
	}
	return b;
}

static bool hwt_available(char *why, size_t size)
{
	const struct hwt_sys *sys = hwt_sys_default;
	const struct hwt_backend *b;
	struct hwtr_pt_config pt;
	char cpu[256];
	int fd;

	if (!sys) {
		snprintf(why, size, "FreeBSD only (hwt(4))");
		return false;
	}
	if (!(b = backend_of(NULL, why, size)))
		return false;
	if ((fd = sys->open(HWT_ABI_DEV, O_RDWR)) < 0) {
		if (errno == ENOENT)
			snprintf(why, size, "%s does not exist: kldload hwt "
				 "%s (the kernel needs options HWT_HOOKS)",
				 HWT_ABI_DEV, b->module);
		else
			snprintf(why, size, "%s: %s", HWT_ABI_DEV,
				 strerror(errno));
		return false;
	}
	sys->close(fd);
	if (!sys->cpu(b->name, &pt, cpu, sizeof(cpu))) {
		snprintf(why, size, "unsupported CPU: %s", cpu);
		return false;
	}
	if (!sys->module_loaded(b->module)) {
		snprintf(why, size, "the %s module is not loaded: kldload %s",
			 b->module, b->module);
		return false;
	}
	return true;
}

/* Options of `hwtrec record` that this source cannot honour. */
static bool refuse_options(const struct record_request *req)
{
	const char *why = NULL;

	if (req->from)
		why = "--from: the hwt source does not filter by address yet";
	else if (req->options.max_size)
		why = "--max-size: the hwt source keeps the whole trace (use "
		      "--buffer-size for the kernel's buffer)";
	else if (!req->options.ret_compression)
		why = "--no-ret-compression: FreeBSD's PT backend always "
		      "compresses returns (it clears DisRETC)";
	else if (req->options.psb_period != HWTREC_DEFAULT_PSB_PERIOD)
		why = "--psb-period: FreeBSD's PT backend ignores it (a PSB "
		      "every 2 KiB)";
	if (why)
		fprintf(stderr, "hwtrec record: %s\n", why);
	return why != NULL;
}

/* FreeBSD writes a core as %N.core in the working directory by default
 * (kern.corefile); take it into the recording if it is this run's. */
static void add_core(struct adapter *a, time_t started)
{
	const char *prog = a->req->program, *base;
	char path[PATH_MAX];
	struct stat st;
	int err;

	if (!prog)
		return;
	base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	snprintf(path, sizeof(path), "%s.core", base);
	if (stat(path, &st) < 0 || st.st_mtime < started)
		return;
	if ((err = hwtr_writer_add_core(a->writer, path)))
		fprintf(stderr, "hwtrec record: %s: %s\n", path,
			hwtr_last_error());
}

struct source_run {
	struct adapter a;
	struct hwt_recorder_options o;
	struct hwt_recorder_result res;
	time_t started;
	int err;		/* hwt_record's */
};

static void hwt_free(struct source_run *run)
{
	if (!run)
		return;
	sideband_free(run->a.sb);
	hwtr_writer_free(run->a.writer);
	free(run);
}

/* The options checked and the backend chosen; the program is started (or
 * attached to) by hwt_record, in drain, which needs it from the start. */
static int hwt_start(const struct record_request *req, struct source_run **out)
{
	struct source_run *run;
	char why[512];

	if (!hwt_sys_default) {
		fprintf(stderr, "hwtrec record: the hwt source is FreeBSD only "
			"(hwt(4)); use --source=valgrind here\n");
		return EXIT_RECORDER;
	}
	if (refuse_options(req))
		return 2;
	if (!(run = calloc(1, sizeof(*run))))
		return EXIT_RECORDER;
	run->a.req = req;
	run->o = (struct hwt_recorder_options){
		.sys = hwt_sys_default, .attach = req->pid,
		.program = req->program, .argv = req->argv,
		.bufsize = req->options.buffer_size ? req->options.buffer_size
						    : DEFAULT_BUFFER_SIZE,
	};
	/* The drain treats the two pages beyond the last reported position as
	 * possibly written (hwt-drain.c): the buffer must be well above that. */
	if (run->o.bufsize < 8 * (size_t)sysconf(_SC_PAGESIZE)) {
		fprintf(stderr, "hwtrec record: --buffer-size: %zu bytes is too "
			"small to be read safely; at least %ld (8 pages)\n",
			run->o.bufsize, 8 * sysconf(_SC_PAGESIZE));
		free(run);
		return 2;
	}
	if (!(run->o.backend = backend_of(req, why, sizeof(why)))) {
		fprintf(stderr, "hwtrec record: %s\n", why);
		free(run);
		return EXIT_RECORDER;
	}
	*out = run;
	return 0;
}

/* Known from the recorder's begin on, in drain (hwt_record starts it). */
static pid_t hwt_program(const struct source_run *run)
{
	return run->a.pid;
}

static void hwt_drain(struct source_run *run, struct source_result *res)
{
	const struct hwt_recorder_sink sink = {
		.ctx = &run->a, .begin = on_begin, .thread = on_thread,
		.trace = on_trace, .loss = on_loss, .exec = on_exec,
		.mmap = on_mmap, .munmap = on_munmap,
	};

	run->started = time(NULL);
	run->err = hwt_record(&run->o, &sink, &run->res);
	res->ended = run->res.ended;
	res->status = run->res.status;
}

/* The program's status counts once tracing began; before, the recording
 * could not start (even if the program ran, untraced).  A recording that
 * failed stays as it is, marked cut off. */
static void hwt_finish(struct source_run *run, struct source_result *res)
{
	const struct hwt_recorder_result *r = &run->res;
	struct adapter *a = &run->a;

	res->name = a->name;
	if (r->exec_errno) {
		res->exit_status = r->exec_errno == ENOENT ? EXIT_NOTFOUND
							   : EXIT_NOEXEC;
		fprintf(stderr, "hwtrec record: %s\n", r->msg);
	} else if (run->err < 0) {
		fprintf(stderr, "hwtrec record: %s\n", r->msg);
		if (r->started && a->writer)
			fprintf(stderr, "hwtrec record: %s is kept up to that "
				"point\n", a->name);
	}
	if (!r->exec_errno && !(r->traced && (r->ended || run->err == 0)))
		res->exit_status = EXIT_RECORDER;
	if (a->writer && run->err == 0) {
		if (r->ended && WIFSIGNALED(r->status) && WCOREDUMP(r->status))
			add_core(a, run->started);
		res->writer = a->writer;
	}
	if (!a->req->quiet && r->losses)
		fprintf(stderr, "hwtrec record: %llu bytes of trace were "
			"overwritten in the kernel's buffer before they could "
			"be read (%u gaps); a larger --buffer-size helps\n",
			(unsigned long long)r->lost, r->losses);
	if (!a->req->quiet && r->unnamed)
		fprintf(stderr, "hwtrec record: %zu threads ended before their "
			"LWP ids could be learned; they are named 0x80000000 + "
			"their hwt index\n", r->unnamed);
	res->threads = r->threads;
	res->trace_bytes = r->kept;
	res->seconds = r->seconds;
}

const struct record_source record_source_hwt = {
	.name = "hwt",
	.summary = "FreeBSD hwt(4): Intel PT or Arm CoreSight ETM from the "
		   "kernel (FreeBSD only)",
	.can_attach = true,
	.available = hwt_available,
	.start = hwt_start,
	.program = hwt_program,
	.interrupt = hwt_record_interrupt,
	.drain = hwt_drain,
	.finish = hwt_finish,
	.free = hwt_free,
};
