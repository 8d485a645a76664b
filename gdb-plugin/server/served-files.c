/* served-files.c: the files GDB reads from a recording (see
 * served-files.h). */
#include "served-files.h"

#include "libraries.h"
#include "loaded-objects.h"
#include "replay.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hwtrecord.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPEN 64

struct served_files {
	struct replay *replay;
	int fds[MAX_OPEN];	/* host descriptors, -1: free */
};

int served_files_create(struct replay *r, struct served_files **out)
{
	struct served_files *f = calloc(1, sizeof(*f));
	size_t i;

	if (!f)
		return -ENOMEM;
	f->replay = r;
	for (i = 0; i < MAX_OPEN; i++)
		f->fds[i] = -1;
	*out = f;
	return 0;
}

void served_files_free(struct served_files *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < MAX_OPEN; i++)
		if (f->fds[i] >= 0)
			close(f->fds[i]);
	free(f);
}

/* The build-id NAME asks for as DIR/.build-id/xx/rest[.debug] into ID;
 * *DEBUG if it asks for the debug file. */
static bool build_id_name(const char *name, char *id, size_t size, bool *debug)
{
	const char *p = strstr(name, "/.build-id/");
	size_t n = 0;

	if (!p)
		return false;
	p += strlen("/.build-id/");
	if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
	    p[2] != '/')
		return false;
	id[n++] = p[0];
	id[n++] = p[1];
	for (p += 3; isxdigit((unsigned char)*p) && n + 1 < size; p++)
		id[n++] = (char)tolower((unsigned char)*p);
	id[0] = (char)tolower((unsigned char)id[0]);
	id[1] = (char)tolower((unsigned char)id[1]);
	id[n] = '\0';
	*debug = !strcmp(p, ".debug");
	return n > 2 && (*debug || !*p);
}

/* The last mmap event that maps PATH, or whose build-id is ID; NULL. */
static const struct hwtr_sideband_event *mapping_of(const struct hwtr_recording *rec,
						    const char *path,
						    const char *id)
{
	size_t i = hwtr_recording_nevents(rec);

	while (i-- > 0) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		if (ev->kind != hwtr_ev_mmap)
			continue;
		if (path && ev->path && !strcmp(ev->path, path))
			return ev;
		if (id && ev->build_id && !strcmp(ev->build_id, id))
			return ev;
	}
	return NULL;
}

/* The library's answer, or NULL; a file refused for its build-id is said
 * on stderr (both ids), since GDB shows only "No such file". */
static char *found(int rc, char *file, const char *name)
{
	if (rc == -hwtr_err_buildid)
		fprintf(stderr, "hwtrec-server: %s: not served: %s\n", name,
			hwtr_last_error());
	return rc ? NULL : file;
}

/* The file NAME stands for (malloc'd), or NULL: see served-files.h. */
static char *file_for(struct served_files *f, const char *name)
{
	const struct hwtr_recording *rec = replay_recording(f->replay);
	const struct hwtr_sideband_event *ev;
	const struct loaded_objects *lo;
	char id[130], *file = NULL;
	uint64_t l_addr;
	bool debug;
	size_t i;
	int rc;

	if (build_id_name(name, id, sizeof(id), &debug)) {
		if (!mapping_of(rec, NULL, id))
			return NULL;	/* no file of this recording */
		rc = debug ? hwtr_recording_find_debug(rec, id, NULL, &file)
			   : hwtr_recording_find_code(rec, mapping_of(rec, NULL, id),
						      NULL, &file);
		return found(rc, file, name);
	}
	if ((ev = mapping_of(rec, name, NULL))) {
		rc = hwtr_recording_find_code(rec, ev, NULL, &file);
		return found(rc, file, name);
	}
	/* Another name for a loaded library: where the dynamic linker put
	 * it says which. */
	lo = replay_loaded_objects(f->replay);
	if (libraries_load_bias(f->replay, name, &l_addr)) {
		for (i = 0; lo && i < lo->n; i++)
			if (lo->objects[i].shared && lo->objects[i].bias == l_addr)
				return strdup(lo->objects[i].file);
		/* No mapping says what was there: the name the process
		 * itself recorded is all there is (a core without sideband). */
		return strdup(name);
	}
	/* Named by the recording with no build-id to check: the manifest's
	 * executable, the core's own list of mapped files. */
	return replay_names_file(f->replay, name) ? strdup(name) : NULL;
}

int served_files_open(struct served_files *f, const char *name)
{
	char *file = file_for(f, name);
	struct stat st;
	int slot, fd;

	if (!file)
		return -ENOENT;
	for (slot = 0; slot < MAX_OPEN && f->fds[slot] >= 0; slot++)
		;
	if (slot == MAX_OPEN) {
		free(file);
		return -EMFILE;
	}
	/* O_NONBLOCK and a regular file only, as everywhere a recording
	 * names a file. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EACCES;
	}
	free(file);
	if (fd < 0)
		return -errno;
	f->fds[slot] = fd;
	return slot;
}

static int host_fd(struct served_files *f, int fd)
{
	return fd >= 0 && fd < MAX_OPEN ? f->fds[fd] : -1;
}

ssize_t served_files_pread(struct served_files *f, int fd, void *buf,
			   size_t count, uint64_t offset)
{
	int h = host_fd(f, fd);
	ssize_t n;

	if (h < 0)
		return -EBADF;
	if (offset > INT64_MAX)
		return -EINVAL;
	n = pread(h, buf, count, (off_t)offset);
	return n < 0 ? -errno : n;
}

int served_files_fstat(struct served_files *f, int fd, struct stat *st)
{
	int h = host_fd(f, fd);

	if (h < 0)
		return -EBADF;
	return fstat(h, st) < 0 ? -errno : 0;
}

int served_files_close(struct served_files *f, int fd)
{
	int h = host_fd(f, fd);

	if (h < 0)
		return -EBADF;
	close(h);
	f->fds[fd] = -1;
	return 0;
}
