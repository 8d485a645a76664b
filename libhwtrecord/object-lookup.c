/* object-lookup.c: where a mapped file's code and debug info are found (see
 * object-lookup.h). */
#include "object-lookup.h"

#include "error.h"
#include "recording-file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CANDIDATES 24

/* A malloc'd "A/B/C" style path from FMT with three strings, or NULL. */
static char *format_path(const char *fmt, const char *a, const char *b,
			 const char *c)
{
	int n = snprintf(NULL, 0, fmt, a, b, c);
	char *p = n < 0 ? NULL : malloc((size_t)n + 1);

	if (p)
		snprintf(p, (size_t)n + 1, fmt, a, b, c);
	return p;
}

bool object_name(const char *id, bool debug, char *buf, size_t size)
{
	size_t n = id ? strlen(id) : 0, i;

	if (n < 2 || n > 128)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)id[i]))
			return false;
	return (size_t)snprintf(buf, size, "objects/%s%s", id,
				debug ? ".debug" : "") < size;
}

/* A place to look: a name inside the recording (opened under
 * recording-file.h's policy) or a path of the system's. */
struct candidate {
	char *path;
	char *inside;		/* the name in the recording, or NULL */
	bool saved;		/* the recording's own copy of these bytes */
};

struct search {
	const char *recdir;
	struct candidate c[MAX_CANDIDATES];
	size_t n;
	bool oom;
};

static void add(struct search *s, char *path, const char *inside, bool saved)
{
	if (!path || (inside && !(s->c[s->n].inside = strdup(inside)))) {
		free(path);
		s->oom = true;
		return;
	}
	s->c[s->n].path = path;
	s->c[s->n++].saved = saved;
}

static void add_inside(struct search *s, const char *name, bool saved)
{
	if (s->n < MAX_CANDIDATES)
		add(s, format_path("%s/%s%s", s->recdir, name, ""), name, saved);
}

static void add_system(struct search *s, const char *fmt, const char *a,
		       const char *b, const char *c)
{
	if (s->n < MAX_CANDIDATES)
		add(s, format_path(fmt, a, b, c), NULL, false);
}

/* The debuginfod client's cache directory, as debuginfod-find uses it. */
static void add_debuginfod(struct search *s, const char *id, const char *what)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");

	if (env && *env) {
		add_system(s, "%s/%s/%s", env, id, what);
		return;
	}
	env = getenv("XDG_CACHE_HOME");
	if (env && *env) {
		add_system(s, "%s/debuginfod_client/%s/%s", env, id, what);
		return;
	}
	env = getenv("HOME");
	if (env && *env)
		add_system(s, "%s/.cache/debuginfod_client/%s/%s", env, id, what);
}

static void set_problem(char **problem, const char *fmt, const char *a,
			const char *b, const char *c)
{
	char text[1024];

	snprintf(text, sizeof(text), fmt, a, b, c);
	free(*problem);
	*problem = strdup(text);
}

/* The first usable candidate into *FILE, each checked for BUILD_ID but the
 * recording's saved copy; the last reason a candidate was refused stays in
 * *PROBLEM. */
