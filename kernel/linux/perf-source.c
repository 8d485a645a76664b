/* perf-source.c: the hardware source of `hwtrec record`: Intel PT through
 * perf_event (../kernel/linux/).
 *
 * Starting a program: the child stops itself under ptrace before exec; the
 * recorder opens the child's intel_pt event with enable_on_exec and lets it
 * run.  ptrace clone stops hold each new thread until its own event is open,
 * so no thread runs untraced; at the exec stop the recorder drains the rings
 * (the kernel's exec and MMAP2 records) and saves the vDSO, which exists
 * only in memory.  The rings are drained whenever the kernel signals a
 * watermark (poll) and at least every 50 ms.
 *
 * Attaching (-p PID): every thread is seized (PTRACE_SEIZE, which does not
 * stop it), gets an event that traces from now, and the mappings that exist
 * are taken from /proc/PID/maps; recording ends when the process does or at
 * ^C, which detaches.
 *
 * Not done yet: a core file at a fatal signal (the Valgrind source writes
 * one), --max-size (AUX snapshot mode), --from.  Untested here: this
 * machine has no intel_pt PMU; what is tested is everything below
 * perf_event_open and mmap (kernel/linux/tests), and that the source says
 * why it cannot run.
 */
#define _GNU_SOURCE
#include "perf-source.h"
#include "pt-event.h"
#include "../pt-cpu.h"
#include "../sideband.h"

#include <cpuid.h>
#include <inttypes.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#define DATA_PAGES 64
#define AUX_BYTES (4u << 20)
#define DRAIN_MS 50

struct perf_recorder {
	struct pt_event_config cfg;
	struct hwtr_writer *writer;
	struct sideband *sb;	/* mappings we add ourselves (vDSO, -p) */
	struct pt_session *session;
	pid_t pid;
	bool failed;
};

/* ^C while attached (perf_interrupt, from the driver's handler). */
static volatile sig_atomic_t interrupted;

static bool perf_available(char *why, size_t size)
{
	struct perf_pmu pmu;
	int err = perf_pmu_read(PERF_PMU_DEVICES, "intel_pt", &pmu);

	if (err == -hwtr_err_notfound) {
		snprintf(why, size, "no intel_pt PMU in %s (this CPU or "
			 "virtual machine has no Intel PT); use --source=valgrind",
			 PERF_PMU_DEVICES);
		return false;
	}
	if (err) {
		snprintf(why, size, "%s", hwtr_last_error());
		return false;
	}
	return perf_may_trace(PERF_PARANOID_FILE, perf_cap_effective(), why,
			      size);
}

/* The CPU as the decoder needs it (errata, TSC/CTC ratio). */
static void cpu_config(struct hwtr_pt_config *pt, bool ret_compression,
		       uint32_t psb_period)
{
	unsigned a, b, c, d;
	char vendor[13] = "";

	memset(pt, 0, sizeof(*pt));
	snprintf(pt->vendor, sizeof(pt->vendor), "unknown");
	if (__get_cpuid(0, &a, &b, &c, &d)) {
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
		if (!strcmp(vendor, "GenuineIntel"))
			snprintf(pt->vendor, sizeof(pt->vendor), "intel");
	}
	if (__get_cpuid(1, &a, &b, &c, &d))
		pt_cpu_identity(a, pt);
	if (__get_cpuid_count(0x14, 0, &a, &b, &c, &d)) {
		pt->cpuid_0x14_ebx = b;
		pt->cpuid_0x14_ecx = c;
	}
	if (__get_cpuid(0x15, &a, &b, &c, &d)) {
		pt->cpuid_0x15_eax = a;
		pt->cpuid_0x15_ebx = b;
	}
	pt->tsc = true;
	pt->return_compression = ret_compression;
	pt->psb_period = psb_period;
}

/* The kernel's own [vdso] mappings are replaced by ours, which carry the
 * saved copy (the vDSO is in no file). */
static int amend_event(void *ctx, struct hwtr_sideband_event *ev)
{
	(void)ctx;
	if (ev->kind == hwtr_ev_mmap && ev->path && !strcmp(ev->path, "[vdso]")
	    && !ev->saved)
		ev->prot &= ~HWTR_PROT_EXEC;
	return 0;
}

static int ops_open(void *ctx, struct pt_session_thread *t, bool enable)
{
	struct perf_recorder *r = ctx;

	return pt_event_open(&r->cfg, t, enable);
}

static void ops_close(void *ctx, struct pt_session_thread *t)
{
	(void)ctx;
	pt_event_close(t);
}

static const struct pt_session_ops recorder_ops = {
	.open = ops_open,
	.close = ops_close,
	.event = amend_event,
};

