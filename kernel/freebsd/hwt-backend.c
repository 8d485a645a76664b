/* hwt-backend.c: the backend table (hwt-backend.h).
 *
 * The coresight entry follows the backend of the hwt development trees
 * (sys/arm64/coresight/coresight.c, coresight_etm4x.c, coresight_tmc.c and
 * usr.sbin/hwt/hwt_coresight.c in CTSRD-CHERI/cheribsd and
 * bnovkov/freebsd-src; FreeBSD's main tree has hwt(4) but no coresight
 * backend yet): the configuration is struct etmv4_config, version 1, which
 * the ETM driver writes to the trace unit's registers as given; the ID
 * registers are the driver's dev.coresight_etm4x.UNIT.idrN sysctls, read the
 * way hwt(8) reads them; the architecture and profile are hwt(8)'s (ARMv8,
 * A profile).  Not done: trace units that differ between cores (big.LITTLE):
 * a thread's trace ID follows it from core to core, so one description must
 * fit them all, and we refuse rather than guess.
 */
#include "hwt-backend.h"
#include "hwt-abi.h"

#include <errno.h>
#include <stdio.h>
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

/* Instruction trace of EL0 only, nothing else: TRCCONFIGR 0 (no return
 * stack, no timestamps, no context or VMID, no cycle counts, no branch
 * broadcast).  Timestamps stay off because the sideband has no clock to set
 * them against (hwt's records carry none), and context IDs are not needed:
 * the backend gives every thread its own trace ID.  ViewInst: always on
 * (resource 1), started, every exception level excluded but EL0 (EL1, EL2
 * non-secure; EL1, EL3 secure; the other bits are RES0), no address ranges.
 * An A-sync every 4 KiB of trace bounds what a loss costs. */
static size_t coresight_config(void *buf, size_t size, int *version)
{
	struct hwt_abi_etmv4_config c;

	if (size < sizeof(c))
		return 0;
	memset(&c, 0, sizeof(c));
	c.cfg = 0;
	c.syncfreq = HWT_ABI_TRCSYNCPR_4K;
	c.vinst_ctrl = HWT_ABI_TRCVICTLR_EVENT_TRUE | HWT_ABI_TRCVICTLR_SSSTATUS |
		       HWT_ABI_TRCVICTLR_EXLEVEL_NS(1) |
		       HWT_ABI_TRCVICTLR_EXLEVEL_NS(2) |
		       HWT_ABI_TRCVICTLR_EXLEVEL_S(1) |
		       HWT_ABI_TRCVICTLR_EXLEVEL_S(3);
	memcpy(buf, &c, sizeof(c));
	*version = HWT_ABI_ETM_CONFIG_VERSION;
	return sizeof(c);
}

/* Trace unit UNIT's ID registers: 1, 0 if there is no such unit, -1. */
static int read_idrs(const struct hwt_sys *sys, int unit, uint32_t *idr,
		     char *why, size_t whysize)
{
	char name[64];
	int i;

	for (i = 0; i < HWT_ABI_ETM_NIDR; i++) {
		uint32_t v = 0;
		size_t n = sizeof(v);

		snprintf(name, sizeof(name), HWT_ABI_ETM_IDR_SYSCTL, unit, i);
		if (sys->sysctl(name, &v, &n) < 0) {
			if (errno == ENOENT && i == 0)
				return 0;
			snprintf(why, whysize, "sysctl %s: %s", name,
				 strerror(errno));
			return -1;
		}
		if (n != sizeof(v)) {
			snprintf(why, whysize, "sysctl %s: %zu bytes, not a "
				 "32-bit register", name, n);
			return -1;
		}
		idr[i] = v;
	}
	return 1;
}

static int coresight_trace_unit(const struct hwt_sys *sys, const void *config,
				size_t size, struct hwtr_etm_config *etm,
				char *why, size_t whysize)
{
	struct hwt_abi_etmv4_config c;
	uint32_t idr[HWT_ABI_ETM_NIDR], other[HWT_ABI_ETM_NIDR];
	char name[64];
	int unit, found, major, i;

	if (size != sizeof(c)) {
		snprintf(why, whysize, "the coresight configuration is %zu "
			 "bytes, not %zu", size, sizeof(c));
		return -1;
	}
	memcpy(&c, config, sizeof(c));
	snprintf(name, sizeof(name), HWT_ABI_ETM_IDR_SYSCTL, 0, 0);
	found = read_idrs(sys, 0, idr, why, whysize);
	if (found < 0)
		return -1;
	if (!found) {
		snprintf(why, whysize, "sysctl %s does not exist: no ETMv4 "
			 "trace unit is attached, or the kernel's "
			 "coresight_etm4x driver does not export its ID "
			 "registers (the hwt coresight backend's driver does)",
			 name);
		return -1;
	}
	major = (idr[1] >> 8) & 0xf;
	if (major != 4) {
		snprintf(why, whysize, "trace unit 0 is not an ETMv4 (TRCIDR1 "
			 "0x%08x: architecture %d.%d)", idr[1], major,
			 (idr[1] >> 4) & 0xf);
		return -1;
	}
	for (unit = 1;; unit++) {
		found = read_idrs(sys, unit, other, why, whysize);
		if (found < 0)
			return -1;
		if (!found)
			break;
		for (i = 0; i < HWT_ABI_ETM_NIDR && idr[i] == other[i]; i++)
			;
		if (i < HWT_ABI_ETM_NIDR) {
			snprintf(why, whysize, "trace units 0 and %d differ "
				 "(TRCIDR%d 0x%08x and 0x%08x): a thread's trace "
				 "follows it from core to core under one trace "
				 "ID, and hwtrecord cannot tell which unit "
				 "wrote which part", unit, i, idr[i], other[i]);
			return -1;
		}
	}
	memset(etm, 0, sizeof(*etm));
	etm->ete = false;
	etm->formatted = true;
	etm->frame_flags = HWTR_ETM_FRAME_MEM_ALIGN;	/* TMC-ETR frames */
	etm->arch_version = 0x0800;	/* ARMv8 (OpenCSD's ARCH_V8) */
	etm->profile = 'A';
	etm->trcconfigr = c.cfg;
	memcpy(etm->trcidr, idr, sizeof(idr));
	etm->source = "coresight_etm4x";
	etm->cpu = -1;
	return 0;
}

static const struct hwt_backend backends[] = {
	{
		.name = "pt", .module = "intel_pt", .trace_format = "intel-pt",
		.arch = "x86_64", .config = pt_config,
	},
	{
		.name = "coresight", .module = "coresight",
		.trace_format = "etm4", .arch = "aarch64",
		.shared_buffer = true,
		.config = coresight_config,
		.trace_unit = coresight_trace_unit,
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
