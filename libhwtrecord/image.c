/* image.c: the image of binaries over time (see image.h). */
#include "image.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct epoch {
	uint8_t *alive;		/* one flag per mapping */
	struct pt_image *image;
};

struct image_set {
	struct image_mapping *maps;
	size_t nmaps;
	struct pt_image_section_cache *iscache;
	struct epoch *epochs;	/* one image per distinct set of live mappings */
	unsigned nepochs, cap_epochs;
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

int image_set_build(struct hwtr_recording *rec, const char *const *debug_dirs,
		    struct image_set **out)
{
	size_t nev = hwtr_recording_nevents(rec), i;
	struct image_set *set = calloc(1, sizeof(*set));

	if (!set)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	set->maps = calloc(nev + 1, sizeof(*set->maps));
	set->iscache = pt_iscache_alloc("hwtrecord");
	if (!set->maps || !set->iscache) {
		image_set_free(set);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < nev; i++) {
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
		locate_file(m, hwtr_recording_path(rec), ev->saved, debug_dirs);
		if (m->file) {
			struct stat st;
			uint64_t size = m->len;

			/* Code past the end of the file is not in the file. */
			if (stat(m->file, &st) == 0 &&
			    (uint64_t)st.st_size < m->pgoff + size)
				size = (uint64_t)st.st_size > m->pgoff
					       ? (uint64_t)st.st_size - m->pgoff
					       : 0;
			if (size)
				m->isid = pt_iscache_add_file(set->iscache, m->file,
							      m->pgoff, size,
							      m->addr);
			if (m->isid < 0) {
				set_problem(m, "%s: cannot load code: %s", m->file,
					    pt_errstr(pt_errcode(m->isid)));
				m->isid = 0;
			}
		}
	}
	*out = set;
	return 0;
}

void image_set_free(struct image_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->nepochs; i++) {
		pt_image_free(set->epochs[i].image);
		free(set->epochs[i].alive);
	}
	free(set->epochs);
	for (i = 0; i < set->nmaps; i++) {
		free(set->maps[i].file);
		free(set->maps[i].problem);
	}
	free(set->maps);
	pt_iscache_free(set->iscache);
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

struct pt_image_section_cache *image_set_iscache(struct image_set *set)
{
	return set->iscache;
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

int image_set_for_window(struct image_set *set, uint64_t begin, uint64_t end,
			 struct pt_image **image, unsigned *epoch)
{
	uint8_t *alive = calloc(set->nmaps + 1, 1);
	struct epoch *e;
	size_t i;
	unsigned k;

	if (!alive)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < set->nmaps; i++)
		alive[i] = window_role(&set->maps[i], begin, end);
	for (k = 0; k < set->nepochs; k++)
		if (!memcmp(set->epochs[k].alive, alive, set->nmaps)) {
			free(alive);
			*image = set->epochs[k].image;
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
	e->alive = alive;
	e->image = pt_image_alloc(NULL);
	if (!e->image) {
		free(alive);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	/* libipt lets a section added later win where sections overlap: add the
	 * mappings born in the window first, then those alive at its start, each
	 * in sideband order. */
	for (i = 0; i < 2 * set->nmaps; i++) {
		size_t k = i % set->nmaps;
		uint8_t role = i < set->nmaps ? born_in_window : alive_at_start;
		int err;

		if (alive[k] != role || set->maps[k].isid <= 0)
			continue;
		err = pt_image_add_cached(e->image, set->iscache,
					  set->maps[k].isid, NULL);
		if (err < 0) {
			pt_image_free(e->image);
			free(alive);
			return hwtr_fail(hwtr_err_decode, "%s: cannot add to image: %s",
					 set->maps[k].file,
					 pt_errstr(pt_errcode(err)));
		}
	}
	*image = e->image;
	*epoch = set->nepochs++;
	return 0;
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

int image_set_read(struct image_set *set, const struct image_mapping *m,
		   uint64_t ip, uint8_t *buf, size_t size)
{
	int n;

	if (!m || m->isid <= 0)
		return 0;
	n = pt_iscache_read(set->iscache, buf, size > 0xffff ? 0xffff : size,
			    m->isid, ip);
	return n < 0 ? 0 : n;
}
