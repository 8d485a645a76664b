/* recording.c: reading a recording directory (DESIGN.md section 4).
 *
 * The manifest is parsed strictly; the sideband is read line by line and a
 * last line without its newline is the mark of a writer that was cut off: the
 * events before it are kept and the recording says where it was cut.  Trace
 * streams are mapped read-only; their bytes are checked by the decoder.
 *
 * A recording still being written (live mode) is read again where it grew
 * (hwtr_recording_refresh): the manifest when its text changed (new threads,
 * the end), the sideband from the first byte not read yet (a half-written
 * last line is read again next time), and each stream that grew is mapped
 * again.  Opening is a refresh of an empty recording.  A refresh reads and
 * checks everything before it changes anything, so a refused one leaves the
 * recording as it was.  What it replaces stays valid for a while: old
 * manifests (their strings) until the recording closes, a stream's previous
 * mapping until the next refresh, so that histories built on the bytes can
 * be extended from them (hwtr_history_extend).
 *
 * Every file is opened under recording-file.h's policy (inside the
 * directory, no symbolic links, regular files only).  A finished recording
 * is checked against the lengths and checksums its manifest carries
 * (integrity.h) when it is opened, or by the refresh that sees it finish.
 *
 * Not done yet: a stream that shrinks or a manifest that contradicts the
 * one before (another recording put in its place) is refused, not reread.
 */
#define _GNU_SOURCE	/* qsort_r */
#include "hwtrecord.h"

#include "error.h"
#include "integrity.h"
#include "manifest.h"
#include "recording-file.h"
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
	const uint8_t *retired;	/* the mapping before the last refresh */
	size_t retired_size;
};

/* A manifest replaced by a refresh: its strings may still be in use. */
struct old_manifest {
	json_t *root;
	struct hwtr_recording_info info;
};

struct hwtr_recording {
	char *dir;
	json_t *manifest;
	char *manifest_text;	/* to see whether it changed */
	size_t manifest_size;
	struct hwtr_recording_info info;
	char *cut_off_reason;
	struct old_manifest *old;
	size_t nold;
	char **old_reasons;	/* cut-off messages replaced by a refresh */
	size_t nold_reasons;
	json_t *sideband;	/* array of event objects, keeps strings alive */
	struct hwtr_sideband_event *events;
	size_t nevents, cap_events;
	uint64_t sideband_read;	/* bytes of sideband.jsonl read (whole lines) */
	long sideband_lines;
	uint64_t last_tsc;
	struct mapped_stream *streams;
	uint64_t refreshes;
	bool checked;		/* a finished recording's files were checked */
};

/* What a refresh read, before it changes the recording. */
struct update {
	char *manifest_text;	/* NULL: unchanged */
	size_t manifest_size;
	json_t *manifest;
	struct hwtr_recording_info info;
	bool info_valid;
	json_t *sideband;	/* the new lines' objects */
	struct hwtr_sideband_event *events;
	size_t nevents, cap_events;
	uint64_t sideband_read;
	long sideband_lines;
	uint64_t last_tsc;
	bool sideband_missing;
	bool sideband_cut;
	uint64_t sideband_cut_at;
	struct mapped_stream *streams;	/* per thread of the new info */
	size_t nstreams;
	char **missing;		/* per thread: a missing stream's path */
	bool checked;		/* the finished recording's files were checked */
};

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

/* File NAME of recording DIR (PATH for messages) from byte FROM on
 * (NUL-terminated). */
