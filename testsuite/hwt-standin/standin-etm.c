/* standin-etm.c: what the CoreSight hardware and hwt(4)'s hooks do with the
 * coresight backend, in the stand-in.
 *
 * There is no Arm machine here, and no program to trace: the trace is a
 * capture, an OpenCSD snapshot (HWT_STANDIN_ETM=DIR) of a real run, whose
 * trace source HWT_STANDIN_ETM_SOURCE (a name from the snapshot, "ETM_3")
 * stands for the traced thread.  The stand-in plays it back as the board
 * would have produced it under hwt(4):
 *   - the trace units: the snapshot's ETMv4 sources, in its device order,
 *     are the ETM driver's units; their ID registers are its
 *     dev.coresight_etm4x.UNIT.idrN sysctls (those the snapshot lacks, 0).
 *   - the process: the forked child stands for the program.  Its "exec"
 *     tells the feeder through the ALLOC's FIFO, then it waits on a second
 *     FIFO until the capture is played out, and exits 0.
 *   - exec hook: the core's first memory image is the program: the VM map
 *     gets it and an EXECUTABLE record is queued (thread held until WAKEUP
 *     with pause_on_mmap); each further image is mapped after it with an
 *     MMAP record and a hold.  Every image is a file-backed, executable
 *     mapping of its snapshot file at its snapshot address.  All of it comes
 *     before the first byte of trace: the capture does not say when each
 *     library was mapped.
 *   - switch-in: the configuration is what etm_configure() would program:
 *     TRCCONFIGR from a version-1 struct etmv4_config of the right size,
 *     the driver's default otherwise (also without SET_CONFIG: that backend
 *     does not crash).  The capture was made under the source's TRCCONFIGR;
 *     asked for another, the stand-in cannot stand in, and says so and
 *     aborts (DIR/PANIC), failing the test.  TRCTRACEIDR is the thread's hwt
 *     index + 1.
 *   - funnel, formatter and TMC-ETR: the capture is CoreSight frames; each
 *     ID byte is rewritten in place, the source's ID to the thread's and
 *     every other source's to 0 (the null ID, padding), which keeps every
 *     frame's layout and so every decoded packet where it was.  The frames go
 *     into thread 0's buffer (the backend points the ETR there), circularly,
 *     a page at a time, with no BUFFER record: BUFPTR_GET on any node reads
 *     the write pointer, exact.  Between pages the feeder sleeps
 *     HWT_STANDIN_ETM_PAGE_US (default 2000).  Paced instead (HWT_STANDIN_PACED,
 *     or for the first HWT_STANDIN_ETM_PACED_BYTES of the capture), it
 *     writes no more than a quarter of the buffer after each RECORD_GET the
 *     owner makes (the owner copies between two), so that a reader that
 *     keeps up is never lapped.  HWT_STANDIN_DUMP writes every byte to
 *     DIR/stream.LWP.
 * Not modelled: several traced threads (the capture has one), STOP halting
 * the ETR, the trace the kernel's exception levels would have filtered (the
 * capture is what the snapshot's configuration let through), timing.
 */
#define _GNU_SOURCE
#include "standin.h"
#include "../../formats/ini.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAME 16
/* etm_configure_etmv4_default(): RS, TS, CID, VMID, INSTP0 load and store,
 * all conditional instructions. */
#define DRIVER_DEFAULT_TRCCONFIGR 0x1fc6u

struct capture_image {
	char path[HWT_ABI_MAXPATHLEN];	/* it goes into records */
	uint64_t addr, len;
};

static struct {
	int err;		/* 0 loaded, -1 failed (why) */
	char why[2 * PATH_MAX + 256];
	uint8_t *trace;
	size_t size;
	unsigned source_id;	/* the source's trace ID in the capture */
	uint32_t trcconfigr;	/* ... and the configuration it ran under */
	uint32_t (*units)[HWT_ABI_ETM_NIDR];
	size_t nunits;
	struct capture_image images[16];
	size_t nimages;
} cap;
static pthread_once_t cap_once = PTHREAD_ONCE_INIT;

