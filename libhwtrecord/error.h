/* error.h: the per-thread message behind hwtr_last_error(). */
#ifndef HWTR_ERROR_H
#define HWTR_ERROR_H

#include "hwtrecord.h"

/* Library files include this for hwtr_fail() and hwtr_fail_context(),
 * which are declared in the public header: trace sources and importers
 * built on the library report errors the same way. */

#endif
