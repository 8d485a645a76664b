/* etm-config.c: OpenCSD decode trees for an ETMv4/ETE trace unit.
 *
 * The recording's trace unit configuration (its ID registers, TRCCONFIGR,
 * trace ID; hwtr_etm_config) becomes OpenCSD's ocsd_etmv4_cfg or
 * ocsd_ete_cfg, and a decode tree for one source: the full decoder (the
 * walk) or the packet processor alone (the packet scan).
 */
#include "etm-config.h"

#include "error.h"

#include <string.h>

static void etmv4_config(const struct hwtr_etm_config *e, ocsd_etmv4_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->reg_idr0 = e->trcidr[0];
	c->reg_idr1 = e->trcidr[1];
	c->reg_idr2 = e->trcidr[2];
	c->reg_idr8 = e->trcidr[8];
	c->reg_idr9 = e->trcidr[9];
	c->reg_idr10 = e->trcidr[10];
	c->reg_idr11 = e->trcidr[11];
	c->reg_idr12 = e->trcidr[12];
	c->reg_idr13 = e->trcidr[13];
	c->reg_configr = e->trcconfigr;
	/* The decoder takes its trace ID from here: the source's, always. */
	c->reg_traceidr = e->trace_id;
	c->arch_ver = (ocsd_arch_version_t)e->arch_version;
	c->core_prof = e->profile == 'M' ? profile_CortexM
		       : e->profile == 'R' ? profile_CortexR : profile_CortexA;
}

static void ete_config(const struct hwtr_etm_config *e, ocsd_ete_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->reg_idr0 = e->trcidr[0];
	c->reg_idr1 = e->trcidr[1];
	c->reg_idr2 = e->trcidr[2];
	c->reg_idr8 = e->trcidr[8];
	c->reg_devarch = e->trcdevarch;
	c->reg_configr = e->trcconfigr;
	c->reg_traceidr = e->trace_id;
	c->arch_ver = (ocsd_arch_version_t)e->arch_version;
	c->core_prof = e->profile == 'M' ? profile_CortexM
		       : e->profile == 'R' ? profile_CortexR : profile_CortexA;
}

const char *etm_ocsd_words(ocsd_err_t err, char *buf, size_t size)
{
	ocsd_err_str(err, buf, (int)size);
	return buf;
}

int etm_create_tree(const struct hwtr_etm_config *e, int flags,
		    dcd_tree_handle_t *out, unsigned char *csid)
{
	dcd_tree_handle_t tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	ocsd_etmv4_cfg v4;
	ocsd_ete_cfg ete;
	ocsd_err_t err;
	char words[128];

	if (tree == C_API_INVALID_TREE_HANDLE)
		return hwtr_fail(hwtr_err_nomem, "OpenCSD: cannot create a decode tree");
	if (e->ete) {
		ete_config(e, &ete);
		err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETE, flags, &ete,
					     csid);
	} else {
		etmv4_config(e, &v4);
		err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, flags,
					     &v4, csid);
	}
	if (err != OCSD_OK) {
		ocsd_destroy_dcd_tree(tree);
		return hwtr_fail(hwtr_err_format,
				 "OpenCSD refuses the trace unit of source 0x%x "
				 "(TRCIDR0 0x%08x, TRCCONFIGR 0x%08x): %s",
				 e->trace_id, e->trcidr[0], e->trcconfigr,
				 etm_ocsd_words(err, words, sizeof(words)));
	}
	*out = tree;
	return 0;
}
