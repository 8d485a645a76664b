/* writer.c: streaming writer of recordings (DESIGN.md section 4).
 *
 * Everything streams: trace bytes go straight to trace/TID.pt, each sideband
 * event is one line of sideband.jsonl, and the manifest is rewritten
 * atomically (write + rename) whenever a thread is added and at the end.
 * Until hwtr_writer_finish() the manifest says "complete": false, so a
 * recorder that is killed leaves a recording that the reader opens up to its
 * last complete piece and reports as cut off.  The finished manifest carries
 * every file's length and CRC-32 (integrity.h), counted as the bytes go out.
 */
#include "hwtrecord.h"

#include "error.h"
#include "integrity.h"
#include "manifest.h"
#include "sideband.h"
#include "values-seek.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct writer_thread {
	struct hwtr_thread_info info;
	char *stream_path;	/* relative, owned */
	FILE *file;		/* NULL for a stream saved whole (shared) */
	uint64_t size;
	uint32_t crc;		/* CRC-32 of the SIZE bytes written */
	struct hwtr_etm_config etm;	/* strings owned */
};

/* A file saved in the recording besides the streams and the sideband. */
struct saved_file {
	char *path;		/* relative, owned */
	uint64_t size;
	uint32_t crc;
};

/* A trace file that several sources share, written piece by piece. */
struct shared_trace {
	size_t saved;		/* its entry in saved */
	FILE *file;
};

struct hwtr_writer {
	char *dir;
	struct hwtr_recording_info info;	/* strings owned below */
	char *source, *trace_format, *arch, *executable;
	char *address_filter;	/* info.pt's */
	char **argv;
	struct writer_thread *threads;
	size_t nthreads, cap_threads;
	struct hwtr_thread_info *thread_infos;	/* manifest view of threads */
	FILE *sideband;
	uint64_t sideband_size;
	uint32_t sideband_crc;
	char *core;
	uint64_t core_size;
	uint32_t core_crc;
	char *values;
	uint64_t values_size;
	uint32_t values_crc;
	char *end_reason;	/* info.end.reason */
	struct saved_file *saved;	/* saved objects and trace buffers */
	size_t nsaved;
	struct hwtr_file_check *file_checks;	/* manifest view of files */
	struct shared_trace *shared;	/* trace files written as they come */
	size_t nshared;
	bool failed;		/* a write failed: say so in every later call */
};

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

static const struct saved_file *find_saved(const struct hwtr_writer *w,
					   const char *path)
{
	size_t i;

	for (i = 0; i < w->nsaved; i++)
		if (!strcmp(w->saved[i].path, path))
			return &w->saved[i];
	return NULL;
}

static bool is_stream(const struct hwtr_writer *w, const char *path)
{
	size_t i;

	for (i = 0; i < w->nthreads; i++)
		if (!strcmp(w->threads[i].info.stream, path))
			return true;
	return false;
}

/* A finished recording says how long each file is and its CRC-32; one that
 * is still being written says nothing (its files grow). */
static int note_checks(struct hwtr_writer *w)
{
	struct hwtr_file_check *files;
	size_t i, n = 0;

	w->info.nfiles = 0;
	w->info.files = NULL;
	if (!w->info.complete)
		return 0;
	for (i = 0; i < w->nthreads; i++) {
		struct hwtr_thread_info *t = &w->thread_infos[i];
		const struct saved_file *whole =
			w->threads[i].file ? NULL : find_saved(w, t->stream);

		t->has_stream_check = true;
		t->stream_size = whole ? whole->size : w->threads[i].size;
		t->stream_crc32 = whole ? whole->crc : w->threads[i].crc;
	}
	files = realloc(w->file_checks, (w->nsaved + 3) * sizeof(*files));
	if (!files)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->file_checks = files;
	files[n++] = (struct hwtr_file_check){ "sideband.jsonl", w->sideband_size,
					       w->sideband_crc };
	if (w->core)
		files[n++] = (struct hwtr_file_check){ w->core, w->core_size,
						       w->core_crc };
	if (w->values)
		files[n++] = (struct hwtr_file_check){ w->values, w->values_size,
						       w->values_crc };
	for (i = 0; i < w->nsaved; i++)
		if (!is_stream(w, w->saved[i].path))
			files[n++] = (struct hwtr_file_check){
				w->saved[i].path, w->saved[i].size, w->saved[i].crc };
	w->info.nfiles = n;
	w->info.files = files;
	return 0;
}

