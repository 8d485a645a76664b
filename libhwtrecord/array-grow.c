/* array-grow.c: room in a growable array, for the library and code built on
 * it (hwtrecord.h).  One copy, with the overflow check, instead of one per
 * file. */
#include "error.h"

#include <stdint.h>
#include <stdlib.h>

int hwtr_array_grow(void **array, size_t *cap, size_t count, size_t size)
{
	size_t ncap;
	void *p;

	if (!array || !cap || !size)
		return hwtr_fail(hwtr_err_invalid, "hwtr_array_grow: bad argument");
	if (count < *cap)
		return 0;
	/* Double (the first time to 64) until COUNT fits. */
	ncap = *cap ? *cap : 32;
	do {
		if (ncap > SIZE_MAX / 2)
			return hwtr_fail(hwtr_err_nomem, "array of %zu elements too "
					 "large", count);
		ncap *= 2;
	} while (ncap <= count);
	if (ncap > SIZE_MAX / size)
		return hwtr_fail(hwtr_err_nomem, "array of %zu elements of %zu "
				 "bytes too large", ncap, size);
	p = realloc(*array, ncap * size);
	if (!p)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	*array = p;
	*cap = ncap;
	return 0;
}
