/* standin-kernel.c: a stand-in for FreeBSD's hwt(4) kernel side, serving the
 * ioctl protocol with the kernel's semantics, behind the hwt source's seam
 * (kernel/freebsd/hwt-sys.h).  It is linked into the test suite's hwtrec
 * (hwtrec-standin) in place of the real system; the hwt source runs on it
 * unchanged.
 *
 * Modelled on sys/dev/hwt (hwt_ioctl.c, hwt_vm.c, hwt_record.c,
 * hwt_config.c), sys/amd64/pt/pt.c and, for the coresight backend, the hwt
 * development trees' sys/arm64/coresight (doc/recording-freebsd.md):
 *   - /dev/hwt takes ALLOC only (else ENXIO).  ALLOC: bufsize a page multiple
 *     and at most 32 GiB (EINVAL), backend name NULL (EINVAL), unknown
 *     backend (ENODEV), mode other than thread or CPU (ENXIO), CPU mode not
 *     modelled (ENODEV, as with an empty CPU map), the owner already has the
 *     pid or another context traces it (EEXIST; across processes through a
 *     lock file per pid, the kernel's context hash being global), no such
 *     process or a zombie (ENXIO), credentials (EPERM: our euid must be one
 *     of the target's uids, all its groups ours).  One node and one buffer
 *     per thread, a THREAD_CREATE record each.
 *   - A node's ioctls need the caller to own the context: ENXIO if it owns
 *     nothing, EPERM if it owns another.  START: ENXIO if running; without a
 *     prior successful SET_CONFIG the real kernel dereferences a NULL config
 *     at the next switch-in, so the stand-in panics: it says so on stderr,
 *     leaves DIR/PANIC and aborts, failing whatever test issued it.  STOP:
 *     ENXIO if stopped.  RECORD_GET: nentries 1..1024 (ENXIO), FIFO, with
 *     wait sleeping until a record comes (or, as a signal would end the
 *     kernel's msleep, until the traced process ends, or 50 ms pass).
 *     BUFPTR_GET: page and offset of the last PMI or switch-out, no lap
 *     counter.  SET_CONFIG: ENXIO while running, size 0 a no-op, over a page
 *     EFBIG.  WAKEUP releases the thread held at an exec or mmap.  Any other
 *     request returns 0, as the kernel's switch does.
 *   - mmap of a node: PROT_READ only and offset 0 (ENXIO), MAP_SHARED
 *     (EINVAL: no private mappings of a device), length bufsize (ENXIO): a
 *     real read-only shared mapping of the buffer (a memfd).
 *   - coresight (HWT_STANDIN_MODULES with coresight, a capture to play:
 *     standin-etm.c): ALLOC takes the backend, SET_CONFIG keeps the blob as
 *     it is (the ETM driver checks its size and version at switch-in), START
 *     without one takes the driver's default rather than crashing,
 *     BUFPTR_GET on any node reads the ETR's write pointer in thread 0's
 *     buffer, no BUFFER records; the ETM driver's ID registers are sysctls.
 * Behaviour is set by environment variables (README.md): modules loaded,
 * CPU support, HWT_HOOKS, node permissions, a slow reader or a paced writer
 * (one that never runs far ahead of the owner's reading), and where the
 * stand-in's files go (DIR: the FIFOs, Valgrind's log, the panic marker,
 * standin.log, and the complete streams when HWT_STANDIN_DUMP is set).
 */
#define _GNU_SOURCE
#include "standin.h"
#include "../../kernel/valgrind/host/pt-encoder.h"
#include "../../kernel/valgrind/host/valgrind-source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t standin_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t standin_cond = PTHREAD_COND_INITIALIZER;
struct standin_config standin_config;

enum dev_kind { DEV_HWT, DEV_NODE };

struct sdev {
	int fd;
	enum dev_kind kind;
	struct sctx *ctx;
	int index;
};

static struct sdev *devs;
static size_t ndevs;
static struct sctx **ctxs;
static size_t nctxs;
static int next_ident;
static pid_t caller_override;
static pthread_once_t once = PTHREAD_ONCE_INIT;

void standin_set_caller(pid_t pid)
{
	caller_override = pid;
}

static pid_t caller(void)
{
	return caller_override ? caller_override : getpid();
}