/* A register of a [regs] section: KEY is "NAME" or "NAME(0x...)". */
static bool reg(const struct ini_section *regs, const char *name, uint32_t *out)
{
	size_t i, n = strlen(name);

	for (i = 0; regs && i < regs->nentries; i++) {
		const char *k = regs->entries[i].key;

		if (!strncasecmp(k, name, n) && (!k[n] || k[n] == '(')) {
			*out = (uint32_t)strtoull(regs->entries[i].value, NULL, 0);
			return true;
		}
	}
	return false;
}

static const char *value(const struct ini_file *ini, const char *section,
			 const char *key)
{
	const struct ini_entry *e = ini_get(ini_section(ini, section), key);

	return e ? e->value : NULL;
}

static int bad(const char *fmt, const char *a, const char *b)
{
	snprintf(cap.why, sizeof(cap.why), fmt, a, b);
	return -1;
}

static struct ini_file *read_ini(const char *dir, const char *name)
{
	char path[PATH_MAX], err[512];
	struct ini_file *ini = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (ini_read(path, &ini, err, sizeof(err)) < 0) {
		snprintf(cap.why, sizeof(cap.why), "%s", err);
		return NULL;
	}
	return ini;
}

static int read_file(const char *path, uint8_t **bytes, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0 || !(*bytes = malloc(st.st_size + 1)) ||
	    read(fd, *bytes, st.st_size) != st.st_size) {
		if (fd >= 0)
			close(fd);
		return bad("%s: %s", path, strerror(errno ? errno : EIO));
	}
	close(fd);
	*size = (size_t)st.st_size;
	return 0;
}

/* The core's memory images: its [dumpN] sections, in order. */
static int load_images(const char *dir, const struct ini_file *core)
{
	size_t i;

	for (i = 0; i < core->nsections; i++) {
		const struct ini_section *sec = &core->sections[i];
		const struct ini_entry *file = ini_get(sec, "file");
		const struct ini_entry *addr = ini_get(sec, "address");
		const struct ini_entry *len = ini_get(sec, "length");
		struct capture_image *im;
		struct stat st;

		if (strncasecmp(sec->name, "dump", 4))
			continue;
		if (!file || !addr || cap.nimages == 16)
			return bad("%s: [%s] has no file or address, or too many",
				   core->path, sec->name);
		im = &cap.images[cap.nimages++];
		if (snprintf(im->path, sizeof(im->path), "%s/%s", dir,
			     file->value) >= (int)sizeof(im->path))
			return bad("%s/%s: longer than a record's path", dir,
				   file->value);
		if (stat(im->path, &st) < 0)
			return bad("%s: %s", im->path, strerror(errno));
		im->addr = strtoull(addr->value, NULL, 0);
		im->len = len ? strtoull(len->value, NULL, 0) : (uint64_t)st.st_size;
	}
	return cap.nimages ? 0 : bad("%s: no memory image%s", core->path, "");
}

