/* gdb-launch.c: what `hwtrec replay` and `hwtrec gdb` share to start GDB
 * with the plugin on hwtrec-server: finding the server and the plugin (the
 * build tree's when hwtrec runs from it; HWTREC_SERVER and HWTREC_PYTHONDIR
 * override), and quoting for GDB's shell and Python. */
#include "gdb-launch.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HWTREC_SRCDIR
#define HWTREC_SRCDIR ""
#endif
#ifndef HWTREC_PKGDATADIR
#define HWTREC_PKGDATADIR ""
#endif

int running_from_build_tree(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	return !strncmp(exe, HWTREC_BUILDDIR "/", strlen(HWTREC_BUILDDIR) + 1);
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int find_server(char *out, size_t size)
{
	const char *env = getenv("HWTREC_SERVER");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(out, size, "%s", env);
		return is_file(out);
	}
	if (running_from_build_tree()) {
		snprintf(out, size, "%s/gdb-plugin/server/hwtrec-server", HWTREC_BUILDDIR);
		return is_file(out);
	}
	/* Installed: beside hwtrec. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(out, size, "%.4000s/hwtrec-server", exe);
			if (is_file(out))
				return 1;
		}
	}
	snprintf(out, size, "hwtrec-server");	/* from PATH */
	return 1;
}

int find_plugin(char *out, size_t size)
{
	const char *env = getenv("HWTREC_PYTHONDIR");
	const char *candidates[3];
	char init[PATH_MAX + 32];
	size_t i, n = 0;

	if (env && *env)
		candidates[n++] = env;
	if (running_from_build_tree() && HWTREC_SRCDIR[0])
		candidates[n++] = HWTREC_SRCDIR "/gdb-plugin/python";
	if (HWTREC_PKGDATADIR[0])
		candidates[n++] = HWTREC_PKGDATADIR "/python";
	for (i = 0; i < n; i++) {
		snprintf(init, sizeof(init), "%s/hwtrecord/__init__.py", candidates[i]);
		if (is_file(init)) {
			snprintf(out, size, "%s", candidates[i]);
			return 1;
		}
	}
	return 0;
}

/* S in single quotes for /bin/sh (GDB runs `target remote | ...` with it). */
void shell_quote(char *out, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3)
		return;
	out[n++] = '\'';
	for (; *s && n + 5 < size; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}

void gdb_arg_quote(char *out, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3)
		return;
	if (!*s) {
		snprintf(out, size, "''");
		return;
	}
	for (; *s && n + 3 < size; s++) {
		if (!isalnum((unsigned char)*s) && !strchr("/._-+=:,@%", *s))
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n] = '\0';
}

/* S as a Python string literal. */
void python_quote(char *out, size_t size, const char *s)
{
	size_t n = 0;

	out[n++] = '\'';
	for (; *s && n + 4 < size; s++) {
		if (*s == '\'' || *s == '\\')
			out[n++] = '\\';
		out[n++] = *s;
	}
	out[n++] = '\'';
	out[n] = '\0';
}

