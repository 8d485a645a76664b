/* say.c: the server's error messages (say.h). */
#include "say.h"

#include <hwtrecord.h>
#include <stdarg.h>
#include <stdio.h>

int say(const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	hwtr_fail(hwtr_err_invalid, "%s", message);
	return -1;
}
