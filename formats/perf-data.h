/* perf-data.h: perf.data files, read and written (the file layout only).
 *
 * A perf.data file (perf's tools/perf/util/header.c; summary in
 * ../shared/reference/platform-facts.md B.6) is a 104-byte header, the
 * event attributes (each followed by the ids of its event instances), a
 * data section of records, and feature sections after the data, one per
 * bit set in the header's feature bitmap.  Kernel records in the data
 * section are parsed by ../kernel/linux/perf-record.c, the same code that
 * reads an event's ring; this file adds perf.data's own records (AUXTRACE
 * with its payload, AUXTRACE_INFO, TIME_CONV, ...) and finds which attr a
 * record belongs to.
 *
 * Nothing here knows a trace format: AUXTRACE_INFO's private words are
 * handed over as they are (perf-intel-pt.c reads Intel PT's).
 *
 * What it refuses, with the file and offset: another byte order, the old
 * PERFFILE format, pipe-mode files, a header or attr from a newer perf that
 * we cannot read safely, sections outside the file, records whose sizes lie.
 * Compressed (perf record -z) files are refused with what to do.
 */
#ifndef HWTREC_PERF_DATA_H
#define HWTREC_PERF_DATA_H

#include "../kernel/linux/perf-record.h"
#include "../kernel/linux/perf-time.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* perf.data's own record types (perf_user_event_type). */
enum {
	PERF_DATA_HEADER_ATTR = 64,
	PERF_DATA_HEADER_BUILD_ID = 67,
	PERF_DATA_FINISHED_ROUND = 68,
	PERF_DATA_ID_INDEX = 69,
	PERF_DATA_AUXTRACE_INFO = 70,
	PERF_DATA_AUXTRACE = 71,
	PERF_DATA_AUXTRACE_ERROR = 72,
	PERF_DATA_THREAD_MAP = 73,
	PERF_DATA_CPU_MAP = 74,
	PERF_DATA_TIME_CONV = 79,
	PERF_DATA_HEADER_FEATURE = 80,
	PERF_DATA_COMPRESSED = 81,
	PERF_DATA_FINISHED_INIT = 82,
};

/* Feature bits (HEADER_*) of the header's bitmap. */
enum {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CPUID = 9,
	PERF_FEAT_TOTAL_MEM = 10,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_AUXTRACE = 18,
	PERF_FEAT_MAX = 256,
};

/* AUXTRACE_INFO types (enum auxtrace_type). */
enum {
	PERF_AUXTRACE_INTEL_PT = 1,
	PERF_AUXTRACE_INTEL_BTS = 2,
	PERF_AUXTRACE_CS_ETM = 3,
	PERF_AUXTRACE_ARM_SPE = 4,
};

/* ------------------------------------------------------------- reading */

struct perf_data;

struct perf_data_attr {
	struct perf_event_attr attr;	/* zero beyond the file's attr size */
	const uint64_t *ids;		/* its event instances (for IDENTIFIER) */
	size_t nids;
	struct perf_rec_layout layout;
};

/* Warnings (records skipped, features unreadable) go to WARN, which may be
 * NULL for silence; each names the file and the offset. */
int perf_data_open(const char *path, FILE *warn, struct perf_data **out);
void perf_data_close(struct perf_data *pd);

const char *perf_data_path(const struct perf_data *pd);
size_t perf_data_nattrs(const struct perf_data *pd);
const struct perf_data_attr *perf_data_attr(const struct perf_data *pd,
					    size_t index);

/* A feature section's bytes (inside the file), or NULL if absent. */
const uint8_t *perf_data_feature(const struct perf_data *pd, unsigned bit,
				 size_t *size);
/* A string feature (HOSTNAME, CPUID, ...): {u32 len; char[len]}; NULL when
 * absent or malformed. */
const char *perf_data_feature_string(const struct perf_data *pd, unsigned bit,
				     char *buf, size_t size);

