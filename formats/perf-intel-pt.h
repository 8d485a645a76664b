/* perf-intel-pt.h: what perf.data says about an Intel PT trace.
 *
 * perf records Intel PT's configuration in the private words of the
 * AUXTRACE_INFO record (perf's tools/perf/util/intel-pt.h: PMU type, the
 * TSC conversion, which config bits mean tsc, noretcomp, mtc..., snapshot
 * and per-CPU mode) and the PMU config itself in the intel_pt event's
 * attr.config.  This file turns both into the manifest's hwtr_pt_config and
 * back, so that import and export share one reading of the words.
 *
 * Only the fixed words are read (up to FILTER_STR_LEN and the filter
 * string); words a newer perf adds after them are ignored.
 */
#ifndef HWTREC_PERF_INTEL_PT_H
#define HWTREC_PERF_INTEL_PT_H

#include "hwtrecord.h"
#include "../kernel/linux/perf-time.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	INTEL_PT_PMU_TYPE,
	INTEL_PT_TIME_SHIFT,
	INTEL_PT_TIME_MULT,
	INTEL_PT_TIME_ZERO,
	INTEL_PT_CAP_USER_TIME_ZERO,
	INTEL_PT_TSC_BIT,
	INTEL_PT_NORETCOMP_BIT,
	INTEL_PT_HAVE_SCHED_SWITCH,
	INTEL_PT_SNAPSHOT_MODE,
	INTEL_PT_PER_CPU_MMAPS,
	INTEL_PT_MTC_BIT,
	INTEL_PT_MTC_FREQ_BITS,
	INTEL_PT_TSC_CTC_N,
	INTEL_PT_TSC_CTC_D,
	INTEL_PT_CYC_BIT,
	INTEL_PT_MAX_NONTURBO_RATIO,
	INTEL_PT_FILTER_STR_LEN,
	INTEL_PT_PRIV_WORDS,	/* the fixed words we write */
};

/* The least perf accepts: the words up to SNAPSHOT_MODE. */
#define INTEL_PT_PRIV_MIN (INTEL_PT_SNAPSHOT_MODE + 1)

/* RTIT_CTL bit positions the intel_pt PMU's format/ files use (they mirror
 * the MSR): what export writes and what a file without the words means. */
#define INTEL_PT_CFG_PT (UINT64_C(1) << 0)
#define INTEL_PT_CFG_CYC (UINT64_C(1) << 1)
#define INTEL_PT_CFG_MTC (UINT64_C(1) << 9)
#define INTEL_PT_CFG_TSC (UINT64_C(1) << 10)
#define INTEL_PT_CFG_NORETCOMP (UINT64_C(1) << 11)
#define INTEL_PT_CFG_BRANCH (UINT64_C(1) << 13)
#define INTEL_PT_CFG_MTC_PERIOD (UINT64_C(0xf) << 14)
#define INTEL_PT_CFG_PSB_PERIOD (UINT64_C(0xf) << 24)

struct intel_pt_info {
	size_t nwords;			/* private words present */
	uint32_t pmu_type;
	struct perf_tsc_conv tc;	/* from TIME_SHIFT..CAP_USER_TIME_ZERO */
	uint64_t tsc_bit, noretcomp_bit;
	uint64_t have_sched_switch;	/* 0, 1 tracepoint, 2 context_switch */
	bool snapshot_mode;
	bool per_cpu_mmaps;
	uint64_t mtc_bit, mtc_freq_bits;
	uint32_t tsc_ctc_n, tsc_ctc_d;	/* CPUID.15H EBX, EAX */
	uint64_t cyc_bit;
	uint32_t max_nonturbo_ratio;
	char *filter;			/* the address filter string, or NULL */
};

/* Read the private words; fails (message without the file: callers add
 * it) when there are fewer than perf itself requires or the filter string
 * does not fit. */
int intel_pt_info_parse(const uint64_t *priv, size_t npriv,
			struct intel_pt_info *info);

/* What intel_pt_info_parse allocated. */
void intel_pt_info_release(struct intel_pt_info *info);

/* The private words INFO takes: the fixed ones, then its filter string
 * (NUL-terminated, padded to 8 bytes) when it has one. */
size_t intel_pt_info_words(const struct intel_pt_info *info);
/* Write them (PRIV holds intel_pt_info_words); returns how many. */
size_t intel_pt_info_encode(const struct intel_pt_info *info, uint64_t *priv);

/* The manifest's configuration from the words, the PT event's attr.config
 * and the CPUID feature string ("GenuineIntel,6,85,4"; may be NULL). */
void intel_pt_info_to_config(const struct intel_pt_info *info,
			     uint64_t config, const char *cpuid,
			     struct hwtr_pt_config *pt);

/* Does the trace carry TSC packets (the tsc bit set in config)? */
bool intel_pt_info_has_tsc(const struct intel_pt_info *info, uint64_t config);

#endif
