/* ini.h: a small, strict reader of the ini files of OpenCSD snapshots.
 *
 * The dialect is the snapshot parser's: `[section]` headers, `key=value`
 * lines (both trimmed), `;` or `#` start a comment that runs to the end of
 * the line, CR-LF line ends are accepted.  Anything else is an error that
 * names the file and the line: text that is neither a header nor a
 * key=value, a key before any section, an empty key or section name, a
 * repeated key in one section (but for [device_list], [core_trace_sources]
 * and [source_buffers], which OpenCSD reads line by line), a repeated
 * section, a NUL byte, a line longer than INI_MAX_LINE.  Keys and section names compare without regard
 * to case, as the snapshot parser does for register names.
 */
#ifndef HWTREC_INI_H
#define HWTREC_INI_H

#include <stddef.h>

#define INI_MAX_LINE 4096

struct ini_entry {
	char *key;
	char *value;
	int line;
};

struct ini_section {
	char *name;
	int line;
	struct ini_entry *entries;
	size_t nentries;
};

struct ini_file {
	char *path;		/* as given, for messages */
	struct ini_section *sections;
	size_t nsections;
};

/* Parse TEXT (SIZE bytes) read from PATH.  0, or -1 with a message naming
 * PATH:LINE in ERR. */
int ini_parse(const char *path, const char *text, size_t size,
	      struct ini_file **ini, char *err, size_t errlen);
/* Read and parse the file at PATH. */
int ini_read(const char *path, struct ini_file **ini, char *err, size_t errlen);
void ini_free(struct ini_file *ini);

/* The section NAME, or NULL. */
const struct ini_section *ini_section(const struct ini_file *ini,
				      const char *name);
/* The entry KEY of SECTION (NULL-safe), or NULL. */
const struct ini_entry *ini_get(const struct ini_section *section,
				const char *key);

#endif /* HWTREC_INI_H */
