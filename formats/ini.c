/* ini.c: the strict ini reader (see ini.h). */
#include "ini.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* S[0..N) without surrounding blanks, as a new string. */
static char *trimmed(const char *s, size_t n)
{
	char *out;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	out = malloc(n + 1);
	if (out) {
		memcpy(out, s, n);
		out[n] = 0;
	}
	return out;
}


/* Sections that OpenCSD's snapshot parser reads line by line into a map
 * keyed otherwise, so that a key may come again: [device_list] (keys are
 * thrown away), [core_trace_sources] (core=source, mapped by source: one
 * core traced in several sessions) and [source_buffers] (the later line
 * wins; the importer says so). */
static bool repeats_allowed(const char *section)
{
	return !strcasecmp(section, "device_list") ||
	       !strcasecmp(section, "core_trace_sources") ||
	       !strcasecmp(section, "source_buffers");
}

static int add_section(struct ini_file *ini, char *name, int line)
{
	struct ini_section *p = realloc(ini->sections,
					(ini->nsections + 1) * sizeof(*p));

	if (!p)
		return -1;
	ini->sections = p;
	p += ini->nsections++;
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->line = line;
	return 0;
}

static int add_entry(struct ini_section *s, char *key, char *value, int line)
{
	struct ini_entry *p = realloc(s->entries, (s->nentries + 1) * sizeof(*p));

	if (!p)
		return -1;
	s->entries = p;
	p[s->nentries++] = (struct ini_entry){ key, value, line };
	return 0;
}

/* One line (comment and line end removed): a header, an entry, or blank. */
static int parse_line(struct ini_file *ini, const char *path, const char *text,
		      size_t n, int line, char *err, size_t errlen)
{
	const char *eq;
	char *a, *b;
	size_t i;

	while (n && isspace((unsigned char)*text)) {
		text++;
		n--;
	}
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	if (!n)
		return 0;
	if (text[0] == '[') {
		if (text[n - 1] != ']')
			return fail(err, errlen, "%s:%d: a section header must "
				    "end with ']'", path, line);
		a = trimmed(text + 1, n - 2);
		if (!a)
			return fail(err, errlen, "%s:%d: out of memory", path, line);
		if (!*a || strpbrk(a, "[]")) {
			free(a);
			return fail(err, errlen, "%s:%d: bad section name", path,
				    line);
		}
		for (i = 0; i < ini->nsections; i++)
			if (!strcasecmp(ini->sections[i].name, a)) {
				int first = ini->sections[i].line;

				free(a);
				return fail(err, errlen, "%s:%d: section [%s] "
					    "again (first at line %d)", path, line,
					    ini->sections[i].name, first);
			}
		if (add_section(ini, a, line) < 0) {
			free(a);
			return fail(err, errlen, "%s:%d: out of memory", path, line);
		}
		return 0;
	}
	eq = memchr(text, '=', n);
	if (!eq)
		return fail(err, errlen, "%s:%d: expected key=value or [section], "
			    "found \"%.*s\"", path, line, (int)(n > 60 ? 60 : n), text);
	if (!ini->nsections)
		return fail(err, errlen, "%s:%d: key=value before any [section]",
			    path, line);
	a = trimmed(text, (size_t)(eq - text));
	b = trimmed(eq + 1, n - (size_t)(eq - text) - 1);
	if (!a || !b) {
		free(a);
		free(b);
		return fail(err, errlen, "%s:%d: out of memory", path, line);
	}
	if (!*a) {
		free(a);
		free(b);
		return fail(err, errlen, "%s:%d: empty key", path, line);
	}
	{
		struct ini_section *s = &ini->sections[ini->nsections - 1];
		const struct ini_entry *dup = repeats_allowed(s->name) ? NULL
					      : ini_get(s, a);

		if (dup) {
			int first = dup->line;

			fail(err, errlen, "%s:%d: key \"%s\" again in [%s] (first at "
			     "line %d)", path, line, a, s->name, first);
			free(a);
			free(b);
			return -1;
		}
		if (add_entry(s, a, b, line) < 0) {
			free(a);
			free(b);
			return fail(err, errlen, "%s:%d: out of memory", path, line);
		}
	}
	return 0;
}

int ini_parse(const char *path, const char *text, size_t size,
	      struct ini_file **out, char *err, size_t errlen)
{
	struct ini_file *ini = calloc(1, sizeof(*ini));
	size_t pos = 0;
	int line = 0;

	*out = NULL;
	if (!ini || !(ini->path = strdup(path))) {
		free(ini);
		return fail(err, errlen, "%s: out of memory", path);
	}
	if (memchr(text, 0, size)) {
		int nul_line = 1;
		const char *z = memchr(text, 0, size), *p;

		for (p = text; p < z; p++)
			nul_line += *p == '\n';
		ini_free(ini);
		return fail(err, errlen, "%s:%d: a NUL byte (offset %zu): not a text "
			    "file", path, nul_line, (size_t)(z - text));
	}
	while (pos < size) {
		const char *start = text + pos, *nl = memchr(start, '\n', size - pos);
		size_t n = nl ? (size_t)(nl - start) : size - pos;
		size_t keep = n;
		const char *cut;

		line++;
		pos += n + (nl ? 1 : 0);
		if (n > INI_MAX_LINE) {
			ini_free(ini);
			return fail(err, errlen, "%s:%d: line longer than %d bytes",
				    path, line, INI_MAX_LINE);
		}
		/* Comments and a CR end the line's text. */
		for (cut = start; cut < start + n; cut++)
			if (*cut == ';' || *cut == '#' || *cut == '\r') {
				keep = (size_t)(cut - start);
				break;
			}
		if (parse_line(ini, path, start, keep, line, err, errlen) < 0) {
			ini_free(ini);
			return -1;
		}
	}
	*out = ini;
	return 0;
}

int ini_read(const char *path, struct ini_file **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *text;
	size_t got;
	int rc;

	*out = NULL;
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return fail(err, errlen, "%s: not a regular file", path);
	}
	if (st.st_size > (1 << 20)) {
		fclose(f);
		return fail(err, errlen, "%s: %lld bytes: too large for an ini file",
			    path, (long long)st.st_size);
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		fclose(f);
		return fail(err, errlen, "%s: out of memory", path);
	}
	got = fread(text, 1, (size_t)st.st_size, f);
	fclose(f);
	if (got != (size_t)st.st_size) {
		free(text);
		return fail(err, errlen, "%s: read error", path);
	}
	rc = ini_parse(path, text, got, out, err, errlen);
	free(text);
	return rc;
}

void ini_free(struct ini_file *ini)
{
	size_t i, j;

	if (!ini)
		return;
	for (i = 0; i < ini->nsections; i++) {
		for (j = 0; j < ini->sections[i].nentries; j++) {
			free(ini->sections[i].entries[j].key);
			free(ini->sections[i].entries[j].value);
		}
		free(ini->sections[i].entries);
		free(ini->sections[i].name);
	}
	free(ini->sections);
	free(ini->path);
	free(ini);
}

const struct ini_section *ini_section(const struct ini_file *ini,
				      const char *name)
{
	size_t i;

	for (i = 0; ini && i < ini->nsections; i++)
		if (!strcasecmp(ini->sections[i].name, name))
			return &ini->sections[i];
	return NULL;
}

const struct ini_entry *ini_get(const struct ini_section *s, const char *key)
{
	size_t i;

	for (i = 0; s && i < s->nentries; i++)
		if (!strcasecmp(s->entries[i].key, key))
			return &s->entries[i];
	return NULL;
}
