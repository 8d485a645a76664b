/* run-request.c: what the next `run` starts (see run-request.h). */
#include "run-request.h"

#include "rsp.h"
#include "say.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <hwtrecord.h>
#include <string.h>
#include <unistd.h>

static bool same_name(const char *entry, const char *name, size_t len)
{
	return !strncmp(entry, name, len) && (!entry[len] || entry[len] == '=');
}

static void names_drop(struct run_names *list, const char *name, size_t len)
{
	size_t i = 0;

	while (i < list->n) {
		if (same_name(list->v[i], name, len)) {
			free(list->v[i]);
			list->v[i] = list->v[--list->n];
			list->v[list->n] = NULL;
		} else {
			i++;
		}
	}
}

static int names_add(struct run_names *list, const char *entry)
{
	char **more = realloc(list->v, (list->n + 2) * sizeof(*more));

	if (!more)
		return -1;
	list->v = more;
	if (!(list->v[list->n] = strdup(entry)))
		return -1;
	list->v[++list->n] = NULL;
	return 0;
}

static void names_clear(struct run_names *list)
{
	while (list->n)
		free(list->v[--list->n]);
	free(list->v);
	list->v = NULL;
}

/* TEXT of N hex digits, decoded and NUL-terminated (NULL if not hex). */
static char *unhex(const char *text, size_t n)
{
	char *out;

	if (n % 2)
		return NULL;
	out = calloc(n / 2 + 1, 1);
	if (out && !rsp_unhex(text, n / 2, (uint8_t *)out)) {
		free(out);
		return NULL;
	}
	return out;
}

static bool starts(const char *payload, size_t len, const char *prefix)
{
	return len >= strlen(prefix) && !strncmp(payload, prefix, strlen(prefix));
}

bool run_request_is_setting(const char *payload, size_t len)
{
	return (len == 17 && !strncmp(payload, "QEnvironmentReset", 17)) ||
	       starts(payload, len, "QEnvironmentHexEncoded:") ||
	       starts(payload, len, "QEnvironmentUnset:") ||
	       starts(payload, len, "QSetWorkingDir:");
}

int run_request_setting(struct run_request *run, const char *payload,
			size_t len)
{
	const char *colon = memchr(payload, ':', len);
	char *text;
	size_t name;
	int rc = 0;

	if (!run_request_is_setting(payload, len))
		return say("%.*s: not a run setting",
			    (int)(len > 40 ? 40 : len), payload);
	if (!colon) {		/* QEnvironmentReset */
		names_clear(&run->env_set);
		names_clear(&run->env_unset);
		return 0;
	}
	text = unhex(colon + 1, len - (size_t)(colon + 1 - payload));
	if (!text)
		return say("%.*s: the argument is not hex",
			    (int)(colon - payload), payload);
	if (starts(payload, len, "QSetWorkingDir:")) {
		free(run->cwd);
		run->cwd = text[0] ? text : NULL;
		if (!text[0])
			free(text);
		return 0;
	}
	if (starts(payload, len, "QEnvironmentHexEncoded:")) {
		if (!strchr(text, '=')) {
			free(text);
			return say("QEnvironmentHexEncoded: no '=' "
				    "in the variable");
		}
		name = (size_t)(strchr(text, '=') - text);
	} else {
		name = strlen(text);
	}
	/* The last word on a name wins. */
	names_drop(&run->env_set, text, name);
	names_drop(&run->env_unset, text, name);
	rc = names_add(text[name] ? &run->env_set : &run->env_unset, text);
	free(text);
	return rc < 0 ? say("out of memory") : 0;
}

