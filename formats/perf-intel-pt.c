/* perf-intel-pt.c: Intel PT's AUXTRACE_INFO words and config (see .h). */
#define _GNU_SOURCE
#include "perf-intel-pt.h"
#include "hwtrecord.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int intel_pt_info_parse(const uint64_t *priv, size_t n,
			struct intel_pt_info *info)
{
	memset(info, 0, sizeof(*info));
	info->nwords = n;
	if (n < INTEL_PT_PRIV_MIN)
		return hwtr_fail(hwtr_err_format, "Intel PT AUXTRACE_INFO has %zu "
				 "private words, perf writes at least %d", n,
				 INTEL_PT_PRIV_MIN);
	info->pmu_type = (uint32_t)priv[INTEL_PT_PMU_TYPE];
	info->tc.time_shift = (uint16_t)priv[INTEL_PT_TIME_SHIFT];
	info->tc.time_mult = (uint32_t)priv[INTEL_PT_TIME_MULT];
	info->tc.time_zero = priv[INTEL_PT_TIME_ZERO];
	info->tc.cap_user_time_zero = priv[INTEL_PT_CAP_USER_TIME_ZERO] != 0;
	info->tsc_bit = priv[INTEL_PT_TSC_BIT];
	info->noretcomp_bit = priv[INTEL_PT_NORETCOMP_BIT];
	info->have_sched_switch = priv[INTEL_PT_HAVE_SCHED_SWITCH];
	info->snapshot_mode = priv[INTEL_PT_SNAPSHOT_MODE] != 0;
	if (n > INTEL_PT_PER_CPU_MMAPS)
		info->per_cpu_mmaps = priv[INTEL_PT_PER_CPU_MMAPS] != 0;
	if (n > INTEL_PT_TSC_CTC_D) {
		info->mtc_bit = priv[INTEL_PT_MTC_BIT];
		info->mtc_freq_bits = priv[INTEL_PT_MTC_FREQ_BITS];
		info->tsc_ctc_n = (uint32_t)priv[INTEL_PT_TSC_CTC_N];
		info->tsc_ctc_d = (uint32_t)priv[INTEL_PT_TSC_CTC_D];
	}
	if (n > INTEL_PT_CYC_BIT)
		info->cyc_bit = priv[INTEL_PT_CYC_BIT];
	if (n > INTEL_PT_MAX_NONTURBO_RATIO)
		info->max_nonturbo_ratio = (uint32_t)priv[INTEL_PT_MAX_NONTURBO_RATIO];
	if (n > INTEL_PT_FILTER_STR_LEN) {
		uint64_t len = priv[INTEL_PT_FILTER_STR_LEN];

		/* The filter string follows, NUL-terminated, padded to 8. */
		if (len && (len > 8 * (uint64_t)n ||
			    (len + 8) / 8 > n - INTEL_PT_PRIV_WORDS))
			return hwtr_fail(hwtr_err_format, "Intel PT AUXTRACE_INFO: "
					 "address filter of %llu bytes does not "
					 "fit its %zu words",
					 (unsigned long long)len, n);
		if (len) {
			info->filter = strndup((const char *)(priv + INTEL_PT_PRIV_WORDS),
					       (size_t)len);
			if (!info->filter)
				return hwtr_fail(hwtr_err_nomem, "out of memory");
		}
	}
	return 0;
}

void intel_pt_info_release(struct intel_pt_info *info)
{
	free(info->filter);
	info->filter = NULL;
}

size_t intel_pt_info_words(const struct intel_pt_info *info)
{
	return INTEL_PT_PRIV_WORDS +
	       (info->filter ? (strlen(info->filter) + 8) / 8 : 0);
}

size_t intel_pt_info_encode(const struct intel_pt_info *info, uint64_t *priv)
{
	size_t n = intel_pt_info_words(info);

	memset(priv, 0, n * sizeof(*priv));
	priv[INTEL_PT_PMU_TYPE] = info->pmu_type;
	priv[INTEL_PT_TIME_SHIFT] = info->tc.time_shift;
	priv[INTEL_PT_TIME_MULT] = info->tc.time_mult;
	priv[INTEL_PT_TIME_ZERO] = info->tc.time_zero;
	priv[INTEL_PT_CAP_USER_TIME_ZERO] = info->tc.cap_user_time_zero;
	priv[INTEL_PT_TSC_BIT] = info->tsc_bit;
	priv[INTEL_PT_NORETCOMP_BIT] = info->noretcomp_bit;
	priv[INTEL_PT_HAVE_SCHED_SWITCH] = info->have_sched_switch;
	priv[INTEL_PT_SNAPSHOT_MODE] = info->snapshot_mode;
	priv[INTEL_PT_PER_CPU_MMAPS] = info->per_cpu_mmaps;
	priv[INTEL_PT_MTC_BIT] = info->mtc_bit;
	priv[INTEL_PT_MTC_FREQ_BITS] = info->mtc_freq_bits;
	priv[INTEL_PT_TSC_CTC_N] = info->tsc_ctc_n;
	priv[INTEL_PT_TSC_CTC_D] = info->tsc_ctc_d;
	priv[INTEL_PT_CYC_BIT] = info->cyc_bit;
	priv[INTEL_PT_MAX_NONTURBO_RATIO] = info->max_nonturbo_ratio;
	if (info->filter) {
		priv[INTEL_PT_FILTER_STR_LEN] = strlen(info->filter);
		memcpy(priv + INTEL_PT_PRIV_WORDS, info->filter,
		       strlen(info->filter));
	}
	return n;
}

static unsigned field(uint64_t config, uint64_t mask)
{
	unsigned shift = 0;

	if (!mask)
		return 0;
	while (!((mask >> shift) & 1))
		shift++;
	return (unsigned)((config & mask) >> shift);
}

bool intel_pt_info_has_tsc(const struct intel_pt_info *info, uint64_t config)
{
	return info->tsc_bit && (config & info->tsc_bit);
}

void intel_pt_info_to_config(const struct intel_pt_info *info, uint64_t config,
			     const char *cpuid, struct hwtr_pt_config *pt)
{
	char vendor[32] = "";
	int family = 0, model = 0, stepping = 0;

	memset(pt, 0, sizeof(*pt));
	snprintf(pt->vendor, sizeof(pt->vendor), "unknown");
	if (cpuid && sscanf(cpuid, "%31[^,],%d,%d,%d", vendor, &family, &model,
			    &stepping) >= 3 && !strcmp(vendor, "GenuineIntel")) {
		snprintf(pt->vendor, sizeof(pt->vendor), "intel");
		pt->family = (uint16_t)family;
		pt->model = (uint8_t)model;
		pt->stepping = (uint8_t)stepping;
	}
	/* MTCFreq is 4 bits (a file may claim a wider field). */
	pt->mtc_freq = (uint8_t)(field(config, info->mtc_freq_bits) & 0xf);
	pt->nom_freq = (uint8_t)info->max_nonturbo_ratio;
	pt->cpuid_0x15_eax = info->tsc_ctc_d;
	pt->cpuid_0x15_ebx = info->tsc_ctc_n;
	pt->tsc = intel_pt_info_has_tsc(info, config);
	pt->return_compression = !(info->noretcomp_bit &&
				   (config & info->noretcomp_bit));
	/* PSBFreq: a PSB every 2^(11 + n) bytes. */
	pt->psb_period = 2048u << field(config, INTEL_PT_CFG_PSB_PERIOD);
	pt->address_filter = info->filter;
}
