/* recording.c: reading a recording directory (DESIGN.md section 4).
 *
 * The manifest is parsed strictly; the sideband is read line by line and a
 * last line without its newline is the mark of a writer that was cut off: the
 * events before it are kept and the recording says where it was cut.  Trace
 * streams are mapped read-only; their bytes are checked by the decoder.
 */
#include "hwtrecord.h"

#include "error.h"
#include "manifest.h"
#include "sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct mapped_stream {
	const uint8_t *bytes;
	size_t size;
};

struct hwtr_recording {
	char *dir;
	json_t *manifest;
	struct hwtr_recording_info info;
	char *cut_off_reason;
	json_t *sideband;	/* array of event objects, keeps strings alive */
	struct hwtr_sideband_event *events;
	size_t nevents;
	struct mapped_stream *streams;
};

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void note_cut_off(struct hwtr_recording *r, const char *fmt,
			 const char *file, unsigned long long offset)
{
	char text[1024];

	r->info.cut_off = true;
	if (r->cut_off_reason)
		return;		/* the first cut is the one that matters */
	snprintf(text, sizeof(text), fmt, file, offset);
	r->cut_off_reason = strdup(text);
	r->info.cut_off_reason = r->cut_off_reason;
}

static int read_file(const char *path, char **data, size_t *size)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return hwtr_fail(errno == ENOENT ? hwtr_err_notfound : hwtr_err_io,
				 "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return hwtr_fail(hwtr_err_io, "%s: not a regular file", path);
	}
	*data = malloc((size_t)st.st_size + 1);
	if (!*data) {
		close(fd);
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, *data + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	(*data)[got] = 0;
	*size = got;
	return 0;
}

static int load_manifest(struct hwtr_recording *r)
{
	char *path = path_join(r->dir, "manifest.json");
	json_error_t jerr;
	char *text = NULL;
	size_t size = 0;
	int err;

	if (!path)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	err = read_file(path, &text, &size);
	if (err == -hwtr_err_notfound) {
		err = hwtr_fail(hwtr_err_notfound,
				"%s: no manifest.json: not a recording, or its "
				"recorder died before writing anything", r->dir);
		goto out;
	}
	if (err)
		goto out;
	r->manifest = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!r->manifest) {
		err = hwtr_fail(hwtr_err_format, "%s:%d:%d: %s", path, jerr.line,
				jerr.column, jerr.text);
		goto out;
	}
	err = manifest_decode(r->manifest, path, &r->info);
	if (!err && !r->info.complete)
		note_cut_off(r,
			     "%s: the recorder did not finish (\"complete\": "
			     "false); history ends where the recording was cut%.0llu",
			     path, 0);
out:
	free(text);
	free(path);
	return err;
}

static int load_sideband(struct hwtr_recording *r)
{
	char *path = path_join(r->dir, "sideband.jsonl");
	char *text = NULL, *line, *nl;
	size_t size = 0, cap = 0;
	long lineno = 0;
	uint64_t last_tsc = 0;
	int err;

	if (!path)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	r->sideband = json_array();
	err = read_file(path, &text, &size);
	if (err == -hwtr_err_notfound && !r->info.complete) {
		note_cut_off(r, "%s: missing (recording cut off at offset %llu)",
			     path, 0);
		err = 0;
		goto out;
	}
	if (err)
		goto out;
	for (line = text; line < text + size; line = nl + 1) {
		struct json_where where = { path, ++lineno };
		struct hwtr_sideband_event ev;
		json_error_t jerr;
		json_t *obj;

		nl = memchr(line, '\n', (size_t)(text + size - line));
		if (!nl) {
			/* A last line without newline: the writer was cut off. */
			note_cut_off(r, "%s: last line is incomplete at offset %llu "
				     "(recording cut off); events before it are kept",
				     path, (unsigned long long)(line - text));
			break;
		}
		if (nl == line)
			continue;
		obj = json_loadb(line, (size_t)(nl - line), 0, &jerr);
		if (!obj) {
			err = hwtr_fail(hwtr_err_format, "%s:%ld: %s", path, lineno,
					jerr.text);
			goto out;
		}
		json_array_append_new(r->sideband, obj);
		err = sideband_decode(obj, &where, &ev);
		if (err)
			goto out;
		if (ev.tsc < last_tsc) {
			err = hwtr_fail(hwtr_err_format,
					"%s:%ld: tsc %llu goes back in time (previous "
					"event had %llu)", path, lineno,
					(unsigned long long)ev.tsc,
					(unsigned long long)last_tsc);
			goto out;
		}
		last_tsc = ev.tsc;
		if (r->nevents == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			void *p = realloc(r->events, ncap * sizeof(*r->events));

			if (!p) {
				err = hwtr_fail(hwtr_err_nomem, "out of memory");
				goto out;
			}
			r->events = p;
			cap = ncap;
		}
		r->events[r->nevents++] = ev;
	}
out:
	free(text);
	free(path);
	return err;
}