/* Save the vDSO of PID (from /proc/PID/maps and /proc/PID/mem). */
static void save_vdso(struct perf_recorder *r, pid_t pid)
{
	char path[64], line[512];
	uint64_t lo = 0, hi = 0;
	FILE *maps;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2)
			break;
	fclose(maps);
	if (hi <= lo || hi - lo > (1u << 20))
		return;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		size_t n = hi - lo;
		uint8_t *bytes = malloc(n);

		if (bytes && pread(fd, bytes, n, (off_t)lo) == (ssize_t)n)
			sideband_object(r->sb, lo, bytes, n,
					pt_session_time(r->session, __rdtsc()));
		free(bytes);
		close(fd);
	}
}

/* -p: the mappings that already exist, at time 0. */
static void seed_mappings(struct perf_recorder *r, pid_t pid)
{
	char path[64], line[4096];
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		uint64_t lo, hi, off;
		char perms[8], file[4096] = "";

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %*s %4095[^\n]", &lo, &hi, perms, &off,
			   file) < 4 || perms[2] != 'x')
			continue;
		if (file[0] == '/')
			sideband_mmap(r->sb, lo, hi - lo, off,
				      HWTR_PROT_READ | HWTR_PROT_EXEC, file, 0);
	}
	fclose(maps);
}

static int drain(struct perf_recorder *r)
{
	int err;

	if (r->failed)
		return 0;
	if ((err = pt_session_drain(r->session))) {
		fprintf(stderr, "hwtrec record: %s; the recording is kept up to "
			"there, the program keeps running\n", hwtr_last_error());
		r->failed = true;
	}
	return err;
}

/* Wait for a ptrace event while draining the rings. */
static pid_t wait_any(struct perf_recorder *r, int *status)
{
	for (;;) {
		size_t n = pt_session_nthreads(r->session), i, k = 0;
		struct pollfd *fds = calloc(n + 1, sizeof(*fds));
		pid_t w = waitpid(-1, status, __WALL | WNOHANG);

		if (w != 0) {
			free(fds);
			return w;
		}
		for (i = 0; fds && i < n; i++) {
			const struct pt_session_thread *t =
				pt_session_thread(r->session, i);

			if (!t->closed && t->fd >= 0)
				fds[k++] = (struct pollfd){ t->fd, POLLIN, 0 };
		}
		poll(fds, k, DRAIN_MS);
		free(fds);
		drain(r);
		if (interrupted)
			return 0;
	}
}

/* Run the tracees until the process ends (or ^C with -p). */
static int trace_loop(struct perf_recorder *r, int *exit_status)
{
	for (;;) {
		int status = 0;
		pid_t w = wait_any(r, &status);
		int sig = 0;

		if (w == 0)
			return 1;	/* interrupted */
		if (w < 0)
			return errno == ECHILD ? 0 : -1;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (w == r->pid) {
				*exit_status = status;
				return 0;
			}
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		switch (status >> 8) {
		case SIGTRAP | (PTRACE_EVENT_CLONE << 8): {
			unsigned long tid = 0;

			ptrace(PTRACE_GETEVENTMSG, w, 0, &tid);
			if (!r->failed &&
			    pt_session_follow(r->session, (uint32_t)tid, __rdtsc(),
					      true)) {
				fprintf(stderr, "hwtrec record: %s\n",
					hwtr_last_error());
				r->failed = true;
			}
			break;
		}
		case SIGTRAP | (PTRACE_EVENT_EXEC << 8):
			drain(r);
			save_vdso(r, w);
			break;
		case SIGTRAP | (PTRACE_EVENT_STOP << 8):
			break;
		default:
			sig = WSTOPSIG(status);
			/* A new thread's first stop, and our own stops, are
			 * not the program's signals. */
			if (sig == SIGSTOP)
				sig = 0;
			break;
		}
		ptrace(PTRACE_CONT, w, 0, (void *)(long)sig);
	}
}

static int start_program(struct perf_recorder *r, const struct record_request *req)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		execv(req->program, req->argv);
		fprintf(stderr, "hwtrec record: %s: %s\n", req->program,
			strerror(errno));
		_exit(EXIT_NOEXEC);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		kill(pid, SIGKILL);
		return -1;
	}
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
	r->pid = pid;
	return 0;
}

static int attach_process(struct perf_recorder *r, pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "hwtrec record: -p %d: %s\n", (int)pid,
			strerror(errno));
		return -1;
	}
	r->pid = pid;
	while ((e = readdir(d))) {
		long tid = strtol(e->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (ptrace(PTRACE_SEIZE, (pid_t)tid, 0,
			   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC) < 0) {
			fprintf(stderr, "hwtrec record: -p %d: cannot attach to "
				"thread %ld: %s\n", (int)pid, tid, strerror(errno));
			continue;
		}
		if (pt_session_follow(r->session, (uint32_t)tid, 0, true)) {
			fprintf(stderr, "hwtrec record: %s\n", hwtr_last_error());
			closedir(d);
			return -1;
		}
		n++;
	}
	closedir(d);
	/* Threads first: their starts are at time 0, the mappings too. */
	seed_mappings(r, pid);
	save_vdso(r, pid);
	return n ? 0 : -1;
}

