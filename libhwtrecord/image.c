/* image.c: the image of binaries over time (see image.h). */
#include "image.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* One address range of a view and the mapping that holds it. */
struct view_range {
	uint64_t begin, end;
	uint32_t map;
};

struct epoch {
	uint8_t *alive;		/* one role per mapping */
	uint32_t *layers;	/* mappings with code, later wins */
	size_t nlayers;
	struct view_range *ranges;	/* sorted, disjoint */
	size_t nranges;
};

struct image_set {
	struct image_mapping *maps;
	size_t nmaps, cap_maps;
	size_t nevents;		/* sideband events read */
	const char *const *debug_dirs;
	struct epoch *epochs;	/* one view per distinct set of live mappings */
	unsigned nepochs, cap_epochs;
	size_t last_range;	/* of the last epoch read: code runs on */
	unsigned last_epoch;
};

static char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", a, b);
	return p;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void set_problem(struct image_mapping *m, const char *fmt,
			const char *a, const char *b)
{
	char text[1024];

	snprintf(text, sizeof(text), fmt, a ? a : "", b ? b : "");
	free(m->problem);
	m->problem = strdup(text);
}

/* Find the file that holds the mapping's code, checking its build-id. */
static void locate_file(struct image_mapping *m, const char *recdir,
			const char *saved, const char *const *debug_dirs)
{
	char *candidates[8] = { 0 };
	char idbuf[130];
	size_t n = 0, i;

	if (saved)
		candidates[n++] = path_join(recdir, saved);
	if (m->build_id) {
		char name[200];

		snprintf(name, sizeof(name), "objects/%s", m->build_id);
		candidates[n++] = path_join(recdir, name);
	}
	if (m->path && m->path[0] == '/')
		candidates[n++] = strdup(m->path);
	for (i = 0; debug_dirs && debug_dirs[i] && n < 7 && m->build_id &&
		    strlen(m->build_id) > 2; i++) {
		char name[400];

		/* The .build-id tree holds the binary without ".debug". */
		snprintf(name, sizeof(name), "%s/.build-id/%.2s/%s", debug_dirs[i],
			 m->build_id, m->build_id + 2);
		candidates[n++] = strdup(name);
	}
	for (i = 0; i < n && !m->file; i++) {
		if (!candidates[i] || !is_file(candidates[i]))
			continue;
		if (m->build_id && !saved) {
			int got = hwtr_build_id_of_file(candidates[i], idbuf,
						      sizeof(idbuf));

			if (got > 0 && strcmp(idbuf, m->build_id)) {
				char both[400];

				snprintf(both, sizeof(both),
					 "recording says %s, file has %s",
					 m->build_id, idbuf);
				set_problem(m, "build-id mismatch for %s: %s",
					    candidates[i], both);
				continue;
			}
		}
		m->file = candidates[i];
		candidates[i] = NULL;
	}
	if (!m->file && !m->problem && m->path && m->path[0])
		set_problem(m, "missing binary %s (build-id %s)", m->path,
			    m->build_id ? m->build_id : "unknown");
	else if (!m->file && !m->problem)
		set_problem(m, "anonymous executable memory%s%s: its code is not "
			    "in the recording", "", "");
	if (m->file) {
		free(m->problem);
		m->problem = NULL;
	}
	for (i = 0; i < n; i++)
		free(candidates[i]);
}

/* End the life of earlier mappings that EV (mmap or munmap) overlaps. */
static void end_overlapping(struct image_set *set, size_t upto, uint64_t addr,
			    uint64_t len, uint64_t tsc)
{
	size_t i;

	for (i = 0; i < upto; i++) {
		struct image_mapping *m = &set->maps[i];

		if (m->tsc_end == UINT64_MAX && m->addr < addr + len &&
		    addr < m->addr + m->len)
			m->tsc_end = tsc;
	}
}

/* How much of the mapping the file holds: code past the end of the file is
 * not in the file.  A file that cannot be opened holds nothing. */