/* Write the manifest to a temporary file and rename it into place, so that
 * readers see the old or the new manifest, never half of one. */
static int write_manifest_in(struct hwtr_writer *w, const char *dir)
{
	char *final = hwtr_path_join(dir, "manifest.json");
	char *tmp = hwtr_path_join(dir, "manifest.json.tmp");
	json_t *root;
	size_t i;
	int err = 0;
	FILE *f;

	if (!final || !tmp) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	for (i = 0; i < w->nthreads; i++) {
		w->thread_infos[i] = w->threads[i].info;
		/* The threads array moves as it grows. */
		if (w->threads[i].info.etm)
			w->thread_infos[i].etm = &w->threads[i].etm;
	}
	w->info.threads = w->thread_infos;
	w->info.nthreads = w->nthreads;
	if ((err = note_checks(w)))
		goto out;
	root = manifest_encode(&w->info);
	if (!root) {
		err = hwtr_fail(hwtr_err_nomem, "%s: cannot encode manifest", final);
		goto out;
	}
	f = fopen(tmp, "w");
	if (!f) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", tmp, strerror(errno));
		json_decref(root);
		goto out;
	}
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
	    fputc('\n', f) == EOF || fflush(f) == EOF || fsync(fileno(f)) < 0) {
		err = hwtr_fail(hwtr_err_io, "%s: write failed: %s", tmp,
				strerror(errno));
		fclose(f);
		json_decref(root);
		goto out;
	}
	json_decref(root);
	if (fclose(f) == EOF || rename(tmp, final) < 0)
		err = hwtr_fail(hwtr_err_io, "%s: %s", final, strerror(errno));
out:
	free(final);
	free(tmp);
	return err;
}

static int write_manifest(struct hwtr_writer *w)
{
	return write_manifest_in(w, w->dir);
}

static char *strdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int hwtr_writer_create(const char *dir, const struct hwtr_writer_info *info,
		       struct hwtr_writer **out)
{
	struct hwtr_writer *w;
	char *path;
	size_t i;
	int err;

	if (!dir || !info || !out || !info->source)
		return hwtr_fail(hwtr_err_invalid, "hwtr_writer_create: bad argument");
	if (mkdir(dir, 0777) < 0) {
		if (errno != EEXIST)
			return hwtr_fail(hwtr_err_io, "%s: cannot create: %s", dir,
					 strerror(errno));
		if (dir_is_empty(dir) != 1)
			return hwtr_fail(hwtr_err_io,
					 "%s: exists and is not an empty directory",
					 dir);
	}
	path = hwtr_path_join(dir, "trace");
	if (!path)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (mkdir(path, 0777) < 0 && errno != EEXIST) {
		err = hwtr_fail(hwtr_err_io, "%s: cannot create: %s", path,
				strerror(errno));
		free(path);
		return err;
	}
	free(path);

	w = calloc(1, sizeof(*w));
	if (!w)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->dir = strdup(dir);
	w->source = strdup(info->source);
	w->trace_format = strdup(info->trace_format ? info->trace_format
						     : "intel-pt");
	w->arch = strdup(info->arch ? info->arch : "x86_64");
	w->executable = strdup_or_null(info->executable);
	w->argv = calloc(info->argc + 1, sizeof(char *));
	if (!w->dir || !w->source || !w->trace_format || !w->arch || !w->argv ||
	    (info->executable && !w->executable))
		goto nomem;
	for (i = 0; i < info->argc; i++)
		if (!(w->argv[i] = strdup(info->argv[i])))
			goto nomem;
	/* The lowest version that holds the recording: Intel PT recordings
	 * stay readable by version 1 readers. */
	w->info.version = strcmp(w->trace_format, "intel-pt") ? 2 : 1;
	w->info.arch = w->arch;
	w->info.trace_format = w->trace_format;
	w->info.source = w->source;
	w->info.pt = info->pt;
	w->info.pt.address_filter = w->address_filter =
		strdup_or_null(info->pt.address_filter);
	if (info->pt.address_filter && !w->address_filter)
		goto nomem;
	w->info.pid = info->pid;
	w->info.executable = w->executable;
	w->info.argc = info->argc;
	w->info.argv = (const char *const *)w->argv;

