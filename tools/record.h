/* record.h: what `hwtrec record` (record.c) offers the other commands. */
#ifndef HWTREC_RECORD_H
#define HWTREC_RECORD_H

#include "../kernel/source.h"

#include <stddef.h>

/* PROGRAM as execve would find it into OUT: 0, or EXIT_NOTFOUND /
 * EXIT_NOEXEC with a message on stderr that starts with WHO. */
int record_resolve_program(const char *prog, char *out, size_t size,
			   const char *who);

#endif
