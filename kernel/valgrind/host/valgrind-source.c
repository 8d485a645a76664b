/* valgrind-source.c: the software source of `hwtrec record`: run a program
 * under the hwtrec Valgrind tool and write a recording with software Intel PT
 * (DESIGN.md section 5).
 *
 * The recorder makes a private directory with a FIFO, starts
 * `valgrind --tool=hwtrec` on the program (found through VALGRIND_LIB: the
 * build tree's kernel/valgrind/lib when hwtrec runs from the build tree, else
 * $(pkglibexecdir)/valgrind), and reads the tool's events (kernel/valgrind/
 * event-log.h) until the program ends.  pt-encoder.c turns them into PT
 * packets, ../../sideband.c into sideband events, core-notes.c makes the
 * core of a fatal signal usable by GDB.
 *
 * The source's ops (../../source.h): start makes the scratch directory and
 * the recording and forks Valgrind, held before exec; drain lets it go and
 * reads the events until it ends; finish ends the streams and adds the
 * gaps and the core only this source knows of.  The exit status, the
 * manifest's end and the summary are the driver's (tools/record-driver.c).
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#include "valgrind-source.h"
#include "core-notes.h"
#include "fault-report.h"
#include "event-reader.h"
#include "pt-encoder.h"
#include "scratch.h"
#include "valgrind-limits.h"
#include "../event-log.h"
#include "../../sideband.h"
#include "../../../libhwtrecord/values-format.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#define TOOL_NAME "hwtrec-amd64-linux"

/* Child processes named one by one in hwtrec record's notices. */
#define CHILDREN_NAMED 4

struct recorder {
	struct hwtr_writer *writer;
	struct sideband *sb;
	struct record_options opt;
	struct encoder_stream **streams;
	size_t nstreams;
	struct encoder_stream *cur;
	uint64_t tsc;
	pid_t pid;
	int hellos;
	unsigned children;	/* child processes created (not recorded) */
	bool failed;		/* writing failed: drain and discard */
	bool format_error;
	bool got_exit;
	bool stopped;		/* live: the session ended (HWTREC_EV_STOPPED) */
	char *live_data;	/* live: the data log the tool writes in place
				 * (DIR/values), or NULL */
	struct event_reader *reader;
	struct vg_limits limits;
};

static bool find_in_path(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH"), *p;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		snprintf(out, size, "%.*s/%s", (int)n, n ? p : ".", name);
		if (n && access(out, X_OK) == 0)
			return true;
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

static bool tool_in(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, TOOL_NAME);
	return access(p, X_OK) == 0;
}

/* The directory to give Valgrind as VALGRIND_LIB: our tool next to the stock
 * Valgrind files.  Running from the build tree uses the build tree's. */
static const char *find_tool_dir(void)
{
	static char exe[PATH_MAX];
	const char *env = getenv("HWTREC_VALGRIND_LIB");
	const char *build = HWTREC_BUILDDIR "/kernel/valgrind/lib";
	const char *installed = HWTREC_PKGLIBEXECDIR "/valgrind";
	ssize_t n;

	if (env)
		return tool_in(env) ? env : NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (!strncmp(exe, HWTREC_BUILDDIR "/", strlen(HWTREC_BUILDDIR) + 1) &&
	    tool_in(build))
		return build;
	if (tool_in(installed))
		return installed;
	if (tool_in(build))
		return build;
	return NULL;
}

/* --------------------------------------------------------------- events */

static struct encoder_stream *find_stream(struct recorder *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->nstreams; i++)
		if (encoder_stream_tid(r->streams[i]) == tid)
			return r->streams[i];
	return NULL;
}

static int fail_write(struct recorder *r, int err)
{
	if (!r->failed)
		fprintf(stderr, "hwtrec record: %s; the recording is kept up "
			"to that point, the program keeps running untraced\n",
			hwtr_last_error()[0] ? hwtr_last_error()
					      : hwtr_errstr(-err));
	r->failed = true;
	return err;
}

static int add_stream(struct recorder *r, uint32_t tid, uint64_t tsc,
		      struct encoder_stream **out)
{
	struct encoder_stream **v;
	int err;

	if ((err = hwtr_writer_add_thread(r->writer, tid, tsc)))
		return err;
	v = realloc(r->streams, (r->nstreams + 1) * sizeof(*v));
	if (!v)
		return -hwtr_err_nomem;
	r->streams = v;
	if ((err = encoder_stream_new(r->writer, tid, &r->opt, tsc, out)))
		return err;
	r->streams[r->nstreams++] = *out;
	return 0;
}