void standin_log(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/standin.log", standin_config.dir);
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "[%d] ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static void cleanup_at_exit(void);

static void init(void)
{
	struct standin_config *c = &standin_config;
	const char *modules = getenv("HWT_STANDIN_MODULES");
	const char *dir = getenv("HWT_STANDIN_DIR");
	const char *delay = getenv("HWT_STANDIN_RECORD_DELAY_MS");
	const char *fetch_delay = getenv("HWT_STANDIN_FETCH_DELAY_MS");

	if (!modules)
		modules = "hwt,intel_pt";
	c->cpu_has_pt = !env_is("HWT_STANDIN_CPU", "none");
	c->hwt_loaded = listed(modules, "hwt");
	/* intel_pt refuses to load (ENXIO) on a CPU without PT. */
	c->pt_loaded = listed(modules, "intel_pt") && c->cpu_has_pt;
	c->hooks = !env_is("HWT_STANDIN_HOOKS", "0");
	c->dev_denied = env_is("HWT_STANDIN_NODES", "denied");
	c->thread_race = env_is("HWT_STANDIN_THREAD_RACE", "1");
	c->paced = env_is("HWT_STANDIN_PACED", "1");
	c->record_delay_ms = delay ? (unsigned)atoi(delay) : 0;
	c->lapped = env_is("HWT_STANDIN_LAPPED", "1");
	c->fetch_delay_ms = fetch_delay ? (unsigned)atoi(fetch_delay) : 0;
	c->dump = getenv("HWT_STANDIN_DUMP") != NULL;
	c->coresight_loaded = listed(modules, "coresight");
	c->etm_capture = getenv("HWT_STANDIN_ETM");
	c->etm_source = getenv("HWT_STANDIN_ETM_SOURCE");
	c->etm_page_us = getenv("HWT_STANDIN_ETM_PAGE_US")
				 ? (unsigned)atoi(getenv("HWT_STANDIN_ETM_PAGE_US"))
				 : 2000;
	c->etm_paced_bytes = getenv("HWT_STANDIN_ETM_PACED_BYTES")
		? strtoull(getenv("HWT_STANDIN_ETM_PACED_BYTES"), NULL, 0) : 0;
	if (dir)
		snprintf(c->dir, sizeof(c->dir), "%s", dir);
	else
		snprintf(c->dir, sizeof(c->dir), "%s/hwt-standin-%d",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			 (int)getuid());
	mkdir(c->dir, 0700);
	atexit(cleanup_at_exit);
}

static void lazy_init(void)
{
	pthread_once(&once, init);
}

/* ------------------------------------------------------------- devices */

static struct sdev *dev_of(int fd)
{
	size_t i;

	for (i = 0; i < ndevs; i++)
		if (devs[i].fd == fd)
			return &devs[i];
	return NULL;
}

/* A real descriptor (of /dev/null) stands for the device, so that a call
 * that bypassed the seam would fail visibly rather than hit another file. */
static int dev_add(enum dev_kind kind, struct sctx *ctx, int index)
{
	struct sdev *v;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	v = realloc(devs, (ndevs + 1) * sizeof(*v));
	if (!v) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	devs = v;
	devs[ndevs++] = (struct sdev){ fd, kind, ctx, index };
	return fd;
}

static struct sctx *ctx_by_ident(int ident)
{
	size_t i;

	for (i = 0; i < nctxs; i++)
		if (ctxs[i]->ident == ident)
			return ctxs[i];
	return NULL;
}

static int standin_open(const char *path, int flags)
{
	int ident, index, fd;
	struct sctx *ctx;
	char tail;

	lazy_init();
	pthread_mutex_lock(&standin_lock);
	if (!strcmp(path, HWT_ABI_DEV)) {
		if (!standin_config.hwt_loaded) {
			errno = ENOENT;
			fd = -1;
		} else if (standin_config.dev_denied) {
			errno = EACCES;
			fd = -1;
		} else {
			fd = dev_add(DEV_HWT, NULL, -1);
		}
	} else if (sscanf(path, "/dev/hwt_%d_%d%c", &ident, &index, &tail) == 2 &&
		   (ctx = ctx_by_ident(ident)) && index >= 0 &&
		   (size_t)index < ctx->nthreads) {
		if (standin_config.dev_denied) {
			errno = EACCES;
			fd = -1;
		} else {
			fd = dev_add(DEV_NODE, ctx, index);
		}
	} else {
		errno = ENOENT;
		fd = -1;
	}
	pthread_mutex_unlock(&standin_lock);
	return fd;
}

static int standin_close(int fd)
{
	struct sdev *d;
	int rc = -1;

	pthread_mutex_lock(&standin_lock);
	d = dev_of(fd);
	if (d) {
		*d = devs[--ndevs];
		rc = close(fd);
	} else {
		errno = EBADF;
	}
	pthread_mutex_unlock(&standin_lock);
	return rc;
}

/* ------------------------------------------------------------- threads */

struct sthread *standin_thread_new(struct sctx *ctx, uint32_t lwpid)
{
	struct sthread *t = calloc(1, sizeof(*t));
	struct sthread **v;
	char name[64];

	if (!t)
		return NULL;
	v = realloc(ctx->threads, (ctx->nthreads + 1) * sizeof(*v));
	if (!v) {
		free(t);
		return NULL;
	}
	ctx->threads = v;
	snprintf(name, sizeof(name), "hwt_%d_%zu", ctx->ident, ctx->nthreads);
	t->memfd = memfd_create(name, MFD_CLOEXEC);
	if (t->memfd < 0 || ftruncate(t->memfd, (off_t)ctx->bufsize) < 0) {
		if (t->memfd >= 0)
			close(t->memfd);
		free(t);
		return NULL;
	}
	t->mem = mmap(NULL, ctx->bufsize, PROT_READ | PROT_WRITE, MAP_SHARED,
		      t->memfd, 0);
	if (t->mem == MAP_FAILED) {
		close(t->memfd);
		free(t);
		return NULL;
	}
	t->ctx = ctx;
	t->index = (int)ctx->nthreads;
	t->lwpid = lwpid;
	if (standin_config.dump) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/stream.%u", standin_config.dir,
			 lwpid);
		t->dump = fopen(path, "w");
	}
	ctx->threads[ctx->nthreads++] = t;
	return t;
}

