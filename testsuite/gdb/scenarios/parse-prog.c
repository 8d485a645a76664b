/* parse-prog.c: a value scenario's program (values-parse*.scn): a small
 * INI-style configuration parser of the kind people debug.  It writes its
 * input to a file of its own (O_TMPFILE), reads it back with fopen() and
 * fgets(), splits lines with strtok() and strchr(), reads numbers with
 * sscanf(), evaluates arithmetic values by recursive descent (three
 * functions calling each other through a `const char **` cursor), keeps
 * the sections in a linked list of structs holding a tagged union, reports
 * warnings through a printf-like variadic wrapper with a static counter,
 * applies the fields through a table of function pointers, and crashes on
 * a line with a key but no '=': strtok() returns NULL and trim() reads
 * through it.  Static, not PIE, like values-prog.
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

enum kind { K_NUMBER, K_REAL, K_TEXT };

struct field {
	char key[16];
	enum kind kind;
	union {
		long number;
		double real;
		char text[24];
	} u;
};

struct section {
	char name[16];
	int nfields;
	struct field fields[4];
	struct section *next;
};

struct settings {
	long workers;
	double ratio;
	char host[24];
	unsigned applied;
};

static const char g_input[] =
	"# service configuration\n"
	"[server]\n"
	"host = \"alpha.example\"\n"
	"workers = 2*(3+4)\n"
	"ratio = 0.75\n"
	"\n"
	"[limits]\n"
	"workers = (10-4)*(2+1)-5\n"
	"bogus = 12abc\n"
	"timeout\n"
	"ratio = 1.5\n";

static struct section *g_sections;
static int g_line_no;
static char g_warning[96];
static unsigned g_warnings;
static struct settings g_settings;

/* printf-like: the last warning, formatted, and how many were given. */
static void warn(const char *format, ...)
{
	static int calls;
	va_list ap;
	int n;

	calls++;
	n = snprintf(g_warning, sizeof(g_warning), "line %d: ", g_line_no);
	va_start(ap, format);
	vsnprintf(g_warning + n, sizeof(g_warning) - n, format, ap);
	va_end(ap);
	g_warnings = calls; /* L:warned */
}

static char *trim(char *text)
{
	char *end;

	while (*text == ' ' || *text == '\t') /* L:crash */
		text++;
	end = text + strlen(text);
	while (end > text && (end[-1] == ' ' || end[-1] == '\n'))
		*--end = '\0';
	return text;
}

static long eval_sum(const char **cursor);

static long eval_factor(const char **cursor)
{
	long value;
	int used = 0;

	if (**cursor == '(') {
		(*cursor)++;
		value = eval_sum(cursor);
		(*cursor)++; /* L:factor_close */
		return value;
	}
	if (sscanf(*cursor, "%ld%n", &value, &used) != 1)
		return 0;
	*cursor += used;
	return value; /* L:factor_number */
}

static long eval_product(const char **cursor)
{
	long value = eval_factor(cursor);

	while (**cursor == '*') {
		(*cursor)++;
		value *= eval_factor(cursor);
	}
	return value;
}

static long eval_sum(const char **cursor)
{
	long value = eval_product(cursor);

	while (**cursor == '+' || **cursor == '-') {
		char op = *(*cursor)++;
		long rhs = eval_product(cursor);

		value = op == '+' ? value + rhs : value - rhs; /* L:sum_step */
	}
	return value;
}

/* Reads VALUE into FIELD: a quoted text, a real, or an arithmetic sum. */
static int parse_value(struct field *field, const char *value)
{
	const char *cursor = value;

	if (value[0] == '"') {
		const char *close = strchr(value + 1, '"');

		field->kind = K_TEXT;
		snprintf(field->u.text, sizeof(field->u.text), "%.*s",
			 (int)(close - value - 1), value + 1);
		return 0;
	}
	if (strchr(value, '.')) {
		field->kind = K_REAL;
		return sscanf(value, "%lf", &field->u.real) == 1 ? 0 : -1;
	}
	field->kind = K_NUMBER;
	field->u.number = eval_sum(&cursor);
	if (*cursor != '\0') {
		warn("%s: trailing \"%s\" after %ld", field->key, cursor,
		     field->u.number);
		return -1; /* L:trailing */
	}
	return 0; /* L:parsed */
}

static struct section *start_section(char *line)
{
	struct section *section = calloc(1, sizeof(*section));
	char *close = strchr(line, ']');

	*close = '\0';
	snprintf(section->name, sizeof(section->name), "%s", line + 1);
	section->next = g_sections;
	g_sections = section;
	return section; /* L:section_made */
}

static int parse_line(struct section *section, char *line)
{
	char *key = strtok(line, "=");
	char *value = strtok(NULL, "=");
	struct field *field = &section->fields[section->nfields];

	snprintf(field->key, sizeof(field->key), "%s", trim(key));
	value = trim(value); /* L:trim_value */
	if (parse_value(field, value) < 0)
		return -1;
	section->nfields++;
	return 0;
}

static void apply_workers(struct settings *s, const struct field *f)
{
	s->workers = f->u.number;
}

static void apply_ratio(struct settings *s, const struct field *f)
{
	s->ratio = f->u.real;
}

static void apply_host(struct settings *s, const struct field *f)
{
	memcpy(s->host, f->u.text, sizeof(s->host));
}

static const struct applier {
	const char *key;
	void (*apply)(struct settings *, const struct field *);
} g_appliers[] = {
	{ "workers", apply_workers },
	{ "ratio", apply_ratio },
	{ "host", apply_host },
};

static void apply_section(const struct section *section)
{
	for (int i = 0; i < section->nfields; i++)
		for (size_t j = 0; j < sizeof(g_appliers) / sizeof(g_appliers[0]); j++)
			if (strcmp(section->fields[i].key, g_appliers[j].key) == 0) {
				g_appliers[j].apply(&g_settings, &section->fields[i]);
				g_settings.applied++; /* L:applied */
			}
}

static int load(const char *path)
{
	char line[80] = { 0 }; /* its tail: bytes of earlier lines only */
	struct section *current = NULL;
	FILE *in = fopen(path, "r");

	if (!in)
		return -1;
	while (fgets(line, sizeof(line), in)) {
		g_line_no++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (line[0] == '[') {
			if (current)
				apply_section(current);
			current = start_section(line);
			continue;
		}
		if (parse_line(current, line) < 0) /* L:parse_call */
			continue;
	}
	fclose(in);
	return 0;
}

int main(void)
{
	/* An unnamed file (O_TMPFILE), opened again by its /proc name as a
	 * user's file is by its path: nothing is left behind, and the name is
	 * the same in every run (mkstemp's would call clock_gettime, whose
	 * rdtscp record full cannot record). */
	int fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	char path[32] = { 0 };
	int status;

	if (fd < 0)
		return 2;
	if (write(fd, g_input, sizeof(g_input) - 1) != (ssize_t)sizeof(g_input) - 1)
		return 2;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	status = load(path); /* L:main_load */
	return status;
}