static int thread_exit(struct recorder *r, uint32_t tid, uint64_t tsc)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_thread_exit, .tsc = tsc, .tid = tid,
	};
	struct encoder_stream *s = find_stream(r, tid);
	int err;

	if (s && (err = encoder_stream_flush(s)))
		return err;
	return hwtr_writer_event(r->writer, &ev);
}

static int handle_hello(struct recorder *r, const struct vg_event *ev)
{
	char path[PATH_MAX];
	size_t i;
	int err;

	if (ev->version != HWTREC_EVENT_LOG_VERSION) {
		fprintf(stderr, "hwtrec record: the Valgrind tool speaks event "
			"log version %u, this recorder %d: reinstall hwtrecord\n",
			ev->version, HWTREC_EVENT_LOG_VERSION);
		return -hwtr_err_version;
	}
	r->tsc = ev->tsc;
	if (++r->hellos == 1)
		return 0;
	/* A new image after execve: same process, every other thread gone. */
	snprintf(path, sizeof(path), "%.*s", (int)(ev->path_len < sizeof(path) - 1
		 ? ev->path_len : sizeof(path) - 1), ev->path);
	for (i = 0; i < r->nstreams; i++) {
		uint32_t tid = encoder_stream_tid(r->streams[i]);

		if (tid != (uint32_t)r->pid && (err = thread_exit(r, tid, r->tsc)))
			return err;
	}
	{
		struct hwtr_sideband_event sev = {
			.kind = hwtr_ev_exec, .tsc = r->tsc, .path = path,
		};
		return hwtr_writer_event(r->writer, &sev);
	}
}

/* One record of the log; a negative error stops writing the recording. */
static int handle(struct recorder *r, const struct vg_event *ev)
{
	char path[PATH_MAX];
	int err;

	if (vg_event_is_trace(ev)) {
		if (!r->cur) {
			fprintf(stderr, "hwtrec record: event log: trace event "
				"before any thread switch\n");
			r->format_error = true;
			return -hwtr_err_format;
		}
		if (ev->type == HWTREC_EV_PSB || ev->type == HWTREC_EV_PGE)
			r->tsc = ev->tsc;
		if (ev->type == HWTREC_EV_PGE)
			vg_limits_resumed(&r->limits,
					  encoder_stream_tid(r->cur));
		return vg_event_encode(r->cur, ev);
	}
	switch (ev->type) {
	case HWTREC_EV_HELLO:
		return handle_hello(r, ev);
	case HWTREC_EV_SWITCH:
		r->tsc = ev->tsc;
		r->cur = find_stream(r, ev->tid);
		if (!r->cur && (err = add_stream(r, ev->tid, r->tsc, &r->cur)))
			return err;
		return 0;
	case HWTREC_EV_FROM_REACHED:
		return 0;
	case HWTREC_EV_MMAP:
		snprintf(path, sizeof(path), "%.*s", (int)ev->path_len,
			 ev->path);
		r->tsc = ev->tsc;
		return sideband_mmap(r->sb, ev->addr, ev->len, ev->pgoff,
				     ev->prot, path, r->tsc);
	case HWTREC_EV_MUNMAP:
		r->tsc = ev->tsc;
		return sideband_munmap(r->sb, ev->addr, ev->len, r->tsc);
	case HWTREC_EV_THREAD_EXIT:
		r->tsc = ev->tsc;
		return thread_exit(r, ev->tid, r->tsc);
	case HWTREC_EV_AUXV: {
		uint64_t *pairs = malloc(2 * ev->count * sizeof(*pairs) + 1);
		size_t i;

		if (!pairs)
			return -hwtr_err_nomem;
		for (i = 0; i < 2 * ev->count; i++)
			pairs[i] = vg_event_auxv(ev, i);
		sideband_auxv(r->sb, pairs, ev->count);
		free(pairs);
		return 0;
	}
	case HWTREC_EV_OBJECT:
		return sideband_object(r->sb, ev->addr, ev->bytes, ev->count,
				       r->tsc);
	case HWTREC_EV_EXIT:
		r->got_exit = true;
		return 0;
	case HWTREC_EV_STOPPED:
		r->tsc = ev->tsc;
		r->stopped = true;
		return 0;
	case HWTREC_EV_CHILD:
		/* The first few by pid; a program that forks in a loop
		 * would fill the terminal: the rest are counted at the end. */
		if (r->children++ < CHILDREN_NAMED)
			fprintf(stderr, "hwtrec record: the program created "
				"child process %u, which is not recorded "
				"(children are not traced)\n", ev->pid);
		return 0;
	case HWTREC_EV_UNDECODABLE:
		vg_limits_undecodable(&r->limits,
				      r->cur ? encoder_stream_tid(r->cur)
					     : (uint32_t)r->pid,
				      ev->ip, ev->bytes, ev->count);
		return 0;
	}
	return -hwtr_err_format;
}