	path = hwtr_path_join(dir, "sideband.jsonl");
	if (!path)
		goto nomem;
	w->sideband = fopen(path, "w");
	if (!w->sideband) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
		free(path);
		hwtr_writer_free(w);
		return err;
	}
	free(path);
	err = write_manifest(w);
	if (err) {
		hwtr_writer_free(w);
		return err;
	}
	*out = w;
	return 0;
nomem:
	hwtr_writer_free(w);
	return hwtr_fail(hwtr_err_nomem, "out of memory");
}

static struct writer_thread *find_thread(const struct hwtr_writer *w,
					 uint32_t tid)
{
	size_t i;

	for (i = 0; i < w->nthreads; i++)
		if (w->threads[i].info.tid == tid)
			return &w->threads[i];
	return NULL;
}

static int check_usable(struct hwtr_writer *w)
{
	if (!w)
		return hwtr_fail(hwtr_err_invalid, "no writer");
	if (w->failed)
		return hwtr_fail(hwtr_err_io,
				 "%s: an earlier write failed; the recording "
				 "is kept up to that point", w->dir);
	return 0;
}

int hwtr_writer_event(struct hwtr_writer *w,
		      const struct hwtr_sideband_event *event)
{
	json_t *obj;
	char *line;
	int err = check_usable(w);

	if (err)
		return err;
	/* JSON integers are signed 64-bit: what does not fit would make a
	 * file the reader rejects. */
	if (event->tsc > INT64_MAX || event->len > INT64_MAX ||
	    event->pgoff > INT64_MAX || event->offset > INT64_MAX)
		return hwtr_fail(hwtr_err_invalid, "%s: sideband event with a "
				 "time, length or offset of 2^63 or more",
				 w->dir);
	/* What the reader refuses is not written either. */
	if ((event->kind == hwtr_ev_mmap || event->kind == hwtr_ev_munmap) &&
	    (event->len == 0 || (event->addr + event->len < event->addr &&
				 event->addr + event->len != 0)))
		return hwtr_fail(hwtr_err_invalid, "%s: sideband %s at 0x%llx of "
				 "length 0x%llx: empty, or wraps past the end of "
				 "the address space", w->dir,
				 event->kind == hwtr_ev_mmap ? "mmap" : "munmap",
				 (unsigned long long)event->addr,
				 (unsigned long long)event->len);
	obj = sideband_encode(event);
	if (!obj)
		return hwtr_fail(hwtr_err_invalid, "%s: cannot encode sideband event",
				 w->dir);
	line = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (!line)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (fputs(line, w->sideband) == EOF || fputc('\n', w->sideband) == EOF) {
		w->failed = true;
		err = hwtr_fail(hwtr_err_io, "%s/sideband.jsonl: write failed: %s",
				w->dir, strerror(errno));
	} else {
		w->sideband_crc = integrity_crc32(w->sideband_crc, line, strlen(line));
		w->sideband_crc = integrity_crc32(w->sideband_crc, "\n", 1);
		w->sideband_size += strlen(line) + 1;
	}
	free(line);
	return err;
}

/* A zeroed slot for a new thread TID (not yet counted). */
static int new_thread(struct hwtr_writer *w, uint32_t tid,
		      struct writer_thread **out)
{
	int err = check_usable(w);

	if (err)
		return err;
	if (find_thread(w, tid))
		return hwtr_fail(hwtr_err_invalid, "thread %u already added", tid);
	if (w->nthreads == w->cap_threads) {
		size_t cap = w->cap_threads ? 2 * w->cap_threads : 8;
		void *p = realloc(w->threads, cap * sizeof(*w->threads));
		void *q;

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		w->threads = p;
		q = realloc(w->thread_infos, cap * sizeof(*w->thread_infos));
		if (!q)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		w->thread_infos = q;
		w->cap_threads = cap;
	}
	*out = &w->threads[w->nthreads];
	memset(*out, 0, sizeof(**out));
	(*out)->info.tid = tid;
	return 0;
}

