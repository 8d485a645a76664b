/* sideband.h: one sideband.jsonl line <-> struct hwtr_sideband_event. */
#ifndef HWTR_SIDEBAND_H
#define HWTR_SIDEBAND_H

#include "hwtrecord.h"
#include "json-util.h"

json_t *sideband_encode(const struct hwtr_sideband_event *event);
/* Strings in EVENT point into OBJ. */
int sideband_decode(json_t *obj, const struct jfield_where *where,
		    struct hwtr_sideband_event *event);

#endif
