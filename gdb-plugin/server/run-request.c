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

int run_request_vrun(struct run_request *run, const char *args, size_t len,
		     const char *default_program)
{
	const char *end = args + len, *p = args;
	size_t n = 1, i, k;
	char **argv;

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
	free_argv(run->argv);
	run->argv = argv;
	return 0;
}

void run_request_apply(const struct run_request *run,
		       struct tracer_config *config)
{
	if (run->argv)
		config->argv = run->argv;
	config->env_set = run->env_set.v;
	config->env_unset = run->env_unset.v;
	config->cwd = run->cwd;
}

void run_request_fini(struct run_request *run)
{
	free_argv(run->argv);
	run->argv = NULL;
	names_clear(&run->env_set);
	names_clear(&run->env_unset);
	free(run->cwd);
	run->cwd = NULL;
}