static void thread_free(struct sthread *t, size_t bufsize)
{
	if (t->dump)
		fclose(t->dump);
	munmap(t->mem, bufsize);
	close(t->memfd);
	free(t);
}

/* ------------------------------------------------------------- records */

void standin_queue(struct sctx *ctx, const struct hwt_abi_record *rec)
{
	if (ctx->qlen == ctx->qcap) {
		size_t cap = ctx->qcap ? 2 * ctx->qcap : 64, i;
		struct hwt_abi_record *v = malloc(cap * sizeof(*v));

		if (!v)
			abort();	/* the kernel's queue has no limit */
		for (i = 0; i < ctx->qlen; i++)
			v[i] = ctx->queue[(ctx->qhead + i) % ctx->qcap];
		free(ctx->queue);
		ctx->queue = v;
		ctx->qhead = 0;
		ctx->qcap = cap;
	}
	ctx->queue[(ctx->qhead + ctx->qlen) % ctx->qcap] = *rec;
	ctx->qlen++;
	pthread_cond_broadcast(&standin_cond);
}

bool standin_real_gone(const struct sctx *ctx)
{
	return ctx->reaped || (kill(ctx->pid, 0) < 0 && errno == ESRCH);
}

/* The process has ended when its whole log is in the buffers: the model's
 * time is the log's, which runs behind the real process. */
static bool ended(const struct sctx *ctx)
{
	return ctx->feed_done || (!ctx->feeder_running && standin_real_gone(ctx));
}

/* ---------------------------------------------------------------- ALLOC */

/* The uid and gid lines and the groups of PID (from /proc). */
struct creds {
	unsigned long uid[3], gid[3];	/* real, effective, saved */
	unsigned long groups[256];
	size_t ngroups;
	char state;
};

static int read_creds(pid_t pid, struct creds *c)
{
	char path[64], line[4096];
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %lu %lu %lu", &c->uid[0], &c->uid[1],
			   &c->uid[2]) == 3)
			continue;
		if (sscanf(line, "Gid: %lu %lu %lu", &c->gid[0], &c->gid[1],
			   &c->gid[2]) == 3)
			continue;
		if (sscanf(line, "State: %c", &c->state) == 1)
			continue;
		if (!strncmp(line, "Groups:", 7)) {
			char *p = line + 7, *e;

			while (c->ngroups < 256) {
				unsigned long g = strtoul(p, &e, 10);

				if (e == p)
					break;
				c->groups[c->ngroups++] = g;
				p = e;
			}
		}
	}
	fclose(f);
	return 0;
}

static bool our_group(unsigned long g)
{
	gid_t groups[256];
	int n = getgroups(256, groups), i;

	if (g == (unsigned long)getegid())
		return true;
	for (i = 0; i < n; i++)
		if (groups[i] == (gid_t)g)
			return true;
	return false;
}

/* hwt_priv_check(): our euid one of its uids, every group of its ours. */
static int priv_check(const struct creds *t)
{
	unsigned long euid = geteuid();
	size_t i;

	if (euid != t->uid[0] && euid != t->uid[1] && euid != t->uid[2])
		return EPERM;
	for (i = 0; i < t->ngroups; i++)
		if (!our_group(t->groups[i]))
			return EPERM;
	for (i = 0; i < 3; i++)
		if (!our_group(t->gid[i]))
			return EPERM;
	return 0;
}

/* The kernel's context hash is global: a lock file per traced pid lets two
 * hwtrec processes see each other's contexts. */