static void measure_code(struct image_mapping *m)
{
	struct stat st;
	int fd = open(m->file, O_RDONLY | O_CLOEXEC);

	m->code_size = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", strerror(errno));
		set_problem(m, "%s: cannot load code: %s", m->file, why);
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	if ((uint64_t)st.st_size > m->pgoff)
		m->code_size = (uint64_t)st.st_size - m->pgoff < m->len
				       ? (uint64_t)st.st_size - m->pgoff
				       : m->len;
}

/* Room for N more mappings, and every view's roles for them (none: a view
 * made before a mapping was known does not have it). */
static int reserve_maps(struct image_set *set, size_t n)
{
	size_t need = set->nmaps + n, cap = set->cap_maps ? set->cap_maps : 16;
	unsigned k;
	void *p;

	if (need <= set->cap_maps)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(set->maps, cap * sizeof(*set->maps));
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->maps = p;
	memset(set->maps + set->cap_maps, 0,
	       (cap - set->cap_maps) * sizeof(*set->maps));
	for (k = 0; k < set->nepochs; k++) {
		p = realloc(set->epochs[k].alive, cap + 1);
		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		set->epochs[k].alive = p;
		memset(set->epochs[k].alive + set->nmaps, 0, cap + 1 - set->nmaps);
	}
	set->cap_maps = cap;
	return 0;
}

/* The sideband's events from the first not read yet. */
static int read_events(struct image_set *set, struct hwtr_recording *rec)
{
	size_t nev = hwtr_recording_nevents(rec), i;
	int err = reserve_maps(set, nev - set->nevents + 1);

	if (err)
		return err;
	for (i = set->nevents; i < nev; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		struct image_mapping *m;

		if (ev->kind == hwtr_ev_munmap) {
			end_overlapping(set, set->nmaps, ev->addr, ev->len, ev->tsc);
			continue;
		}
		if (ev->kind == hwtr_ev_exec) {
			/* A new program image: everything before it is gone. */
			end_overlapping(set, set->nmaps, 0, UINT64_MAX, ev->tsc);
			continue;
		}
		if (ev->kind != hwtr_ev_mmap)
			continue;
		end_overlapping(set, set->nmaps, ev->addr, ev->len, ev->tsc);
		if (!(ev->prot & HWTR_PROT_EXEC) || ev->len == 0)
			continue;
		m = &set->maps[set->nmaps++];
		m->addr = ev->addr;
		m->len = ev->len;
		m->pgoff = ev->pgoff;
		m->tsc_begin = ev->tsc;
		m->tsc_end = UINT64_MAX;
		m->path = ev->path;
		m->build_id = ev->build_id;
		locate_file(m, hwtr_recording_path(rec), ev->saved, set->debug_dirs);
		if (m->file)
			measure_code(m);
	}
	set->nevents = nev;
	return 0;
}

int image_set_build(struct hwtr_recording *rec, const char *const *debug_dirs,
		    struct image_set **out)
{
	struct image_set *set = calloc(1, sizeof(*set));
	int err;

	if (!set)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->debug_dirs = debug_dirs;
	if ((err = read_events(set, rec))) {
		image_set_free(set);
		return err;
	}
	*out = set;
	return 0;
}

int image_set_extend(struct image_set *set, struct hwtr_recording *rec)
{
	return read_events(set, rec);
}

void image_set_free(struct image_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->nepochs; i++) {
		free(set->epochs[i].alive);
		free(set->epochs[i].layers);
		free(set->epochs[i].ranges);
	}
	free(set->epochs);
	for (i = 0; i < set->nmaps; i++) {
		if (set->maps[i].map)
			munmap(set->maps[i].map, set->maps[i].map_size);
		free(set->maps[i].file);
		free(set->maps[i].problem);
	}
	free(set->maps);
	free(set);
}

size_t image_set_count(const struct image_set *set)
{
	return set->nmaps;
}

const struct image_mapping *image_set_mapping(const struct image_set *set,
					      size_t index)
{
	return index < set->nmaps ? &set->maps[index] : NULL;
}

static int alive_in(const struct image_mapping *m, uint64_t begin, uint64_t end)
{
	return m->tsc_begin <= end && m->tsc_end > begin;
}

