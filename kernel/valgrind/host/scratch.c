/* scratch.c: the recorder's private directory (the tool's FIFO,
 * Valgrind's log, core and vgdb FIFOs), and the removal of those that
 * recorders killed with SIGKILL left behind.
 *
 * A recorder holds an flock on the file "owner" in its directory for as long
 * as it lives; the kernel drops the lock when the recorder dies, however it
 * dies.  "owner" is made under another name, locked, then renamed, so a
 * directory that has an "owner" nobody locks belongs to a recorder that is
 * gone: the next recorder to start removes it.  Directories without "owner"
 * (being made right now, or made by an older hwtrec) are left alone, as is
 * anything of another user.  The lock is not inherited by Valgrind (it is
 * close-on-exec): a program that runs on untraced after its recorder died
 * needs nothing from the directory.
 */
#define _GNU_SOURCE /* O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW */
#include "scratch.h"

#include <stdbool.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCRATCH_PREFIX "hwtrec-"
#define SCRATCH_TEMPLATE SCRATCH_PREFIX "XXXXXX"
#define SCRATCH_BASE_MAX 1024

void scratch_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* NAME in BASE looks like one of ours: hwtrec- and mkdtemp's six. */
static bool scratch_name(const char *name)
{
	size_t n = strlen(SCRATCH_PREFIX);

	return !strncmp(name, SCRATCH_PREFIX, n) && strlen(name) == n + 6 &&
	       !strchr(name + n, '-');
}

/* DIR (in BASE) is ours, its recorder is gone: remove it. */
static void remove_if_orphaned(int base_fd, const char *base, const char *name)
{
	char dir[PATH_MAX];
	struct stat st;
	int dir_fd, owner;

	if (fstatat(base_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return;
	dir_fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);
	if (dir_fd < 0)
		return;
	owner = openat(dir_fd, "owner", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dir_fd);
	if (owner < 0)
		return;
	if (flock(owner, LOCK_EX | LOCK_NB) == 0) {
		snprintf(dir, sizeof(dir), "%s/%s", base, name);
		scratch_remove(dir);
	}
	close(owner);
}

static void remove_orphans(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (scratch_name(e->d_name))
			remove_if_orphaned(dirfd(d), base, e->d_name);
	if (d)
		closedir(d);
}

int scratch_create(char *dir, size_t size, int *lock_fd)
{
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR")
				   ? getenv("TMPDIR") : "/tmp";
	char tmp[PATH_MAX], owner[PATH_MAX];
	int fd;

	/* Bounded so that every file the recorder names in it fits PATH_MAX
	 * (valgrind-source.c's path_in refuses any that would not). */
	if (strlen(base) > SCRATCH_BASE_MAX) {
		fprintf(stderr, "hwtrec record: TMPDIR is %zu bytes long, at "
			"most %d are taken: set TMPDIR to a shorter directory\n",
			strlen(base), SCRATCH_BASE_MAX);
		return -1;
	}
	remove_orphans(base);
	snprintf(dir, size, "%s/" SCRATCH_TEMPLATE, base);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "hwtrec record: cannot make a directory in "
			"%s: %s\n", base, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/owner.new", dir);
	snprintf(owner, sizeof(owner), "%s/owner", dir);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0 || rename(tmp, owner) < 0) {
		fprintf(stderr, "hwtrec record: %s: %s\n", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		scratch_remove(dir);
		return -1;
	}
	*lock_fd = fd;
	return 0;
}
