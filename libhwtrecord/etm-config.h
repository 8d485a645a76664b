/* etm-config.h: OpenCSD decode trees for a trace unit; internal. */
#ifndef HWTR_ETM_CONFIG_H
#define HWTR_ETM_CONFIG_H

#include "hwtrecord.h"

#include <opencsd/c_api/opencsd_c_api.h>

/* A single-source tree that decodes unit E's raw trace: the full decoder
 * or the packet processor alone (FLAGS, OCSD_CREATE_FLG_*); its decoder's
 * CoreSight ID in *CSID.  0, or an error naming the unit's registers. */
int etm_create_tree(const struct hwtr_etm_config *e, int flags,
		    dcd_tree_handle_t *out, unsigned char *csid);
/* OpenCSD's words for ERR, in BUF. */
const char *etm_ocsd_words(ocsd_err_t err, char *buf, size_t size);

#endif