/* How a mapping takes part in the image of a chunk's window: those alive at
 * the window's start win; those made during the window (the sideband's time
 * is coarser than the trace's: a dlopen'ed library may run before the next
 * PSB) fill the addresses nothing else holds. */
enum { not_in_image = 0, born_in_window = 1, alive_at_start = 2 };

static uint8_t window_role(const struct image_mapping *m, uint64_t begin,
			   uint64_t end)
{
	if (m->tsc_begin <= begin && m->tsc_end > begin)
		return alive_at_start;
	if (m->tsc_begin > begin && m->tsc_begin <= end)
		return born_in_window;
	return not_in_image;
}

/* Lay mapping MAP over the ranges: it takes [begin, end) from whatever held
 * it, as pt_image_add splits the sections a new one overlaps. */
static int lay_over(struct epoch *e, size_t *cap, uint64_t begin, uint64_t end,
		    uint32_t map)
{
	const struct view_range add = { begin, end, map };
	struct view_range *out;
	bool added = false;
	size_t i, n = 0;

	/* At most two more ranges: one split in two, plus the new one. */
	if (e->nranges + 2 > *cap) {
		size_t ncap = 2 * *cap + 8;
		void *p = realloc(e->ranges, ncap * sizeof(*e->ranges));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		e->ranges = p;
		*cap = ncap;
	}
	out = malloc((e->nranges + 2) * sizeof(*out));
	if (!out)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < e->nranges; i++) {
		struct view_range r = e->ranges[i];

		if (r.end <= begin) {
			out[n++] = r;
			continue;
		}
		if (r.begin < begin)	/* the part before the new one */
			out[n++] = (struct view_range){ r.begin, begin, r.map };
		if (!added) {
			out[n++] = add;
			added = true;
		}
		if (r.end > end)	/* the part after it */
			out[n++] = (struct view_range){ r.begin > end ? r.begin : end,
						       r.end, r.map };
	}
	if (!added)
		out[n++] = add;
	memcpy(e->ranges, out, n * sizeof(*out));
	e->nranges = n;
	free(out);
	return 0;
}

static int build_epoch(struct image_set *set, struct epoch *e)
{
	size_t i, cap = 0;
	int err;

	e->layers = calloc(set->nmaps + 1, sizeof(*e->layers));
	if (!e->layers)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	/* The mappings born in the window first, then those alive at its
	 * start, each in sideband order: later ones win where they overlap. */
	for (i = 0; i < 2 * set->nmaps; i++) {
		size_t k = i % set->nmaps;
		uint8_t role = i < set->nmaps ? born_in_window : alive_at_start;
		const struct image_mapping *m = &set->maps[k];

		if (e->alive[k] != role || !m->code_size)
			continue;
		e->layers[e->nlayers++] = (uint32_t)k;
		if ((err = lay_over(e, &cap, m->addr, m->addr + m->code_size,
				    (uint32_t)k)))
			return err;
	}
	return 0;
}

int image_set_for_window(struct image_set *set, uint64_t begin, uint64_t end,
			 unsigned *epoch)
{
	uint8_t *alive = calloc(set->cap_maps + 1, 1);
	struct epoch *e;
	size_t i;
	unsigned k;
	int err;

	if (!alive)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < set->nmaps; i++)
		alive[i] = window_role(&set->maps[i], begin, end);
	for (k = 0; k < set->nepochs; k++)
		if (!memcmp(set->epochs[k].alive, alive, set->nmaps)) {
			free(alive);
			*epoch = k;
			return 0;
		}
	if (set->nepochs == set->cap_epochs) {
		unsigned cap = set->cap_epochs ? 2 * set->cap_epochs : 8;
		void *p = realloc(set->epochs, cap * sizeof(*set->epochs));

		if (!p) {
			free(alive);
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		}
		set->epochs = p;
		set->cap_epochs = cap;
	}
	e = &set->epochs[set->nepochs];
	memset(e, 0, sizeof(*e));
	e->alive = alive;
	if ((err = build_epoch(set, e))) {
		free(e->alive);
		free(e->layers);
		free(e->ranges);
		return err;
	}
	*epoch = set->nepochs++;
	return 0;
}

