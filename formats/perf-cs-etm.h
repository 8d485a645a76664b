/* perf-cs-etm.h: what perf.data says about a CoreSight ETM trace.
 *
 * perf record -e cs_etm// writes the trace units' configuration in the
 * private words of the AUXTRACE_INFO record (type CS_ETM; perf's
 * tools/perf/util/cs-etm.h): a header (format version, PMU type and the
 * number of CPUs, snapshot mode), then one block per CPU: a magic word
 * naming the protocol (ETMv3/PTM, ETMv4, ETE), the CPU number, from
 * version 1 the number of parameters that follow, and the parameters:
 *
 *   ETMv4: TRCCONFIGR, TRCTRACEIDR, TRCIDR0, TRCIDR1, TRCIDR2, TRCIDR8,
 *          TRCAUTHSTATUS, then (newer perf) TS_SOURCE
 *   ETE:   the same, then TRCDEVARCH, then TS_SOURCE
 *   ETMv3: ETMCR, ETMTRACEIDR, ETMCCER, ETMIDR
 *
 * Version 0 blocks have no count (ETMv4 7 parameters, ETMv3 4); version 2
 * (perf 6.3) may leave TRCTRACEIDR unused (bit 31) and give each CPU's trace
 * ID in AUX_OUTPUT_HW_ID records instead.  This file reads and writes the
 * words and turns a CPU's block into the recording's hwtr_etm_config and
 * back, so that import and export share one reading.  Parameters a newer
 * perf appends after the known ones are skipped by their count.
 *
 * What perf does not keep: TRCIDR9..13 (0 on import), the core's
 * architecture and profile (perf's decoder assumes Armv8-A: ETMv4 is read
 * as v8, ETE as AArch64 v8.3+, as perf configures OpenCSD).
 */
#ifndef HWTREC_PERF_CS_ETM_H
#define HWTREC_PERF_CS_ETM_H

#include "hwtrecord.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CS_ETM_HEADER_WORDS 3		/* version, PMU type/CPUs, snapshot */
#define CS_ETM_VERSION_WRITTEN 1	/* what perf 6.1 reads */
#define CS_ETM_VERSION_MAX 2

#define CS_ETMV3_MAGIC UINT64_C(0x3030303030303030)
#define CS_ETMV4_MAGIC UINT64_C(0x4040404040404040)
#define CS_ETE_MAGIC UINT64_C(0x5050505050505050)

/* TRCTRACEIDR of a version 2 file: the trace ID is in AUX_OUTPUT_HW_ID. */
#define CS_ETM_TRACE_ID_UNUSED (UINT64_C(1) << 31)
/* AUX_OUTPUT_HW_ID's word: the trace ID, and a version in the top byte. */
#define CS_ETM_HW_ID_TRACE_ID(hw_id) ((uint8_t)((hw_id) & 0x7f))
#define CS_ETM_HW_ID_VERSION(hw_id) ((unsigned)((hw_id) >> 56))

/* PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW: an AUX record whose data is one
 * source's raw trace, not CoreSight frames. */
#define CS_ETM_AUX_FORMAT_RAW 0x100u

/* One CPU's block. */
struct cs_etm_cpu {
	enum { CS_ETM_V3, CS_ETM_V4, CS_ETM_ETE } protocol;
	uint32_t cpu;
	uint64_t trcconfigr, trctraceidr, trcidr0, trcidr1, trcidr2, trcidr8,
		 trcauthstatus, trcdevarch;
	bool has_ts_source;
	uint64_t ts_source;
	size_t word;		/* index of its magic word, for messages */
};

struct cs_etm_info {
	uint32_t version;
	uint32_t pmu_type;
	bool snapshot;
	struct cs_etm_cpu *cpus;	/* malloc'ed */
	size_t ncpus;
};

/* Read the private words.  Fails (message without the file: callers add
 * it) naming the word when the header is from a newer perf, a block's magic
 * is unknown, a count runs past the words, words are left over, or a CPU
 * appears twice. */
int cs_etm_info_parse(const uint64_t *priv, size_t npriv,
		      struct cs_etm_info *info);
void cs_etm_info_release(struct cs_etm_info *info);

/* The words of INFO as version CS_ETM_VERSION_WRITTEN (ETMv4 and ETE
 * blocks, without TS_SOURCE): how many (PRIV may be NULL to count). */
size_t cs_etm_info_encode(const struct cs_etm_info *info, uint64_t *priv);

/* A CPU's trace unit as the recording keeps it (formatted trace, frames
 * aligned in memory), and back. */
void cs_etm_cpu_to_config(const struct cs_etm_cpu *c, struct hwtr_etm_config *e);
void cs_etm_cpu_from_config(const struct hwtr_etm_config *e, uint32_t cpu,
			    struct cs_etm_cpu *c);

#endif