/* The reader's callback: after a write error the rest is drained unused. */
static int on_event(void *ctx, const struct vg_event *ev)
{
	struct recorder *r = ctx;
	int err;

	if (!r->failed && (err = handle(r, ev)))
		fail_write(r, err);
	return r->format_error;
}

static void recorder_free(struct recorder *r)
{
	size_t i;

	for (i = 0; i < r->nstreams; i++)
		encoder_stream_free(r->streams[i]);
	free(r->streams);
	sideband_free(r->sb);
	hwtr_writer_free(r->writer);
	event_reader_free(r->reader);
	free(r->live_data);
}

/* ---------------------------------------------------------------- files */

/* DIR/NAME into OUT; false, with a message, where it would not fit (the
 * scratch directory is bounded, a recording's name is the user's). */
static bool path_in(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "hwtrec record: %s/%s: the path is longer than "
			"%zu bytes\n", dir, name, size - 1);
		return false;
	}
	return true;
}

/* Valgrind's core of process PID (the recorded one, not a child's) is
 * <logfile>.core.<pid> in our private directory. */
static bool find_vgcore(const char *dir, pid_t pid, char *out, size_t size)
{
	char name[64];

	snprintf(name, sizeof(name), "vglog.%d.core.%d", (int)pid, (int)pid);
	return path_in(out, size, dir, name) && access(out, F_OK) == 0;
}

