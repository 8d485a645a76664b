/* perf-error.h: the message behind a failing call in kernel/linux.
 *
 * Same convention as libhwtrecord: a function that fails returns a negative
 * hwtr_error code and leaves a message naming the file, offset or record that
 * was wrong, here in perf_last_error() (per thread).
 */
#ifndef HWTR_PERF_ERROR_H
#define HWTR_PERF_ERROR_H

#include "hwtrecord.h"

/* Record a message and return -code. */
int perf_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix the current message ("FILE: " + message) and return -code. */
int perf_fail_context(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

const char *perf_last_error(void);

#endif
