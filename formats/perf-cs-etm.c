/* perf-cs-etm.c: CoreSight ETM's AUXTRACE_INFO words (see .h). */
#include "perf-cs-etm.h"

#include <stdlib.h>
#include <string.h>

enum { CS_HEADER_VERSION, CS_PMU_TYPE_CPUS, CS_ETM_SNAPSHOT };
enum { CS_MAGIC, CS_CPU, CS_NR_TRC_PARAMS };

/* Parameters in the order perf writes them. */
enum {
	P_TRCCONFIGR, P_TRCTRACEIDR, P_TRCIDR0, P_TRCIDR1, P_TRCIDR2,
	P_TRCIDR8, P_TRCAUTHSTATUS,
	P_V4_KNOWN,			/* the version 0 set */
	P_V4_TS_SOURCE = P_V4_KNOWN,
	P_ETE_TRCDEVARCH = P_V4_KNOWN,
	P_ETE_KNOWN,
	P_ETE_TS_SOURCE = P_ETE_KNOWN,
};
#define V3_PARAMS_V0 4

static const char *protocol_name(int p)
{
	return p == CS_ETM_V3 ? "ETMv3/PTM" : p == CS_ETM_V4 ? "ETMv4" : "ETE";
}

int cs_etm_info_parse(const uint64_t *priv, size_t n, struct cs_etm_info *info)
{
	size_t ncpus, i = CS_ETM_HEADER_WORDS, k;
	int err;

	memset(info, 0, sizeof(*info));
	if (n < CS_ETM_HEADER_WORDS)
		return hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO has %zu "
				 "private words, the header alone is %d", n,
				 CS_ETM_HEADER_WORDS);
	if (priv[CS_HEADER_VERSION] > CS_ETM_VERSION_MAX)
		return hwtr_fail(hwtr_err_version, "CoreSight AUXTRACE_INFO version "
				 "%llu: written by a newer perf (this hwtrec reads "
				 "0 to %d)", (unsigned long long)priv[CS_HEADER_VERSION],
				 CS_ETM_VERSION_MAX);
	info->version = (uint32_t)priv[CS_HEADER_VERSION];
	info->pmu_type = (uint32_t)(priv[CS_PMU_TYPE_CPUS] >> 32);
	ncpus = (uint32_t)priv[CS_PMU_TYPE_CPUS];
	info->snapshot = priv[CS_ETM_SNAPSHOT] != 0;
	/* Each block takes at least its magic and CPU words. */
	if (ncpus == 0 || ncpus > (n - CS_ETM_HEADER_WORDS) / 2)
		return hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO says %zu "
				 "CPUs, its %zu words hold 1 to %zu", ncpus, n,
				 (n - CS_ETM_HEADER_WORDS) / 2);
	info->cpus = calloc(ncpus, sizeof(*info->cpus));
	if (!info->cpus)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (k = 0; k < ncpus; k++) {
		struct cs_etm_cpu *c = &info->cpus[k];
		uint64_t magic, nparams, need;
		size_t first, j;

		if (i >= n)
			goto cut;
		magic = priv[i];
		c->word = i;
		if (magic == CS_ETMV3_MAGIC)
			c->protocol = CS_ETM_V3;
		else if (magic == CS_ETMV4_MAGIC)
			c->protocol = CS_ETM_V4;
		else if (magic == CS_ETE_MAGIC && info->version >= 1)
			c->protocol = CS_ETM_ETE;
		else if (magic == CS_ETE_MAGIC) {
			err = hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO "
					 "word %zu: an ETE block in a version 0 "
					 "header (perf writes ETE from version 1)", i);
			goto fail;
		} else {
			err = hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO "
					 "word %zu: CPU block %zu has magic 0x%016llx, "
					 "not ETMv3, ETMv4 or ETE (a newer perf?)",
					 i, k, (unsigned long long)magic);
			goto fail;
		}
		if (i + 2 > n)
			goto cut;
		c->cpu = (uint32_t)priv[i + CS_CPU];
		if (priv[i + CS_CPU] > UINT32_MAX / 2) {
			err = hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO "
					 "word %zu: CPU %llu", i + CS_CPU,
					 (unsigned long long)priv[i + CS_CPU]);
			goto fail;
		}
		if (info->version == 0) {
			nparams = c->protocol == CS_ETM_V3 ? V3_PARAMS_V0 : P_V4_KNOWN;
			first = i + 2;
		} else {
			if (i + 3 > n)
				goto cut;
			nparams = priv[i + CS_NR_TRC_PARAMS];
			first = i + 3;
		}
		need = c->protocol == CS_ETM_V3 ? V3_PARAMS_V0
		       : c->protocol == CS_ETM_V4 ? P_V4_KNOWN : P_ETE_KNOWN;
		if (nparams > n - first)
			goto cut;
		if (nparams < need) {
			err = hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO "
					 "word %zu: the %s block of CPU %u has %llu "
					 "parameters, %s has %llu", first - 1,
					 protocol_name(c->protocol), c->cpu,
					 (unsigned long long)nparams,
					 protocol_name(c->protocol),
					 (unsigned long long)need);
			goto fail;
		}
		if (c->protocol != CS_ETM_V3) {
			const uint64_t *p = priv + first;

			c->trcconfigr = p[P_TRCCONFIGR];
			c->trctraceidr = p[P_TRCTRACEIDR];
			c->trcidr0 = p[P_TRCIDR0];
			c->trcidr1 = p[P_TRCIDR1];
			c->trcidr2 = p[P_TRCIDR2];
			c->trcidr8 = p[P_TRCIDR8];
			c->trcauthstatus = p[P_TRCAUTHSTATUS];
			if (c->protocol == CS_ETM_ETE)
				c->trcdevarch = p[P_ETE_TRCDEVARCH];
			j = c->protocol == CS_ETM_ETE ? P_ETE_TS_SOURCE
						      : P_V4_TS_SOURCE;
			if (nparams > j) {
				c->has_ts_source = true;
				c->ts_source = p[j];
			}
		}
		for (j = 0; j < k; j++)
			if (info->cpus[j].cpu == c->cpu) {
				err = hwtr_fail(hwtr_err_format, "CoreSight "
						 "AUXTRACE_INFO word %zu: CPU %u has a "
						 "block already (word %zu)", i + CS_CPU,
						 c->cpu, info->cpus[j].word);
				goto fail;
			}
		i = first + nparams;
		info->ncpus = k + 1;
	}
	if (i != n) {
		size_t left = n - i;

		err = hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO: %zu "
				 "word%s after the last CPU's block (word %zu)",
				 left, left > 1 ? "s" : "", i);
		goto fail;
	}
	return 0;