/* Show what Valgrind said (its log is ours, not the program's output). */
static void show_valgrind_log(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX], line[1024];

	while (d && (e = readdir(d))) {
		FILE *f;

		if (strncmp(e->d_name, "vglog.", 6) || strstr(e->d_name, ".core."))
			continue;
		f = path_in(p, sizeof(p), dir, e->d_name) ? fopen(p, "r") : NULL;
		while (f && fgets(line, sizeof(line), f))
			fprintf(stderr, "hwtrec record: valgrind: %s", line);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

/* ------------------------------------------------------------- the source */

/* The Valgrind executable: $HWTREC_VALGRIND, else valgrind in PATH. */
static bool find_valgrind(char *out, size_t size)
{
	const char *env = getenv("HWTREC_VALGRIND");

	if (env) {
		snprintf(out, size, "%s", env);
		return true;
	}
	return find_in_path("valgrind", out, size);
}

static bool valgrind_available(char *why, size_t size)
{
	char valgrind[PATH_MAX];

	if (!find_valgrind(valgrind, sizeof(valgrind))) {
		snprintf(why, size, "valgrind not found in PATH; install it "
			 "(apt-get install valgrind)");
		return false;
	}
	if (access(valgrind, X_OK) < 0) {
		snprintf(why, size, "%s: %s", valgrind, strerror(errno));
		return false;
	}
	if (!find_tool_dir()) {
		snprintf(why, size, "the Valgrind tool %s is not installed "
			 "(looked in %s/valgrind and %s/kernel/valgrind/lib; "
			 "set HWTREC_VALGRIND_LIB to its directory)", TOOL_NAME,
			 HWTREC_PKGLIBEXECDIR, HWTREC_BUILDDIR);
		return false;
	}
	return true;
}

/* An empty file DIR/NAME: 0, or -1 with a message. */
static int create_empty(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (!path_in(path, sizeof(path), dir, name))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "hwtrec record: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* Runs in the child: Valgrind with our tool on PROGRAM. */
void valgrind_exec(const char *fifo, const char *logdir,
		   const struct record_options *opt, const char *from,
		   const char *prog, char *const argv[])
{
	char valgrind[PATH_MAX], arg_fifo[PATH_MAX + 32], arg_pid[64];
	char arg_from[512], arg_log[PATH_MAX + 32], arg_psb[64];
	char arg_tool_log[PATH_MAX + 32];
	char arg_vgdb[PATH_MAX + 32], arg_data[PATH_MAX + 32];
	char arg_snapshot[64];
	const char *tool_dir = find_tool_dir();
	const char **vargv;
	struct rlimit rl;
	size_t argc = 0, nv = 0, i;

	if (!find_valgrind(valgrind, sizeof(valgrind)) || !tool_dir) {
		fprintf(stderr, "hwtrec record: valgrind or its hwtrec tool "
			"is missing\n");
		return;
	}
	while (argv[argc])
		argc++;
	vargv = calloc(argc + 20, sizeof(*vargv));
	if (!vargv)
		return;
	/* Valgrind writes its core only if RLIMIT_CORE allows it. */
	if (getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_max != 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_CORE, &rl);
	}
	snprintf(arg_fifo, sizeof(arg_fifo), "--hwtrec-fifo=%s", fifo);
	snprintf(arg_pid, sizeof(arg_pid), "--hwtrec-pid=%d", (int)getpid());
	snprintf(arg_log, sizeof(arg_log), "--log-file=%s/vglog.%%p", logdir);
	/* The same file to the tool, which closes the copy Valgrind leaves
	 * among the program's file descriptors (tool.c). */
	snprintf(arg_tool_log, sizeof(arg_tool_log),
		 "--hwtrec-log-file=%s/vglog.%%p", logdir);
	/* Valgrind's gdbserver FIFOs too: nothing of ours outside LOGDIR. */
	snprintf(arg_vgdb, sizeof(arg_vgdb), "--vgdb-prefix=%s/vgdb", logdir);
	vargv[nv++] = valgrind;
	vargv[nv++] = "-q";
	vargv[nv++] = "--tool=hwtrec";
	vargv[nv++] = arg_fifo;
	vargv[nv++] = arg_pid;
	vargv[nv++] = arg_log;
	vargv[nv++] = arg_tool_log;
	vargv[nv++] = arg_vgdb;
	vargv[nv++] = "--vex-guest-chase=no";
	vargv[nv++] = "--run-libc-freeres=no";
	vargv[nv++] = "--run-cxx-freeres=no";
	vargv[nv++] = "--trace-children=yes";
	if (!opt->ret_compression)
		vargv[nv++] = "--ret-compression=no";
	if (opt->no_core)
		vargv[nv++] = "--hwtrec-exit-core=no";
	if (!opt->no_data) {
		/* The tool appends to an empty file (record_valgrind made it):
		 * after an exec the new image finds it written and leaves it. */
		snprintf(arg_data, sizeof(arg_data), "--hwtrec-data=%s/values",
			 logdir);
		vargv[nv++] = arg_data;
		if (opt->snapshot_every) {
			snprintf(arg_snapshot, sizeof(arg_snapshot),
				 "--hwtrec-snapshot-every=%llu",
				 (unsigned long long)opt->snapshot_every);
			vargv[nv++] = arg_snapshot;
		}
	}
	snprintf(arg_psb, sizeof(arg_psb), "--psb-period=%u", opt->psb_period);
	vargv[nv++] = arg_psb;
	if (from) {
		snprintf(arg_from, sizeof(arg_from), "--from=%s", from);
		vargv[nv++] = arg_from;
	}
	vargv[nv++] = prog;
	for (i = 1; i < argc; i++)
		vargv[nv++] = argv[i];
	vargv[nv] = NULL;
	setenv("VALGRIND_LIB", tool_dir, 1);
	execv(valgrind, (char *const *)vargv);
	fprintf(stderr, "hwtrec record: %s: %s\n", valgrind, strerror(errno));
	free(vargv);
}

/* Valgrind gave up (valgrind-limits.c): the trace of the thread it
 * gave up in (or the last one that ran) ends with a gap naming REASON. */
static void end_with_gap(struct recorder *r, const char *reason)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_loss, .tsc = r->tsc, .reason = reason,
	};
	struct encoder_stream *s;

	ev.tid = r->limits.undecodable ? r->limits.tid
	       : r->cur ? encoder_stream_tid(r->cur) : (uint32_t)r->pid;
	s = find_stream(r, ev.tid);
	if (s)
		ev.offset = encoder_stream_bytes(s);
	hwtr_writer_event(r->writer, &ev);
}

/* One `hwtrec record` run: the recorder, and the files and processes
 * around it. */
struct source_run {
	struct recorder r;
	const struct record_request *req;
	char tmpdir[PATH_MAX];
	char name[PATH_MAX];
	char limit[1024];		/* why Valgrind gave up, if it did */
	int fifo_fd, go_fd, scratch_lock;
};

static void run_free(struct source_run *run)
{
	if (!run)
		return;
	recorder_free(&run->r);
	if (run->fifo_fd >= 0)
		close(run->fifo_fd);
	if (run->go_fd >= 0)
		close(run->go_fd);
	if (run->tmpdir[0])
		scratch_remove(run->tmpdir);
	if (run->scratch_lock >= 0)
		close(run->scratch_lock);
	free(run);
}

/* A failed start: the child, held before exec, is let go unstarted (it
 * exits when the go pipe closes), reaped, and the files removed. */
static int start_failed(struct source_run *run)
{
	pid_t pid = run->r.pid;

	close(run->go_fd);
	run->go_fd = -1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	run_free(run);
	return EXIT_RECORDER;
}

/* The scratch directory with the tool's FIFO, Valgrind forked and held
 * before exec until drain lets it go, the recording made. */