static void free_argv(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static void redirects_clear(struct run_redirects *r)
{
	int fd;

	for (fd = 0; fd < 3; fd++) {
		free(r->path[fd]);
		r->path[fd] = NULL;
		r->append[fd] = false;
	}
	r->err_to_out = false;
}

/* If ARG begins a redirection: its fd (0-2), whether it appends, and the
 * length of the operator; -1 if it is an argument. */
static int redirect_op(const char *arg, bool *append, size_t *oplen)
{
	static const struct {
		const char *op;
		int fd;
		bool append;
	} ops[] = {	/* longest first */
		{ "2>>", 2, true }, { "2>", 2, false }, { ">>", 1, true },
		{ ">", 1, false }, { "<", 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (!strncmp(arg, ops[i].op, strlen(ops[i].op))) {
			*append = ops[i].append;
			*oplen = strlen(ops[i].op);
			return ops[i].fd;
		}
	}
	return -1;
}

/* Take the redirections out of ARGV (N entries, argv[0] the program) into
 * R: "< FILE" and "<FILE" alike, as the shell reads them; ARGV stays
 * NULL-terminated.  0, or -1 with hwtr_last_error() saying why (an
 * operator without its file). */
static int take_redirects(char **argv, size_t n, struct run_redirects *r)
{
	size_t i, k = 1;

	for (i = 1; i < n; i++) {
		char *arg = argv[i], *path;
		bool append;
		size_t oplen;
		int fd;

		argv[i] = NULL;
		if (!strcmp(arg, "2>&1")) {
			r->err_to_out = true;
			free(arg);
			continue;
		}
		fd = redirect_op(arg, &append, &oplen);
		/* GDB 13 strips the quotes a shell would have kept, so a
		 * literal "<%s>" reaches us unquoted: an attached file name
		 * that a shell would not read as one is an argument. */
		if (fd >= 0 && arg[oplen] && strpbrk(arg + oplen, "<>|&;"))
			fd = -1;
		if (fd < 0) {
			argv[k++] = arg;
			continue;
		}
		if (arg[oplen]) {
			path = strdup(arg + oplen);
		} else if (i + 1 < n) {
			path = argv[++i];
			argv[i] = NULL;
		} else {
			say("run: `%s' with no file after it", arg);
			free(arg);
			return -1;
		}
		free(arg);
		if (!path)
			return say("out of memory");
		free(r->path[fd]);
		r->path[fd] = path;
		r->append[fd] = append;
		if (fd == 2)
			r->err_to_out = false;
	}
	return 0;
}

int run_request_vrun(struct run_request *run, const char *args, size_t len,
		     const char *default_program)
{
	struct run_redirects redirect;
	const char *end = args + len, *p = args;
	size_t n = 1, i, k;
	char **argv;

	memset(&redirect, 0, sizeof(redirect));
	for (i = 0; i < len; i++)
		n += args[i] == ';';
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv)
		return say("out of memory");
	for (k = 0; k < n; k++) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t field = (size_t)((semi ? semi : end) - p);

		argv[k] = unhex(p, field);
		if (!argv[k]) {
			free_argv(argv);
			if (!k)
				return say("vRun: the file name is "
					    "not hex");
			return say("vRun: argument %zu is not hex",
				    k);
		}
		p = semi ? semi + 1 : end;
	}
	if (!argv[0][0]) {
		free(argv[0]);
		argv[0] = strdup(default_program);
	}
	if (argv[0] && argv[0][0] != '/' && strchr(argv[0], '/')) {
		char cwd[PATH_MAX], *abs = NULL;

		if (getcwd(cwd, sizeof(cwd)) &&
		    asprintf(&abs, "%s/%s", cwd, argv[0]) < 0)
			abs = NULL;
		free(argv[0]);
		argv[0] = abs;
	}
	if (!argv[0]) {
		for (k = 1; k < n; k++)
			free(argv[k]);
		free(argv);
		return say("out of memory, or no directory");
	}
	if (take_redirects(argv, n, &redirect) < 0) {
		free_argv(argv);
		redirects_clear(&redirect);
		return -1;
	}
	free_argv(run->argv);
	run->argv = argv;
	redirects_clear(&run->redirect);
	run->redirect = redirect;
	return 0;
}

void run_request_apply(const struct run_request *run,
		       struct tracer_config *config)
{
	int fd;

	if (run->argv)
		config->argv = run->argv;
	config->env_set = run->env_set.v;
	config->env_unset = run->env_unset.v;
	config->cwd = run->cwd;
	for (fd = 0; fd < 3; fd++) {
		config->redirect[fd] = run->redirect.path[fd];
		config->redirect_append[fd] = run->redirect.append[fd];
	}
	config->err_to_out = run->redirect.err_to_out;
}

void run_request_fini(struct run_request *run)
{
	free_argv(run->argv);
	run->argv = NULL;
	redirects_clear(&run->redirect);
	names_clear(&run->env_set);
	names_clear(&run->env_unset);
	free(run->cwd);
	run->cwd = NULL;
}