/* The thread is complete: count it, log its start, rewrite the manifest. */
static int thread_added(struct hwtr_writer *w, uint32_t tid, uint64_t tsc)
{
	struct hwtr_sideband_event ev = { .kind = hwtr_ev_thread_start };
	int err;

	w->nthreads++;
	ev.tsc = tsc;
	ev.tid = tid;
	if ((err = hwtr_writer_event(w, &ev)))
		return err;
	return write_manifest(w);
}

int hwtr_writer_add_thread(struct hwtr_writer *w, uint32_t tid, uint64_t tsc)
{
	struct writer_thread *t;
	char name[64], *full;
	int err = new_thread(w, tid, &t);

	if (err)
		return err;
	snprintf(name, sizeof(name), "trace/%u.pt", tid);
	t->stream_path = strdup(name);
	full = hwtr_path_join(w->dir, name);
	if (!t->stream_path || !full) {
		free(t->stream_path);
		free(full);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	t->file = fopen(full, "w");
	if (!t->file) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", full, strerror(errno));
		free(t->stream_path);
		free(full);
		return err;
	}
	free(full);
	setvbuf(t->file, NULL, _IOFBF, 1 << 16);
	t->info.stream = t->stream_path;
	return thread_added(w, tid, tsc);
}

static void free_etm_strings(struct hwtr_etm_config *e)
{
	free((char *)e->source);
	free((char *)e->core);
	free((char *)e->core_type);
}

int hwtr_writer_add_source(struct hwtr_writer *w, uint32_t tid, uint64_t tsc,
			   const char *stream, const struct hwtr_etm_config *etm)
{
	struct writer_thread *t;
	size_t i;
	int err;

	if (!stream || !etm)
		return hwtr_fail(hwtr_err_invalid, "hwtr_writer_add_source: bad argument");
	for (i = 0; w && i < w->nsaved; i++)
		if (!strcmp(w->saved[i].path, stream))
			break;
	if (!w || i == w->nsaved || strncmp(stream, "trace/", 6))
		return hwtr_fail(hwtr_err_invalid,
				 "trace stream \"%s\" was not saved with "
				 "hwtr_writer_save_trace", stream);
	if ((err = new_thread(w, tid, &t)))
		return err;
	t->stream_path = strdup(stream);
	t->etm = *etm;
	t->etm.source = strdup_or_null(etm->source);
	t->etm.core = strdup_or_null(etm->core);
	t->etm.core_type = strdup_or_null(etm->core_type);
	if (!t->stream_path || (etm->source && !t->etm.source) ||
	    (etm->core && !t->etm.core) || (etm->core_type && !t->etm.core_type)) {
		free(t->stream_path);
		free_etm_strings(&t->etm);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	t->info.stream = t->stream_path;
	t->info.etm = &t->etm;
	return thread_added(w, tid, tsc);
}

int hwtr_writer_trace(struct hwtr_writer *w, uint32_t tid, const void *bytes,
		      size_t size)
{
	struct writer_thread *t;
	int err = check_usable(w);

	if (err)
		return err;
	t = find_thread(w, tid);
	if (!t || !t->file)
		return hwtr_fail(hwtr_err_notfound, "thread %u has no stream of "
				 "its own to append to", tid);
	if (size && fwrite(bytes, 1, size, t->file) != size) {
		w->failed = true;
		return hwtr_fail(hwtr_err_io, "%s/%s: write failed at offset %llu: %s",
				 w->dir, t->stream_path,
				 (unsigned long long)t->size, strerror(errno));
	}
	t->crc = integrity_crc32(t->crc, bytes, size);
	t->size += size;
	return 0;
}

int hwtr_writer_trace_size(const struct hwtr_writer *w, uint32_t tid,
			   uint64_t *size)
{
	struct writer_thread *t = w ? find_thread(w, tid) : NULL;

	if (!t || !size)
		return hwtr_fail(hwtr_err_notfound, "thread %u has no stream", tid);
	*size = t->size;
	return 0;
}

int hwtr_writer_set_trace_start(struct hwtr_writer *w, uint32_t tid,
				uint64_t offset)
{
	struct writer_thread *t = w ? find_thread(w, tid) : NULL;

	if (!t)
		return hwtr_fail(hwtr_err_notfound, "thread %u has no stream", tid);
	t->info.trace_start = offset;
	return 0;
}

/* Save BYTES whole as SUBDIR/NAME. */
static int save_file(struct hwtr_writer *w, const char *subdir, const char *name,
		     const void *bytes, size_t size, const char **relative_path)
{
	char rel[512], *full, *objdir;
	void *p;
	FILE *f;
	int err = check_usable(w);

	if (err)
		return err;
	if (!name || !*name || strchr(name, '/') || !strcmp(name, "..") ||
	    !strcmp(name, "."))
		return hwtr_fail(hwtr_err_invalid, "bad file name \"%s\" for %s/",
				 name ? name : "(null)", subdir);
	objdir = hwtr_path_join(w->dir, subdir);
	if (!objdir)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (mkdir(objdir, 0777) < 0 && errno != EEXIST) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", objdir, strerror(errno));
		free(objdir);
		return err;
	}
	free(objdir);
	snprintf(rel, sizeof(rel), "%s/%s", subdir, name);
	full = hwtr_path_join(w->dir, rel);
	if (!full)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	f = fopen(full, "w");
	if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) == EOF) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", full, strerror(errno));
		if (f)
			fclose(f);
		free(full);
		return err;
	}
	free(full);
	p = realloc(w->saved, (w->nsaved + 1) * sizeof(*w->saved));
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->saved = p;
	w->saved[w->nsaved] = (struct saved_file){
		strdup(rel), size, integrity_crc32(0, bytes, size) };
	if (!w->saved[w->nsaved].path)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (relative_path)
		*relative_path = w->saved[w->nsaved].path;
	w->nsaved++;
	return 0;
}