static int read_file_from(const char *dir, const char *name, const char *path,
			  uint64_t from, char **data, size_t *size,
			  uint64_t *file_size)
{
	struct stat st;
	ssize_t n;
	size_t got = 0, want;
	int fd, err = recording_file_open(dir, name, &fd, &st);

	if (err)
		return err;
	*file_size = (uint64_t)st.st_size;
	if ((uint64_t)st.st_size < from) {
		close(fd);
		return hwtr_fail(hwtr_err_format,
				 "%s: shrank to %lld bytes, %llu were read before "
				 "(a recording only grows)", path,
				 (long long)st.st_size, (unsigned long long)from);
	}
	want = (size_t)((uint64_t)st.st_size - from);
	*data = malloc(want + 1);
	if (!*data) {
		close(fd);
		return hwtr_fail(hwtr_err_nomem, "%s: out of memory", path);
	}
	while (got < want &&
	       (n = pread(fd, *data + got, want - got, (off_t)(from + got))) > 0)
		got += (size_t)n;
	close(fd);
	(*data)[got] = 0;
	*size = got;
	return 0;
}

static bool same_string(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A refresh reads the manifest of the same recording: the same format and
 * trace configuration, the same threads first. */
static int check_same_recording(const struct hwtr_recording_info *was,
				const struct hwtr_recording_info *now,
				const char *path)
{
	const char *what = NULL;
	size_t i;

	if (was->version != now->version)
		what = "version";
	else if (!same_string(was->arch, now->arch))
		what = "arch";
	else if (!same_string(was->trace_format, now->trace_format))
		what = "trace_format";
	else if (memcmp(&was->pt, &now->pt, sizeof(was->pt)))
		what = "pt";
	else if (was->pid != now->pid)
		what = "process.pid";
	else if (now->nthreads < was->nthreads)
		what = "threads (fewer than before)";
	for (i = 0; !what && i < was->nthreads; i++)
		if (was->threads[i].tid != now->threads[i].tid ||
		    !same_string(was->threads[i].stream, now->threads[i].stream) ||
		    !was->threads[i].etm != !now->threads[i].etm ||
		    (was->threads[i].etm &&
		     (was->threads[i].etm->trace_id != now->threads[i].etm->trace_id ||
		      was->threads[i].etm->formatted != now->threads[i].etm->formatted ||
		      was->threads[i].etm->context_id != now->threads[i].etm->context_id)))
			what = "threads";
	if (what)
		return hwtr_fail(hwtr_err_format,
				 "%s: field \"%s\" changed since the recording was "
				 "read: it is not the same recording any more",
				 path, what);
	return 0;
}

static int read_manifest(struct hwtr_recording *r, struct update *u)
{
	char *path = hwtr_path_join(r->dir, "manifest.json");
	json_error_t jerr;
	uint64_t file_size = 0;
	char *text = NULL;
	size_t size = 0;
	int err;

	if (!path)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	err = read_file_from(r->dir, "manifest.json", path, 0, &text, &size,
			     &file_size);
	if (err == -hwtr_err_notfound) {
		err = hwtr_fail(hwtr_err_notfound,
				"%s: no manifest.json: not a recording, or its "
				"recorder died before writing anything", r->dir);
		goto out;
	}
	if (err)
		goto out;
	if (r->manifest_text && size == r->manifest_size &&
	    !memcmp(text, r->manifest_text, size))
		goto out;	/* unchanged */
	u->manifest = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
	if (!u->manifest) {
		err = hwtr_fail(hwtr_err_format, "%s:%d:%d: %s", path, jerr.line,
				jerr.column, jerr.text);
		goto out;
	}
	u->info_valid = true;
	err = manifest_decode(u->manifest, path, &u->info);
	if (!err && r->manifest)
		err = check_same_recording(&r->info, &u->info, path);
	if (!err) {
		u->manifest_text = text;
		u->manifest_size = size;
		text = NULL;
	}
out:
	free(text);
	free(path);
	return err;
}

static const struct hwtr_recording_info *update_info(const struct hwtr_recording *r,
						     const struct update *u)
{
	return u->manifest_text ? &u->info : &r->info;
}

/* The sideband's lines from the first one not read yet. */
static int read_sideband(struct hwtr_recording *r, struct update *u)
{
	char *path = hwtr_path_join(r->dir, "sideband.jsonl");
	char *text = NULL, *line, *nl;
	uint64_t file_size = 0;
	size_t size = 0;
	int err;

	if (!path)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	u->sideband = json_array();
	u->sideband_read = r->sideband_read;
	u->sideband_lines = r->sideband_lines;
	u->last_tsc = r->last_tsc;
	if (!u->sideband) {
		free(path);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	err = read_file_from(r->dir, "sideband.jsonl", path, r->sideband_read,
			     &text, &size, &file_size);
	if (err == -hwtr_err_notfound && !update_info(r, u)->complete &&
	    r->sideband_read == 0) {
		u->sideband_missing = true;
		err = 0;
		goto out;
	}
	if (err)
		goto out;
	for (line = text; line < text + size; line = nl + 1) {
		struct jfield_where where = { path, u->sideband_lines + 1 };
		struct hwtr_sideband_event ev;
		json_error_t jerr;
		json_t *obj;

		nl = memchr(line, '\n', (size_t)(text + size - line));
		if (!nl) {
			/* A last line without newline: the writer was cut off,
			 * or is writing it now. */
			u->sideband_cut = true;
			u->sideband_cut_at = u->sideband_read;
			break;
		}
		u->sideband_lines++;
		if (nl == line) {
			u->sideband_read += 1;
			continue;
		}
		obj = json_loadb(line, (size_t)(nl - line), 0, &jerr);
		if (!obj) {
			err = hwtr_fail(hwtr_err_format, "%s:%ld: %s", path,
					u->sideband_lines, jerr.text);
			goto out;
		}
		json_array_append_new(u->sideband, obj);
		err = sideband_decode(obj, &where, &ev);
		if (err)
			goto out;
		if (ev.tsc < u->last_tsc) {
			err = hwtr_fail(hwtr_err_format,
					"%s:%ld: tsc %llu goes back in time (previous "
					"event had %llu)", path, u->sideband_lines,
					(unsigned long long)ev.tsc,
					(unsigned long long)u->last_tsc);
			goto out;
		}
		u->last_tsc = ev.tsc;
		if ((err = hwtr_array_grow((void **)&u->events, &u->cap_events,
					   u->nevents, sizeof(*u->events))))
			goto out;
		u->events[u->nevents++] = ev;
		u->sideband_read += (uint64_t)(nl - line) + 1;
	}
out:
	free(text);
	free(path);
	return err;
}

static int map_stream(int fd, const char *path, size_t size,
		      const uint8_t **bytes)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (map == MAP_FAILED)
		return hwtr_fail(hwtr_err_io, "%s: mmap: %s", path, strerror(errno));
	*bytes = map;
	return 0;
}

/* Each thread's stream: mapped again where it grew. */
static int read_streams(struct hwtr_recording *r, struct update *u)
{
	const struct hwtr_recording_info *info = update_info(r, u);
	size_t i;

	u->streams = calloc(info->nthreads + 1, sizeof(*u->streams));
	u->missing = calloc(info->nthreads + 1, sizeof(*u->missing));
	if (!u->streams || !u->missing)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	u->nstreams = info->nthreads;
	for (i = 0; i < info->nthreads; i++) {
		const struct hwtr_thread_info *t = &info->threads[i];
		const struct mapped_stream *was =
			i < r->info.nthreads && r->streams ? &r->streams[i] : NULL;
		char *path = hwtr_path_join(r->dir, t->stream);
		struct stat st;
		int fd = -1, err;

		if (!path)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		err = recording_file_open(r->dir, t->stream, &fd, &st);
		if (err == -hwtr_err_notfound && !info->complete &&
		    !(was && was->size)) {
			u->missing[i] = path;
			continue;
		} else if (err) {
			/* the message names the file */
		} else if (t->trace_start > (uint64_t)st.st_size) {
			err = hwtr_fail(hwtr_err_format,
					"%s: manifest says kept trace starts at offset "
					"%llu, beyond the stream's %lld bytes",
					path, (unsigned long long)t->trace_start,
					(long long)st.st_size);
		} else if (info->complete && st.st_size > 0 &&
			   t->trace_start == (uint64_t)st.st_size) {
			err = hwtr_fail(hwtr_err_format,
					"%s: manifest says kept trace starts at offset "
					"%llu, the end of the finished stream: none of "
					"its trace would be read", path,
					(unsigned long long)t->trace_start);
		} else if (was && (uint64_t)st.st_size < was->size) {
			err = hwtr_fail(hwtr_err_format,
					"%s: shrank from %zu to %lld bytes since it was "
					"read (a recording only grows)", path,
					was->size, (long long)st.st_size);
		} else if (was && (size_t)st.st_size == was->size) {
			u->streams[i].bytes = was->bytes;	/* unchanged */
			u->streams[i].size = was->size;
		} else if (st.st_size > 0) {
			err = map_stream(fd, path, (size_t)st.st_size,
					 &u->streams[i].bytes);
			if (!err)
				u->streams[i].size = (size_t)st.st_size;
		}
		if (fd >= 0)
			close(fd);
		free(path);
		if (err)
			return err;
	}
	return 0;
}

static int compare_streams(const void *a, const void *b, void *threads)
{
	const struct hwtr_thread_info *t = threads;
	int c = strcmp(t[*(const size_t *)a].stream, t[*(const size_t *)b].stream);

	if (c)
		return c;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Each stream of a finished recording against its length and CRC-32; a
 * stream several sources share is read once, and they must agree on it. */
static int check_streams(struct hwtr_recording *r, const struct update *u,
			 const struct hwtr_recording_info *info)
{
	size_t n = info->nthreads, k, *order = calloc(n + 1, sizeof(size_t));
	int err = 0;

	if (!order)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (k = 0; k < n; k++)
		order[k] = k;
	qsort_r(order, n, sizeof(*order), compare_streams, (void *)info->threads);
	for (k = 0; k < n && !err; k++) {
		const struct hwtr_thread_info *t = &info->threads[order[k]];
		const struct hwtr_thread_info *prev =
			k ? &info->threads[order[k - 1]] : NULL;
		char field[64], *path;

		if (!t->has_stream_check)
			continue;
		if (prev && prev->has_stream_check &&
		    !strcmp(prev->stream, t->stream)) {
			if (prev->stream_size != t->stream_size ||
			    prev->stream_crc32 != t->stream_crc32)
				err = hwtr_fail(hwtr_err_format,
						"%s/manifest.json: threads[%zu] and "
						"threads[%zu] name stream \"%s\" with "
						"different lengths or checksums",
						r->dir, order[k - 1], order[k],
						t->stream);
			continue;
		}
		if (!(path = hwtr_path_join(r->dir, t->stream))) {
			err = hwtr_fail(hwtr_err_nomem, "out of memory");
			break;
		}
		snprintf(field, sizeof(field), "threads[%zu].stream_size/crc32",
			 order[k]);
		/* The trace is decoded where needed, not all at once:
		 * checking it leaves none of it resident. */
		err = integrity_check_mapped(path, field,
					     u->streams[order[k]].bytes,
					     u->streams[order[k]].size,
					     t->stream_size, t->stream_crc32);
		free(path);
	}
	free(order);
	return err;
}

/* The other files a finished recording lists, each read once; but the
 * data log, the largest, only when it is read (hwtr_values_open). */
static int check_files(struct hwtr_recording *r,
		       const struct hwtr_recording_info *info)
{
	size_t k;
	int err = 0;

	for (k = 0; k < info->nfiles && !err; k++) {
		const struct hwtr_file_check *f = &info->files[k];
		char *path, field[300];
		struct stat st;
		int fd;

		if (info->values && !strcmp(f->name, info->values))
			continue;
		path = hwtr_path_join(r->dir, f->name);
		if (!path)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		snprintf(field, sizeof(field), "files.\"%s\"", f->name);
		err = recording_file_open(r->dir, f->name, &fd, &st);
		if (!err) {
			err = integrity_check_fd(fd, path, field, f->size, f->crc32);
			close(fd);
		}
		free(path);
	}
	return err;
}

/* What a recording names besides its streams is checked whether it is
 * finished or not: the core must be a regular file inside the recording.
 * A finished recording's files are checked against its manifest once. */
static int check_named_files(struct hwtr_recording *r, struct update *u)
{
	const struct hwtr_recording_info *info = update_info(r, u);
	struct stat st;
	int fd, err;

	if (info->core) {
		if ((err = recording_file_open(r->dir, info->core, &fd, &st)))
			return hwtr_fail_context(err, "core of the recording: ");
		close(fd);
	}
	u->checked = r->checked && !u->manifest_text;
	if (!info->complete || u->checked)
		return 0;
	if ((err = check_streams(r, u, info)) || (err = check_files(r, info)))
		return err;
	u->checked = true;
	return 0;
}

/* Drop what an update read (a refused refresh, or after it was applied). */
static void update_release(struct hwtr_recording *r, struct update *u, bool applied)
{
	size_t i;

	for (i = 0; u->streams && i < u->nstreams; i++) {
		const struct mapped_stream *was =
			i < r->info.nthreads && r->streams ? &r->streams[i] : NULL;

		if (!applied && u->streams[i].bytes &&
		    !(was && was->bytes == u->streams[i].bytes))
			munmap((void *)u->streams[i].bytes, u->streams[i].size);
	}
	for (i = 0; u->missing && i < u->nstreams; i++)
		free(u->missing[i]);
	free(u->missing);
	free(u->streams);
	free(u->events);
	json_decref(u->sideband);
	if (!applied) {
		if (u->info_valid)
			manifest_release(&u->info);
		json_decref(u->manifest);
		free(u->manifest_text);
	}
}

/* Note what is cut off, in the order it is read. */
static void note_cuts(struct hwtr_recording *r, const struct update *u)
{
	char *manifest = hwtr_path_join(r->dir, "manifest.json");
	char *sideband = hwtr_path_join(r->dir, "sideband.jsonl");
	char *old_reason;
	size_t i;

	/* The message may be in use: it is kept while the recording is open
	 * (a new one is made only when it says something else). */
	old_reason = r->cut_off_reason;
	r->cut_off_reason = NULL;
	r->info.cut_off = false;
	r->info.cut_off_reason = NULL;
	if (!r->info.complete)
		note_cut_off(r,
			     "%s: the recorder did not finish (\"complete\": "
			     "false); history ends where the recording was cut%.0llu",
			     manifest ? manifest : "manifest.json", 0);
	if (u->sideband_missing)
		note_cut_off(r, "%s: missing (recording cut off at offset %llu)",
			     sideband ? sideband : "sideband.jsonl", 0);
	if (u->sideband_cut)
		note_cut_off(r, "%s: last line is incomplete at offset %llu "
			     "(recording cut off); events before it are kept",
			     sideband ? sideband : "sideband.jsonl",
			     (unsigned long long)u->sideband_cut_at);
	for (i = 0; i < u->nstreams; i++)
		if (u->missing[i])
			note_cut_off(r, "%s: missing (recording cut off%.0llu)",
				     u->missing[i], 0);
	if (old_reason && r->cut_off_reason &&
	    !strcmp(old_reason, r->cut_off_reason)) {
		free(r->cut_off_reason);
		r->cut_off_reason = old_reason;
		r->info.cut_off_reason = old_reason;
	} else if (old_reason) {
		void *p = realloc(r->old_reasons,
				  (r->nold_reasons + 1) * sizeof(char *));

		if (p) {
			r->old_reasons = p;
			r->old_reasons[r->nold_reasons++] = old_reason;
		} else {
			free(old_reason);
		}
	}
	free(manifest);
	free(sideband);
}

/* Make the update the recording's.  Only allocations can fail, and they
 * come first. */
static int apply(struct hwtr_recording *r, struct update *u)
{
	size_t i, was_threads = r->info.nthreads, need = r->nevents + u->nevents;
	struct mapped_stream *streams = calloc(u->nstreams + 1, sizeof(*streams));
	void *p;

	if (!streams)
		goto nomem;
	if (need > r->cap_events) {
		size_t ncap = r->cap_events ? r->cap_events : 64;

		while (ncap < need)
			ncap *= 2;
		if (!(p = realloc(r->events, ncap * sizeof(*r->events))))
			goto nomem;
		r->events = p;
		r->cap_events = ncap;
	}
	if (u->manifest_text && r->manifest) {
		if (!(p = realloc(r->old, (r->nold + 1) * sizeof(*r->old))))
			goto nomem;
		r->old = p;
		r->old[r->nold].root = r->manifest;
		r->old[r->nold].info = r->info;
		r->nold++;
	}
	/* Only the array grows if this fails: its objects are kept alive. */
	if (json_array_extend(r->sideband, u->sideband) < 0) {
		if (u->manifest_text && r->manifest)
			r->nold--;
		goto nomem;
	}
	if (u->manifest_text) {
		r->manifest = u->manifest;
		r->info = u->info;
		free(r->manifest_text);
		r->manifest_text = u->manifest_text;
		r->manifest_size = u->manifest_size;
	}
	if (u->nevents)
		memcpy(r->events + r->nevents, u->events,
		       u->nevents * sizeof(*u->events));
	r->nevents = need;
	r->sideband_read = u->sideband_read;
	r->sideband_lines = u->sideband_lines;
	r->last_tsc = u->last_tsc;
	/* A stream mapped again keeps its previous mapping until the next
	 * refresh: histories still read it until they are extended. */
	for (i = 0; i < u->nstreams; i++) {
		struct mapped_stream *was = i < was_threads ? &r->streams[i] : NULL;

		streams[i].bytes = u->streams[i].bytes;
		streams[i].size = u->streams[i].size;
		if (!was)
			continue;
		if (was->retired)
			munmap((void *)was->retired, was->retired_size);
		if (was->bytes != streams[i].bytes) {
			streams[i].retired = was->bytes;
			streams[i].retired_size = was->size;
		}
	}
	free(r->streams);
	r->streams = streams;
	note_cuts(r, u);
	r->checked = u->checked;
	r->refreshes++;
	return 0;
nomem:
	free(streams);
	return hwtr_fail(hwtr_err_nomem, "out of memory");
}

static int refresh(struct hwtr_recording *r)
{
	struct update u = { 0 };
	int err;

	if ((err = read_manifest(r, &u)) ||
	    (err = read_sideband(r, &u)) ||
	    (err = read_streams(r, &u)) ||
	    (err = check_named_files(r, &u)) ||
	    (err = apply(r, &u))) {
		update_release(r, &u, false);
		return err;
	}
	update_release(r, &u, true);
	return 0;
}

int hwtr_recording_open(const char *dir, struct hwtr_recording **out)
{
	struct hwtr_recording *r;
	int err;

	if (!dir || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recording_open: bad argument");
	r = calloc(1, sizeof(*r));
	if (!r || !(r->dir = strdup(dir)) || !(r->sideband = json_array())) {
		if (r)
			free(r->dir);
		free(r);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	err = refresh(r);
	if (err) {
		hwtr_recording_close(r);
		return err;
	}
	*out = r;
	return 0;
}

int hwtr_recording_refresh(struct hwtr_recording *r)
{
	if (!r)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recording_refresh: bad argument");
	return refresh(r);
}

void hwtr_recording_close(struct hwtr_recording *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->streams && i < r->info.nthreads; i++) {
		if (r->streams[i].bytes)
			munmap((void *)r->streams[i].bytes, r->streams[i].size);
		if (r->streams[i].retired)
			munmap((void *)r->streams[i].retired,
			       r->streams[i].retired_size);
	}
	free(r->streams);
	for (i = 0; i < r->nold; i++) {
		manifest_release(&r->old[i].info);
		json_decref(r->old[i].root);
	}
	free(r->old);
	for (i = 0; i < r->nold_reasons; i++)
		free(r->old_reasons[i]);
	free(r->old_reasons);
	manifest_release(&r->info);
	json_decref(r->manifest);
	free(r->manifest_text);
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
