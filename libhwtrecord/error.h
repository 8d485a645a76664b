/* error.h: the per-thread message behind hwtr_last_error(). */
#ifndef HWTR_ERROR_H
#define HWTR_ERROR_H

#include "hwtrecord.h"

/* Record a message for hwtr_last_error() and return -code, so that callers
 * write `return hwtr_fail(hwtr_err_format, "%s: ...", path);`. */
int hwtr_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the current message with more context ("FILE: " + message). */
int hwtr_fail_context(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
