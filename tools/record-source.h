/* record-source.h: the trace sources behind `hwtrec record --source=NAME`.
 *
 * record.c parses the command line into a record_request
 * (../kernel/source.h) and hands it to one source; each source lives in its
 * folder under ../kernel and is listed in record-source.c's table.
 */
#ifndef HWTREC_RECORD_SOURCE_H
#define HWTREC_RECORD_SOURCE_H

#include "../kernel/source.h"
#include "../kernel/freebsd/hwt-source.h"
#include "../kernel/linux/perf-source.h"
#include "../kernel/valgrind/host/valgrind-source.h"

#include <stdbool.h>

/* The sources in the order --source=auto tries them, NULL-terminated. */
extern const struct record_source *const record_sources[];

const struct record_source *record_source_find(const char *name);

/* NAME, or for "auto" the first available source (saying on stderr which
 * one and why the ones before it were not usable, unless quiet).  NULL,
 * with the reason on stderr, when there is none.  A source named that
 * cannot record here says why when it is asked to record. */
const struct record_source *record_source_choose(const char *name,
						 bool attach, bool quiet);

#endif
