/* pack.c: a recording that carries its binaries (`hwtrec pack`, as rr
 * pack): every file the program mapped copied into objects/BUILD_ID, its
 * separate debug file into objects/BUILD_ID.debug, so that the recording
 * replays on a machine that has neither (hwtrecord.h, hwtr_pack).
 *
 * Files are filed by build-id, so each is copied once however often it was
 * mapped, and a second pack finds everything there and copies nothing.  A
 * copy is written beside its final name and renamed into place after
 * fsync, so an interrupted pack leaves no half file under a build-id; the
 * manifest's "files" then gains the copy's length and CRC-32 (a finished
 * recording is checked against them when it is opened), also by rename.
 * What is already in objects/ is checked against the sideband's build-id,
 * never overwritten: a copy of another file there is refused, named with
 * both ids.
 */
#include "error.h"
#include "history-file.h"
#include "integrity.h"
#include "manifest.h"
#include "object-lookup.h"
#include "recording-file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct hwtr_pack {
	struct hwtr_pack_file *files;
	char **strings;		/* owned problems */
	size_t n, nstrings;
};

/* A file added to objects/ (or found there without a manifest entry). */
struct new_object {
	char name[200];
	uint64_t size;
	uint32_t crc;
};

struct packing {
	struct hwtr_recording *rec;
	const char *dir;
	const char *const *debug_dirs;
	bool copy;
	struct hwtr_pack *pack;
	struct new_object *added;
	size_t nadded;
};

static const char *keep(struct hwtr_pack *p, char *s)
{
	char **grown = realloc(p->strings, (p->nstrings + 1) * sizeof(*grown));

	if (!s || !grown) {
		free(s);
		return NULL;
	}
	p->strings = grown;
	return p->strings[p->nstrings++] = s;
}

/* Copy FROM to DIR/NAME through a temporary name, fsync'd; its length and
 * CRC-32. */
static int copy_in(const char *dir, const char *from, const char *name,
		   uint64_t *size, uint32_t *crc)
{
	char tmp[4352], final[4352], buf[1 << 16];
	struct stat st;
	int in, out, err = 0;
	ssize_t n;

	snprintf(final, sizeof(final), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/objects/.packing-XXXXXX", dir);
	if ((err = regular_file_open(from, &in, &st)) < 0)
		return err;
	out = mkstemp(tmp);
	if (out < 0) {
		close(in);
		return hwtr_fail(hwtr_err_io, "%s: %s", tmp, strerror(errno));
	}
	*size = 0;
	*crc = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		ssize_t done = 0, w;

		while (done < n && (w = write(out, buf + done, (size_t)(n - done))) > 0)
			done += w;
		if (done < n) {
			err = hwtr_fail(hwtr_err_io, "%s: write failed: %s", tmp,
					errno ? strerror(errno) : "short write");
			break;
		}
		*crc = integrity_crc32(*crc, buf, (size_t)n);
		*size += (uint64_t)n;
	}
	if (!err && n < 0)
		err = hwtr_fail(hwtr_err_io, "%s: %s", from, strerror(errno));
	close(in);
	if (!err && (fchmod(out, 0444) < 0 || fsync(out) < 0))
		err = hwtr_fail(hwtr_err_io, "%s: %s", tmp, strerror(errno));
	if (close(out) < 0 && !err)
		err = hwtr_fail(hwtr_err_io, "%s: %s", tmp, strerror(errno));
	/* link(), not rename(): a copy that appeared meanwhile is kept. */
	if (!err && link(tmp, final) < 0 && errno != EEXIST)
		err = hwtr_fail(hwtr_err_io, "%s: %s", final, strerror(errno));
	unlink(tmp);
	return err;
}

static int note_added(struct packing *k, const char *name, uint64_t size,
		      uint32_t crc)
{
	struct new_object *grown;

	if (!hwtr_recording_info(k->rec)->complete ||
	    manifest_lists_file(hwtr_recording_info(k->rec), name))
		return 0;
	grown = realloc(k->added, (k->nadded + 1) * sizeof(*grown));
	if (!grown)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	k->added = grown;
	grown += k->nadded++;
	snprintf(grown->name, sizeof(grown->name), "%s", name);
	grown->size = size;
	grown->crc = crc;
	return 0;
}

