/* program-images.c: one image per program the process ran (see
 * program-images.h). */
#include "program-images.h"

#include "loaded-objects.h"
#include "memory.h"

#include <errno.h>
#include <hwtrecord.h>
#include <stdio.h>
#include <stdlib.h>

struct image {
	struct loaded_objects *objects;
	void *auxv;
	size_t auxv_size;
	struct memory *memory;	/* NULL for the last image */
};

struct program_images {
	size_t n;
	struct image *v;
};

int program_images_add_segments(struct memory *memory,
				const struct loaded_objects *objects)
{
	size_t i, k;

	for (i = 0; i < objects->n; i++) {
		const struct loaded_object *o = &objects->objects[i];

		for (k = 0; k < o->nsegments; k++) {
			const struct loaded_segment *g = &o->segments[k];
			struct memory_mapping m = { g->addr, g->addr + g->filesz,
						    g->offset, o->file, true };

			if (!g->writable && g->filesz && memory_add_mapping(memory, &m) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The files image IMAGE mapped (from its exec to the next), then its
 * objects' read-only parts. */
static int image_memory(const struct hwtr_recording *rec, const char *dir,
			size_t image, struct image *im)
{
	size_t n = hwtr_recording_nevents(rec), i, seen = 0;

	if (memory_create(NULL, &im->memory) < 0)
		return -ENOMEM;
	for (i = 0; i < n && seen <= image; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		struct memory_mapping m;
		char *file = NULL;
		int rc;

		if (ev->kind == hwtr_ev_exec)
			seen++;
		if (seen != image || ev->kind != hwtr_ev_mmap || !ev->path)
			continue;
		m = (struct memory_mapping){ ev->addr, ev->addr + ev->len, ev->pgoff,
					     ev->path, sideband_read_only(ev) };
		/* The library's lookup: the recording's copies first, a file
		 * of another build-id never (then no memory from it). */
		rc = hwtr_recording_find_code(rec, ev, NULL, &file);
		if (rc == -hwtr_err_nomem)
			return -ENOMEM;
		if (rc)
			continue;
		m.path = file;
		rc = memory_add_mapping(im->memory, &m);
		free(file);
		if (rc < 0)
			return -ENOMEM;
	}
	return program_images_add_segments(im->memory, im->objects);
}

int program_images_build(const struct hwtr_recording *rec, const char *dir,
			 struct program_images **out)
{
	struct program_images *pi = calloc(1, sizeof(*pi));
	size_t k;
	int rc = 0;

	*out = NULL;
	if (!pi)
		return -ENOMEM;
	pi->n = loaded_objects_nimages(rec);
	pi->v = calloc(pi->n, sizeof(*pi->v));
	if (!pi->v) {
		free(pi);
		return -ENOMEM;
	}
	for (k = 0; k < pi->n && rc == 0; k++) {
		struct image *im = &pi->v[k];

		rc = loaded_objects_build(rec, k, &im->objects);
		if (rc < 0)
			break;
		if (im->objects->problems)
			fprintf(stderr, "hwtrec-server: left out of the program's image%s:\n%s\n",
				k + 1 < pi->n ? " (before an exec)" : "",
				im->objects->problems);
		im->auxv = loaded_objects_auxv(im->objects, &im->auxv_size);
		if (k + 1 < pi->n)
			rc = image_memory(rec, dir, k, im);
	}
	if (rc < 0) {
		program_images_free(pi);
		return rc;
	}
	*out = pi;
	return 0;
}

void program_images_free(struct program_images *pi)
{
	size_t k;

	if (!pi)
		return;
	for (k = 0; k < pi->n; k++) {
		loaded_objects_free(pi->v[k].objects);
		free(pi->v[k].auxv);
		memory_free(pi->v[k].memory);
	}
	free(pi->v);
	free(pi);
}

size_t program_images_count(const struct program_images *pi)
{
	return pi->n;
}

const struct loaded_objects *program_images_objects(const struct program_images *pi,
						    size_t image)
{
	return image < pi->n ? pi->v[image].objects : NULL;
}

const void *program_images_auxv(const struct program_images *pi, size_t image,
				size_t *size)
{
	if (image >= pi->n || !pi->v[image].auxv)
		return NULL;
	*size = pi->v[image].auxv_size;
	return pi->v[image].auxv;
}

struct memory *program_images_memory(const struct program_images *pi, size_t image)
{
	return image < pi->n ? pi->v[image].memory : NULL;
}

/* The latest position at or before LIMIT whose instruction is at IP, or 0. */
static uint64_t latest_at(struct hwtr_cursor *c, uint64_t limit, uint64_t ip)
{
	struct hwtr_insn insn;

	if (hwtr_cursor_goto(c, limit) < 0)
		return 0;
	if (hwtr_cursor_insn(c, &insn) == 0 && !insn.gap && insn.ip == ip)
		return limit;
	return hwtr_cursor_find(c, -1, &ip, 1) == 1 ? hwtr_cursor_position(c) : 0;
}

bool program_images_last_started_before(const struct program_images *pi,
				       struct hwtr_cursor *scratch, uint64_t end)
{
	uint64_t ip = pi->n > 1 ? pi->v[pi->n - 1].objects->first_ip : 0;

	if (pi->n <= 1)
		return true;
	return ip && end && !latest_at(scratch, end, ip);
}

void program_images_starts(const struct program_images *pi,
			   struct hwtr_cursor *scratch, uint64_t end,
			   uint64_t *starts)
{
	uint64_t limit = end;
	size_t k;

	starts[0] = 1;
	for (k = pi->n; k-- > 1;) {
		uint64_t ip = pi->v[k].objects->first_ip, at;

		at = ip && limit ? latest_at(scratch, limit, ip) : 0;
		starts[k] = at ? at : UINT64_MAX;
		if (at)
			limit = at - 1;
	}
}
