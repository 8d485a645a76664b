/* pmu.h: a perf PMU as sysfs describes it, and whether we may use it.
 *
 * /sys/bus/event_source/devices/NAME/ holds the PMU's attr.type in "type",
 * one file per config field in format/ ("config:14-17", "config1:0-31",
 * possibly several ranges "config:0-3,8"), and capabilities in caps/.  The
 * directory is a parameter, so tests read fake trees.
 *
 * Permission: user-mode tracing of a process we may ptrace needs
 * kernel.perf_event_paranoid <= 2, or CAP_PERFMON (Linux 5.8+) or
 * CAP_SYS_ADMIN.  The paranoid file and the capability mask are parameters
 * too.
 */
#ifndef HWTR_PMU_H
#define HWTR_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_PMU_DEVICES "/sys/bus/event_source/devices"
#define PERF_PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"

struct perf_pmu_format {
	char name[32];
	unsigned word;		/* 0 config, 1 config1, 2 config2, 3 config3 */
	uint64_t mask;		/* the bits, possibly several ranges */
};

struct perf_pmu_cap {
	char name[32];
	char value[32];
};

struct perf_pmu {
	char name[64];
	char dir[512];
	uint32_t type;
	struct perf_pmu_format formats[64];
	size_t nformats;
	struct perf_pmu_cap caps[64];
	size_t ncaps;
};

/* Read PMU NAME under DEVICES.  hwtr_err_notfound when there is no such PMU
 * (the message says so), hwtr_err_format for a malformed type or format
 * file (naming it). */
int perf_pmu_read(const char *devices, const char *name, struct perf_pmu *pmu);

const struct perf_pmu_format *perf_pmu_format(const struct perf_pmu *pmu,
					      const char *name);
/* A capability's value ("1", "2", ...), or NULL. */
const char *perf_pmu_cap(const struct perf_pmu *pmu, const char *name);

/* Put VALUE into format field NAME of ATTR (config, config1, ...): its low
 * bits go into the field's bits from the lowest up.  hwtr_err_notfound for
 * a field the PMU lacks, hwtr_err_invalid for a value that does not fit. */
int perf_pmu_set(const struct perf_pmu *pmu, struct perf_event_attr *attr,
		 const char *name, uint64_t value);

/* Parse one format file's contents ("config:14-17") into FORMAT. */
int perf_pmu_parse_format(const char *text, struct perf_pmu_format *format);

/* May we trace a process we can ptrace, in user mode?  PARANOID_FILE gives
 * kernel.perf_event_paranoid, CAP_EFFECTIVE the effective capabilities
 * (/proc/self/status CapEff).  False with one line in WHY saying what to
 * change. */
bool perf_may_trace(const char *paranoid_file, uint64_t cap_effective,
		    char *why, size_t size);

/* The effective capability mask of this process (0 when unknown). */
uint64_t perf_cap_effective(void);

#endif
