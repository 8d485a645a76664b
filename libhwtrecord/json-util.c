/* json-util.c: typed field access with precise error messages. */
#include "json-util.h"

#include "error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

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