int hwtr_writer_save_object(struct hwtr_writer *w, const char *name,
			    const void *bytes, size_t size,
			    const char **relative_path)
{
	return save_file(w, "objects", name, bytes, size, relative_path);
}

int hwtr_writer_save_trace(struct hwtr_writer *w, const char *name,
			   const void *bytes, size_t size,
			   const char **relative_path)
{
	return save_file(w, "trace", name, bytes, size, relative_path);
}

int hwtr_writer_open_trace(struct hwtr_writer *w, const char *name,
			   const char **relative_path)
{
	const char *rel;
	char *full;
	void *p;
	FILE *f;
	int err = save_file(w, "trace", name, "", 0, &rel);

	if (err)
		return err;
	p = realloc(w->shared, (w->nshared + 1) * sizeof(*w->shared));
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->shared = p;
	full = hwtr_path_join(w->dir, rel);
	if (!full)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	f = fopen(full, "a");
	if (!f) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", full, strerror(errno));
		free(full);
		return err;
	}
	free(full);
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	w->shared[w->nshared++] = (struct shared_trace){ w->nsaved - 1, f };
	if (relative_path)
		*relative_path = rel;
	return 0;
}

int hwtr_writer_append_trace(struct hwtr_writer *w, const char *relative_path,
			     const void *bytes, size_t size)
{
	struct saved_file *saved;
	size_t i;
	int err = check_usable(w);

	if (err)
		return err;
	for (i = 0; i < w->nshared; i++)
		if (!strcmp(w->saved[w->shared[i].saved].path, relative_path))
			break;
	if (i == w->nshared)
		return hwtr_fail(hwtr_err_notfound, "trace stream \"%s\" was not "
				 "opened with hwtr_writer_open_trace",
				 relative_path);
	saved = &w->saved[w->shared[i].saved];
	if (size && fwrite(bytes, 1, size, w->shared[i].file) != size) {
		w->failed = true;
		return hwtr_fail(hwtr_err_io, "%s/%s: write failed at offset %llu: %s",
				 w->dir, relative_path,
				 (unsigned long long)saved->size, strerror(errno));
	}
	saved->crc = integrity_crc32(saved->crc, bytes, size);
	saved->size += size;
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in, outfd, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY);
	if (in < 0)
		return hwtr_fail(hwtr_err_io, "%s: %s", from, strerror(errno));
	outfd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (outfd < 0) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", to, strerror(errno));
		close(in);
		return err;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) > 0) {
		ssize_t done = 0, w;

		/* A short write sets no errno: write the rest, whose failure
		 * says why (ENOSPC), rather than show a stale errno. */
		errno = 0;
		while (done < n && (w = write(outfd, buf + done,
					      (size_t)(n - done))) > 0)
			done += w;
		if (done < n)
			err = hwtr_fail(hwtr_err_io, "%s: write failed: %s", to,
					errno ? strerror(errno) : "short write");
	}
	if (n < 0 && !err)
		err = hwtr_fail(hwtr_err_io, "%s: %s", from, strerror(errno));
	close(in);
	if (close(outfd) < 0 && !err)
		err = hwtr_fail(hwtr_err_io, "%s: %s", to, strerror(errno));
	if (err)
		unlink(to);	/* no partial copy to pass for the file */
	return err;
}