static int claim_pid(pid_t pid)
{
	char path[PATH_MAX], text[32];
	int fd, tries;

	snprintf(path, sizeof(path), "%s/traced.%d", standin_config.dir, (int)pid);
	for (tries = 0; tries < 2; tries++) {
		ssize_t n;

		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			snprintf(text, sizeof(text), "%d\n", (int)getpid());
			n = write(fd, text, strlen(text));
			close(fd);
			return n > 0 ? 0 : EIO;
		}
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			pid_t owner;

			n = read(fd, text, sizeof(text) - 1);
			close(fd);
			text[n > 0 ? n : 0] = 0;
			owner = (pid_t)atoi(text);
			if (owner > 0 && (kill(owner, 0) == 0 || errno == EPERM))
				return EEXIST;
		}
		unlink(path);	/* its owner is gone: the context went too */
	}
	return EEXIST;
}

static void release_pid(pid_t pid)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/traced.%d", standin_config.dir, (int)pid);
	unlink(path);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A foreign process's threads: /proc/PID/task, oldest (lowest tid) first. */
static size_t proc_threads(pid_t pid, uint32_t *out, size_t max)
{
	char path[64];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d)) && n < max)
		if (e->d_name[0] != '.')
			out[n++] = (uint32_t)atoi(e->d_name);
	if (d)
		closedir(d);
	qsort(out, n, sizeof(*out), cmp_u32);
	return n;
}

static int ioctl_alloc(struct hwt_abi_alloc *a)
{
	char name[HWT_ABI_BACKEND_MAXNAMELEN];
	uint32_t tids[1024];
	struct creds cr;
	struct sctx *ctx;
	size_t i, n;
	int err;

	if (a->bufsize > HWT_ABI_MAXBUFSIZE || a->bufsize % STANDIN_PAGE ||
	    !a->backend_name)
		return EINVAL;
	if (strnlen(a->backend_name, sizeof(name)) == sizeof(name))
		return ENAMETOOLONG;	/* copyinstr */
	snprintf(name, sizeof(name), "%s", a->backend_name);
	if (!strcmp(name, "coresight")) {
		char why[1024];

		/* Registered when a TMC-ETR attaches; here, when there is a
		 * capture to play as its trace. */
		if (!standin_config.coresight_loaded)
			return ENODEV;
		if (standin_etm_capture(why, sizeof(why)) < 0) {
			standin_log("coresight: %s", why);
			return ENODEV;
		}
	} else if (strcmp(name, "pt") || !standin_config.pt_loaded) {
		return ENODEV;
	}
	if (a->mode == HWT_ABI_MODE_CPU)
		return ENODEV;		/* not modelled: as an empty CPU map */
	if (a->mode != HWT_ABI_MODE_THREAD)
		return ENXIO;
	for (i = 0; i < nctxs; i++)
		if (ctxs[i]->owner == caller() && ctxs[i]->pid == a->pid)
			return EEXIST;
	if (a->pid <= 0 || read_creds(a->pid, &cr) < 0 || cr.state == 'Z')
		return ENXIO;
	if ((err = priv_check(&cr)))
		return err;
	for (i = 0; i < nctxs; i++)
		if (ctxs[i]->pid == a->pid)
			return EEXIST;
	if ((err = claim_pid(a->pid)))
		return err;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return release_pid(a->pid), ENOMEM;
	ctx->ident = next_ident++;
	ctx->pid = a->pid;
	ctx->owner = caller();
	ctx->bufsize = a->bufsize;
	ctx->coresight = !strcmp(name, "coresight");
	ctx->paused = -1;
	ctx->fifo_fd = -1;
	n = proc_threads(a->pid, tids, 1024);
	for (i = 0; i < n; i++) {
		struct sthread *t = standin_thread_new(ctx, tids[i]);
		struct hwt_abi_record rec = {
			.record_type = HWT_ABI_RECORD_THREAD_CREATE,
		};

		if (!t)
			return ENOMEM;	/* (the kernel leaks here too) */
		rec.thread_id = t->index;
		standin_queue(ctx, &rec);
		ctx->creates_made++;
	}
	{
		struct sctx **v = realloc(ctxs, (nctxs + 1) * sizeof(*v));

		if (!v)
			return ENOMEM;
		ctxs = v;
		ctxs[nctxs++] = ctx;
	}
	*a->ident = ctx->ident;
	standin_log("ALLOC ident %d pid %d bufsize %zu threads %zu backend %s",
		    ctx->ident, (int)ctx->pid, ctx->bufsize, n, name);
	if ((ctx->coresight ? standin_etm_feed_start(ctx)
			    : standin_feed_start(ctx)) < 0)
		return ENOMEM;
	return 0;
}

