/* hwt-source.h: the FreeBSD hwt(4) source of `hwtrec record`
 * (hwt-source.c). */
#ifndef HWTREC_HWT_SOURCE_H
#define HWTREC_HWT_SOURCE_H

#include "../source.h"

extern const struct record_source record_source_hwt;

#endif