/* One entry of the BUILD_ID feature section. */
struct perf_build_id_entry {
	uint32_t pid;
	uint16_t misc;		/* cpumode */
	uint8_t size;		/* bytes of build_id used */
	uint8_t build_id[PERF_BUILD_ID_MAX];
	const char *filename;
};
/* Calls FN for every entry of the BUILD_ID section (none if absent); a
 * malformed section stops with an error naming the offset. */
int perf_data_build_ids(const struct perf_data *pd,
			int (*fn)(void *ctx, const struct perf_build_id_entry *e),
			void *ctx);

/* A record of the data section. */
struct perf_data_item {
	uint64_t offset;	/* file offset of the record */
	struct perf_rec rec;	/* kernel records: parsed body and trailer */
	const struct perf_data_attr *attr;	/* kernel records: whose */
	union {
		struct {
			uint32_t type;
			const uint8_t *priv;	/* NPRIV u64 words, unaligned:
						 * perf_data_auxtrace_priv */
			size_t npriv;
		} auxtrace_info;
		struct {
			uint64_t size, offset, reference;
			uint32_t idx, tid, cpu;
			const uint8_t *data;	/* SIZE bytes in the file */
		} auxtrace;
		struct perf_tsc_conv time_conv;
	} u;
};

struct perf_data_iter {
	struct perf_data *pd;
	uint64_t pos, end;
};

void perf_data_iter_init(struct perf_data *pd, struct perf_data_iter *it);
/* The next record: 1, 0 at the end of the data section, or a negative
 * error (hwtr_last_error() names the file and offset).  Records of unknown
 * types are returned with rec.known false; callers warn and skip them. */
int perf_data_next(struct perf_data_iter *it, struct perf_data_item *item);

/* The private words of an AUXTRACE_INFO item, copied to WORDS (aligned);
 * returns how many there are (at most MAX are copied). */
size_t perf_data_auxtrace_priv(const struct perf_data_item *item,
			       uint64_t *words, size_t max);

/* ------------------------------------------------------------- writing */

struct perf_data_writer;

struct perf_data_writer_attr {
	struct perf_event_attr attr;
	const uint64_t *ids;
	size_t nids;
};

int perf_data_writer_create(const char *path,
			    const struct perf_data_writer_attr *attrs,
			    size_t nattrs, struct perf_data_writer **out);
/* Append raw record bytes (a complete record) to the data section. */
int perf_data_write(struct perf_data_writer *w, const void *bytes, size_t size);
/* Encode and append a kernel record with perf-record.c. */
int perf_data_write_rec(struct perf_data_writer *w, const struct perf_rec *rec,
			const struct perf_rec_layout *layout);
int perf_data_write_auxtrace_info(struct perf_data_writer *w, uint32_t type,
				  const uint64_t *priv, size_t npriv);
int perf_data_write_auxtrace(struct perf_data_writer *w, uint32_t idx,
			     uint32_t tid, uint32_t cpu, uint64_t offset,
			     uint64_t reference, const void *data,
			     uint64_t size);
int perf_data_write_time_conv(struct perf_data_writer *w,
			      const struct perf_tsc_conv *tc);
int perf_data_write_finished_round(struct perf_data_writer *w);
/* A feature section; features must be added in increasing bit order. */
int perf_data_add_feature(struct perf_data_writer *w, unsigned bit,
			  const void *bytes, size_t size);
/* Helpers building feature bodies into a buffer the caller frees. */
int perf_feature_string(const char *s, uint8_t **bytes, size_t *size);
int perf_feature_append_build_id(uint8_t **bytes, size_t *size, uint32_t pid,
				 uint16_t misc, const uint8_t *id,
				 uint8_t id_size, const char *filename);
/* EVENT_DESC for the writer's attrs, each named NAMES[i]. */
int perf_feature_event_desc(const struct perf_data_writer_attr *attrs,
			    const char *const *names, size_t nattrs,
			    uint8_t **bytes, size_t *size);
/* Write the feature sections and the final header, and close. */
int perf_data_writer_finish(struct perf_data_writer *w);
/* Close without finishing (the file is left incomplete). */
void perf_data_writer_free(struct perf_data_writer *w);

#endif