size_t image_epoch_layers(const struct image_set *set, unsigned epoch,
			  const uint32_t **mappings)
{
	if (epoch >= set->nepochs) {
		*mappings = NULL;
		return 0;
	}
	*mappings = set->epochs[epoch].layers;
	return set->epochs[epoch].nlayers;
}

/* The file's bytes of mapping M (mapped on first use), or NULL. */
static const uint8_t *mapping_bytes(struct image_mapping *m)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start, skip;
	void *p;
	int fd;

	if (m->map_tried)
		return m->bytes;
	m->map_tried = true;
	if (!m->file || !m->code_size || page <= 0)
		return NULL;
	fd = open(m->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	start = m->pgoff & ~((uint64_t)page - 1);
	skip = m->pgoff - start;
	p = mmap(NULL, (size_t)(skip + m->code_size), PROT_READ, MAP_PRIVATE, fd,
		 (off_t)start);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	m->map = p;
	m->map_size = (size_t)(skip + m->code_size);
	m->bytes = (const uint8_t *)p + skip;
	return m->bytes;
}

/* The range of EPOCH holding IP, or NULL.  Code runs on: the last range
 * found is tried first. */
static const struct view_range *find_range(struct image_set *set, unsigned epoch,
					   uint64_t ip)
{
	const struct epoch *e;
	size_t lo = 0, hi;

	if (epoch >= set->nepochs)
		return NULL;
	e = &set->epochs[epoch];
	if (set->last_epoch == epoch && set->last_range < e->nranges) {
		const struct view_range *r = &e->ranges[set->last_range];

		if (ip >= r->begin && ip < r->end)
			return r;
	}
	hi = e->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->ranges[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= e->nranges || ip < e->ranges[lo].begin)
		return NULL;
	set->last_epoch = epoch;
	set->last_range = lo;
	return &e->ranges[lo];
}

const uint8_t *image_epoch_code(struct image_set *set, unsigned epoch,
				uint64_t ip, size_t *avail)
{
	const struct view_range *r = find_range(set, epoch, ip);
	struct image_mapping *m;
	const uint8_t *bytes;

	if (!r)
		return NULL;
	m = &set->maps[r->map];
	if (!(bytes = mapping_bytes(m)))
		return NULL;
	*avail = (size_t)(r->end - ip);
	return bytes + (ip - m->addr);
}

long image_epoch_mapping(struct image_set *set, unsigned epoch, uint64_t ip)
{
	const struct view_range *r = find_range(set, epoch, ip);

	return r ? (long)r->map : -1;
}

int image_set_at_end(struct image_set *set, unsigned *epoch)
{
	/* A window after every event: only the mappings never ended are
	 * alive at its start. */
	return image_set_for_window(set, UINT64_MAX - 1, UINT64_MAX - 1, epoch);
}

size_t image_epoch_read(struct image_set *set, unsigned epoch, uint64_t ip,
			uint8_t *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		size_t avail = 0, n;
		const uint8_t *code = image_epoch_code(set, epoch, ip + done, &avail);

		if (!code)
			break;
		n = avail < size - done ? avail : size - done;
		memcpy(buf + done, code, n);
		done += n;
	}
	return done;
}

const struct image_mapping *image_set_lookup(const struct image_set *set,
					     uint64_t ip, uint64_t tsc)
{
	const struct image_mapping *best = NULL;
	size_t i;

	for (i = 0; i < set->nmaps; i++) {
		const struct image_mapping *m = &set->maps[i];

		if (ip >= m->addr && ip - m->addr < m->len &&
		    alive_in(m, tsc, tsc))
			best = m;
	}
	if (!best)	/* no time information fits: any mapping of IP */
		for (i = 0; i < set->nmaps; i++) {
			const struct image_mapping *m = &set->maps[i];

			if (ip >= m->addr && ip - m->addr < m->len)
				best = m;
		}
	return best;
}

size_t image_set_nevents(const struct image_set *set)
{
	return set->nevents;
}
