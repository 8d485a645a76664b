/* hwt-backend.c: the backend table (hwt-backend.h). */
#include "hwt-backend.h"
#include "hwt-abi.h"

#include <string.h>

/* User-space only, branches on; nothing else the backend would accept (no
 * MTC: it has no timestamps to anchor them anyway, since it clears TSCEn). */
static size_t pt_config(void *buf, size_t size, int *version)
{
	struct hwt_abi_pt_config c;

	if (size < sizeof(c))
		return 0;
	memset(&c, 0, sizeof(c));
	c.rtit_ctl = HWT_ABI_RTIT_CTL_USER | HWT_ABI_RTIT_CTL_BRANCHEN;
	memcpy(buf, &c, sizeof(c));
	*version = 0;
	return sizeof(c);
}

static const struct hwt_backend backends[] = {
	{
		.name = "pt", .module = "intel_pt", .trace_format = "intel-pt",
		.config = pt_config,
	},
	{
		.name = "coresight", .module = "coresight",
		.trace_format = "etm4",
		.not_ready = "recording Arm CoreSight ETM through hwt(4) needs "
			     "the coresight backend's configuration and, for "
			     "the recording, each trace unit's ID and "
			     "configuration registers (TRCIDR0/2, TRCCONFIGR, "
			     "the trace ID), which hwt does not hand to user "
			     "space; hwtrecord decodes ETM (hwtrec import), but "
			     "this source cannot record it yet",
	},
};

const struct hwt_backend *hwt_backend_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

const struct hwt_backend *hwt_backend_default(void)
{
#if defined(__aarch64__)
	return hwt_backend_find("coresight");
#else
	return hwt_backend_find("pt");
#endif
}

const char *hwt_backend_names(void)
{
	return "pt, coresight";
}
