/* error.c: error codes and the per-thread last-error message. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

const char *hwtr_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwtr_error)code) {
	case hwtr_ok: return "success";
	case hwtr_err_invalid: return "invalid argument";
	case hwtr_err_nomem: return "out of memory";
	case hwtr_err_io: return "input/output error";
	case hwtr_err_format: return "malformed data";
	case hwtr_err_version: return "unsupported format version";
	case hwtr_err_notfound: return "not found";
	case hwtr_err_buildid: return "build-id mismatch";
	case hwtr_err_decode: return "trace decode error";
	case hwtr_err_range: return "position out of range";
	case hwtr_err_eos: return "end of history";
	}
	return "unknown error";
}

const char *hwtr_last_error(void)
{
	return last_error;
}

int hwtr_fail(int code, const char *fmt, ...)
{
	char message[sizeof(last_error)];
	va_list ap;

	/* Through a copy: the arguments may include hwtr_last_error(). */
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	memcpy(last_error, message, sizeof(last_error));
	return code > 0 ? -code : code;
}

int hwtr_fail_context(int code, const char *fmt, ...)
{
	char prefix[512], previous[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(previous, last_error, sizeof(previous));
	/* Long messages are cut at the buffer, keeping the prefix. */
	snprintf(last_error, sizeof(last_error), "%.511s%.511s", prefix, previous);
	return code > 0 ? -code : code;
}
