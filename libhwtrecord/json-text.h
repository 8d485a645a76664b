/* json-text.h: names and paths (any bytes) as JSON strings.  Built into the
 * library and, since the shared library does not export it, into hwtrec
 * (tools/) and hwtrec-server too. */
#ifndef HWTR_JSON_TEXT_H
#define HWTR_JSON_TEXT_H

#include <jansson.h>

/* TEXT (a symbol, a path: any bytes; not NULL) as a JSON string: bytes that
 * are not UTF-8 become U+FFFD, where json_string() would return NULL and the
 * field would silently go missing.  NULL only when out of memory. */
json_t *jfield_text(const char *text);

#endif