/* -------------------------------------------------------- node ioctls */

static void panic_start_without_config(struct sctx *ctx)
{
	char path[PATH_MAX];
	FILE *f;

	fprintf(stderr, "hwt stand-in: KERNEL PANIC: HWT_IOC_START on context "
		"%d without a successful HWT_IOC_SET_CONFIG: the real kernel "
		"reads ctx->config (NULL) in pt_backend_configure at the next "
		"switch-in\n", ctx->ident);
	snprintf(path, sizeof(path), "%s/PANIC", standin_config.dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "START without SET_CONFIG (context %d, pid %d)\n",
			ctx->ident, (int)ctx->pid);
		fclose(f);
	}
	standin_log("PANIC: START without SET_CONFIG on context %d", ctx->ident);
	abort();
}

/* The caller sleeps MS milliseconds, the stand-in's lock let go. */
static void sleep_ms_unlocked(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	pthread_mutex_unlock(&standin_lock);
	nanosleep(&ts, NULL);
	pthread_mutex_lock(&standin_lock);
}

static uint64_t bytes_written(const struct sctx *ctx)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < ctx->nthreads; i++)
		sum += ctx->threads[i]->pos;
	return sum;
}

/* Seconds a lapped reader waits at most for the writer (record_get). */
#define LAP_WAIT 10

/* A reader that is always lapped: it comes back for its records only once
 * the writers have written more than the buffer holds since its last
 * RECORD_GET (or the trace has ended, or a thread is held at an mmap, which
 * only the reader can end), so that losses happen whatever the machine's
 * load; a delay in milliseconds could let a slowed writer keep within it. */
static void wait_for_lap(struct sctx *ctx)
{
	uint64_t goal = ctx->lap_mark + ctx->bufsize + STANDIN_PAGE;
	struct timespec until, now;

	standin_deadline(&until, LAP_WAIT);
	while (ctx->state == SCTX_RUNNING && ctx->paused < 0 && !ended(ctx) &&
	       bytes_written(ctx) < goal) {
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > until.tv_sec ||
		    (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec)) {
			/* A test that counts on losses can say why it saw none. */
			standin_log("lapped reader: no lap after %d s (%llu of "
				    "%llu bytes written)", LAP_WAIT,
				    (unsigned long long)bytes_written(ctx),
				    (unsigned long long)goal);
			break;
		}
		sleep_ms_unlocked(2);
	}
	ctx->lap_mark = bytes_written(ctx);
}

static int record_get(struct sctx *ctx, struct hwt_abi_record_get *g)
{
	int want = *g->nentries, i;

	if (want < 1 || want > HWT_ABI_RECORD_GET_MAX)
		return ENXIO;
	/* A reader that is slow to come back for its records. */
	if (standin_config.record_delay_ms)
		sleep_ms_unlocked(standin_config.record_delay_ms);
	if (standin_config.lapped)
		wait_for_lap(ctx);
	if (g->wait && !ctx->qlen && !ended(ctx)) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		while (!ctx->qlen && !ended(ctx) &&
		       pthread_cond_timedwait(&standin_cond, &standin_lock,
					      &until) == 0)
			;
	}
	for (i = 0; i < want && ctx->qlen; i++) {
		g->records[i] = ctx->queue[ctx->qhead];
		if (g->records[i].record_type == HWT_ABI_RECORD_THREAD_CREATE)
			ctx->creates_delivered++;
		if (g->records[i].record_type == HWT_ABI_RECORD_BUFFER &&
		    (size_t)g->records[i].buf_id < ctx->nthreads)
			ctx->threads[g->records[i].buf_id]->fetched++;
		ctx->qhead = (ctx->qhead + 1) % ctx->qcap;
		ctx->qlen--;
	}
	*g->nentries = i;
	/* A paced ETR may write another quarter buffer: the owner copies
	 * after each RECORD_GET. */
	if (ctx->coresight && ctx->nthreads)
		ctx->etm_quota = ctx->threads[0]->pos + ctx->bufsize / 4;
	pthread_cond_broadcast(&standin_cond);
	/* A reader descheduled between taking its records and copying what
	 * they report, as a loaded machine may do to it. */
	if (standin_config.fetch_delay_ms && i)
		sleep_ms_unlocked(standin_config.fetch_delay_ms);
	return 0;
}

