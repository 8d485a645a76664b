/* pmu.c: PMU discovery from sysfs and the permission check (pmu.h). */
#include "pmu.h"
#include "hwtrecord.h"


#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

/* The first line of a small file, without its newline; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\r\n")] = 0;
	return ok;
}

int perf_pmu_parse_format(const char *text, struct perf_pmu_format *f)
{
	const char *p = strchr(text, ':');
	char word[16];
	size_t n;

	if (!p || (n = (size_t)(p - text)) >= sizeof(word))
		return hwtr_fail(hwtr_err_format, "'%s' is not FIELD:BITS", text);
	memcpy(word, text, n);
	word[n] = 0;
	if (!strcmp(word, "config"))
		f->word = 0;
	else if (!strcmp(word, "config1"))
		f->word = 1;
	else if (!strcmp(word, "config2"))
		f->word = 2;
	else if (!strcmp(word, "config3"))
		f->word = 3;
	else
		return hwtr_fail(hwtr_err_format, "'%s': unknown field %s", text,
				 word);
	f->mask = 0;
	for (p++; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, b;

		if (end == p)
			return hwtr_fail(hwtr_err_format, "'%s': bad bit range",
					 text);
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return hwtr_fail(hwtr_err_format, "'%s': bad bit "
						 "range", text);
		}
		if (lo > hi || hi > 63)
			return hwtr_fail(hwtr_err_format, "'%s': bits %lu-%lu are "
					 "not within 0-63", text, lo, hi);
		for (b = lo; b <= hi; b++)
			f->mask |= UINT64_C(1) << b;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return hwtr_fail(hwtr_err_format, "'%s': unexpected '%c'",
					 text, *p);
		else
			break;
	}
	if (!f->mask)
		return hwtr_fail(hwtr_err_format, "'%s': no bits", text);
	return 0;
}

static int read_dir_files(struct perf_pmu *pmu, const char *sub, bool formats)
{
	char path[600], line[128];
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", pmu->dir, sub);
	d = opendir(path);
	if (!d)
		return 0;	/* no caps/ on old kernels */
	while ((e = readdir(d)) && !err) {
		char file[1024];

		if (e->d_name[0] == '.' || strlen(e->d_name) >= 32)
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if (!read_line(file, line, sizeof(line)))
			continue;
		if (formats && pmu->nformats < 64) {
			struct perf_pmu_format *f = &pmu->formats[pmu->nformats];

			snprintf(f->name, sizeof(f->name), "%s", e->d_name);
			err = perf_pmu_parse_format(line, f);
			if (err)
				err = hwtr_fail_context(err, "%s: ", file);
			else
				pmu->nformats++;
		} else if (!formats && pmu->ncaps < 64) {
			struct perf_pmu_cap *c = &pmu->caps[pmu->ncaps++];

			snprintf(c->name, sizeof(c->name), "%s", e->d_name);
			snprintf(c->value, sizeof(c->value), "%.31s", line);
		}
	}
	closedir(d);
	return err;
}

int perf_pmu_read(const char *devices, const char *name, struct perf_pmu *pmu)
{
	char path[1024], line[64], *end;
	unsigned long type;
	int err;

	memset(pmu, 0, sizeof(*pmu));
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	snprintf(pmu->dir, sizeof(pmu->dir), "%s/%s", devices, name);
	snprintf(path, sizeof(path), "%s/type", pmu->dir);
	if (!read_line(path, line, sizeof(line)))
		return hwtr_fail(hwtr_err_notfound, "no %s PMU (%s: %s)", name,
				 path, strerror(errno));
	errno = 0;
	type = strtoul(line, &end, 10);
	if (errno || end == line || *end || type > UINT32_MAX)
		return hwtr_fail(hwtr_err_format, "%s: '%s' is not a PMU type",
				 path, line);
	pmu->type = (uint32_t)type;
	if ((err = read_dir_files(pmu, "format", true)) ||
	    (err = read_dir_files(pmu, "caps", false)))
		return err;
	return 0;
}

const struct perf_pmu_format *perf_pmu_format(const struct perf_pmu *pmu,
					      const char *name)
{
	size_t i;

	for (i = 0; i < pmu->nformats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

const char *perf_pmu_cap(const struct perf_pmu *pmu, const char *name)
{
	size_t i;

	for (i = 0; i < pmu->ncaps; i++)
		if (!strcmp(pmu->caps[i].name, name))
			return pmu->caps[i].value;
	return NULL;
}

int perf_pmu_set(const struct perf_pmu *pmu, struct perf_event_attr *attr,
		 const char *name, uint64_t value)
{
	const struct perf_pmu_format *f = perf_pmu_format(pmu, name);
	uint64_t *word, bits = 0, v = value;
	unsigned b;

	if (!f)
		return hwtr_fail(hwtr_err_notfound, "the %s PMU has no '%s' "
				 "field (%s/format)", pmu->name, name, pmu->dir);
	for (b = 0; b < 64; b++)
		if (f->mask & (UINT64_C(1) << b)) {
			if (v & 1)
				bits |= UINT64_C(1) << b;
			v >>= 1;
		}
	if (v)
		return hwtr_fail(hwtr_err_invalid, "%s/%s: %llu does not fit",
				 pmu->name, name, (unsigned long long)value);
	switch (f->word) {
	case 0: word = (uint64_t *)&attr->config; break;
	case 1: word = (uint64_t *)&attr->config1; break;
	case 2: word = (uint64_t *)&attr->config2; break;
	default:
		return hwtr_fail(hwtr_err_invalid, "%s/%s: config3 is not "
				 "supported by this build", pmu->name, name);
	}
	*word = (*word & ~f->mask) | bits;
	return 0;
}

uint64_t perf_cap_effective(void)
{
	char line[256];
	uint64_t caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			caps = strtoull(line + 7, NULL, 16);
			break;
		}
	fclose(f);
	return caps;
}

bool perf_may_trace(const char *paranoid_file, uint64_t caps, char *why,
		    size_t size)
{
	char line[32], *end;
	long paranoid;

	if (caps & ((UINT64_C(1) << CAP_PERFMON_BIT) |
		    (UINT64_C(1) << CAP_SYS_ADMIN_BIT)))
		return true;
	if (!read_line(paranoid_file, line, sizeof(line))) {
		snprintf(why, size, "%s is missing: this kernel has no "
			 "perf_event support", paranoid_file);
		return false;
	}
	paranoid = strtol(line, &end, 10);
	if (end == line) {
		snprintf(why, size, "%s: '%s' is not a number", paranoid_file,
			 line);
		return false;
	}
	if (paranoid > 2) {
		snprintf(why, size, "permission: kernel.perf_event_paranoid is "
			 "%ld; tracing needs 2 or less (sysctl "
			 "kernel.perf_event_paranoid=2) or CAP_PERFMON "
			 "(setcap cap_perfmon+ep on hwtrec)", paranoid);
		return false;
	}
	return true;
}