static int pick(struct search *s, const char *build_id, char **file,
		char **problem)
{
	char idbuf[130];
	size_t i;

	*file = NULL;
	for (i = 0; i < s->n && !*file && !s->oom; i++) {
		struct candidate *c = &s->c[i];
		struct stat st;
		int fd, err;

		err = c->inside ? recording_file_open(s->recdir, c->inside, &fd, &st)
				: regular_file_open(c->path, &fd, &st);
		if (err == -hwtr_err_notfound)
			continue;
		if (err) {
			/* A FIFO, a link out of the recording: never read. */
			set_problem(problem, "%s%s%s", hwtr_last_error(), "", "");
			continue;
		}
		close(fd);
		if (build_id && !c->saved) {
			int got = hwtr_build_id_of_file(c->path, idbuf, sizeof(idbuf));

			if (got <= 0 || strcmp(idbuf, build_id)) {
				set_problem(problem, "build-id mismatch for %s: "
					    "recording says %s, file has %s", c->path,
					    build_id, got > 0 ? idbuf : "none");
				continue;
			}
		}
		*file = c->path;
		c->path = NULL;
	}
	for (i = 0; i < s->n; i++) {
		free(s->c[i].path);
		free(s->c[i].inside);
	}
	if (s->oom) {
		free(*file);
		*file = NULL;
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	if (*file) {
		free(*problem);
		*problem = NULL;
	}
	return 0;
}

int object_lookup_code(const char *recdir, const char *path,
		       const char *build_id, const char *saved,
		       const char *const *debug_dirs, char **file,
		       char **problem)
{
	struct search s = { .recdir = recdir };
	char name[200];
	size_t i;

	*problem = NULL;
	if (saved)
		add_inside(&s, saved, true);
	if (build_id && object_name(build_id, false, name, sizeof(name)))
		add_inside(&s, name, false);
	if (path && path[0] == '/')
		add_system(&s, "%s%s%s", path, "", "");
	for (i = 0; build_id && debug_dirs && debug_dirs[i]; i++)
		/* The .build-id tree holds the binary without ".debug". */
		add_system(&s, "%s/.build-id/%.2s/%s", debug_dirs[i], build_id,
			   build_id + 2);
	if (build_id)
		add_debuginfod(&s, build_id, "executable");
	if (pick(&s, build_id, file, problem) < 0)
		return -hwtr_err_nomem;
	if (!*file && !*problem && path && path[0])
		set_problem(problem, "missing binary %s (build-id %s)%s", path,
			    build_id ? build_id : "unknown", "");
	else if (!*file && !*problem)
		set_problem(problem, "anonymous executable memory%s%s%s: its code "
			    "is not in the recording", "", "", "");
	return *file || *problem ? 0 : hwtr_fail(hwtr_err_nomem, "out of memory");
}

int object_lookup_debug(const char *recdir, const char *build_id,
			const char *const *debug_dirs, char **file,
			char **problem)
{
	struct search s = { .recdir = recdir };
	char name[200];
	size_t i;

	*problem = NULL;
	*file = NULL;
	if (!object_name(build_id, true, name, sizeof(name)))
		return hwtr_fail(hwtr_err_invalid, "\"%s\" is not a build-id",
				 build_id ? build_id : "(null)");
	add_inside(&s, name, false);
	for (i = 0; debug_dirs && debug_dirs[i]; i++)
		add_system(&s, "%s/.build-id/%.2s/%s.debug", debug_dirs[i],
			   build_id, build_id + 2);
	add_system(&s, "/usr/lib/debug/.build-id/%.2s/%s.debug%s", build_id,
		   build_id + 2, "");
	add_debuginfod(&s, build_id, "debuginfo");
	if (pick(&s, build_id, file, problem) < 0)
		return -hwtr_err_nomem;
	if (!*file && !*problem)
		set_problem(problem, "no separate debug file for build-id %s%s%s",
			    build_id, "", "");
	return *file || *problem ? 0 : hwtr_fail(hwtr_err_nomem, "out of memory");
}

/* The public face: the lookup's problem becomes the call's error. */
static int found_or_fail(int err, char *file, char *problem, char **out)
{
	if (err < 0) {
		free(problem);
		return err;
	}
	*out = file;
	if (file)
		return 0;
	if (!problem)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	err = hwtr_fail(strstr(problem, "build-id mismatch") ? hwtr_err_buildid
							     : hwtr_err_notfound,
			"%s", problem);
	free(problem);
	return err;
}

int hwtr_recording_find_code(const struct hwtr_recording *rec,
			     const struct hwtr_sideband_event *ev,
			     const char *const *debug_dirs, char **out)
{
	char *file = NULL, *problem = NULL;
	int err;

	if (!rec || !ev || !out || ev->kind != hwtr_ev_mmap)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recording_find_code: "
				 "not an mmap event");
	err = object_lookup_code(hwtr_recording_path(rec), ev->path,
				 ev->build_id, ev->saved, debug_dirs, &file, &problem);

	return found_or_fail(err, file, problem, out);
}

int hwtr_recording_find_debug(const struct hwtr_recording *rec,
			      const char *build_id,
			      const char *const *debug_dirs, char **out)
{
	char *file = NULL, *problem = NULL;
	int err;

	if (!rec || !out)
		return hwtr_fail(hwtr_err_invalid, "hwtr_recording_find_debug: "
				 "no recording");
	err = object_lookup_debug(hwtr_recording_path(rec), build_id,
				  debug_dirs, &file, &problem);

	return found_or_fail(err, file, problem, out);
}
