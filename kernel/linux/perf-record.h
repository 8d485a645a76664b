/* perf-record.h: one perf_event record, read from bytes or written to them.
 *
 * The kernel writes the same records into an event's data ring that perf
 * copies into perf.data (struct perf_event_header, then a body whose layout
 * <linux/perf_event.h> documents per type, then, with sample_id_all, a
 * trailer of the fields sample_type selects).  This is the one piece of code
 * that reads and writes them, for the live source (data-ring.c) and for
 * perf.data files (formats/perf-data.c).
 *
 * Bodies understood: MMAP, MMAP2 (inode and build-id forms), COMM, FORK,
 * EXIT, LOST, AUX, ITRACE_START, LOST_SAMPLES, SWITCH, SWITCH_CPU_WIDE,
 * AUX_OUTPUT_HW_ID (CoreSight: the trace ID a CPU's trace unit got).  Any
 * other kernel type is returned with its header and trailer only
 * (PERF_REC_OTHER), so callers can skip it knowingly.  SAMPLE records are
 * not parsed (Intel PT does not need them).
 */
#ifndef HWTR_PERF_RECORD_H
#define HWTR_PERF_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How records of one event are laid out: its attr's sample_type and
 * sample_id_all. */
struct perf_rec_layout {
	uint64_t sample_type;
	bool sample_id_all;
};

/* The sample_id trailer, fields present as the layout says. */
struct perf_sample_id {
	uint32_t pid, tid;	/* PERF_SAMPLE_TID */
	uint64_t time;		/* PERF_SAMPLE_TIME */
	uint64_t id;		/* PERF_SAMPLE_ID or PERF_SAMPLE_IDENTIFIER */
	uint64_t stream_id;	/* PERF_SAMPLE_STREAM_ID */
	uint32_t cpu;		/* PERF_SAMPLE_CPU */
	bool has_tid, has_time, has_id, has_stream_id, has_cpu;
};

#define PERF_BUILD_ID_MAX 20

struct perf_rec_mmap {		/* MMAP and MMAP2 */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;	/* MMAP2 without a build-id */
	uint64_t ino, ino_generation;
	uint8_t build_id_size;	/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id[PERF_BUILD_ID_MAX];
	uint32_t prot, flags;	/* MMAP2 */
	const char *filename;	/* points into the record's bytes */
};

struct perf_rec_comm {
	uint32_t pid, tid;
	const char *comm;
};

struct perf_rec_task {		/* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct perf_rec_aux {
	uint64_t aux_offset, aux_size, flags;	/* PERF_AUX_FLAG_* */
};

struct perf_rec_lost {		/* LOST: id, lost; LOST_SAMPLES: lost */
	uint64_t id, lost;
};

struct perf_rec_switch {	/* SWITCH and SWITCH_CPU_WIDE */
	bool out, preempt;	/* from misc */
	uint32_t next_prev_pid, next_prev_tid;	/* CPU_WIDE only */
};

struct perf_rec {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	bool known;		/* the body was parsed (else only the header) */
	union {
		struct perf_rec_mmap mmap;
		struct perf_rec_comm comm;
		struct perf_rec_task task;
		struct perf_rec_aux aux;
		struct perf_rec_lost lost;
		struct perf_rec_switch sw;
		struct {
			uint32_t pid, tid;
		} itrace_start;
		uint64_t hw_id;		/* AUX_OUTPUT_HW_ID */
	} u;
	bool has_sample_id;	/* the trailer was read */
	struct perf_sample_id sample;
};

/* Bytes of the sample_id trailer under LAYOUT. */
size_t perf_rec_trailer_size(const struct perf_rec_layout *layout);

/* Parse the record at BYTES (AVAIL bytes readable).  Fails with
 * hwtr_err_format and a message (without a location: callers prefix the
 * file and offset) when the header's size is impossible or the body does
 * not fit it; SAMPLE records and types above PERF_RECORD_MAX come back with
 * known = false. */
int perf_rec_parse(const uint8_t *bytes, size_t avail,
		   const struct perf_rec_layout *layout, struct perf_rec *rec);

/* Encode REC (type, misc, the body of its type and the sample fields the
 * layout selects) into BUF.  Returns the record's size, or a negative
 * error when CAP is too small or the type is not one we write. */
int perf_rec_encode(const struct perf_rec *rec,
		    const struct perf_rec_layout *layout, uint8_t *buf,
		    size_t cap);

/* A name for a record type (kernel and perf.data user types). */
const char *perf_rec_type_name(uint32_t type);

#endif