static int node_ioctl(struct sdev *d, unsigned long request, void *arg)
{
	struct sctx *ctx = d->ctx;
	struct sthread *t = ctx->threads[d->index];
	size_t i;
	bool owner = false;

	for (i = 0; i < nctxs; i++)
		owner |= ctxs[i]->owner == caller();
	if (!owner)
		return ENXIO;
	if (ctx->owner != caller())
		return EPERM;
	switch (request) {
	case HWT_ABI_IOC_START:
		if (ctx->state == SCTX_RUNNING)
			return ENXIO;
		ctx->starts++;
		/* (The ETM driver takes its default configuration instead.) */
		if (!ctx->configured && !ctx->coresight)
			panic_start_without_config(ctx);
		ctx->state = SCTX_RUNNING;
		standin_log("START context %d", ctx->ident);
		pthread_cond_broadcast(&standin_cond);
		return 0;
	case HWT_ABI_IOC_STOP:
		if (ctx->state == SCTX_STOPPED)
			return ENXIO;
		ctx->state = SCTX_STOPPED;
		for (i = 0; i < ctx->nthreads; i++)
			standin_switch_out(ctx->threads[i]);
		return 0;
	case HWT_ABI_IOC_RECORD_GET:
		return record_get(ctx, arg);
	case HWT_ABI_IOC_BUFPTR_GET: {
		struct hwt_abi_bufptr_get *g = arg;
		uint64_t at;

		/* coresight: the one TMC-ETR's write pointer, in thread 0's
		 * buffer, whichever node is asked. */
		if (ctx->coresight)
			t = ctx->threads[0];
		at = t->visible % ctx->bufsize;

		if (g->ident)
			*g->ident = (int)(at / STANDIN_PAGE);
		if (g->offset)
			*g->offset = at % STANDIN_PAGE;
		if (g->data)
			*g->data = 0;
		return 0;
	}
	case HWT_ABI_IOC_SET_CONFIG: {
		struct hwt_abi_set_config *sc = arg;

		if (ctx->state == SCTX_RUNNING)
			return ENXIO;
		if (sc->config_size == 0)
			return 0;	/* and pause_on_mmap is not latched */
		if (sc->config_size > HWT_ABI_MAXCONFIGSIZE)
			return EFBIG;
		if (ctx->coresight) {
			memcpy(ctx->etm_config, sc->config, sc->config_size);
			ctx->etm_config_size = sc->config_size;
			ctx->etm_config_version = sc->config_version;
			ctx->configured = true;
			ctx->pause_on_mmap = sc->pause_on_mmap != 0;
			standin_log("SET_CONFIG context %d coresight %zu bytes "
				    "version %d pause_on_mmap %d", ctx->ident,
				    sc->config_size, sc->config_version,
				    ctx->pause_on_mmap);
			return 0;
		}
		/* Passed to the backend unchecked; it reads a pt_cpu_config
		 * at switch-in, whatever the size said. */
		memset(&ctx->config, 0, sizeof(ctx->config));
		memcpy(&ctx->config, sc->config,
		       sc->config_size < sizeof(ctx->config) ? sc->config_size
							     : sizeof(ctx->config));
		ctx->configured = true;
		ctx->pause_on_mmap = sc->pause_on_mmap != 0;
		standin_log("SET_CONFIG context %d rtit_ctl %#llx pause_on_mmap "
			    "%d", ctx->ident,
			    (unsigned long long)ctx->config.rtit_ctl,
			    ctx->pause_on_mmap);
		return 0;
	}
	case HWT_ABI_IOC_WAKEUP:
		if (ctx->paused == d->index) {
			ctx->paused = -1;
			pthread_cond_broadcast(&standin_cond);
		}
		return 0;
	default:
		return 0;
	}
}

