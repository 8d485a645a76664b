/* record-driver.h: one recording through one trace source (record-driver.c). */
#ifndef HWTREC_RECORD_DRIVER_H
#define HWTREC_RECORD_DRIVER_H

#include "../kernel/source.h"

/* Record REQ with SRC; returns the exit status of `hwtrec record`. */
int record_drive(const struct record_source *src,
		 const struct record_request *req);

#endif
