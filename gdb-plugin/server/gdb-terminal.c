/* gdb-terminal.c: see gdb-terminal.h. */
#include "gdb-terminal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* PID's parent and name (/proc/PID/stat: "PID (NAME) STATE PPID ..."). */
static int parent_of(pid_t pid, pid_t *ppid, char *name, size_t size)
{
	char path[64], buf[512];
	const char *open_paren, *close_paren;
	long parent;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');	/* a name may hold ')' */
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    sscanf(close_paren + 1, " %*c %ld", &parent) != 1)
		return -1;
	*ppid = (pid_t)parent;
	n = (size_t)(close_paren - open_paren - 1);
	if (n >= size)
		n = size - 1;
	memcpy(name, open_paren + 1, n);
	name[n] = '\0';
	return 0;
}

/* PID's standard output opened for writing when it is a terminal. */
static FILE *terminal_of(pid_t pid)
{
	char link[64], target[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(link, sizeof(link), "/proc/%ld/fd/1", (long)pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (strncmp(target, "/dev/pts/", 9) && strncmp(target, "/dev/tty", 8))
		return NULL;
	fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!isatty(fd)) {
		close(fd);
		return NULL;
	}
	return fdopen(fd, "w");
}

FILE *gdb_terminal_open(void)
{
	pid_t pid = getppid(), ppid;
	char name[64];
	int level;

	/* GDB runs "sh -c COMMAND", which may or may not exec us: GDB is our
	 * parent or the shell's. */
	for (level = 0; level < 2 && pid > 1; level++) {
		if (parent_of(pid, &ppid, name, sizeof(name)))
			return NULL;
		if (!strncmp(name, "gdb", 3))
			return terminal_of(pid);
		pid = ppid;
	}
	return NULL;
}