static int map_streams(struct hwtr_recording *r)
{
	size_t i;

	r->streams = calloc(r->info.nthreads + 1, sizeof(*r->streams));
	if (!r->streams)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < r->info.nthreads; i++) {
		const struct hwtr_thread_info *t = &r->info.threads[i];
		char *path = path_join(r->dir, t->stream);
		struct stat st;
		void *map;
		int fd, err;

		if (!path)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			if (errno == ENOENT && !r->info.complete) {
				note_cut_off(r, "%s: missing (recording cut off%.0llu)",
					     path, 0);
				free(path);
				continue;
			}
			err = hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
			free(path);
			return err;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			err = hwtr_fail(hwtr_err_io, "%s: not a regular file", path);
			free(path);
			return err;
		}
		if (t->trace_start > (uint64_t)st.st_size) {
			close(fd);
			err = hwtr_fail(hwtr_err_format,
					"%s: manifest says kept trace starts at offset "
					"%llu, beyond the stream's %lld bytes",
					path, (unsigned long long)t->trace_start,
					(long long)st.st_size);
			free(path);
			return err;
		}
		if (st.st_size > 0) {
			map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
				   fd, 0);
			if (map == MAP_FAILED) {
				close(fd);
				err = hwtr_fail(hwtr_err_io, "%s: mmap: %s", path,
						strerror(errno));
				free(path);
				return err;
			}
			r->streams[i].bytes = map;
			r->streams[i].size = (size_t)st.st_size;
		}
		close(fd);
		free(path);
	}
	return 0;
}

int hwtr_recording_open(const char *dir, struct hwtr_recording **out)
{
	struct hwtr_recording *r;
	int err;

	if (!dir || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recording_open: bad argument");
	r = calloc(1, sizeof(*r));
	if (!r || !(r->dir = strdup(dir))) {
		free(r);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	err = load_manifest(r);
	if (!err)
		err = load_sideband(r);
	if (!err)
		err = map_streams(r);
	if (err) {
		hwtr_recording_close(r);
		return err;
	}
	*out = r;
	return 0;
}

void hwtr_recording_close(struct hwtr_recording *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->streams && i < r->info.nthreads; i++)
		if (r->streams[i].bytes)
			munmap((void *)r->streams[i].bytes, r->streams[i].size);
	free(r->streams);
	manifest_release(&r->info);
	json_decref(r->manifest);
	json_decref(r->sideband);
	free(r->events);
	free(r->cut_off_reason);
	free(r->dir);
	free(r);
}

const struct hwtr_recording_info *
hwtr_recording_info(const struct hwtr_recording *r)
{
	return r ? &r->info : NULL;
}

const char *hwtr_recording_path(const struct hwtr_recording *r)
{
	return r ? r->dir : NULL;
}

size_t hwtr_recording_nevents(const struct hwtr_recording *r)
{
	return r ? r->nevents : 0;
}

const struct hwtr_sideband_event *
hwtr_recording_event(const struct hwtr_recording *r, size_t index)
{
	return r && index < r->nevents ? &r->events[index] : NULL;
}

int hwtr_recording_trace(const struct hwtr_recording *r, size_t thread,
			 const uint8_t **bytes, size_t *size)
{
	if (!r || !bytes || !size || thread >= r->info.nthreads)
		return hwtr_fail(hwtr_err_invalid, "no thread %zu in recording", thread);
	*bytes = r->streams[thread].bytes;
	*size = r->streams[thread].size;
	return 0;
}
