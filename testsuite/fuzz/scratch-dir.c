/* scratch-dir.c: see scratch-dir.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "scratch-dir.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	return remove(path);
}

static void remove_dir(void)
{
	if (dir[0])
		nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

const char *scratch_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char sub[300];

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s/hwtr-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(sub, sizeof(sub), "%s/trace", dir);
	if (mkdir(sub, 0700) < 0) {
		perror(sub);
		abort();
	}
	snprintf(sub, sizeof(sub), "%s/objects", dir);
	if (mkdir(sub, 0700) < 0) {
		perror(sub);
		abort();
	}
	atexit(remove_dir);
	return dir;
}

const char *scratch_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", scratch_dir(), name);
	return path;
}

void scratch_write(const char *name, const void *bytes, size_t size)
{
	const char *path = scratch_path(name);
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(bytes, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
}

void scratch_remove(const char *name)
{
	const char *path = scratch_path(name);

	if (unlink(path) < 0 && errno != ENOENT) {
		perror(path);
		abort();
	}
}

void scratch_write_pieces(const uint8_t *data, size_t size,
			  const char *const *names, size_t n)
{
	static const char separator[] = "\n----\n";
	const size_t seplen = sizeof(separator) - 1;
	const uint8_t *p = data, *end = data + size;
	size_t i;

	for (i = 0; i < n; i++)
		scratch_remove(names[i]);
	for (i = 0; i < n && p; i++) {
		const uint8_t *sep = i + 1 < n ? memmem(p, (size_t)(end - p),
							separator, seplen)
					       : NULL;
		const uint8_t *stop = sep ? sep : end;

		scratch_write(names[i], p, (size_t)(stop - p));
		p = sep ? sep + seplen : NULL;
	}
}

void scratch_drop_checks(const char *name)
{
	char manifest[600], *text;
	json_t *root, *t;
	size_t i;

	snprintf(manifest, sizeof(manifest), "%s/manifest.json", name);
	root = json_load_file(scratch_path(manifest), 0, NULL);
	if (!root) {
		fprintf(stderr, "scratch-dir: cannot read %s\n", manifest);
		abort();
	}
	json_object_del(root, "files");
	json_array_foreach(json_object_get(root, "threads"), i, t) {
		json_object_del(t, "stream_size");
		json_object_del(t, "stream_crc32");
	}
	text = json_dumps(root, JSON_INDENT(2));
	json_decref(root);
	if (!text) {
		fprintf(stderr, "scratch-dir: cannot write %s\n", manifest);
		abort();
	}
	scratch_write(manifest, text, strlen(text));
	free(text);
}