static int checksum_file(const char *path, uint64_t *size, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
	err = integrity_crc32_of_fd(fd, path, size, crc);
	close(fd);
	return err;
}

/* The data log's size and CRC-32: from its seek table's CRCs of the
 * segments when it has one that checks out (values-seek.h: the log is not
 * read back, hundreds of MB for a few seconds of a program), else read. */
static int checksum_values(const char *path, uint64_t *size, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map;
	int rc;

	if (fd < 0)
		return hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
			0)) != MAP_FAILED) {
		rc = values_seek_file_crc(map, (size_t)st.st_size, path, crc);
		munmap(map, (size_t)st.st_size);
		if (rc == 0) {
			*size = (uint64_t)st.st_size;
			close(fd);
			return 0;
		}
	}
	/* Cut off (the recorder killed), or a table that does not check
	 * out: the whole file. */
	rc = integrity_crc32_of_fd(fd, path, size, crc);
	close(fd);
	return rc;
}

/* Move (or copy, across file systems) FROM into the recording as NAME and
 * take its size and CRC-32 with CHECKSUM. */
static int move_into(struct hwtr_writer *w, const char *from, const char *name,
		     uint64_t *size, uint32_t *crc,
		     int (*checksum)(const char *, uint64_t *, uint32_t *))
{
	char *dest = hwtr_path_join(w->dir, name);
	int err;

	if (!dest)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (rename(from, dest) < 0) {
		if (errno != EXDEV) {
			err = hwtr_fail(hwtr_err_io, "%s: %s", from,
					strerror(errno));
			free(dest);
			return err;
		}
		err = copy_file(from, dest);
		if (err) {
			free(dest);
			return err;
		}
		unlink(from);
	}
	err = checksum(dest, size, crc);
	free(dest);
	return err;
}

int hwtr_writer_add_core(struct hwtr_writer *w, const char *core_path)
{
	int err = check_usable(w);

	if (err || (err = move_into(w, core_path, "core", &w->core_size,
				    &w->core_crc, checksum_file)))
		return err;
	free(w->core);
	w->core = strdup("core");
	w->info.core = w->core;
	return write_manifest(w);
}

int hwtr_writer_add_values(struct hwtr_writer *w, const char *path,
			   int version)
{
	int err = check_usable(w);

	if (err)
		return err;
	if (version <= 0)
		return hwtr_fail(hwtr_err_invalid, "data log version %d",
				 version);
	if ((err = move_into(w, path, "values", &w->values_size,
			     &w->values_crc, checksum_values)))
		return err;
	free(w->values);
	w->values = strdup("values");
	w->info.values = w->values;
	w->info.values_version = version;
	return write_manifest(w);
}

int hwtr_writer_flush(struct hwtr_writer *w)
{
	size_t i;
	int err = check_usable(w);

	if (err)
		return err;
	for (i = 0; i < w->nthreads; i++)
		if (w->threads[i].file && fflush(w->threads[i].file) == EOF) {
			w->failed = true;
			return hwtr_fail(hwtr_err_io, "%s/%s: write failed: %s",
					 w->dir, w->threads[i].stream_path,
					 strerror(errno));
		}
	for (i = 0; i < w->nshared; i++)
		if (fflush(w->shared[i].file) == EOF) {
			w->failed = true;
			return hwtr_fail(hwtr_err_io, "%s/%s: write failed: %s",
					 w->dir, w->saved[w->shared[i].saved].path,
				 strerror(errno));
		}
	if (fflush(w->sideband) == EOF) {
		w->failed = true;
		return hwtr_fail(hwtr_err_io, "%s/sideband.jsonl: write failed: %s",
				 w->dir, strerror(errno));
	}
	return 0;
}

