/* pt-event.c: perf_event_open and the mmaps of a thread's intel_pt event
 * (pt-event.h).
 *
 * Normal AUX mode: the AUX area is mapped PROT_READ|PROT_WRITE, so the
 * kernel honours aux_tail and never overwrites trace we have not read (it
 * stops and writes an AUX record with TRUNCATED instead).  The AUX area
 * counts against perf_event_mlock_kb and RLIMIT_MEMLOCK: when mmap refuses
 * it, the size is halved down to 64 KiB, as GDB does.
 *
 * Not done: snapshot (overwrite) mode for --max-size, address filters,
 * CYC/MTC timing.  Untested here: this machine has no intel_pt PMU.
 */
#define _GNU_SOURCE
#include "pt-event.h"
#include "hwtrecord.h"


#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MIN_AUX_BYTES (64u << 10)

struct event_maps {
	void *base;		/* page + data ring */
	size_t base_size;
	void *aux;
	size_t aux_size;
};

int pt_event_attr(const struct pt_event_config *cfg, bool enable,
		  struct perf_event_attr *attr)
{
	const char *psb_periods = perf_pmu_cap(&cfg->pmu, "psb_periods");
	const char *psb_cyc = perf_pmu_cap(&cfg->pmu, "psb_cyc");
	int err;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = cfg->pmu.type;
	/* pt and branch: trace control flow; tsc: timestamps to order
	 * threads and place the sideband. */
	if ((err = perf_pmu_set(&cfg->pmu, attr, "pt", 1)) ||
	    (err = perf_pmu_set(&cfg->pmu, attr, "branch", 1)) ||
	    (err = perf_pmu_set(&cfg->pmu, attr, "tsc", 1)))
		return err;
	if (!cfg->ret_compression &&
	    (err = perf_pmu_set(&cfg->pmu, attr, "noretcomp", 1)))
		return err;
	if (cfg->psb_period && psb_cyc && !strcmp(psb_cyc, "1") && psb_periods &&
	    perf_pmu_format(&cfg->pmu, "psb_period")) {
		/* PSB every 2^(11 + n) bytes, n among the supported ones. */
		unsigned long mask = strtoul(psb_periods, NULL, 16), n, best = 0;

		for (n = 0; n < 16; n++)
			if ((mask >> n) & 1) {
				best = n;
				if ((2048ul << n) >= cfg->psb_period)
					break;
			}
		if ((err = perf_pmu_set(&cfg->pmu, attr, "psb_period", best)))
			return err;
	}
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->build_id = 1;
	attr->disabled = !enable;
	attr->enable_on_exec = !enable;
	attr->aux_watermark = (uint32_t)(cfg->aux_bytes / 4);
	return 0;
}

static int open_error(int e, uint32_t tid)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return hwtr_fail(hwtr_err_io, "perf_event_open(intel_pt) for "
				 "thread %u: %s: lower kernel.perf_event_paranoid "
				 "to 2 or give hwtrec CAP_PERFMON", tid,
				 strerror(e));
	case EBUSY:
		return hwtr_fail(hwtr_err_io, "perf_event_open(intel_pt) for "
				 "thread %u: the PMU is busy (another Intel PT "
				 "user, e.g. perf or GDB's record btrace)", tid);
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return hwtr_fail(hwtr_err_io, "perf_event_open(intel_pt) for "
				 "thread %u: %s: the intel_pt PMU cannot trace "
				 "here; use --source=valgrind", tid, strerror(e));
	default:
		return hwtr_fail(hwtr_err_io, "perf_event_open(intel_pt) for "
				 "thread %u: %s", tid, strerror(e));
	}
}

int pt_event_open(const struct pt_event_config *cfg,
		  struct pt_session_thread *t, bool enable)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), aux = cfg->aux_bytes;
	struct perf_event_mmap_page *mp;
	struct perf_event_attr attr;
	struct event_maps *maps;
	int fd, err;

	if ((err = pt_event_attr(cfg, enable, &attr)))
		return err;
	fd = (int)syscall(SYS_perf_event_open, &attr, (pid_t)t->tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL) {
		/* Kernels before 5.12 have no build-ids in MMAP2. */
		attr.build_id = 0;
		fd = (int)syscall(SYS_perf_event_open, &attr, (pid_t)t->tid, -1,
				  -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return open_error(errno, t->tid);
	maps = calloc(1, sizeof(*maps));
	if (!maps) {
		close(fd);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	maps->base_size = (1 + cfg->data_pages) * page;
	maps->base = mmap(NULL, maps->base_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);
	if (maps->base == MAP_FAILED) {
		err = hwtr_fail(hwtr_err_io, "thread %u: cannot map the perf "
				"data ring (%zu bytes): %s", t->tid,
				maps->base_size, strerror(errno));
		goto fail;
	}
	mp = maps->base;
	for (;;) {
		mp->aux_offset = maps->base_size;
		mp->aux_size = aux;
		maps->aux = mmap(NULL, aux, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, (off_t)mp->aux_offset);
		if (maps->aux != MAP_FAILED)
			break;
		if ((errno != EPERM && errno != ENOMEM) || aux / 2 < MIN_AUX_BYTES) {
			err = hwtr_fail(hwtr_err_io, "thread %u: cannot map the AUX "
					"area (%zu bytes): %s (raise "
					"kernel.perf_event_mlock_kb or ulimit -l)",
					t->tid, aux, strerror(errno));
			maps->aux = NULL;
			goto fail;
		}
		aux /= 2;
	}
	maps->aux_size = aux;
	t->fd = fd;
	t->opaque = maps;
	t->aux = (struct perf_aux_ring){ mp, maps->aux, aux };
	t->data = (struct perf_data_ring){
		mp, (const uint8_t *)maps->base + page,
		cfg->data_pages * page,
		{ attr.sample_type, attr.sample_id_all } };
	t->tc.time_shift = mp->time_shift;
	t->tc.time_mult = mp->time_mult;
	t->tc.time_zero = mp->time_zero;
	t->tc.time_cycles = mp->time_cycles;
	t->tc.time_mask = mp->time_mask;
	t->tc.cap_user_time_zero = mp->cap_user_time_zero;
	t->tc.cap_user_time_short = mp->cap_user_time_short;
	return 0;
fail:
	if (maps->base && maps->base != MAP_FAILED)
		munmap(maps->base, maps->base_size);
	free(maps);
	close(fd);
	return err;
}

void pt_event_close(struct pt_session_thread *t)
{
	struct event_maps *maps = t->opaque;

	if (maps) {
		if (maps->aux)
			munmap(maps->aux, maps->aux_size);
		munmap(maps->base, maps->base_size);
		free(maps);
	}
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->opaque = NULL;
}