static int standin_ioctl(int fd, unsigned long request, void *arg)
{
	struct sdev *d;
	int err;

	lazy_init();
	pthread_mutex_lock(&standin_lock);
	d = dev_of(fd);
	if (!d)
		err = EBADF;
	else if (d->kind == DEV_HWT)
		err = request == HWT_ABI_IOC_ALLOC ? ioctl_alloc(arg) : ENXIO;
	else
		err = node_ioctl(d, request, arg);
	pthread_mutex_unlock(&standin_lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- mmap */

static void *standin_mmap(void *addr, size_t len, int prot, int flags, int fd,
			  off_t offset)
{
	struct sdev *d;
	void *p = MAP_FAILED;
	int err = 0;

	pthread_mutex_lock(&standin_lock);
	d = dev_of(fd);
	if (!d || d->kind != DEV_NODE)
		err = d ? ENODEV : EBADF;
	else if (prot != PROT_READ || offset != 0)
		err = ENXIO;		/* hwt_vm_mmap_single */
	else if (!(flags & MAP_SHARED) || (flags & MAP_PRIVATE))
		err = EINVAL;		/* vm_mmap_cdev */
	else if (len != d->ctx->bufsize)
		err = ENXIO;
	else
		p = mmap(addr, len, PROT_READ, MAP_SHARED,
			 d->ctx->threads[d->index]->memfd, 0);
	pthread_mutex_unlock(&standin_lock);
	if (err)
		errno = err;
	return p;
}

static int standin_munmap(void *addr, size_t len)
{
	return munmap(addr, len);
}

/* ------------------------------------------------------- process side */

/* In the forked child: Valgrind with the hwtrec tool, whose event log goes
 * to the FIFO that ALLOC made for this pid. */
static void standin_exec(const char *program, char *const argv[])
{
	struct record_options opt = {
		.psb_period = 2048,	/* PSBFreq 0: the backend sets none */
		.ret_compression = true,
		.no_data = true,	/* hwt(4) traces control flow only */
	};
	char fifo[PATH_MAX];
	struct stat st;

	lazy_init();
	/* The coresight backend plays a capture: the child only waits.  (It
	 * was forked before the ALLOC; the ALLOC's FIFOs say which.) */
	snprintf(fifo, sizeof(fifo), "%s/etm-done.%d", standin_config.dir,
		 (int)getpid());
	if (stat(fifo, &st) == 0)
		standin_etm_exec();
	snprintf(fifo, sizeof(fifo), "%s/fifo.%d", standin_config.dir,
		 (int)getpid());
	valgrind_exec(fifo, standin_config.dir, &opt, NULL, program, argv);
}

static struct sctx *ctx_of_pid(pid_t pid)
{
	size_t i;

	for (i = 0; i < nctxs; i++)
		if (ctxs[i]->pid == pid)
			return ctxs[i];
	return NULL;
}

/* waitpid for the traced child: it has ended once the real process is gone
 * and its log is consumed (until then, WNOHANG says "not yet"). */
static pid_t standin_waitpid(pid_t pid, int *status, int options)
{
	struct sctx *ctx;
	pid_t r;
	int st;

	lazy_init();
	pthread_mutex_lock(&standin_lock);
	ctx = ctx_of_pid(pid);
	if (!ctx || !ctx->feeder_running) {
		pthread_mutex_unlock(&standin_lock);
		return waitpid(pid, status, options);
	}
	if (!ctx->reaped) {
		pthread_mutex_unlock(&standin_lock);
		r = waitpid(pid, &st, options);
		pthread_mutex_lock(&standin_lock);
		if (r != pid) {
			pthread_mutex_unlock(&standin_lock);
			return r;
		}
		ctx->reaped = true;
		ctx->status = st;
		pthread_cond_broadcast(&standin_cond);
	}
	if (!ctx->feed_done && (options & WNOHANG)) {
		pthread_mutex_unlock(&standin_lock);
		return 0;
	}
	standin_feed_settle(ctx);
	if (status)
		*status = ctx->status;
	pthread_mutex_unlock(&standin_lock);
	return pid;
}

static int proc_maps(pid_t pid, struct hwt_vm_entry **out, size_t *n)
{
	char path[64], line[4096];
	struct hwt_vm_entry *v = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], file[1024] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %1023[^\n]", &s, &e,
			   perms, &off, file) < 4)
			continue;
		if (*n == cap) {
			struct hwt_vm_entry *w;

			cap = cap ? 2 * cap : 64;
			w = realloc(v, cap * sizeof(*v));
			if (!w)
				break;
			v = w;
		}
		memset(&v[*n], 0, sizeof(v[*n]));
		v[*n].start = s;
		v[*n].end = e;
		v[*n].offset = off;
		v[*n].prot = (perms[0] == 'r' ? HWTR_PROT_READ : 0) |
			     (perms[1] == 'w' ? HWTR_PROT_WRITE : 0) |
			     (perms[2] == 'x' ? HWTR_PROT_EXEC : 0);
		if (file[0] == '/')
			snprintf(v[*n].path, sizeof(v[*n].path), "%s", file);
		(*n)++;
	}
	fclose(f);
	*out = v;
	return 0;
}

/* kinfo_getvmmap: the mappings the tool reported for a traced process. */
static int standin_vmmap(pid_t pid, struct hwt_vm_entry **out, size_t *n)
{
	struct sctx *ctx;
	size_t i;
	int rc = 0;

	lazy_init();
	pthread_mutex_lock(&standin_lock);
	ctx = ctx_of_pid(pid);
	/* A process not under the tool (attached to): the real map. */
	if (ctx && !ctx->fed)
		ctx = NULL;
	if (ctx && ctx->nmaps) {
		*out = calloc(ctx->nmaps + 1, sizeof(**out));
		if (!*out) {
			errno = ENOMEM;
			rc = -1;
		} else {
			for (i = 0; i < ctx->nmaps; i++) {
				(*out)[i].start = ctx->maps[i].start;
				(*out)[i].end = ctx->maps[i].end;
				(*out)[i].offset = ctx->maps[i].offset;
				(*out)[i].prot = ctx->maps[i].prot;
				snprintf((*out)[i].path, sizeof((*out)[i].path),
					 "%s", ctx->maps[i].path);
			}
			*n = ctx->nmaps;
		}
	} else if (ctx && ended(ctx)) {
		errno = ESRCH;
		rc = -1;
	} else if (ctx) {
		*out = NULL;
		*n = 0;
	} else {
		rc = proc_maps(pid, out, n);
	}
	pthread_mutex_unlock(&standin_lock);
	return rc;
}