/* What objects/NAME holds: -hwtr_err_notfound if nothing; 0 if a copy of
 * BUILD_ID (and its length and CRC-32 when the manifest lacks them);
 * -hwtr_err_buildid (message naming both ids) if another file. */
static int check_existing(struct packing *k, const char *name,
			  const char *build_id, bool *measured, uint64_t *size,
			  uint32_t *crc)
{
	char path[4352], got[130];
	struct stat st;
	int fd, err, n;

	*measured = false;
	if ((err = recording_file_open(k->dir, name, &fd, &st)) < 0)
		return err;
	snprintf(path, sizeof(path), "%s/%s", k->dir, name);
	n = hwtr_build_id_of_file(path, got, sizeof(got));
	if (n <= 0 || strcmp(got, build_id)) {
		close(fd);
		return hwtr_fail(hwtr_err_buildid,
				 "build-id mismatch for %s: recording says %s, "
				 "file has %s", path, build_id, n > 0 ? got : "none");
	}
	/* A copy the manifest does not cover yet (a pack cut off before
	 * its manifest was written): measured, to be added. */
	if (k->copy && hwtr_recording_info(k->rec)->complete &&
	    !manifest_lists_file(hwtr_recording_info(k->rec), name)) {
		err = integrity_crc32_of_fd(fd, path, size, crc);
		*measured = !err;
	}
	close(fd);
	return err;
}

/* One object (the code, or with DEBUG its debug file) of F: already there,
 * copied, or why not.  Returns an error only when packing must stop. */
static int pack_one(struct packing *k, struct hwtr_pack_file *f, bool debug)
{
	char name[200], *from = NULL, *problem = NULL;
	bool measured, *there = debug ? &f->has_debug : &f->packed;
	bool *copied = debug ? &f->debug_copied : &f->copied;
	uint64_t size;
	uint32_t crc;
	int err;

	object_name(f->build_id, debug, name, sizeof(name));
	err = check_existing(k, name, f->build_id, &measured, &size, &crc);
	if (!err) {
		*there = true;
		return measured ? note_added(k, name, size, crc) : 0;
	}
	if (err == -hwtr_err_buildid) {
		f->problem = keep(k->pack, strdup(hwtr_last_error()));
		return k->copy ? hwtr_fail(hwtr_err_buildid, "%s: not packed over: "
					   "remove it and pack again", f->problem)
			       : 0;
	}
	if (err != -hwtr_err_notfound)
		return err;
	/* Not there: where the library would read it from.  The recording
	 * is left out of the search (objects/ was just checked). */
	err = debug ? object_lookup_debug(k->dir, f->build_id, k->debug_dirs,
					  &from, &problem)
		    : object_lookup_code(k->dir, f->path, f->build_id, NULL,
					 k->debug_dirs, &from, &problem);
	if (err < 0)
		return err;
	if (!from) {
		/* Many files have no separate debug file: not a problem. */
		if (!debug)
			f->problem = keep(k->pack, problem);
		else
			free(problem);
		return 0;
	}
	free(problem);
	if (k->copy) {
		err = copy_in(k->dir, from, name, &size, &crc);
		if (!err)
			err = note_added(k, name, size, crc);
		if (!err)
			*there = *copied = true;
	} else if (!debug) {
		f->problem = keep(k->pack, strdup("not in objects/ (hwtrec pack "
						  "copies it)"));
	}
	free(from);
	return err;
}

/* Add the new objects' lengths and CRC-32s to the manifest's "files",
 * every other field kept as it is; written to a temporary file and renamed
 * over it. */
