/* etm-scan.h: the packet scan of one ETM source; internal. */
#ifndef HWTR_ETM_SCAN_H
#define HWTR_ETM_SCAN_H

#include "etm-stream.h"

/* Scan S's raw trace from s->start with the packet processor: fill its
 * A-syncs, chunk starts, timestamps, sync losses, unusable packets and
 * truncation.  0, or an error (the unit refused, out of memory). */
int etm_scan_packets(struct etm_stream *s);

#endif
