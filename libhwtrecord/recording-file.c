/* recording-file.c: opening the files a recording names (see the header). */
#include "recording-file.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool recording_name_inside(const char *name)
{
	const char *c = name, *end;

	if (!name || !*name || *name == '/')
		return false;
	/* Each component: not empty, not "." and not "..". */
	for (;;) {
		end = strchr(c, '/');
		if (!end)
			end = c + strlen(c);
		if (end == c || (end - c == 1 && c[0] == '.') ||
		    (end - c == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!*end)
			return true;
		c = end + 1;
	}
}

/* FD (opened with O_NONBLOCK) is a regular file: never a FIFO or device
 * whose reads would block or never end. */
static int check_regular(int fd, const char *dir, const char *name,
			 struct stat *st)
{
	const char *sep = dir ? "/" : "";

	if (fstat(fd, st) < 0)
		return hwtr_fail(hwtr_err_io, "%s%s%s: %s", dir ? dir : "", sep,
				 name, strerror(errno));
	if (!S_ISREG(st->st_mode))
		return hwtr_fail(hwtr_err_format,
				 "%s%s%s: not a regular file (a %s)",
				 dir ? dir : "", sep, name,
				 S_ISFIFO(st->st_mode) ? "FIFO" :
				 S_ISDIR(st->st_mode) ? "directory" :
				 S_ISSOCK(st->st_mode) ? "socket" : "device");
	return 0;
}

static int open_failed(const char *dir, const char *name, int e)
{
	const char *sep = dir ? "/" : "";

	if (e == ENOENT)
		return hwtr_fail(hwtr_err_notfound, "%s%s%s: %s", dir ? dir : "",
				 sep, name, strerror(e));
	if (dir && (e == ELOOP || e == ENOTDIR))
		return hwtr_fail(hwtr_err_format,
				 "%s/%s: goes through a symbolic link (or a "
				 "non-directory): a recording's files are its "
				 "own, links are not followed", dir, name);
	return hwtr_fail(hwtr_err_io, "%s%s%s: %s", dir ? dir : "", sep, name,
			 strerror(e));
}

int recording_file_open(const char *dir, const char *name, int *fd,
			struct stat *st)
{
	char *copy, *c, *slash;
	int at, next, err = 0;

	*fd = -1;
	if (!recording_name_inside(name))
		return hwtr_fail(hwtr_err_format,
				 "%s/%s: the name leaves the recording directory "
				 "(absolute, or with a \".\" or \"..\" component)",
				 dir, name ? name : "(null)");
	if (!(copy = strdup(name)))
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	/* The directory itself is the user's choice: followed. */
	at = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (at < 0) {
		err = open_failed(NULL, dir, errno);
		goto out;
	}
	for (c = copy; (slash = strchr(c, '/')); c = slash + 1) {
		*slash = 0;
		next = openat(at, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_NONBLOCK | O_CLOEXEC);
		*slash = '/';
		if (next < 0) {
			err = open_failed(dir, name, errno);
			goto out;
		}
		close(at);
		at = next;
	}
	next = openat(at, c, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (next < 0) {
		err = open_failed(dir, name, errno);
		goto out;
	}
	if ((err = check_regular(next, dir, name, st))) {
		close(next);
		goto out;
	}
	*fd = next;
out:
	if (at >= 0)
		close(at);
	free(copy);
	return err;
}

int regular_file_open(const char *path, int *fd, struct stat *st)
{
	int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	*fd = -1;
	if (f < 0)
		return open_failed(NULL, path, errno);
	if ((err = check_regular(f, NULL, path, st))) {
		close(f);
		return err;
	}
	*fd = f;
	return 0;
}