static int valgrind_start(const struct record_request *req,
			  struct source_run **out)
{
	struct source_run *run = calloc(1, sizeof(*run));
	struct recorder *r;
	struct hwtr_writer_info info = { .source = "valgrind" };
	char fifo[PATH_MAX], why[512];
	int go[2];
	pid_t pid;

	if (!run)
		return EXIT_RECORDER;
	run->fifo_fd = run->go_fd = run->scratch_lock = -1;
	run->req = req;
	r = &run->r;
	r->opt = req->options;
	if (!valgrind_available(why, sizeof(why))) {
		fprintf(stderr, "hwtrec record: %s\n", why);
		free(run);
		return EXIT_RECORDER;
	}
	if (scratch_create(run->tmpdir, sizeof(run->tmpdir),
			   &run->scratch_lock) < 0) {
		run->tmpdir[0] = 0;
		run_free(run);
		return EXIT_RECORDER;
	}
	if (!path_in(fifo, sizeof(fifo), run->tmpdir, "events")) {
		run_free(run);
		return EXIT_RECORDER;
	}
	if (mkfifo(fifo, 0600) < 0 ||
	    (run->fifo_fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0) {
		fprintf(stderr, "hwtrec record: %s: %s\n", fifo,
			strerror(errno));
		run_free(run);
		return EXIT_RECORDER;
	}
	fcntl(run->fifo_fd, F_SETPIPE_SZ, 1 << 20);	/* best effort */
	if (pipe2(go, O_CLOEXEC) < 0) {
		perror("hwtrec record: pipe");
		run_free(run);
		return EXIT_RECORDER;
	}
	if (!r->opt.no_data && create_empty(run->tmpdir, "values") < 0) {
		close(go[0]);
		close(go[1]);
		run_free(run);
		return EXIT_RECORDER;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("hwtrec record: fork");
		close(go[0]);
		close(go[1]);
		run_free(run);
		return EXIT_RECORDER;
	}
	if (pid == 0) {
		char byte;

		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(EXIT_RECORDER);	/* the recorder gave up */
		valgrind_exec(fifo, run->tmpdir, &r->opt, req->from,
			      req->program, req->argv);
		_exit(EXIT_RECORDER);
	}
	close(go[0]);
	run->go_fd = go[1];
	r->pid = pid;

	record_name(req, pid, run->name, sizeof(run->name));
	info.pid = pid;
	info.executable = req->program;
	while (req->argv[info.argc])
		info.argc++;
	info.argv = (const char *const *)req->argv;
	record_pt_config(&info.pt, r->opt.ret_compression, r->opt.psb_period);
	if (hwtr_writer_create(run->name, &info, &r->writer)) {
		fprintf(stderr, "hwtrec record: %s\n", hwtr_last_error());
		return start_failed(run);
	}
	r->sb = sideband_new(r->writer);
	if (!r->sb || event_reader_new(&r->reader)) {
		fprintf(stderr, "hwtrec record: out of memory\n");
		return start_failed(run);
	}
	*out = run;
	return 0;
}

static pid_t valgrind_program(const struct source_run *run)
{
	return run->r.pid;
}

/* Let Valgrind go and read the tool's events until the program ends. */
static void valgrind_drain(struct source_run *run, struct source_result *res)
{
	struct recorder *r = &run->r;
	time_t last_flush = time(NULL);
	bool exited = false;
	int err;

	/* A child killed before it was let go (EPIPE) is reported from its
	 * wait status, as any other death of the program. */
	if (write(run->go_fd, "g", 1) != 1 && errno != EPIPE) {
		perror("hwtrec record: pipe");
		close(run->go_fd);
		run->go_fd = -1;
		waitpid(r->pid, NULL, 0);
		r->failed = true;	/* nothing to finish */
		res->exit_status = EXIT_RECORDER;
		return;
	}
	close(run->go_fd);
	run->go_fd = -1;

	while (!exited) {
		struct pollfd pfd = { .fd = run->fifo_fd, .events = POLLIN };

		if (poll(&pfd, 1, 100) > 0)
			while (event_reader_read(r->reader, run->fifo_fd,
						 on_event, r) > 0)
				;
		if (waitpid(r->pid, &res->status, WNOHANG) == r->pid)
			exited = true;
		if (!r->failed && time(NULL) != last_flush) {
			last_flush = time(NULL);
			if ((err = hwtr_writer_flush(r->writer)))
				fail_write(r, err);
		}
	}
	/* Every writer has exited: the FIFO holds the rest. */
	while (event_reader_read(r->reader, run->fifo_fd, on_event, r) > 0)
		;
	res->ended = true;
}

/* The end of the streams, and what only this source knows of the end:
 * Valgrind gave up, SIGKILL cut the trace, Valgrind's core. */
static void valgrind_finish(struct source_run *run, struct source_result *res)
{
	struct recorder *r = &run->r;
	int status = res->status, err;
	char vgcore[PATH_MAX];
	struct core_end end = { 0 };
	size_t i;

	res->name = run->name;
	if (res->exit_status)		/* Valgrind never ran */
		return;
	if (!r->hellos && !WIFSIGNALED(status)) {
		show_valgrind_log(run->tmpdir);
		fprintf(stderr, "hwtrec record: the program did not start under "
			"the hwtrec Valgrind tool (valgrind %s %d)\n",
			WIFEXITED(status) ? "exited with" : "died of signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		res->exit_status = EXIT_RECORDER;
	}
	if (r->children > CHILDREN_NAMED)
		fprintf(stderr, "hwtrec record: %u more child processes, not "
			"recorded\n", r->children - CHILDREN_NAMED);
	for (i = 0; i < r->nstreams && !r->failed; i++)
		if ((err = encoder_stream_finish(r->streams[i])))
			fail_write(r, err);
	/* (After a write error the events were drained unread: the tool's
	 * EXIT among them, so nothing can be said.) */
	if (r->hellos && !r->failed &&
	    vg_limits_reached(&r->limits, r->pid, status, r->got_exit,
			      run->tmpdir, run->limit, sizeof(run->limit))) {
		if (WIFEXITED(status))
			show_valgrind_log(run->tmpdir);
		fprintf(stderr, "hwtrec record: %s; the recording ends there "
			"(exit status %d)\n", run->limit, EXIT_VALGRIND_LIMIT);
		res->exit_status = EXIT_VALGRIND_LIMIT;
		res->aborted = run->limit;
		end_with_gap(r, run->limit);
	}
	if (!r->failed && r->nstreams && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGKILL) {
		struct hwtr_sideband_event ev = {
			.kind = hwtr_ev_loss, .tsc = r->tsc,
			.tid = (uint32_t)r->pid,
			.reason = "the program was killed by SIGKILL: what "
				  "it ran since its last system call is not "
				  "in the trace",
		};
		struct encoder_stream *main_stream =
			find_stream(r, (uint32_t)r->pid);

		if (main_stream)
			ev.offset = encoder_stream_bytes(main_stream);
		hwtr_writer_event(r->writer, &ev);
		fprintf(stderr, "hwtrec record: the program was killed by "
			"SIGKILL; the end of its trace is missing\n");
	}
	/* The end state: at a fatal signal Valgrind's, at an exit the tool's
	 * (--hwtrec-exit-core). */
	if (WIFSIGNALED(status)) {
		end.signal = WTERMSIG(status);
		end.has_process = true;
		end.pid = (int32_t)r->pid;
		end.uid = (uint32_t)getuid();
		end.has_fault_address = fault_report_address(
			run->tmpdir, r->pid, end.signal, &end.fault_address);
		res->has_fault_address = end.has_fault_address;
		res->fault_address = end.fault_address;
	}
	if (!r->failed && !r->opt.no_core &&
	    (WIFSIGNALED(status) || (WIFEXITED(status) && r->got_exit)) &&
	    find_vgcore(run->tmpdir, r->pid, vgcore, sizeof(vgcore))) {
		char fixed[PATH_MAX], msg[512];

		if (!path_in(fixed, sizeof(fixed), run->tmpdir, "core")) {
			snprintf(fixed, sizeof(fixed), "%s", vgcore);
		} else if (core_add_notes(vgcore, fixed, r->sb,
					  end.signal ? &end : NULL, msg,
					  sizeof(msg)) < 0) {
			fprintf(stderr, "hwtrec record: %s; keeping Valgrind's "
				"core as it is\n", msg);
			snprintf(fixed, sizeof(fixed), "%s", vgcore);
		}
		/* Without its core the recording still says how the
		 * program ended: finish it. */
		if (hwtr_writer_add_core(r->writer, fixed) < 0)
			fprintf(stderr, "hwtrec record: %s; the recording has "
				"no core\n", hwtr_last_error());
	}
	/* The data log ends with the program; without an end record (a
	 * SIGKILL) it still gives registers up to where it stops. */
	if (!r->failed && !r->opt.no_data && r->nstreams > 0) {
		char data[PATH_MAX];

		if (path_in(data, sizeof(data), run->tmpdir, "values") &&
		    hwtr_writer_add_values(r->writer, data,
					   HWTR_VALUES_VERSION) < 0)
			fprintf(stderr, "hwtrec record: %s; the recording has "
				"no data log\n", hwtr_last_error());
	}
	/* Killed before the tool traced anything: a finished recording must
	 * name a trace (an empty thread list is damage to a reader), so none
	 * is left, and the user is told. */
	if (!r->failed && r->nstreams == 0) {
		char trace[PATH_MAX];

		fprintf(stderr, "hwtrec record: the program %s %d before any of "
			"it was traced; no recording was written\n",
			WIFSIGNALED(status) ? "was killed by signal" : "exited with",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		hwtr_writer_free(r->writer);
		r->writer = NULL;
		if (path_in(trace, sizeof(trace), run->name, "trace"))
			scratch_remove(trace);
		scratch_remove(run->name);
		return;
	}
	if (r->failed)
		return;
	res->writer = r->writer;
	res->threads = r->nstreams;
	res->trace_bytes = 0;
	for (i = 0; i < r->nstreams; i++)
		res->trace_bytes += encoder_stream_bytes(r->streams[i]);
}

bool record_valgrind_paths(char *valgrind, size_t size, const char **tool_dir,
			   char *why, size_t whysize)
{
	if (!valgrind_available(why, whysize))
		return false;
	find_valgrind(valgrind, size);
	*tool_dir = find_tool_dir();
	return true;
}

/* ------------------------------------------------------- live sessions */

/* Everything the tool sent is encoded and on disk. */
static int live_sync(struct recorder *r, int fd)
{
	size_t i;
	int err;

	while (event_reader_read(r->reader, fd, on_event, r) > 0)
		;
	if (r->failed)
		return -hwtr_err_io;
	for (i = 0; i < r->nstreams; i++)
		if ((err = encoder_stream_sync(r->streams[i])))
			return fail_write(r, err);
	if ((err = hwtr_writer_flush(r->writer)))
		return fail_write(r, err);
	return 0;
}

/* Live: the data log is written by the tool straight into the recording
 * (hwtrec start DIR/values), named in the manifest from the start so that
 * hwtrec-server reads it as it grows.  This makes it, empty, and names it;
 * called again before the recording is finished or copied, it takes the
 * log's size and CRC-32 for the manifest (the file stays where it is). */
static int live_data_note(struct recorder *r)
{
	if (!r->live_data)
		return 0;
	return hwtr_writer_add_values(r->writer, r->live_data,
				      HWTR_VALUES_VERSION);
}

static int live_data_create(struct recorder *r, const char *dir)
{
	int fd;

	if (asprintf(&r->live_data, "%s/values", dir) < 0) {
		r->live_data = NULL;
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	fd = open(r->live_data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return hwtr_fail(hwtr_err_io, "%s: %s", r->live_data,
				 strerror(errno));
	close(fd);
	return live_data_note(r);
}

/* One control line from hwtrec-server; true when the session is over. */
static bool live_command(struct recorder *r, int fd, char *line)
{
	char arg[PATH_MAX] = "", state[16];
	unsigned long long n;
	int code, err;

	if (sscanf(line, "sync %llu", &n) == 1) {
		err = live_sync(r, fd);
		if (err)
			printf("error %s\n", hwtr_last_error());
		else
			printf("sync %llu\n", n);
	} else if (sscanf(line, "save %4095[^\n]", arg) == 1) {
		err = live_sync(r, fd);
		if (!err)
			err = live_data_note(r);
		if (!err)
			err = hwtr_writer_save_copy(r->writer, arg);
		if (err)
			printf("error %s\n", hwtr_last_error());
		else
			printf("saved\n");
	} else if (sscanf(line, "end %15s %d", state, &code) == 2) {
		struct hwtr_end end = { .state = hwtr_end_running, .code = code };
		size_t i;

		if (!strcmp(state, "exited"))
			end.state = hwtr_end_exited;
		else if (!strcmp(state, "signaled"))
			end.state = hwtr_end_signaled;
		err = live_sync(r, fd);
		if (!err)
			err = live_data_note(r);
		for (i = 0; i < r->nstreams && !err; i++)
			err = encoder_stream_finish(r->streams[i]);
		if (!err)
			err = hwtr_writer_finish(r->writer, &end);
		if (err)
			printf("error %s\n", hwtr_last_error());
		else
			printf("done\n");
		fflush(stdout);
		return true;
	} else {
		printf("error unknown command: %.60s\n", line);
	}
	fflush(stdout);
	return false;
}

/* The debugger went away mid-session: keep what was recorded, say where
 * it stops, and leave the manifest unfinished so that readers say the
 * recording was cut off. */
static void live_cut_off(struct recorder *r, int fd)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_loss, .tsc = r->tsc, .tid = (uint32_t)r->pid,
		.reason = "cut off: the debugging session ended while "
			  "recording (GDB or hwtrec-server went away)",
	};
	struct encoder_stream *s;

	if (live_sync(r, fd) < 0)
		return;
	s = find_stream(r, (uint32_t)r->pid);
	if (s)
		ev.offset = encoder_stream_bytes(s);
	hwtr_writer_event(r->writer, &ev);
	hwtr_writer_flush(r->writer);
}

/* `hwtrec _live-recorder [--psb-period N] [--no-ret-compression] [--data]
 * FIFO PID DIR -- PROGRAM ARGS`: hwtrec-server's recorder for one `record
 * hwt` session of a program that already runs under the tool in live mode.
 * With --data the recording has a data log, DIR/values, made empty here for
 * the tool to write (hwtrec start DIR/values).  It
 * reads the events from FIFO into the recording DIR and obeys one-line
 * commands on stdin, answering on stdout: "sync N" (everything the tool sent
 * is on disk; answers "sync N"), "save DIR" (a finished copy; "saved"), "end
 * exited|signaled|running CODE" (finish; "done").  Errors answer "error
 * MESSAGE".  End of stdin: the recording is kept, marked cut off. */
int hwtrec_live_recorder_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "psb-period", required_argument, NULL, 'P' },
		{ "no-ret-compression", no_argument, NULL, 'R' },
		{ "data", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	struct recorder r = {
		.opt = { .psb_period = HWTREC_DEFAULT_PSB_PERIOD,
			 .ret_compression = true, .no_data = true },
	};
	struct hwtr_writer_info info = { .source = "valgrind" };
	char line[PATH_MAX + 64];
	size_t line_len = 0;
	bool over = false;
	time_t last_flush = time(NULL);
	int c, fd, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (c == 'P')
			r.opt.psb_period = (uint32_t)strtoul(optarg, NULL, 0);
		else if (c == 'R')
			r.opt.ret_compression = false;
		else if (c == 'D')
			r.opt.no_data = false;
		else
			return 2;
	}
	if (argc - optind < 5 || strcmp(argv[optind + 3], "--")) {
		fprintf(stderr, "usage: hwtrec _live-recorder [options] FIFO "
			"PID DIR -- PROGRAM ARGS (for hwtrec-server)\n");
		return 2;
	}
	r.pid = (pid_t)atoi(argv[optind + 1]);
	info.pid = r.pid;
	info.executable = argv[optind + 4];
	info.argv = (const char *const *)argv + optind + 4;
	info.argc = (size_t)(argc - optind - 4);
	record_pt_config(&info.pt, r.opt.ret_compression, r.opt.psb_period);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	fd = open(argv[optind], O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		printf("error %s: %s\n", argv[optind], strerror(errno));
		return EXIT_RECORDER;
	}
	fcntl(fd, F_SETPIPE_SZ, 1 << 20);	/* best effort */
	if (hwtr_writer_create(argv[optind + 2], &info, &r.writer) < 0) {
		printf("error %s\n", hwtr_last_error());
		return EXIT_RECORDER;
	}
	r.sb = sideband_new(r.writer);
	if (!r.sb || event_reader_new(&r.reader)) {
		printf("error out of memory\n");
		return EXIT_RECORDER;
	}
	if (!r.opt.no_data && live_data_create(&r, argv[optind + 2]) < 0) {
		printf("error %s\n", hwtr_last_error());
		return EXIT_RECORDER;
	}
	printf("ready\n");
	fflush(stdout);
	while (!over) {
		struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
					 { .fd = 0, .events = POLLIN } };
		char *nl;
		ssize_t n;

		if (poll(pfd, 2, 1000) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			while (event_reader_read(r.reader, fd, on_event, &r) > 0)
				;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(0, line + line_len, sizeof(line) - 1 - line_len);
			if (n <= 0 && errno != EINTR) {
				live_cut_off(&r, fd);
				rc = 1;
				break;
			}
			line_len += n > 0 ? (size_t)n : 0;
			line[line_len] = 0;
			while (!over && (nl = strchr(line, '\n'))) {
				*nl = 0;
				over = live_command(&r, fd, line);
				line_len -= (size_t)(nl + 1 - line);
				memmove(line, nl + 1, line_len + 1);
			}
			if (line_len == sizeof(line) - 1)
				line_len = 0;	/* a line too long: dropped */
		}
		if (!r.failed && time(NULL) != last_flush) {
			last_flush = time(NULL);
			if (hwtr_writer_flush(r.writer) < 0)
				fail_write(&r, -hwtr_err_io);
		}
	}
	close(fd);
	recorder_free(&r);
	return rc;
}

const struct record_source record_source_valgrind = {
	.name = "valgrind",
	.summary = "software Intel PT from a Valgrind tool",
	.can_attach = false,
	.available = valgrind_available,
	.start = valgrind_start,
	.program = valgrind_program,
	.drain = valgrind_drain,
	.finish = valgrind_finish,
	.free = run_free,
};
