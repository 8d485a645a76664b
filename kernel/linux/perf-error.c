/* perf-error.c: the per-thread message of kernel/linux (perf-error.h). */
#include "perf-error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

const char *perf_last_error(void)
{
	return last_error;
}

int perf_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return code > 0 ? -code : code;
}

int perf_fail_context(int code, const char *fmt, ...)
{
	char prefix[512], previous[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(previous, last_error, sizeof(previous));
	snprintf(last_error, sizeof(last_error), "%.511s%.511s", prefix, previous);
	return code > 0 ? -code : code;
}