static int load(const char *dir, const char *source)
{
	struct ini_file *snap = read_ini(dir, "snapshot.ini"), *trace = NULL;
	struct ini_file **devs = NULL;
	const struct ini_section *list;
	const char *core = NULL, *buffer, *meta, *file = NULL;
	size_t i, ndevs = 0;
	char path[PATH_MAX];
	bool found = false;
	int rc = -1;

	if (!snap)
		return -1;
	list = ini_section(snap, "device_list");
	devs = calloc(list ? list->nentries + 1 : 1, sizeof(*devs));
	if (!list || !devs) {
		bad("%s: no [device_list]%s", snap->path, "");
		goto out;
	}
	for (i = 0; i < list->nentries; i++) {
		const char *class, *type, *name;
		uint32_t (*u)[HWT_ABI_ETM_NIDR];
		char reg_name[16];
		int k;

		if (!(devs[ndevs] = read_ini(dir, list->entries[i].value)))
			goto out;
		class = value(devs[ndevs], "device", "class");
		type = value(devs[ndevs], "device", "type");
		name = value(devs[ndevs], "device", "name");
		ndevs++;
		if (!class || strcasecmp(class, "trace_source") || !type ||
		    strcasecmp(type, "ETM4"))
			continue;
		u = realloc(cap.units, (cap.nunits + 1) * sizeof(*u));
		if (!u)
			goto out;
		cap.units = u;
		memset(u[cap.nunits], 0, sizeof(u[cap.nunits]));
		for (k = 0; k < HWT_ABI_ETM_NIDR; k++) {
			snprintf(reg_name, sizeof(reg_name), "TRCIDR%d", k);
			reg(ini_section(devs[ndevs - 1], "regs"), reg_name,
			    &u[cap.nunits][k]);
		}
		cap.nunits++;
		if (name && !strcmp(name, source)) {
			const struct ini_section *regs =
				ini_section(devs[ndevs - 1], "regs");
			uint32_t id = 0;

			found = reg(regs, "TRCTRACEIDR", &id) &&
				reg(regs, "TRCCONFIGR", &cap.trcconfigr);
			cap.source_id = id & 0x7f;
		}
	}
	if (!found) {
		bad("%s: no ETMv4 source %s with TRCTRACEIDR and TRCCONFIGR",
		    dir, source);
		goto out;
	}
	meta = value(snap, "trace", "metadata");
	if (!meta || !(trace = read_ini(dir, meta))) {
		if (!meta)
			bad("%s: no [trace] metadata%s", snap->path, "");
		goto out;
	}
	buffer = value(trace, "source_buffers", source);
	list = ini_section(trace, "core_trace_sources");
	for (i = 0; list && i < list->nentries; i++)
		if (!strcmp(list->entries[i].value, source))
			core = list->entries[i].key;
	for (i = 0; buffer && i < trace->nsections; i++) {
		const struct ini_entry *n = ini_get(&trace->sections[i], "name");

		if (n && !strcmp(n->value, buffer))
			file = value(trace, trace->sections[i].name, "file");
	}
	if (!core || !file) {
		bad("%s: source %s has no core or no buffer file", trace->path,
		    source);
		goto out;
	}
	for (i = 0; i < ndevs; i++) {
		const char *name = value(devs[i], "device", "name");

		if (name && !strcmp(name, core))
			break;
	}
	if (i == ndevs) {
		bad("%s: no device for core %s", dir, core);
		goto out;
	}
	if (load_images(dir, devs[i]) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_file(path, &cap.trace, &cap.size) < 0)
		goto out;
	if (!cap.size || cap.size % FRAME) {
		bad("%s: %s is not whole 16-byte frames", path, "");
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < ndevs; i++)
		ini_free(devs[i]);
	free(devs);
	ini_free(trace);
	ini_free(snap);
	return rc;
}

static void load_once(void)
{
	const char *dir = standin_config.etm_capture;
	const char *source = standin_config.etm_source;

	if (!dir || !source) {
		cap.err = bad("the stand-in's coresight backend needs a capture "
			      "to play: HWT_STANDIN_ETM=SNAPSHOT_DIR and "
			      "HWT_STANDIN_ETM_SOURCE=NAME%s%s", "", "");
		return;
	}
	cap.err = load(dir, source);
}

int standin_etm_capture(char *why, size_t size)
{
	pthread_once(&cap_once, load_once);
	if (cap.err && why)
		snprintf(why, size, "%s", cap.why);
	return cap.err;
}

int standin_etm_sysctl(const char *name, void *out, size_t *size)
{
	int unit, n, end = 0;

	if (standin_etm_capture(NULL, 0) < 0 || !standin_config.coresight_loaded ||
	    sscanf(name, "dev.coresight_etm4x.%d.idr%d%n", &unit, &n, &end) != 2 ||
	    name[end] || unit < 0 || (size_t)unit >= cap.nunits || n < 0 ||
	    n >= HWT_ABI_ETM_NIDR) {
		errno = ENOENT;
		return -1;
	}
	if (*size < sizeof(uint32_t)) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(out, &cap.units[unit][n], sizeof(uint32_t));
	*size = sizeof(uint32_t);
	return 0;
}

/* ------------------------------------------------------------- process */