int hwtr_writer_finish(struct hwtr_writer *w, const struct hwtr_end *end)
{
	int err = hwtr_writer_flush(w);

	if (err)
		return err;
	if (end)
		w->info.end = *end;
	w->info.complete = true;
	return write_manifest(w);
}

int hwtr_writer_finish_aborted(struct hwtr_writer *w, const char *reason,
			       int signal)
{
	struct hwtr_end end = { .state = hwtr_end_aborted, .code = signal };

	free(w->end_reason);
	w->end_reason = strdup(reason ? reason : "unknown");
	if (!w->end_reason)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	w->info.end_reason = w->end_reason;
	return hwtr_writer_finish(w, &end);
}

/* Copy RELATIVE from the recording into DIR, making its one parent level. */
static int copy_into(const struct hwtr_writer *w, const char *dir,
		     const char *relative)
{
	char *from = hwtr_path_join(w->dir, relative), *to = hwtr_path_join(dir, relative);
	char *slash;
	int err;

	if (!from || !to) {
		free(from);
		free(to);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	slash = strrchr(to, '/');
	if (slash && slash > to + strlen(dir)) {
		*slash = 0;
		if (mkdir(to, 0777) < 0 && errno != EEXIST) {
			err = hwtr_fail(hwtr_err_io, "%s: %s", to, strerror(errno));
			free(from);
			free(to);
			return err;
		}
		*slash = '/';
	}
	err = copy_file(from, to);
	free(from);
	free(to);
	return err;
}

int hwtr_writer_save_copy(struct hwtr_writer *w, const char *dir)
{
	struct hwtr_end end = w->info.end;
	bool complete = w->info.complete;
	size_t i;
	int err = hwtr_writer_flush(w);

	if (err)
		return err;
	if (mkdir(dir, 0777) < 0 && (errno != EEXIST || dir_is_empty(dir) != 1))
		return hwtr_fail(hwtr_err_io, "%s: %s", dir, errno == EEXIST ?
				 "exists and is not empty" : strerror(errno));
	/* A stream saved whole (shared by sources) is among the saved files. */
	for (i = 0; i < w->nthreads && !err; i++)
		if (w->threads[i].file)
			err = copy_into(w, dir, w->threads[i].stream_path);
	if (!err)
		err = copy_into(w, dir, "sideband.jsonl");
	for (i = 0; i < w->nsaved && !err; i++)
		err = copy_into(w, dir, w->saved[i].path);
	if (!err && w->core)
		err = copy_into(w, dir, w->core);
	if (!err && w->values)
		err = copy_into(w, dir, w->values);
	if (err)
		return err;
	/* The copy is finished: the program was still running. */
	w->info.end = (struct hwtr_end){ .state = hwtr_end_running };
	w->info.complete = true;
	err = write_manifest_in(w, dir);
	w->info.end = end;
	w->info.complete = complete;
	return err;
}

void hwtr_writer_free(struct hwtr_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nthreads; i++) {
		if (w->threads[i].file)
			fclose(w->threads[i].file);
		free(w->threads[i].stream_path);
		free_etm_strings(&w->threads[i].etm);
	}
	if (w->sideband)
		fclose(w->sideband);
	for (i = 0; i < w->nshared; i++)
		fclose(w->shared[i].file);
	free(w->shared);
	for (i = 0; w->argv && i < w->info.argc; i++)
		free(w->argv[i]);
	for (i = 0; i < w->nsaved; i++)
		free(w->saved[i].path);
	free(w->saved);
	free(w->file_checks);
	free(w->end_reason);
	free(w->argv);
	free(w->threads);
	free(w->thread_infos);
	free(w->dir);
	free(w->source);
	free(w->trace_format);
	free(w->arch);
	free(w->executable);
	free(w->address_filter);
	free(w->core);
	free(w->values);
	free(w);
}
