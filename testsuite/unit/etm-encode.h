/* etm-encode.h: writing ETMv4 instruction trace and CoreSight frames, for
 * tests and fuzz seeds.
 *
 * OpenCSD decodes trace but does not write it, so this writes the few packets
 * a test needs, by the ETMv4 architecture specification (IHI0064): A-sync,
 * Trace Info, Trace On, Overflow, 64-bit long addresses (with and without a
 * context), and format 1 atoms; and the CoreSight formatter's 16-byte frames
 * that interleave several sources (IHI0029, D4).  With it, an A64 fixture of
 * known code (etm_fixture_code) is traced along a path the test chooses, and
 * written as a recording with the library's writer.
 */
#ifndef ETM_ENCODE_H
#define ETM_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct etm_trace {
	uint8_t buf[1 << 14];
	size_t len;
};

void etm_bytes(struct etm_trace *t, const void *bytes, size_t n);
void etm_async(struct etm_trace *t);
void etm_trace_info(struct etm_trace *t);
void etm_trace_on(struct etm_trace *t);
void etm_overflow(struct etm_trace *t);
/* Address and context: AArch64, non-secure, exception level EL; with the
 * context ID too (the trace unit traces it: TRCCONFIGR.CID). */
void etm_addr_ctxt(struct etm_trace *t, uint64_t addr, int el);
void etm_addr_ctxt_id(struct etm_trace *t, uint64_t addr, int el,
		      uint32_t context_id);
void etm_addr(struct etm_trace *t, uint64_t addr);
/* One atom: the next waypoint (branch) was taken (E) or not (N). */
void etm_atom(struct etm_trace *t, bool taken);

/* The start of a trace: A-sync, Trace Info, Trace On, then the address
 * (and context, EL0) where execution begins. */
void etm_start(struct etm_trace *t, uint64_t addr);

/* The fixture: A64 code at ETM_FIXTURE_BASE (etm_fixture_code, little
 * endian words):
 *   0x1000 mov x0, #3       0x1010 b .
 *   0x1004 bl 0x1020        0x1020 nop
 *   0x1008 subs x0, x0, #1  0x1024 ret
 *   0x100c b.ne 0x1004
 */
#define ETM_FIXTURE_BASE 0x1000u
extern const uint8_t etm_fixture_code[0x28];

/* The main path: three calls of 0x1020 in the loop, then two turns of
 * `b .`; what it executes, in order. */
void etm_main_path(struct etm_trace *t);
extern const uint64_t etm_main_path_ips[18];

/* The main path with a periodic A-sync and Trace Info right after the
 * first ret's address, so that the atoms after them still follow the
 * address from before (a trace unit's sync period falls anywhere), then a
 * self-contained start (etm_start) at 0x1008 and b.ne, bl taken: what it
 * executes, in order (OpenCSD's lister decodes the same). */
void etm_periodic_async_path(struct etm_trace *t);
extern const uint64_t etm_periodic_async_path_ips[21];

/* CoreSight frames of the sources' bytes, interleaved in runs of at most
 * RUN bytes; the output is padded to whole frames.  Returns its length. */
struct etm_source {
	uint8_t id;
	const uint8_t *bytes;
	size_t len;
	/* For a recording: the thread (0: the trace ID), TRCCONFIGR, and the
	 * context the thread is (when has_context_id). */
	uint32_t tid;
	uint32_t trcconfigr;
	bool has_context_id;
	uint32_t context_id;
};
size_t etm_frames(const struct etm_source *sources, size_t n, size_t run,
		  uint8_t *out, size_t size);

/* The files of an OpenCSD snapshot of one ETMv4 source (trace ID 0x10, on
 * a Cortex-A53, TRCCONFIGR) tracing the fixture code: snapshot.ini,
 * cpu_0.ini, device_1.ini, trace.ini, trace.bin (TRACE, in FORMAT:
 * "source_data" or "coresight") and code.bin; static storage. */
struct etm_file {
	const char *name;
	const void *bytes;
	size_t len;
};
#define ETM_SNAPSHOT_FILES 6
void etm_snapshot_files(const char *format, uint32_t trcconfigr,
			const uint8_t *trace, size_t len,
			struct etm_file files[ETM_SNAPSHOT_FILES]);

/* A recording at DIR of the sources over the fixture code (mapped at
 * ETM_FIXTURE_BASE, saved in the recording): each source's raw trace in a
 * stream of its own (trace/TID in decimal), or all of them in CoreSight
 * frames (trace/frames, runs of 5 bytes).  The trace units are a Cortex-A53's
 * with nothing optional traced.  0, or -1 (hwtr_last_error() says why). */
int etm_fixture_recording(const char *dir, const struct etm_source *sources,
			  size_t n, bool formatted);

/* The same with a given formatted buffer (FRAMES, instead of the one made
 * from the sources' bytes) and loss events at the stream offsets LOSSES, for
 * every source. */
struct etm_fixture_extra {
	const uint8_t *frames;
	size_t frames_len;
	const uint64_t *losses;
	size_t nlosses;
	const char *loss_reason;
};
int etm_fixture_recording_with(const char *dir, const struct etm_source *sources,
			       size_t n, bool formatted,
			       const struct etm_fixture_extra *extra);

#endif