cut:
	err = hwtr_fail(hwtr_err_format, "CoreSight AUXTRACE_INFO: CPU block %zu "
			 "(word %zu) runs past the %zu private words", k, i, n);
fail:
	cs_etm_info_release(info);
	return err;
}

void cs_etm_info_release(struct cs_etm_info *info)
{
	free(info->cpus);
	info->cpus = NULL;
	info->ncpus = 0;
}

size_t cs_etm_info_encode(const struct cs_etm_info *info, uint64_t *priv)
{
	size_t i = CS_ETM_HEADER_WORDS, k;

	if (priv) {
		priv[CS_HEADER_VERSION] = CS_ETM_VERSION_WRITTEN;
		priv[CS_PMU_TYPE_CPUS] = (uint64_t)info->pmu_type << 32 |
					 (uint32_t)info->ncpus;
		priv[CS_ETM_SNAPSHOT] = info->snapshot;
	}
	for (k = 0; k < info->ncpus; k++) {
		const struct cs_etm_cpu *c = &info->cpus[k];
		size_t np = c->protocol == CS_ETM_ETE ? P_ETE_KNOWN : P_V4_KNOWN;

		if (priv) {
			uint64_t *p = priv + i + 3;

			priv[i + CS_MAGIC] = c->protocol == CS_ETM_ETE ? CS_ETE_MAGIC
								       : CS_ETMV4_MAGIC;
			priv[i + CS_CPU] = c->cpu;
			priv[i + CS_NR_TRC_PARAMS] = np;
			p[P_TRCCONFIGR] = c->trcconfigr;
			p[P_TRCTRACEIDR] = c->trctraceidr;
			p[P_TRCIDR0] = c->trcidr0;
			p[P_TRCIDR1] = c->trcidr1;
			p[P_TRCIDR2] = c->trcidr2;
			p[P_TRCIDR8] = c->trcidr8;
			p[P_TRCAUTHSTATUS] = c->trcauthstatus;
			if (c->protocol == CS_ETM_ETE)
				p[P_ETE_TRCDEVARCH] = c->trcdevarch;
		}
		i += 3 + np;
	}
	return i;
}

void cs_etm_cpu_to_config(const struct cs_etm_cpu *c, struct hwtr_etm_config *e)
{
	memset(e, 0, sizeof(*e));
	e->ete = c->protocol == CS_ETM_ETE;
	e->trctraceidr = (uint32_t)c->trctraceidr;
	e->trace_id = (uint8_t)(c->trctraceidr & 0x7f);
	e->formatted = true;
	e->frame_flags = HWTR_ETM_FRAME_MEM_ALIGN;
	/* As perf configures OpenCSD for what it recorded. */
	e->arch_version = e->ete ? 0x864 : 0x800;
	e->profile = 'A';
	e->trcconfigr = (uint32_t)c->trcconfigr;
	e->trcauthstatus = (uint32_t)c->trcauthstatus;
	e->trcdevarch = (uint32_t)c->trcdevarch;
	e->trcidr[0] = (uint32_t)c->trcidr0;
	e->trcidr[1] = (uint32_t)c->trcidr1;
	e->trcidr[2] = (uint32_t)c->trcidr2;
	e->trcidr[8] = (uint32_t)c->trcidr8;
	e->cpu = (int32_t)c->cpu;
}

void cs_etm_cpu_from_config(const struct hwtr_etm_config *e, uint32_t cpu,
			    struct cs_etm_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->protocol = e->ete ? CS_ETM_ETE : CS_ETM_V4;
	c->cpu = cpu;
	c->trcconfigr = e->trcconfigr;
	/* The source's trace ID, whatever else the register held. */
	c->trctraceidr = (e->trctraceidr & ~UINT32_C(0x7f)) | e->trace_id;
	c->trcidr0 = e->trcidr[0];
	c->trcidr1 = e->trcidr[1];
	c->trcidr2 = e->trcidr[2];
	c->trcidr8 = e->trcidr[8];
	c->trcauthstatus = e->trcauthstatus;
	c->trcdevarch = e->trcdevarch;
}