static void detach_all(struct perf_recorder *r)
{
	size_t i;

	for (i = 0; i < pt_session_nthreads(r->session); i++) {
		pid_t tid = (pid_t)pt_session_thread(r->session, i)->tid;
		int st;

		/* A seized thread must be stopped to be detached. */
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == 0 &&
		    waitpid(tid, &st, __WALL) == tid)
			ptrace(PTRACE_DETACH, tid, 0, 0);
	}
}

struct source_run {
	struct perf_recorder r;
	bool attached;
	bool let_go;		/* attached, and ^C ended the recording */
	char name[4096];
};

static void perf_free(struct source_run *run)
{
	if (!run)
		return;
	pt_session_free(run->r.session);
	sideband_free(run->r.sb);
	hwtr_writer_free(run->r.writer);
	free(run);
}

static int perf_start(const struct record_request *req,
		      struct source_run **out)
{
	struct source_run *run;
	struct perf_recorder *r;
	struct hwtr_writer_info info = { .source = "linux-perf" };
	char why[512];

	if (!perf_available(why, sizeof(why))) {
		fprintf(stderr, "hwtrec record: the perf source cannot record "
			"here: %s\n", why);
		return EXIT_RECORDER;
	}
	if (req->from || req->options.max_size) {
		fprintf(stderr, "hwtrec record: --%s is not supported by the "
			"perf source yet; use --source=valgrind\n",
			req->from ? "from" : "max-size");
		return 2;
	}
	if (!(run = calloc(1, sizeof(*run))))
		return EXIT_RECORDER;
	r = &run->r;
	run->attached = req->pid != 0;
	if (perf_pmu_read(PERF_PMU_DEVICES, "intel_pt", &r->cfg.pmu)) {
		fprintf(stderr, "hwtrec record: %s\n", hwtr_last_error());
		free(run);
		return EXIT_RECORDER;
	}
	r->cfg.ret_compression = req->options.ret_compression;
	r->cfg.psb_period = req->options.psb_period;
	r->cfg.data_pages = DATA_PAGES;
	r->cfg.aux_bytes = AUX_BYTES;
	cpu_config(&info.pt, req->options.ret_compression,
		   req->options.psb_period);
	if (req->pid) {
		r->pid = req->pid;
	} else if (start_program(r, req) < 0) {
		fprintf(stderr, "hwtrec record: cannot start %s under ptrace: "
			"%s\n", req->program, strerror(errno));
		free(run);
		return EXIT_RECORDER;
	}
	record_name(req, r->pid, run->name, sizeof(run->name));
	info.pid = r->pid;
	info.executable = req->program;
	info.argc = 0;
	while (req->argv && req->argv[info.argc])
		info.argc++;
	info.argv = (const char *const *)req->argv;
	if (hwtr_writer_create(run->name, &info, &r->writer) ||
	    !(r->sb = sideband_new(r->writer)) ||
	    pt_session_new(r->writer, (uint32_t)r->pid, &recorder_ops, r,
			   &r->session)) {
		fprintf(stderr, "hwtrec record: %s\n", hwtr_last_error());
		perf_free(run);
		return EXIT_RECORDER;
	}
	if (req->pid) {
		if (attach_process(r, req->pid) < 0) {
			perf_free(run);
			return EXIT_RECORDER;
		}
	} else if (pt_session_follow(r->session, (uint32_t)r->pid, 0, false)) {
		fprintf(stderr, "hwtrec record: %s\n", hwtr_last_error());
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
		perf_free(run);
		return EXIT_RECORDER;
	}
	interrupted = 0;
	*out = run;
	return 0;
}

static pid_t perf_program(const struct source_run *run)
{
	return run->attached ? 0 : run->r.pid;
}

static void perf_interrupt(void)
{
	interrupted = 1;
}

static void perf_drain(struct source_run *run, struct source_result *res)
{
	if (!run->attached)
		ptrace(PTRACE_CONT, run->r.pid, 0, 0);
	if (trace_loop(&run->r, &res->status) > 0)
		run->let_go = true;
	else
		res->ended = true;
}

static void perf_finish(struct source_run *run, struct source_result *res)
{
	pt_session_finish(run->r.session);
	if (run->let_go)
		detach_all(&run->r);
	res->name = run->name;
	res->writer = run->r.writer;
	res->threads = pt_session_nthreads(run->r.session);
	res->losses = pt_session_losses(run->r.session);
}

const struct record_source record_source_perf = {
	.name = "perf",
	.summary = "Intel PT from the CPU through Linux perf_event",
	.can_attach = true,
	.available = perf_available,
	.start = perf_start,
	.program = perf_program,
	.interrupt = perf_interrupt,
	.drain = perf_drain,
	.finish = perf_finish,
	.free = perf_free,
};