void standin_etm_exec(void)
{
	char fifo[PATH_MAX], done[PATH_MAX], c = 1;
	int fd;

	snprintf(fifo, sizeof(fifo), "%s/fifo.%d", standin_config.dir,
		 (int)getpid());
	snprintf(done, sizeof(done), "%s/etm-done.%d", standin_config.dir,
		 (int)getpid());
	fd = open(fifo, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "x", 1) != 1)
		_exit(126);
	close(fd);
	fd = open(done, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &c, 1) != 1)
		_exit(126);
	_exit((unsigned char)c);
}

/* ---------------------------------------------------------------- hooks */

static void add_image(struct sctx *ctx, const struct capture_image *im)
{
	struct smapping *v = realloc(ctx->maps, (ctx->nmaps + 1) * sizeof(*v));

	if (!v)
		abort();
	ctx->maps = v;
	v += ctx->nmaps++;
	memset(v, 0, sizeof(*v));
	v->start = im->addr & ~(uint64_t)(STANDIN_PAGE - 1);
	v->end = (im->addr + im->len + STANDIN_PAGE - 1) &
		 ~(uint64_t)(STANDIN_PAGE - 1);
	v->offset = 0;
	v->prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	snprintf(v->path, sizeof(v->path), "%s", im->path);
}

static void image_record(struct sctx *ctx, enum hwt_abi_record_type type,
			 const struct capture_image *im)
{
	struct hwt_abi_record rec = { .record_type = type };

	snprintf(rec.fullpath, sizeof(rec.fullpath), "%s", im->path);
	rec.addr = im->addr;
	standin_queue(ctx, &rec);
	standin_log("%s %s", type == HWT_ABI_RECORD_EXECUTABLE ? "EXECUTABLE"
							       : "MMAP", im->path);
	standin_hold(ctx, 0);
}

/* What etm_configure() writes to TRCCONFIGR at switch-in. */
static uint32_t programmed_trcconfigr(const struct sctx *ctx)
{
	struct hwt_abi_etmv4_config c;

	if (!ctx->configured || ctx->etm_config_size != sizeof(c) ||
	    ctx->etm_config_version != HWT_ABI_ETM_CONFIG_VERSION)
		return DRIVER_DEFAULT_TRCCONFIGR;
	memcpy(&c, ctx->etm_config, sizeof(c));
	return c.cfg;
}

static void cannot_stand_in(struct sctx *ctx, uint32_t asked)
{
	char path[PATH_MAX];
	FILE *f;

	fprintf(stderr, "hwt stand-in: the ETM capture was made with TRCCONFIGR "
		"0x%x; context %d programs 0x%x: its trace would be another, "
		"which the stand-in does not have\n", cap.trcconfigr,
		ctx->ident, asked);
	snprintf(path, sizeof(path), "%s/PANIC", standin_config.dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "TRCCONFIGR 0x%x asked, the capture has 0x%x\n", asked,
			cap.trcconfigr);
		fclose(f);
	}
	abort();
}

/* Frames with the capture's source under the thread's trace ID, every
 * other source's data under the null ID. */
static void remap(uint8_t *p, size_t n, unsigned id)
{
	size_t f, i;

	for (f = 0; f + FRAME <= n; f += FRAME)
		for (i = 0; i < FRAME - 1; i += 2)
			if (p[f + i] & 1)
				p[f + i] = (uint8_t)(((p[f + i] >> 1) == cap.source_id
						      ? id : 0) << 1 | 1);
}

static void sleep_unlocked(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	pthread_mutex_unlock(&standin_lock);
	if (us)
		nanosleep(&ts, NULL);
	else
		sched_yield();
	pthread_mutex_lock(&standin_lock);
}

