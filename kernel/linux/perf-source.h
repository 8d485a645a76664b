/* perf-source.h: the Linux perf_event source of `hwtrec record`
 * (perf-source.c). */
#ifndef HWTREC_PERF_SOURCE_H
#define HWTREC_PERF_SOURCE_H

#include "../source.h"

extern const struct record_source record_source_perf;

#endif