static int update_manifest(struct packing *k)
{
	char path[4352], tmp[4352];
	json_error_t jerr;
	json_t *root, *files;
	size_t i;
	int err = 0;
	FILE *f;

	if (!k->nadded)
		return 0;
	snprintf(path, sizeof(path), "%s/manifest.json", k->dir);
	snprintf(tmp, sizeof(tmp), "%s/manifest.json.tmp", k->dir);
	root = json_load_file(path, 0, &jerr);
	if (!root)
		return hwtr_fail(hwtr_err_format, "%s: line %d: %s", path, jerr.line,
				 jerr.text);
	files = json_object_get(root, "files");
	if (!json_is_object(files)) {
		json_decref(root);
		return hwtr_fail(hwtr_err_format, "%s: no \"files\" object to add "
				 "the packed objects to", path);
	}
	for (i = 0; i < k->nadded && !err; i++) {
		json_t *entry = json_pack("{sIsI}", "size", (json_int_t)k->added[i].size,
					  "crc32", (json_int_t)k->added[i].crc);

		if (!entry || json_object_set_new(files, k->added[i].name, entry) < 0)
			err = hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	f = err ? NULL : fopen(tmp, "w");
	if (!err && !f)
		err = hwtr_fail(hwtr_err_io, "%s: %s", tmp, strerror(errno));
	if (f) {
		if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
		    fputc('\n', f) == EOF || fflush(f) == EOF || fsync(fileno(f)) < 0)
			err = hwtr_fail(hwtr_err_io, "%s: write failed: %s", tmp,
					strerror(errno));
		if (fclose(f) == EOF && !err)
			err = hwtr_fail(hwtr_err_io, "%s: %s", tmp, strerror(errno));
		if (!err && rename(tmp, path) < 0)
			err = hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
		if (err)
			unlink(tmp);
	}
	json_decref(root);
	return err;
}

/* The mapped files, each path and build-id once. */
static int list_files(struct packing *k)
{
	size_t n = hwtr_recording_nevents(k->rec), i, j;
	struct hwtr_pack *p = k->pack;

	p->files = calloc(n ? n : 1, sizeof(*p->files));
	if (!p->files)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(k->rec, i);
		bool seen = false;

		if (ev->kind != hwtr_ev_mmap || ev->saved || !ev->path ||
		    ev->path[0] != '/' || ev->path[1] == '/')
			continue;	/* in the recording already, or no file */
		for (j = 0; j < p->n && !seen; j++)
			seen = !strcmp(p->files[j].path, ev->path) &&
			       (p->files[j].build_id && ev->build_id
					? !strcmp(p->files[j].build_id, ev->build_id)
					: p->files[j].build_id == ev->build_id);
		if (!seen)
			p->files[p->n++] = (struct hwtr_pack_file){
				.path = ev->path, .build_id = ev->build_id };
	}
	return 0;
}

int hwtr_pack(struct hwtr_recording *rec, const char *const *debug_dirs,
	      bool copy, struct hwtr_pack **out)
{
	struct packing k = { .rec = rec, .debug_dirs = debug_dirs, .copy = copy };
	char objdir[4352];
	size_t i;
	int err;

	if (!rec || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_pack: no recording");
	*out = NULL;
	k.dir = hwtr_recording_path(rec);
	k.pack = calloc(1, sizeof(*k.pack));
	if (!k.pack)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	err = list_files(&k);
	snprintf(objdir, sizeof(objdir), "%s/objects", k.dir);
	if (!err && copy && mkdir(objdir, 0777) < 0 && errno != EEXIST)
		err = hwtr_fail(hwtr_err_io, "%s: %s", objdir, strerror(errno));
	for (i = 0; !err && i < k.pack->n; i++) {
		struct hwtr_pack_file *f = &k.pack->files[i];

		if (!f->build_id) {
			f->problem = "no build-id: it cannot be filed in objects/";
			continue;
		}
		if (!object_name(f->build_id, false, objdir, sizeof(objdir))) {
			f->problem = "not a build-id";
			continue;
		}
		err = pack_one(&k, f, false);
		if (!err && f->packed)
			err = pack_one(&k, f, true);
	}
	if (!err && copy)	/* looking (hwtrec info) changes nothing */
		err = update_manifest(&k);
	if (!err && copy && k.nadded) {
		/* The saved index names the binaries where they were found
		 * before: stale now, and known to be. */
		char idx[4352];

		snprintf(idx, sizeof(idx), "%s/%s", k.dir, HISTORY_FILE_NAME);
		unlink(idx);
	}
	free(k.added);
	if (err) {
		hwtr_pack_free(k.pack);
		return err;
	}
	*out = k.pack;
	return 0;
}

size_t hwtr_pack_count(const struct hwtr_pack *p)
{
	return p ? p->n : 0;
}

const struct hwtr_pack_file *hwtr_pack_file(const struct hwtr_pack *p,
					    size_t index)
{
	return p && index < p->n ? &p->files[index] : NULL;
}

void hwtr_pack_free(struct hwtr_pack *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->files);
	free(p);
}