/* The ETR writes the capture into thread 0's buffer. */
static void play(struct sctx *ctx, struct sthread *t)
{
	uint8_t piece[STANDIN_PAGE];
	uint64_t off = 0;
	unsigned id = HWT_ABI_ETM_TRACE_ID(t->index);
	bool paced;

	ctx->etm_quota = t->pos + ctx->bufsize / 4;
	while (off < cap.size && !ctx->quit && ctx->state == SCTX_RUNNING) {
		uint64_t at = t->pos % ctx->bufsize;
		size_t k = STANDIN_PAGE - at % STANDIN_PAGE;
		struct timespec until;

		if (k > cap.size - off)
			k = cap.size - off;
		paced = standin_config.paced || off < standin_config.etm_paced_bytes;
		if (paced) {
			standin_deadline(&until, HOLD_LIMIT);
			while (t->pos + k > ctx->etm_quota && !ctx->quit &&
			       pthread_cond_timedwait(&standin_cond, &standin_lock,
						      &until) != ETIMEDOUT)
				;
		}
		memcpy(piece, cap.trace + off, k);
		remap(piece, k, id);
		memcpy(t->mem + at, piece, k);
		if (t->dump && fwrite(piece, 1, k, t->dump) != k)
			standin_log("writing the dump: %s", strerror(errno));
		t->pos += k;
		t->visible = t->pos;
		off += k;
		sleep_unlocked(paced ? 0 : standin_config.etm_page_us);
	}
	if (t->dump)
		fflush(t->dump);
	standin_log("ETR: %llu bytes of the capture written, trace ID 0x%x",
		    (unsigned long long)off, id);
}

/* The child's "exec": 1, or 0 if it went away first. */
static int await_exec(struct sctx *ctx)
{
	while (!ctx->quit) {
		char c;
		struct pollfd pfd = { .fd = ctx->fifo_fd, .events = POLLIN };

		if (read(ctx->fifo_fd, &c, 1) == 1 && c == 'x')
			return 1;
		if (standin_real_gone(ctx))
			return 0;
		pthread_mutex_unlock(&standin_lock);
		poll(&pfd, 1, 10);
		pthread_mutex_lock(&standin_lock);
	}
	return 0;
}

static void *etm_feeder(void *arg)
{
	struct sctx *ctx = arg;
	struct sthread *t;
	struct timespec until;
	size_t i;
	int done = -1;

	pthread_mutex_lock(&standin_lock);
	if (standin_config.hooks && await_exec(ctx) && ctx->nthreads) {
		t = ctx->threads[0];
		ctx->fed = true;
		ctx->nmaps = 0;
		snprintf(ctx->exec_path, sizeof(ctx->exec_path), "%s",
			 cap.images[0].path);
		add_image(ctx, &cap.images[0]);
		image_record(ctx, HWT_ABI_RECORD_EXECUTABLE, &cap.images[0]);
		for (i = 1; i < cap.nimages && !ctx->quit; i++) {
			add_image(ctx, &cap.images[i]);
			image_record(ctx, HWT_ABI_RECORD_MMAP, &cap.images[i]);
		}
		standin_deadline(&until, HOLD_LIMIT);
		while (ctx->state != SCTX_RUNNING && !ctx->quit &&
		       pthread_cond_timedwait(&standin_cond, &standin_lock,
					      &until) != ETIMEDOUT)
			;
		if (ctx->state == SCTX_RUNNING) {
			uint32_t asked = programmed_trcconfigr(ctx);

			if (asked != cap.trcconfigr)
				cannot_stand_in(ctx, asked);
			play(ctx, t);
		}
	}
	/* The program ends: let the child exit, and keep the FIFO open until
	 * it has read that. */
	done = open(ctx->etm_done, O_RDWR | O_CLOEXEC);
	if (done >= 0 && write(done, "", 1) != 1)
		standin_log("%s: %s", ctx->etm_done, strerror(errno));
	while (!ctx->quit && !standin_real_gone(ctx))
		sleep_unlocked(1000);
	if (done >= 0)
		close(done);
	ctx->feed_done = true;
	pthread_cond_broadcast(&standin_cond);
	pthread_mutex_unlock(&standin_lock);
	return NULL;
}

int standin_etm_feed_start(struct sctx *ctx)
{
	snprintf(ctx->etm_done, sizeof(ctx->etm_done), "%s/etm-done.%d",
		 standin_config.dir, (int)ctx->pid);
	unlink(ctx->etm_done);
	if (mkfifo(ctx->etm_done, 0600) < 0 || standin_fifo_open(ctx) < 0)
		return -1;
	if (pthread_create(&ctx->feeder, NULL, etm_feeder, ctx))
		return -1;
	ctx->feeder_running = true;
	return 0;
}