/* The kernel's thread list (p_threads: creation order), live threads only. */
static int standin_threads(pid_t pid, uint32_t *out, size_t max, size_t *n)
{
	struct sctx *ctx;
	size_t i;

	lazy_init();
	pthread_mutex_lock(&standin_lock);
	ctx = ctx_of_pid(pid);
	*n = 0;
	if (!ctx) {
		pthread_mutex_unlock(&standin_lock);
		*n = proc_threads(pid, out, max);
		if (!*n) {
			errno = ESRCH;
			return -1;
		}
		return 0;
	}
	for (i = 0; i < ctx->nthreads && *n < max && !ended(ctx); i++)
		if (!ctx->threads[i]->exited)
			out[(*n)++] = ctx->threads[i]->lwpid;
	ctx->creates_listed = ctx->creates_delivered;
	pthread_cond_broadcast(&standin_cond);
	pthread_mutex_unlock(&standin_lock);
	return 0;
}

static bool standin_module_loaded(const char *name)
{
	lazy_init();
	if (!strcmp(name, "hwt"))
		return standin_config.hwt_loaded;
	if (!strcmp(name, "intel_pt"))
		return standin_config.pt_loaded;
	if (!strcmp(name, "coresight"))
		return standin_config.coresight_loaded;
	return false;
}

static bool standin_cpu(const char *backend, struct hwtr_pt_config *pt,
			char *why, size_t size)
{
	lazy_init();
	/* An Arm CPU, whose trace units are the capture's (ALLOC and the
	 * sysctls need it). */
	if (!strcmp(backend, "coresight"))
		return true;
	if (strcmp(backend, "pt")) {
		snprintf(why, size, "the stand-in models the pt and coresight "
			 "backends only");
		return false;
	}
	if (!standin_config.cpu_has_pt) {
		snprintf(why, size, "this CPU has no Intel Processor Trace "
			 "(CPUID.7.EBX[25]) (stand-in: HWT_STANDIN_CPU=none)");
		return false;
	}
	/* The stand-in's CPU is the one the software encoder claims. */
	record_pt_config(pt, true, 2048);
	pt->tsc = false;
	return true;
}

static void cleanup_at_exit(void)
{
	size_t i, k;

	for (i = 0; i < nctxs; i++) {
		struct sctx *ctx = ctxs[i];

		standin_feed_stop(ctx);
		for (k = 0; k < ctx->nthreads; k++) {
			struct sthread *t = ctx->threads[k];

			standin_log("thread %d (lwp %u): %llu bytes written, "
				    "%llu BUFFER records, buffer %zu",
				    t->index, t->lwpid,
				    (unsigned long long)t->pos,
				    (unsigned long long)t->records,
				    ctx->bufsize);
			thread_free(t, ctx->bufsize);
		}
		standin_log("context %d: %u START", ctx->ident, ctx->starts);
		if (ctx->coresight)
			unlink(ctx->etm_done);
		release_pid(ctx->pid);
		free(ctx->threads);
		free(ctx->queue);
		free(ctx->maps);
		free(ctx);
	}
	free(ctxs);
	ctxs = NULL;
	nctxs = 0;
	for (i = 0; i < ndevs; i++)
		close(devs[i].fd);
	free(devs);
	devs = NULL;
	ndevs = 0;
}

static int standin_sysctl(const char *name, void *value, size_t *size)
{
	lazy_init();
	return standin_etm_sysctl(name, value, size);
}

static const struct hwt_sys standin = {
	.name = "stand-in",
	.open = standin_open,
	.close = standin_close,
	.ioctl = standin_ioctl,
	.mmap = standin_mmap,
	.munmap = standin_munmap,
	.exec = standin_exec,
	.waitpid = standin_waitpid,
	.vmmap = standin_vmmap,
	.threads = standin_threads,
	.module_loaded = standin_module_loaded,
	.cpu = standin_cpu,
	.sysctl = standin_sysctl,
};

const struct hwt_sys *const hwt_sys_default = &standin;
