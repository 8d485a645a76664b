/* sideband.c: mapping events with build-ids, and saved objects.
 *
 * The tool reports each executable mapping with the file that backs it; the
 * build-id comes from the library's reader (hwtr_build_id_of_file), once per
 * path.  Objects that exist only in memory (the vDSO, when the program has
 * one) are saved into the recording.  The auxv and the file mappings are kept
 * for the core (valgrind/host/core-notes.c).
 */
#include "sideband.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct buildid_cache {
	char *path;
	char *build_id;		/* NULL if none */
};

struct sideband {
	struct hwtr_writer *writer;
	struct buildid_cache *ids;
	size_t nids;
	struct mapping *maps;
	size_t nmaps, cap_maps;
	uint64_t *auxv;
	size_t nauxv;
	uint64_t vdso_addr;
	const char *vdso_saved;
	char *vdso_id;
};

struct sideband *sideband_new(struct hwtr_writer *writer)
{
	struct sideband *sb = calloc(1, sizeof(*sb));

	if (sb)
		sb->writer = writer;
	return sb;
}

void sideband_free(struct sideband *sb)
{
	size_t i;

	if (!sb)
		return;
	for (i = 0; i < sb->nids; i++) {
		free(sb->ids[i].path);
		free(sb->ids[i].build_id);
	}
	for (i = 0; i < sb->nmaps; i++)
		free(sb->maps[i].path);
	free(sb->ids);
	free(sb->maps);
	free(sb->auxv);
	free(sb->vdso_id);
	free(sb);
}

static const char *build_id_of(struct sideband *sb, const char *path)
{
	struct buildid_cache *c;
	size_t i;
	char id[130];

	for (i = 0; i < sb->nids; i++)
		if (!strcmp(sb->ids[i].path, path))
			return sb->ids[i].build_id;
	c = realloc(sb->ids, (sb->nids + 1) * sizeof(*c));
	if (!c)
		return NULL;
	sb->ids = c;
	c = &sb->ids[sb->nids];
	c->path = strdup(path);
	c->build_id = NULL;
	if (!c->path)
		return NULL;
	sb->nids++;
	if (hwtr_build_id_of_file(path, id, sizeof(id)) > 0)
		c->build_id = strdup(id);
	return c->build_id;
}

static int remember_mapping(struct sideband *sb, uint64_t addr, uint64_t len,
			    uint64_t pgoff, const char *path)
{
	struct mapping *m;

	if (sb->nmaps == sb->cap_maps) {
		size_t cap = sb->cap_maps ? 2 * sb->cap_maps : 32;

		m = realloc(sb->maps, cap * sizeof(*m));
		if (!m)
			return -hwtr_err_nomem;
		sb->maps = m;
		sb->cap_maps = cap;
	}
	m = &sb->maps[sb->nmaps];
	m->addr = addr;
	m->len = len;
	m->pgoff = pgoff;
	m->path = strdup(path);
	if (!m->path)
		return -hwtr_err_nomem;
	sb->nmaps++;
	return 0;
}

int sideband_mmap(struct sideband *sb, uint64_t addr, uint64_t len,
		  uint64_t pgoff, int prot, const char *path, uint64_t tsc)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_mmap, .tsc = tsc, .addr = addr, .len = len,
		.pgoff = pgoff, .prot = prot,
	};
	int err;

	if (path && *path) {
		ev.path = path;
		ev.build_id = build_id_of(sb, path);
		if ((err = remember_mapping(sb, addr, len, pgoff, path)))
			return err;
	} else if (sb->vdso_saved && addr == sb->vdso_addr) {
		ev.path = "[vdso]";
		ev.build_id = sb->vdso_id;
		ev.saved = sb->vdso_saved;
	}
	return hwtr_writer_event(sb->writer, &ev);
}

int sideband_munmap(struct sideband *sb, uint64_t addr, uint64_t len,
		    uint64_t tsc)
{
	struct hwtr_sideband_event ev = {
		.kind = hwtr_ev_munmap, .tsc = tsc, .addr = addr, .len = len,
	};
	size_t i = 0;

	while (i < sb->nmaps) {
		struct mapping *m = &sb->maps[i];

		if (m->addr >= addr && m->addr + m->len <= addr + len) {
			free(m->path);
			*m = sb->maps[--sb->nmaps];
		} else {
			i++;
		}
	}
	return hwtr_writer_event(sb->writer, &ev);
}

int sideband_object(struct sideband *sb, uint64_t addr, const void *bytes,
		    size_t size, uint64_t tsc)
{
	char name[200], id[130];
	int err;

	free(sb->vdso_id);
	sb->vdso_id = hwtr_build_id_of_image(bytes, size, id, sizeof(id)) > 0
			      ? strdup(id)
			      : NULL;
	snprintf(name, sizeof(name), "vdso-%s.so",
		 sb->vdso_id ? sb->vdso_id : "unknown");
	if ((err = hwtr_writer_save_object(sb->writer, name, bytes, size,
					   &sb->vdso_saved)))
		return err;
	sb->vdso_addr = addr;
	return sideband_mmap(sb, addr, size, 0, HWTR_PROT_READ | HWTR_PROT_EXEC,
			     NULL, tsc);
}

void sideband_auxv(struct sideband *sb, const uint64_t *pairs, size_t n)
{
	uint64_t *a = malloc(2 * n * sizeof(*a));

	if (!a)
		return;
	memcpy(a, pairs, 2 * n * sizeof(*a));
	free(sb->auxv);
	sb->auxv = a;
	sb->nauxv = n;
}

const uint64_t *sideband_get_auxv(const struct sideband *sb, size_t *n)
{
	*n = sb->nauxv;
	return sb->auxv;
}

const struct mapping *sideband_get_mappings(const struct sideband *sb,
					    size_t *n)
{
	*n = sb->nmaps;
	return sb->maps;
}
