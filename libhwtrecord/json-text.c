/* json-text.c: see json-text.h. */
#include "json-text.h"

#include "hwtrecord.h"

#include <stdlib.h>

json_t *jfield_text(const char *text)
{
	json_t *value = json_string(text);
	char *copy;

	if (value || !(copy = hwtr_utf8_text(text)))
		return value;
	value = json_string(copy);
	free(copy);
	return value;
}
