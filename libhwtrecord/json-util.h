/* json-util.h: reading typed fields out of jansson objects, with messages
 * that name the file, the line and the field.  Named jfield_, not json_:
 * that prefix is jansson's. */
#ifndef HWTR_JSON_UTIL_H
#define HWTR_JSON_UTIL_H

#include "json-text.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Where a JSON object came from, for error messages. */
struct jfield_where {
	const char *file;
	long line;		/* 0 when the file is one object */
};

/* Each returns 0 or a negative hwtr_error with a message.  "optional"
 * variants leave *out unchanged when the field is absent. */
int jfield_get_string(const json_t *obj, const char *key,
		      const struct jfield_where *where, const char **out);
int jfield_get_string_opt(const json_t *obj, const char *key,
			  const struct jfield_where *where, const char **out);
int jfield_get_u64(const json_t *obj, const char *key,
		   const struct jfield_where *where, uint64_t *out);
int jfield_get_u64_opt(const json_t *obj, const char *key,
		       const struct jfield_where *where, uint64_t *out);
int jfield_get_i64_opt(const json_t *obj, const char *key,
		       const struct jfield_where *where, int64_t *out);
int jfield_get_bool_opt(const json_t *obj, const char *key,
		        const struct jfield_where *where, bool *out);

/* Addresses are written as "0x..." strings (JSON numbers lose precision
 * above 2^53 in many readers); plain integers are accepted too. */
json_t *jfield_address(uint64_t value);

/* A file name is any bytes but NUL.  Set KEY to PATH as text; when PATH is
 * not UTF-8, KEY holds it with U+FFFD (for people) and KEY_bytes its bytes
 * in hex (for us).  0 or -hwtr_err_nomem. */
int jfield_set_path(json_t *obj, const char *key, const char *path);
/* Read what jfield_set_path wrote: KEY_bytes when present (KEY is then
 * replaced in OBJ by the exact bytes, which *OUT points to), else KEY. */
int jfield_get_path(json_t *obj, const char *key,
		    const struct jfield_where *where, const char **out);
int jfield_get_path_opt(json_t *obj, const char *key,
			const struct jfield_where *where, const char **out);

#endif
