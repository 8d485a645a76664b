/* path-join.c: DIR/NAME, for the library and code built on it (hwtrecord.h).
 * One checked copy instead of one per file. */
#include "error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *hwtr_path_join(const char *dir, const char *name)
{
	size_t a, b;
	char *p;

	if (!dir || !name) {
		hwtr_fail(hwtr_err_invalid, "hwtr_path_join: bad argument");
		return NULL;
	}
	a = strlen(dir);
	b = strlen(name);
	if (a > SIZE_MAX - 2 - b) {
		hwtr_fail(hwtr_err_nomem, "%.200s...: path too long", dir);
		return NULL;
	}
	p = malloc(a + b + 2);
	if (!p) {
		hwtr_fail(hwtr_err_nomem, "out of memory");
		return NULL;
	}
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}
