/* pt-cpu.h: the CPU identity libipt's decoder keys its errata on (family,
 * model, stepping), from CPUID leaf 1's EAX as the Intel SDM composes it
 * (vol. 2A, CPUID, "Processor Version Information"): the extended model
 * counts for base families 6 and 0xF, the extended family for 0xF only.
 * One function for every source that reads the CPU (Linux perf, FreeBSD
 * hwt), kept pure so that it is tested with made-up EAX values. */
#ifndef HWTREC_PT_CPU_H
#define HWTREC_PT_CPU_H

#include "hwtrecord.h"

#include <stdint.h>

static inline void pt_cpu_identity(uint32_t eax, struct hwtr_pt_config *pt)
{
	unsigned family = (eax >> 8) & 0xf, model = (eax >> 4) & 0xf;

	if (family == 6 || family == 0xf)
		model |= ((eax >> 16) & 0xf) << 4;
	if (family == 0xf)
		family += (eax >> 20) & 0xff;
	pt->family = (uint16_t)family;
	pt->model = (uint8_t)model;
	pt->stepping = eax & 0xf;
}

#endif
