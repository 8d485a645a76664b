/* json-util.c: typed field access with precise error messages. */
#include "json-util.h"

#include "error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int where_fail(const struct jfield_where *where, const char *key,
		      const char *what)
{
	if (where->line > 0)
		return hwtr_fail(hwtr_err_format, "%s:%ld: field \"%s\" %s",
				 where->file, where->line, key, what);
	return hwtr_fail(hwtr_err_format, "%s: field \"%s\" %s", where->file,
			 key, what);
}

int jfield_get_string_opt(const json_t *obj, const char *key,
			  const struct jfield_where *where, const char **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return where_fail(where, key, "is not a string");
	*out = json_string_value(v);
	return 0;
}

int jfield_get_string(const json_t *obj, const char *key,
		      const struct jfield_where *where, const char **out)
{
	if (!json_object_get(obj, key))
		return where_fail(where, key, "is missing");
	return jfield_get_string_opt(obj, key, where, out);
}

static int parse_u64(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -1;
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;

		if (!*s || *s == '-')
			return -1;
		errno = 0;
		*out = strtoull(s, &end, 0);
		if (errno || *end)
			return -1;
		return 0;
	}
	return -1;
}

int jfield_get_u64_opt(const json_t *obj, const char *key,
		       const struct jfield_where *where, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (parse_u64(v, out) < 0)
		return where_fail(where, key,
				  "is not an unsigned integer (or \"0x...\")");
	return 0;
}

int jfield_get_u64(const json_t *obj, const char *key,
		   const struct jfield_where *where, uint64_t *out)
{
	if (!json_object_get(obj, key))
		return where_fail(where, key, "is missing");
	return jfield_get_u64_opt(obj, key, where, out);
}

int jfield_get_i64_opt(const json_t *obj, const char *key,
		       const struct jfield_where *where, int64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return where_fail(where, key, "is not an integer");
	*out = json_integer_value(v);
	return 0;
}

int jfield_get_bool_opt(const json_t *obj, const char *key,
		        const struct jfield_where *where, bool *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return where_fail(where, key, "is not true or false");
	*out = json_is_true(v);
	return 0;
}

json_t *jfield_address(uint64_t value)
{
	char text[24];

	snprintf(text, sizeof(text), "0x%" PRIx64, value);
	return json_string(text);
}

/* Length of the valid UTF-8 sequence at S (1-4), or 0 if S does not start
 * one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_sequence(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

char *hwtr_utf8_text(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text);
	char *copy, *out;

	/* Each invalid byte becomes the 3 bytes of U+FFFD. */
	if (len > (SIZE_MAX - 1) / 3 || !(copy = malloc(3 * len + 1)))
		return NULL;
	out = copy;
	while (*s) {
		size_t n = utf8_sequence(s);

		if (n) {
			memcpy(out, s, n);
			out += n, s += n;
		} else {
			memcpy(out, "\xef\xbf\xbd", 3);
			out += 3, s++;
		}
	}
	*out = '\0';
	return copy;
}

static char *bytes_key(const char *key)
{
	size_t len = strlen(key);
	char *name = malloc(len + sizeof("_bytes"));

	if (name) {
		memcpy(name, key, len);
		memcpy(name + len, "_bytes", sizeof("_bytes"));
	}
	return name;
}

int jfield_set_path(json_t *obj, const char *key, const char *path)
{
	static const char digits[] = "0123456789abcdef";
	json_t *exact = json_string(path);
	size_t i, len;
	char *name, *hex;
	int err;

	if (exact)
		return json_object_set_new(obj, key, exact) ?
			hwtr_fail(hwtr_err_nomem, "out of memory") : 0;
	len = strlen(path);
	name = bytes_key(key);
	hex = len < SIZE_MAX / 2 ? malloc(2 * len + 1) : NULL;
	if (!name || !hex) {
		free(name);
		free(hex);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[(unsigned char)path[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)path[i] & 15];
	}
	hex[2 * len] = '\0';
	err = json_object_set_new(obj, key, jfield_text(path)) ||
	      json_object_set_new(obj, name, json_string(hex));
	free(name);
	free(hex);
	return err ? hwtr_fail(hwtr_err_nomem, "out of memory") : 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int get_path(json_t *obj, const char *key,
		    const struct jfield_where *where, const char **out,
		    bool optional)
{
	const char *hex = NULL;
	char *name = bytes_key(key), *bytes;
	size_t i, len;
	int err;

	if (!name)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	err = jfield_get_string_opt(obj, name, where, &hex);
	if (err || !hex) {
		free(name);
		if (err)
			return err;
		return optional ? jfield_get_string_opt(obj, key, where, out)
				: jfield_get_string(obj, key, where, out);
	}
	len = strlen(hex);
	bytes = malloc(len / 2 + 1);
	if (!bytes) {
		free(name);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	for (i = 0; i < len; i += 2) {
		int hi = hex_digit(hex[i]);
		int lo = i + 1 < len ? hex_digit(hex[i + 1]) : -1;

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			err = where_fail(where, name, "is not the hex bytes of "
					 "a file name");
			free(name);
			free(bytes);
			return err;
		}
		bytes[i / 2] = (char)(hi << 4 | lo);
	}
	bytes[len / 2] = '\0';
	free(name);
	/* jansson keeps any bytes when asked not to check them; OBJ owns the
	 * string from here, so *OUT lives as long as OBJ, as for KEY. */
	if (json_object_set_new(obj, key, json_stringn_nocheck(bytes, len / 2))) {
		free(bytes);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	free(bytes);
	*out = json_string_value(json_object_get(obj, key));
	return 0;
}

int jfield_get_path(json_t *obj, const char *key,
		    const struct jfield_where *where, const char **out)
{
	return get_path(obj, key, where, out, false);
}

int jfield_get_path_opt(json_t *obj, const char *key,
			const struct jfield_where *where, const char **out)
{
	return get_path(obj, key, where, out, true);
}
