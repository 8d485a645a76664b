/* hwtrecord.h: the whole public contract of libhwtrecord.
 *
 * A recording (DESIGN.md section 4) is a directory with a manifest, one raw
 * trace stream per thread, a sideband of mappings and thread events, and
 * optionally a core.  The library writes recordings (hwtr_writer), reads them
 * (hwtr_recording), rebuilds the instruction and function-call history of each
 * thread from the trace and the binaries (hwtr_history), and walks that
 * history (hwtr_cursor).
 *
 * Conventions: every function that can fail returns a negative hwtr_error
 * code and leaves a message naming the file, offset or field that was wrong in
 * hwtr_last_error() (per thread).  Objects are opaque; each has one free
 * function.  No function calls exit().
 *
 * The shared library exports exactly the functions declared here, each
 * marked HWTR_EXPORT: the library is built with -fvisibility=hidden (as
 * libipt with pt_export), so its internals stay internal
 * (testsuite/unit/test-exports.sh checks both ways).
 */
#ifndef HWTRECORD_H
#define HWTRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HWTR_EXPORT
#define HWTR_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------ errors */

enum hwtr_error {
	hwtr_ok = 0,
	hwtr_err_invalid,	/* a bad argument */
	hwtr_err_nomem,		/* out of memory */
	hwtr_err_io,		/* a file could not be read or written */
	hwtr_err_format,	/* a file's contents are malformed */
	hwtr_err_version,	/* a format version we do not read */
	hwtr_err_notfound,	/* a file, thread, symbol or position is missing */
	hwtr_err_buildid,	/* a binary's build-id differs from the recording's */
	hwtr_err_decode,	/* the trace could not be decoded */
	hwtr_err_range,		/* a position outside the history */
	hwtr_err_eos,		/* the end (or beginning) of the history */
};

/* A short text for an error code. */
HWTR_EXPORT
const char *hwtr_errstr(int code);

/* The message of the last failing call on this thread ("" if none). */
HWTR_EXPORT
const char *hwtr_last_error(void);

/* File names and symbols are any bytes but NUL; JSON and GDB's documents
 * want UTF-8.  TEXT as UTF-8, each byte that is not part of a valid
 * sequence replaced by U+FFFD; malloc'd (free it), NULL if out of memory. */
HWTR_EXPORT
char *hwtr_utf8_text(const char *text);

/* For code built on the library (trace sources, importers), so that its
 * errors read as the library's.  hwtr_fail sets the message of
 * hwtr_last_error() and returns -CODE:
 *	return hwtr_fail(hwtr_err_format, "%s: offset %llu: ...", path, off);
 * hwtr_fail_context puts its text before the current message (where a
 * failure happened, e.g. "FILE: ") and also returns -CODE.  Messages are
 * per thread and cut at 1 KiB. */
HWTR_EXPORT
int hwtr_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
HWTR_EXPORT
int hwtr_fail_context(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Also for code built on the library, failing the same way.  DIR/NAME in a
 * malloc'ed string, or NULL with hwtr_last_error() set. */
HWTR_EXPORT
char *hwtr_path_join(const char *dir, const char *name);
/* Room for element COUNT in *ARRAY, an array of *CAP elements of SIZE
 * bytes: when COUNT >= *CAP, *CAP doubles (from 64) past COUNT and *ARRAY is
 * reallocated.  0, or -hwtr_err_nomem (out of memory, or a size that would
 * overflow) with the array untouched. */
HWTR_EXPORT
int hwtr_array_grow(void **array, size_t *cap, size_t count, size_t size);

/* --------------------------------------------------------- recording data */

#define HWTR_FORMAT_NAME "hwtrecord"
/* Version 2 added ETMv4/ETE recordings; Intel PT recordings are still
 * written as version 1, which every reader reads (doc/recording-format.md). */
#define HWTR_FORMAT_VERSION 2

/* What a decoder needs to know about the CPU and the trace configuration. */
struct hwtr_pt_config {
	char vendor[16];	/* "intel" or "unknown" */
	uint16_t family;
	uint8_t model;
	uint8_t stepping;
	uint8_t mtc_freq;	/* IA32_RTIT_CTL.MTCFreq */
	uint8_t nom_freq;	/* nominal core:bus ratio */
	uint32_t cpuid_0x15_eax;	/* TSC/CTC ratio denominator */
	uint32_t cpuid_0x15_ebx;	/* TSC/CTC ratio numerator */
	uint32_t cpuid_0x14_ebx;	/* PT capabilities, leaf 0x14 sub-leaf 0 */
	uint32_t cpuid_0x14_ecx;
	bool tsc;		/* TSC packets enabled */
	bool return_compression;	/* DisRETC clear */
	uint32_t psb_period;	/* bytes between PSBs (informational) */
	/* IP filtering as perf was asked for it (perf record --filter, e.g.
	 * "filter main @ /bin/prog"), or NULL: the trace holds only code the
	 * filter lets through.  Informational: the addresses it stands for
	 * are perf's business. */
	const char *address_filter;
};

/* How a CoreSight formatted stream is framed (OpenCSD's deformatter flags). */
#define HWTR_ETM_FRAME_MEM_ALIGN 1u	/* 16-byte frames in memory (ETB, ETR) */
#define HWTR_ETM_FRAME_FSYNCS 2u	/* frame syncs between frames (TPIU) */
#define HWTR_ETM_FRAME_HSYNCS 4u	/* half-frame syncs (TPIU) */

/* One ETMv4 or ETE trace source: what OpenCSD needs to decode its trace
 * (the trace unit's ID and configuration registers, the core's architecture
 * and profile) and how its trace sits in the stream (format version 2). */
struct hwtr_etm_config {
	bool ete;		/* ETE, else ETMv4 */
	uint8_t trace_id;	/* CoreSight trace ID (TRCTRACEIDR) */
	bool formatted;		/* the stream is CoreSight frames that may
				 * hold several sources; else this source's
				 * raw trace alone */
	uint32_t frame_flags;	/* HWTR_ETM_FRAME_* when formatted */
	uint16_t arch_version;	/* 0x0700 v7, 0x0800 v8, 0x0803 v8.3,
				 * 0x0864 AArch64 v8.3+ (OpenCSD's values) */
	char profile;		/* 'A', 'R' or 'M' */
	uint32_t trcconfigr;
	uint32_t trctraceidr;
	uint32_t trcauthstatus;
	uint32_t trcdevarch;	/* ETE */
	uint32_t trcidr[14];	/* TRCIDR0..TRCIDR13 (0-2 and 8-13 are used) */
	const char *source;	/* the trace source's name ("ETM_0"), or NULL */
	const char *core;	/* the core's name ("cpu_0"), or NULL */
	const char *core_type;	/* "Cortex-A53", or NULL */
	int32_t cpu;		/* CPU number, -1 if unknown */
	bool has_context_id;	/* this thread is the source's trace while
				 * CONTEXTIDR held context_id (the OS's
				 * thread ID), not all of it */
	uint32_t context_id;
};

/* Whether this library's OpenCSD decodes trace from the unit ETM: 0, or
 * hwtr_err_version with a message naming the OpenCSD version needed (ETE
 * needs one whose C API gives ETE packets to a callback, 1.7.1 or later;
 * Debian 12 has 1.3.3).  Importers call it to refuse what cannot be decoded. */
HWTR_EXPORT
int hwtr_etm_decodable(const struct hwtr_etm_config *etm);

/* The distinct context IDs (CONTEXTIDR) that the trace of the unit ETM in
 * STREAM (SIZE bytes: CoreSight frames or the unit's raw trace, as
 * ETM->formatted says; kept trace from TRACE_START; trace lost at the sorted
 * stream offsets LOSS_OFFSETS) names, in order of first appearance, the idle
 * context 0 included: those hwtr_thread_context_ids gives for the thread of
 * a recording with that stream, from one pass of OpenCSD's packet
 * processor, without building a history.  Importers split a trace unit by
 * them before writing.  *IDS is malloc'ed (NULL when *COUNT is 0); the
 * caller frees it. */
HWTR_EXPORT
int hwtr_etm_context_ids(const struct hwtr_etm_config *etm,
			 const uint8_t *stream, size_t size, uint64_t trace_start,
			 const uint64_t *loss_offsets, size_t nlosses,
			 uint32_t **ids, size_t *count);

enum hwtr_end_state {
	hwtr_end_running = 0,	/* still running, or the recorder stopped first */
	hwtr_end_exited,	/* exit code in code */
	hwtr_end_signaled,	/* fatal signal number in code */
	hwtr_end_aborted,	/* the recorder could not follow the program to
				 * its end (info's end_reason says why); code:
				 * the signal that then ended it, or 0 */
};

struct hwtr_end {
	enum hwtr_end_state state;
	int code;
	/* hwtr_end_signaled by a fault the kernel raised (si_code > 0): the
	 * address it reported (siginfo's si_addr), when the source knows it
	 * (the Valgrind source: from Valgrind's own report). */
	bool has_fault_address;
	uint64_t fault_address;
};

/* A thread's trace stream as the manifest names it.  For CoreSight a
 * "thread" is one trace source (one core), and several can share a stream
 * (a formatted trace buffer). */
struct hwtr_thread_info {
	uint32_t tid;
	const char *stream;	/* path relative to the recording directory */
	uint64_t trace_start;	/* stream offset where kept trace starts (ring) */
	const struct hwtr_etm_config *etm;	/* ETM/ETE recordings, else NULL */
	/* Written when the recorder finished (doc/recording-format.md): the
	 * stream's length and CRC-32, checked when the recording is opened. */
	bool has_stream_check;
	uint64_t stream_size;
	uint32_t stream_crc32;
};

/* Another file of a finished recording (the sideband, the core, a saved
 * object or trace buffer) with its length and CRC-32 when the recorder
 * finished, checked when the recording is opened. */
struct hwtr_file_check {
	const char *name;	/* relative to the recording directory */
	uint64_t size;
	uint32_t crc32;
};

/* The manifest, as read.  Strings are owned by the recording. */
struct hwtr_recording_info {
	int version;
	const char *arch;		/* "x86_64", "aarch64" */
	const char *trace_format;	/* "intel-pt", "etm4", "ete" */
	const char *source;		/* "valgrind", "linux-perf", ... */
	struct hwtr_pt_config pt;
	int32_t pid;
	const char *executable;
	size_t argc;
	const char *const *argv;
	size_t nthreads;
	const struct hwtr_thread_info *threads;
	struct hwtr_end end;
	const char *end_reason;		/* hwtr_end_aborted: why, else NULL */
	const char *core;		/* relative path, or NULL */
	size_t nfiles;			/* files checked besides the streams */
	const struct hwtr_file_check *files;
	bool complete;			/* the writer finished */
	bool cut_off;			/* something was cut off (see cut_off_reason) */
	const char *cut_off_reason;	/* names the file and offset, or NULL */
	/* The data log (hwtr_values_open): relative path and format version,
	 * or NULL and 0 when the recording has none. */
	const char *values;
	int values_version;
};

/* Sideband events (sideband.jsonl), in time order. */
enum hwtr_event_kind {
	hwtr_ev_mmap,
	hwtr_ev_munmap,
	hwtr_ev_exec,
	hwtr_ev_thread_start,
	hwtr_ev_thread_exit,
	hwtr_ev_loss,
};

#define HWTR_PROT_READ 1
#define HWTR_PROT_WRITE 2
#define HWTR_PROT_EXEC 4

struct hwtr_sideband_event {
	enum hwtr_event_kind kind;
	uint64_t tsc;		/* time in the trace's clock */
	uint32_t tid;		/* thread events and loss; 0 otherwise */
	uint64_t addr;		/* mmap, munmap */
	uint64_t len;		/* mmap, munmap; loss: bytes lost */
	uint64_t pgoff;		/* mmap: file offset of addr */
	int prot;		/* mmap: HWTR_PROT_* */
	const char *path;	/* mmap, exec: the file as the program saw it */
	const char *build_id;	/* mmap: lower-case hex, or NULL */
	const char *saved;	/* mmap: copy inside the recording, or NULL */
	uint64_t offset;	/* loss: stream offset where trace is missing */
	const char *reason;	/* loss: why */
};

/* --------------------------------------------------------------- writing */

struct hwtr_writer;

/* What the writer puts in the manifest at creation. */
struct hwtr_writer_info {
	const char *source;
	const char *trace_format;	/* NULL means "intel-pt" */
	const char *arch;		/* NULL means "x86_64" */
	struct hwtr_pt_config pt;
	int32_t pid;
	const char *executable;
	size_t argc;
	const char *const *argv;
};

/* Create DIR (it must not exist, or be empty) and write a manifest that says
 * the recording is incomplete.  Everything after this streams to disk, so a
 * recorder that dies leaves a recording that opens up to its last piece. */
HWTR_EXPORT
int hwtr_writer_create(const char *dir, const struct hwtr_writer_info *info,
		       struct hwtr_writer **writer);

/* A new thread: opens trace/TID.pt, logs thread-start, updates the manifest. */
HWTR_EXPORT
int hwtr_writer_add_thread(struct hwtr_writer *writer, uint32_t tid,
			   uint64_t tsc);

/* Append raw trace bytes to a thread's stream. */
HWTR_EXPORT
int hwtr_writer_trace(struct hwtr_writer *writer, uint32_t tid,
		      const void *bytes, size_t size);

/* Bytes written to a thread's stream so far. */
HWTR_EXPORT
int hwtr_writer_trace_size(const struct hwtr_writer *writer, uint32_t tid,
			   uint64_t *size);

/* Mark that a thread's stream keeps only what follows @offset (a ring). */
HWTR_EXPORT
int hwtr_writer_set_trace_start(struct hwtr_writer *writer, uint32_t tid,
				uint64_t offset);

/* Log a sideband event (kind, tsc, and the fields that kind uses). */
HWTR_EXPORT
int hwtr_writer_event(struct hwtr_writer *writer,
		      const struct hwtr_sideband_event *event);

/* Save a whole trace buffer as trace/NAME (a CoreSight trace buffer that
 * several sources share); the returned path (relative, owned by the writer)
 * is what hwtr_writer_add_source names. */
HWTR_EXPORT
int hwtr_writer_save_trace(struct hwtr_writer *writer, const char *name,
			   const void *bytes, size_t size,
			   const char **relative_path);

/* Create trace/NAME, empty, for a trace buffer that several sources share
 * and that comes piece by piece (a recorder's); its relative path (owned by
 * the writer) is what hwtr_writer_add_source and hwtr_writer_append_trace
 * name. */
HWTR_EXPORT
int hwtr_writer_open_trace(struct hwtr_writer *writer, const char *name,
			   const char **relative_path);

/* Append bytes to a trace file made by hwtr_writer_open_trace. */
HWTR_EXPORT
int hwtr_writer_append_trace(struct hwtr_writer *writer,
			     const char *relative_path, const void *bytes,
			     size_t size);

/* A new thread (for CoreSight: a trace source) whose trace is in STREAM,
 * saved before with hwtr_writer_save_trace or hwtr_writer_open_trace; logs
 * thread-start and updates the manifest.  ETM is copied. */
HWTR_EXPORT
int hwtr_writer_add_source(struct hwtr_writer *writer, uint32_t tid,
			   uint64_t tsc, const char *stream,
			   const struct hwtr_etm_config *etm);

/* Save bytes as objects/NAME inside the recording (e.g. the vDSO); the
 * returned path (relative, owned by the writer) goes into an mmap event's
 * saved field. */
HWTR_EXPORT
int hwtr_writer_save_object(struct hwtr_writer *writer, const char *name,
			    const void *bytes, size_t size,
			    const char **relative_path);

/* Move or copy a core file into the recording as "core". */
HWTR_EXPORT
int hwtr_writer_add_core(struct hwtr_writer *writer, const char *core_path);

/* Move or copy the data log (registers and stores, format VERSION) into the
 * recording as "values" and name it in the manifest. */
HWTR_EXPORT
int hwtr_writer_add_values(struct hwtr_writer *writer, const char *path,
			   int version);

/* Flush every stream and the sideband to disk. */
HWTR_EXPORT
int hwtr_writer_flush(struct hwtr_writer *writer);

/* Write the final manifest (complete, with how the program ended). */
HWTR_EXPORT
int hwtr_writer_finish(struct hwtr_writer *writer, const struct hwtr_end *end);

/* The same, for a recording that ends hwtr_end_aborted: REASON (copied)
 * says why the recorder could not go on; SIGNAL is the signal that then
 * ended the process, or 0. */
HWTR_EXPORT
int hwtr_writer_finish_aborted(struct hwtr_writer *writer, const char *reason,
			       int signal);

/* Write a finished copy of the recording so far into DIR (which must not
 * exist, or be empty), as a recording of a program still running; the
 * recording itself goes on. */
HWTR_EXPORT
int hwtr_writer_save_copy(struct hwtr_writer *writer, const char *dir);

/* Close files and free.  Without hwtr_writer_finish the recording stays
 * marked incomplete. */
HWTR_EXPORT
void hwtr_writer_free(struct hwtr_writer *writer);

/* The GNU build-id of an ELF file, or of an ELF image in memory (the vDSO),
 * as lower-case hex in BUF: 1, or 0 when it has none, or a negative error. */
HWTR_EXPORT
int hwtr_build_id_of_file(const char *path, char *buf, size_t size);
HWTR_EXPORT
int hwtr_build_id_of_image(const void *image, size_t image_size, char *buf,
			   size_t size);

/* The load bias of the ELF file PATH mapped with file offset PGOFF at ADDR
 * (what to add to its addresses): 1, or 0 when it is not an ELF file or no
 * loadable segment holds PGOFF, or a negative error. */
HWTR_EXPORT
int hwtr_load_bias_of_file(const char *path, uint64_t addr, uint64_t pgoff,
			   uint64_t *bias);

/* --------------------------------------------------------------- reading */

struct hwtr_recording;

/* Open a recording directory.  A recording that was cut off opens up to its
 * last complete piece with info->cut_off set; a malformed one is rejected with
 * a message naming the file and what was wrong. */
HWTR_EXPORT
int hwtr_recording_open(const char *dir, struct hwtr_recording **recording);
HWTR_EXPORT
void hwtr_recording_close(struct hwtr_recording *recording);

HWTR_EXPORT
const struct hwtr_recording_info *
hwtr_recording_info(const struct hwtr_recording *recording);
HWTR_EXPORT
const char *hwtr_recording_path(const struct hwtr_recording *recording);

HWTR_EXPORT
size_t hwtr_recording_nevents(const struct hwtr_recording *recording);
HWTR_EXPORT
const struct hwtr_sideband_event *
hwtr_recording_event(const struct hwtr_recording *recording, size_t index);

/* A thread's raw trace, mapped read-only; valid until the recording closes,
 * or until the second refresh after the one that mapped it. */
HWTR_EXPORT
int hwtr_recording_trace(const struct hwtr_recording *recording, size_t thread,
			 const uint8_t **bytes, size_t *size);

/* Read a recording that is still being written again where it grew: a
 * changed manifest (new threads, how it ended), the sideband lines written
 * since (a half-written last line waits for the next refresh), the trace
 * streams that grew (mapped again).  Events, threads and bytes read before
 * keep their indexes and offsets; strings stay valid while the recording is
 * open; the mapping a stream had before stays valid until the next refresh.
 * A stream that shrank, a sideband that shrank or a manifest of another
 * recording is refused, and the recording is left as it was.  Histories
 * built on the recording follow with hwtr_history_extend (before the next
 * refresh). */
HWTR_EXPORT
int hwtr_recording_refresh(struct hwtr_recording *recording);

/* ------------------------------------------------------------ core memory */

/* The memory an ELF core holds: its PT_LOAD segments, the part in the file
 * (p_filesz; pages the kernel left out, such as unchanged file pages, are
 * not held and not guessed).  A recording's end state (its "core") is read
 * through this, by the library's data log and by hwtrec-server. */
struct hwtr_core_memory;

/* Open the core at PATH: a regular ELF file (a FIFO or a device is
 * refused, never waited on).  0, or a negative error naming PATH. */
HWTR_EXPORT
int hwtr_core_memory_open(const char *path, struct hwtr_core_memory **memory);
HWTR_EXPORT
void hwtr_core_memory_close(struct hwtr_core_memory *memory);

/* Copy up to LEN bytes at ADDR that the core holds contiguously from ADDR
 * (on through adjacent segments); how many, 0 when it does not hold ADDR.
 * A core cut short in its file holds what is left of its segments. */
HWTR_EXPORT
size_t hwtr_core_memory_read(const struct hwtr_core_memory *memory,
			     uint64_t addr, void *buf, size_t len);

/* Whether the core holds ADDR in a writable segment (PF_W): memory only the
 * program's stores change, unlike a read-only page the kernel updates. */
HWTR_EXPORT
bool hwtr_core_memory_writable(const struct hwtr_core_memory *memory,
			       uint64_t addr);

/* Whether the core holds ADDR in a read-only segment (not PF_W): bytes the
 * program could not store to while that mapping stood as it is (ld.so's
 * data after its RELRO mprotect, .rodata).  (The vDSO's data page, which
 * the kernel updates, is never in a core: VM_DONTDUMP.) */
HWTR_EXPORT
bool hwtr_core_memory_read_only(const struct hwtr_core_memory *memory,
				uint64_t addr);

/* ------------------------------------------------ binaries and packing */

/* The file that holds the code of RECORDING's mmap event EVENT, found as
 * the library finds it (doc/recording-format.md, "Finding code"): the
 * event's saved copy, objects/BUILD_ID, the mapped path, DEBUG_DIRS'
 * .build-id trees (NULL-terminated, may be NULL), the debuginfod cache;
 * every file but the saved copy must carry the sideband's build-id.  0 and
 * a malloc'd path in *FILE, or -hwtr_err_notfound (-hwtr_err_buildid when
 * a file with another build-id was refused: the message names both ids). */
HWTR_EXPORT
int hwtr_recording_find_code(const struct hwtr_recording *recording,
			     const struct hwtr_sideband_event *event,
			     const char *const *debug_dirs, char **file);

/* The separate debug file of BUILD_ID: objects/BUILD_ID.debug, then
 * DIR/.build-id/xx/rest.debug for DEBUG_DIRS and /usr/lib/debug, then the
 * debuginfod cache's BUILD_ID/debuginfo, each carrying BUILD_ID; the same
 * returns. */
HWTR_EXPORT
int hwtr_recording_find_debug(const struct hwtr_recording *recording,
			      const char *build_id,
			      const char *const *debug_dirs, char **file);

/* One file the recorded program mapped, as `hwtrec pack` sees it. */
struct hwtr_pack_file {
	const char *path;	/* as the program saw it */
	const char *build_id;	/* NULL: the sideband names none */
	bool packed;		/* objects/BUILD_ID holds it (build-id checked) */
	bool copied;		/* this hwtr_pack put it there */
	bool has_debug;		/* objects/BUILD_ID.debug holds its debug file */
	bool debug_copied;	/* this hwtr_pack put that there */
	const char *problem;	/* why it is not packed, or NULL */
};

struct hwtr_pack;

/* Which of RECORDING's mapped files (mmap events with an absolute path and
 * no saved copy, each path and build-id once) are in its objects/, and,
 * with COPY, copy those that are not there into objects/BUILD_ID, with
 * their separate debug files as objects/BUILD_ID.debug (found as
 * hwtr_recording_find_code and hwtr_recording_find_debug find them, never
 * a file of another build-id).  Copying is idempotent: what is there is
 * checked, not copied again.  A finished recording's manifest gains each
 * new file's length and CRC-32 in "files" (rewritten atomically), so that
 * reopening it checks them; RECORDING itself is not reread.  An objects/
 * copy whose build-id is not the sideband's is a problem of that file
 * naming both ids, and with COPY refused: -hwtr_err_buildid, nothing
 * overwritten.  Files without a build-id cannot be filed in objects/: a
 * problem, not an error. */
HWTR_EXPORT
int hwtr_pack(struct hwtr_recording *recording, const char *const *debug_dirs,
	      bool copy, struct hwtr_pack **pack);
HWTR_EXPORT
size_t hwtr_pack_count(const struct hwtr_pack *pack);
HWTR_EXPORT
const struct hwtr_pack_file *hwtr_pack_file(const struct hwtr_pack *pack,
					    size_t index);
HWTR_EXPORT
void hwtr_pack_free(struct hwtr_pack *pack);

/* ---------------------------------------------------------------- history */

struct hwtr_history;		/* all threads of a recording */
struct hwtr_thread;		/* one thread's history, owned by the history */

struct hwtr_history_options {
	/* Directories searched for binaries by build-id (.build-id/xx/yyy.debug
	 * layout) and by path; NULL-terminated, may be NULL. */
	const char *const *debug_dirs;
	/* Bytes of decoded instructions kept in the on-demand cache. */
	size_t cache_bytes;
	/* A terminal to show how far the build has come on, or NULL: after
	 * a quarter second, one line rewritten in place (\r) at most four
	 * times a second, with the trace bytes and instructions decoded and
	 * an estimate of the time left, erased when the build ends.  Pass it
	 * only when the stream is a terminal (isatty). */
	FILE *progress;
	/* Neither read nor write the index saved in the recording
	 * (history.idx, doc/recording-format.md): build it from the trace. */
	bool no_saved_index;
};

/* Decode every thread once to build the index and the function segments.
 * The history does not keep per-instruction data; instructions are decoded
 * again on demand.  The recording must outlive the history.
 *
 * A finished recording keeps its index in history.idx: a build writes it
 * (if the directory is writable; temp file and rename), the next one reads
 * it instead of decoding, unless it is stale (the manifest, a stream, the
 * sideband, a binary or the symbols changed), damaged or of another
 * version: then one line on stderr names the file and the reason and the
 * index is built and written again.  A recording still being written never
 * uses one. */
HWTR_EXPORT
int hwtr_history_build(struct hwtr_recording *recording,
		       const struct hwtr_history_options *options,
		       struct hwtr_history **history);

/* Where the history's index came from. */
enum hwtr_index_source {
	hwtr_index_built = 0,	/* decoded from the trace */
	hwtr_index_saved,	/* read from the recording's history.idx */
};
HWTR_EXPORT
enum hwtr_index_source hwtr_history_index_source(const struct hwtr_history *history);
HWTR_EXPORT
void hwtr_history_free(struct hwtr_history *history);

/* The history of the end of each thread's trace only, built in the time
 * its last TAIL_BYTES of trace take to decode, not the whole trace's: each
 * thread is decoded from the last chunk start (a PSB, an A-sync, where the
 * decoder needs no earlier state) at least TAIL_BYTES before the end of
 * its trace, or from its start when there is none.  Its instructions are
 * the whole history's last ones, numbered from 1 at that chunk start
 * (hwtr_thread_tail_base maps them); function segments begin there, so a
 * function entered before it has no caller and its level is relative (a
 * return to an older caller makes a segment one level up, as at the start
 * of any history).  For answering near the end while the whole history is
 * built: a debugger moves back through the tail and waits for the whole
 * history for older positions.  Never reads or writes history.idx, is
 * never extended (hwtr_history_extend fails). */
HWTR_EXPORT
int hwtr_history_build_tail(struct hwtr_recording *recording,
			    const struct hwtr_history_options *options,
			    uint64_t tail_bytes, struct hwtr_history **history);

/* Where instruction N of thread TAIL of a tail history is in the whole
 * history's thread WHOLE (the same thread of the same recording): number
 * N + *BASE.  Fails (hwtr_err_format, naming the thread) when the two do
 * not line up: WHOLE has no chunk at the tail's start, or counts other
 * instructions from there to the end. */
HWTR_EXPORT
int hwtr_thread_tail_base(const struct hwtr_thread *tail,
			  const struct hwtr_thread *whole, uint64_t *base);

/* Where each thread's history will end, without building it: IPS[i] is the
 * IP of the last instruction (gaps after it skipped) that hwtr_history_build
 * gives thread i of the manifest, found by decoding only the end of its
 * trace, from its last chunk start (or an earlier one when that holds no
 * instruction).  STATUS[i] says whether it was found, or the trace holds no
 * instruction at all (the history will have none), or the chunks searched
 * held none (the built history will say).  Costs a packet scan of the end
 * of each stream and a chunk's decoding, not the history's: a debugger can
 * show where the program stopped while the history is built. */
enum hwtr_end_ip_status {
	hwtr_end_ip_unknown = 0,
	hwtr_end_ip_found,
	hwtr_end_ip_none,
};
HWTR_EXPORT
int hwtr_history_end_ips(struct hwtr_recording *recording,
			 const struct hwtr_history_options *options,
			 uint64_t *ips, enum hwtr_end_ip_status *status);

/* Bring the history up to date with its recording after
 * hwtr_recording_refresh: each thread keeps its chunks and function
 * segments up to the start of its last chunk and decodes on from there
 * (its tail may have been cut mid-way); new threads are built; new mappings
 * join the image and the symbols.  Instruction and segment numbers before
 * the last chunk keep their meaning, so cursors stay valid (one past the
 * new end moves to it).  Where trace before that chunk changed its meaning
 * (a loss event or a mapping that reaches back into it, a moved trace
 * start), that thread is built again from its start.  Costs in proportion
 * to the new trace, not to the history.  On failure the history may only be
 * freed. */
HWTR_EXPORT
int hwtr_history_extend(struct hwtr_history *history);

HWTR_EXPORT
size_t hwtr_history_nthreads(const struct hwtr_history *history);
HWTR_EXPORT
struct hwtr_thread *hwtr_history_thread(struct hwtr_history *history,
					size_t index);
/* The thread with this tid, or NULL. */
HWTR_EXPORT
struct hwtr_thread *hwtr_history_find_thread(struct hwtr_history *history,
					     uint32_t tid);

/* Problems with the recording's binaries (missing, build-id mismatch), each a
 * message naming the path and the ids; they also appear in the gaps. */
HWTR_EXPORT
size_t hwtr_history_nproblems(const struct hwtr_history *history);
HWTR_EXPORT
const char *hwtr_history_problem(const struct hwtr_history *history,
				 size_t index);

struct hwtr_thread_stats {
	uint32_t tid;
	uint64_t instructions;	/* instruction numbers 1..instructions */
	uint64_t segments;	/* function segments 1..segments */
	uint64_t gaps;
	uint64_t chunks;
	uint64_t trace_bytes;
	uint64_t index_bytes;	/* memory held by this thread's index */
	/* The last hwtr_history_build or hwtr_history_extend: instructions it
	 * decoded for this thread (a build, or an extension from the start of
	 * the last chunk), and whether it decoded the thread from its start. */
	uint64_t decoded_instructions;
	bool rebuilt;
	/* Chunks hwtr_cursor_find has searched in this thread since the
	 * history was built: those its filter of executed code lines could
	 * not rule out (each costs decoding the chunk again). */
	uint64_t chunks_searched;
	/* Threads the last build of this thread decoded its chunks on: 1 for
	 * one, N when they were decoded on N build threads at once
	 * (HWTREC_BUILD_THREADS), 0 when the index was not decoded (a saved
	 * one, an empty trace). */
	unsigned build_threads;
};
HWTR_EXPORT
int hwtr_thread_stats(const struct hwtr_thread *thread,
		      struct hwtr_thread_stats *stats);

/* The nearest gap of THREAD after NUMBER (DIRECTION > 0) or before it
 * (< 0), NUMBER itself excluded, in *GAP: 1, or 0 when there is none.
 * A binary search over the thread's gaps, for callers that look at gaps in
 * a range of a long history (a continue checking the stops at signal
 * deliveries). */
HWTR_EXPORT
int hwtr_thread_next_gap(const struct hwtr_thread *thread, uint64_t number,
			 int direction, uint64_t *gap);

/* The distinct context IDs (CONTEXTIDR: the OS's thread or process ID) the
 * thread's trace names, in order of first appearance; none for a trace that
 * carries none (Intel PT, ETM without context ID tracing).  The array is
 * the history's. */
HWTR_EXPORT
int hwtr_thread_context_ids(const struct hwtr_thread *thread,
			    const uint32_t **ids, size_t *count);

/* A gap: trace that could not be turned into instructions.  A gap takes one
 * instruction number and its own function segment, as in GDB's btrace. */
struct hwtr_gap {
	int pt_error;		/* libipt error code (positive), 0 if none or
				 * not Intel PT */
	uint64_t offset;	/* trace stream offset */
	const char *message;	/* names what was lost, owned by the history */
	int error;		/* the decoder's error code (positive; libipt's
				 * for Intel PT, OpenCSD's for ETM), 0 if none */
	const char *kind;	/* "overflow", "disabled", "missing-binary",
				 * "truncated", or the decoder's words for
				 * its error; owned by the history */
};

/* Function segment flags (as GDB's btrace_function). */
#define HWTR_SEG_UP_LINKS_TO_RET 1u	/* up is where a return went */
#define HWTR_SEG_UP_LINKS_TO_TAILCALL 2u	/* entered by a tail jump */
#define HWTR_SEG_GAP 4u			/* this segment is a gap */
#define HWTR_SEG_UP_LINKS_TO_SIGNAL 8u	/* up is the frame a signal interrupted:
					 * this is its handler, or the signal
					 * return trampoline the handler
					 * returned to (GDB's <signal handler
					 * called> frame); up's last
					 * instruction is followed by the gap
					 * of the signal's delivery */

/* One function segment: numbers are 1-based; 0 means "none". */
struct hwtr_segment {
	uint64_t number;
	uint64_t up, prev, next;
	int level;		/* normalised: the minimum over the thread is 0 */
	uint32_t flags;
	uint64_t insn_begin;	/* first instruction number */
	uint64_t insn_end;	/* one past the last */
	uint64_t function_start;	/* address of the symbol, or 0 */
	const char *function;	/* symbol name, or NULL; owned by the history */
	const struct hwtr_gap *gap;	/* HWTR_SEG_GAP only */
};
HWTR_EXPORT
int hwtr_thread_segment(const struct hwtr_thread *thread, uint64_t number,
			struct hwtr_segment *segment);

/* The call stack of an instruction at IP right after the thread's last
 * one, where the thread stands when that instruction is not in the trace:
 * a live thread's PC at a stop, a faulting instruction that never
 * completed (GDB's btrace keeps that "current instruction" as the last of
 * its trace).  The segments are those the history would give it if the
 * trace went on to IP: after a return, the caller's; after a call or a tail
 * jump, a new segment above the last one; else the last segment's.  A new
 * segment comes first with number 0 (the history does not hold it; it
 * holds no instruction; after a return with no call in the trace its level
 * can be one below the thread's lowest).  Returns the number of frames (at
 * most max). */
HWTR_EXPORT
int hwtr_thread_callstack_next(const struct hwtr_thread *thread, uint64_t ip,
			       struct hwtr_segment *segments, size_t max);

/* When instruction NUMBER (1..instructions) of the thread ran, in TSC ticks
 * (the trace's clock, shared by all threads of a recording): the TSC of the
 * PSB+ that starts its chunk, interpolated linearly by instruction count
 * between that and the next chunk's TSC, so exact at chunk starts only and
 * never going back within a thread.  In the last timed chunk, its start's
 * TSC; before the first, the first TSC.  -hwtr_err_notfound when the
 * thread's trace has no TSC (recorded with --no-tsc, or ETM without
 * timestamps); -hwtr_err_range for a number outside the history. */
HWTR_EXPORT
int hwtr_thread_insn_time(const struct hwtr_thread *thread, uint64_t number,
			  uint64_t *tsc);

/* Instruction NUMBER's stamp: the trace's time when the block holding it
 * began (the last TSC before it, refined by MTC/CYC when the trace has
 * them).  It puts every thread on one time axis: the software source stamps
 * each thread where it runs again, so of two threads' instructions the one
 * with the smaller stamp ran first; within a thread stamps never go back
 * and numbers order equal ones (insn-stamp.c).  Decodes the instruction's
 * chunk.  -hwtr_err_notfound when the trace gave no time before it,
 * -hwtr_err_range for a number outside the history. */
HWTR_EXPORT
int hwtr_thread_insn_stamp(struct hwtr_thread *thread, uint64_t number,
			   uint64_t *stamp);
/* Where the thread stands at time STAMP: its first instruction stamped
 * later (instructions + 1 when it ran them all by then; 1 when it had not
 * started).  -hwtr_err_notfound when the thread's trace has no time. */
HWTR_EXPORT
int hwtr_thread_first_after_stamp(struct hwtr_thread *thread, uint64_t stamp,
				  uint64_t *number);

/* ----------------------------------------------------------------- cursor */

enum hwtr_insn_class {
	hwtr_ic_other = 0,
	hwtr_ic_call,
	hwtr_ic_return,
	hwtr_ic_jump,
	hwtr_ic_cond_jump,
	hwtr_ic_far_call,
	hwtr_ic_far_return,
	hwtr_ic_far_jump,
	hwtr_ic_unknown,
};

/* Instruction sets. */
enum hwtr_isa {
	hwtr_isa_x86_64 = 0,
	hwtr_isa_a64,		/* AArch64 */
	hwtr_isa_a32,		/* AArch32 Arm */
	hwtr_isa_t32,		/* AArch32 Thumb */
};

struct hwtr_insn {
	uint64_t number;	/* instruction number */
	uint64_t ip;
	uint8_t size;		/* 0 for a gap, or an instruction of unknown
				 * length (iclass hwtr_ic_unknown) */
	uint8_t raw[15];
	enum hwtr_insn_class iclass;
	bool speculative;
	const struct hwtr_gap *gap;	/* non-NULL if this number is a gap */
	enum hwtr_isa isa;
};

struct hwtr_cursor;

/* A cursor starts at the end of the thread's history (the last instruction),
 * where a debugger stands after a crash. */
HWTR_EXPORT
int hwtr_cursor_alloc(struct hwtr_thread *thread, struct hwtr_cursor **cursor);
HWTR_EXPORT
void hwtr_cursor_free(struct hwtr_cursor *cursor);

HWTR_EXPORT
uint64_t hwtr_cursor_position(const struct hwtr_cursor *cursor);
/* Go to instruction NUMBER (1..instructions); hwtr_err_range if outside. */
HWTR_EXPORT
int hwtr_cursor_goto(struct hwtr_cursor *cursor, uint64_t number);
/* Move by DELTA instructions; stops at either end and returns hwtr_err_eos
 * (positive moved count is not reported: read the position). */
HWTR_EXPORT
int hwtr_cursor_step(struct hwtr_cursor *cursor, int64_t delta);
/* The instruction (or gap) at the position. */
HWTR_EXPORT
int hwtr_cursor_insn(struct hwtr_cursor *cursor, struct hwtr_insn *insn);
/* The function segment at the position. */
HWTR_EXPORT
int hwtr_cursor_segment(const struct hwtr_cursor *cursor,
			struct hwtr_segment *segment);
/* Search backward (direction < 0) or forward (> 0) from the position,
 * excluding it, for the nearest instruction whose IP is in ADDRS.  Moves
 * there and returns 1, or returns 0 and stays when there is none.  ADDRS may
 * come in any order; sorted ascending saves a sorted copy per call.  Each
 * address costs a binary search, not a scan, per block. */
HWTR_EXPORT
int hwtr_cursor_find(struct hwtr_cursor *cursor, int direction,
		     const uint64_t *addrs, size_t naddrs);
/* The call stack at the position: segments[0] is the current segment, then
 * its callers (following up).  Returns the number of frames (at most max). */
HWTR_EXPORT
int hwtr_cursor_callstack(const struct hwtr_cursor *cursor,
			  struct hwtr_segment *segments, size_t max);

/* -------------------------------------------------------------- symbols */

struct hwtr_symbolizer;
struct hwtr_source_line {
	const char *file;	/* as the compiler named it (GDB shows this) */
	int line;		/* 0 if unknown */
	const char *path;	/* where to read it: absolute when known */
};
/* The history's symbolizer (libdw over the recording's binaries). */
HWTR_EXPORT
struct hwtr_symbolizer *hwtr_history_symbolizer(struct hwtr_history *history);
/* Function containing IP: name and start, or NULL.  An address alone
 * names the files mapped at the end of the history (the program that ran
 * last, after any exec); function segments and listings name each
 * instruction with the files mapped when it ran. */
HWTR_EXPORT
const char *hwtr_symbolize_function(struct hwtr_symbolizer *symbolizer,
				    uint64_t ip, uint64_t *start);
/* The source line of IP, as hwtr_symbolize_function: 1, or 0 if unknown. */
HWTR_EXPORT
int hwtr_symbolize_line(struct hwtr_symbolizer *symbolizer, uint64_t ip,
			struct hwtr_source_line *line);
/* The CFA rule of the binaries' call frame information (.eh_frame, else
 * .debug_frame) just before the instruction at IP, when it is a register
 * plus a constant: DWARF register *REGNO (x86-64: 7 is rsp, 6 rbp) plus
 * *OFFSET.  0, or -hwtr_err_notfound (no CFI there, or another rule). */
HWTR_EXPORT
int hwtr_symbolize_cfa(struct hwtr_symbolizer *symbolizer, uint64_t ip,
		       unsigned *regno, int64_t *offset);
/* Whether the call frame information at IP says its return address is
 * undefined: the outermost frame of a stack, where unwinding ends (the
 * entry points _start and a new thread's clone say so).  1, 0 (defined, or
 * no CFI there), or a negative error. */
HWTR_EXPORT
int hwtr_symbolize_outermost(struct hwtr_symbolizer *symbolizer, uint64_t ip);


/* ------------------------------------------------------------- listings */

/* Modifiers of GDB's `record instruction-history`. */
#define HWTR_INSN_SOURCE 1u		/* /m, /s: interleave source lines */
#define HWTR_INSN_RAW 2u		/* /r: raw instruction bytes */
#define HWTR_INSN_NO_FUNCTION 4u	/* /f: omit <function+offset> */
#define HWTR_INSN_OMIT_PC 8u		/* /p: no "=> " mark at MARK_PC */

/* Modifiers of GDB's `record function-call-history`. */
#define HWTR_CALL_LINES 1u		/* /l: source line range */
#define HWTR_CALL_INSNS 2u		/* /i: instruction number range */
#define HWTR_CALL_INDENT 4u		/* /c: indent by call level */

/* Print instructions FIRST..LAST (inclusive) in GDB's format, or as JSON
 * lines (doc/json-schema.md).  Instructions at MARK_PC (the selected frame's
 * PC in GDB; 0 for none) get GDB's "=> " mark.  Streams: memory does not
 * grow with the range. */
HWTR_EXPORT
int hwtr_list_insns(struct hwtr_thread *thread, uint64_t first, uint64_t last,
		    unsigned flags, bool json, uint64_t mark_pc, FILE *out);
/* Print function segments FIRST..LAST (inclusive), likewise. */
HWTR_EXPORT
int hwtr_list_calls(struct hwtr_thread *thread, uint64_t first, uint64_t last,
		    unsigned flags, bool json, FILE *out);

/* ---------------------------------------------------------------- values */

/* Exact register and memory values at past positions, from the data log
 * the software source writes beside its trace (doc/recording-valgrind.md,
 * the file format in doc/recording-format.md).  What the log does not
 * determine is "not known" (-hwtr_err_notfound), never guessed.
 *
 * Register numbers are GDB's amd64 numbers (amd64-tdep.h) for 0..56, then
 * ours for what GDB numbers by target description. */
enum hwtr_amd64_regno {
	hwtr_amd64_rax = 0, hwtr_amd64_rbx, hwtr_amd64_rcx, hwtr_amd64_rdx,
	hwtr_amd64_rsi, hwtr_amd64_rdi, hwtr_amd64_rbp, hwtr_amd64_rsp,
	hwtr_amd64_r8, hwtr_amd64_r9, hwtr_amd64_r10, hwtr_amd64_r11,
	hwtr_amd64_r12, hwtr_amd64_r13, hwtr_amd64_r14, hwtr_amd64_r15,
	hwtr_amd64_rip = 16,
	hwtr_amd64_eflags = 17,
	hwtr_amd64_cs = 18,	/* 18..23: cs ss ds es fs gs */
	hwtr_amd64_st0 = 24,	/* 24..31: st0..st7 (10 bytes) */
	hwtr_amd64_fctrl = 32,	/* 32..39: x87 control, 4 bytes each */
	hwtr_amd64_fstat, hwtr_amd64_ftag, hwtr_amd64_fiseg, hwtr_amd64_fioff,
	hwtr_amd64_foseg, hwtr_amd64_fooff, hwtr_amd64_fop,
	hwtr_amd64_xmm0 = 40,	/* 40..55: xmm0..xmm15 (16 bytes) */
	hwtr_amd64_mxcsr = 56,
	hwtr_amd64_fs_base = 57,
	hwtr_amd64_gs_base = 58,
	hwtr_amd64_ymm0h = 59,	/* 59..74: upper 16 bytes of ymm0..ymm15 */
	hwtr_amd64_nregs = 75,
};

/* What hwtr_values_memory says of each byte. */
enum hwtr_value_state {
	hwtr_value_same = 0,	/* unchanged from then to the end: the caller
				 * reads the end state (the core, the live
				 * process, the binaries) */
	hwtr_value_old = 1,	/* changed since: BUF holds its value then */
	hwtr_value_unknown = 2,	/* not known (the memory was mapped or
				 * unmapped since, or the log cannot say) */
};

struct hwtr_values;

/* Open the data log of HISTORY's recording: 0 with *VALUES NULL when the
 * recording has none; a negative error when it has one that cannot be used
 * (a newer format version, a malformed file, or a log that does not match
 * the history's instruction counts, which would give wrong values). */
HWTR_EXPORT
int hwtr_values_open(struct hwtr_history *history, struct hwtr_values **values);

/* hwtr_values_open in two steps, so that the long one (a pass over the
 * whole log) can run beside the history's build: hwtr_values_load maps,
 * checks and indexes REC's data log (0 with *VALUES NULL when it has none),
 * bound to no history yet (every read then refuses the thread as another
 * history's); hwtr_values_bind binds it to HISTORY, a history of the same
 * recording, whole or a tail (hwtr_history_build_tail), in place of the
 * one before.  A tail's positions are counted back from the log's end,
 * and only when the log proves them (a whole log, register snapshots in
 * the tail at the tail's PCs); when not, or when the log does not match,
 * a negative error (-hwtr_err_notfound: not proven) and VALUES stays
 * unbound. */
HWTR_EXPORT
int hwtr_values_load(struct hwtr_recording *rec, struct hwtr_values **values);
HWTR_EXPORT
int hwtr_values_bind(struct hwtr_values *values, struct hwtr_history *history);

/* hwtr_values_load and hwtr_values_bind for TAIL (hwtr_history_build_tail)
 * reading only the log's last part: from the restart points (a log of
 * version 5 with its seek table) just before each thread's tail, with
 * their CRC-32s checked, not the whole log, so that it costs what the
 * tail's part of the log costs.  0 with *VALUES NULL for a recording
 * without a data log; -hwtr_err_notfound when the log has no usable seek
 * table (version 4, cut off, damaged: the message says which) or the tail
 * cannot be placed without the whole log; the caller then uses
 * hwtr_values_load.  The values it gives are bound to TAIL only: binding
 * them to another history is refused, unless it needs no earlier part. */
HWTR_EXPORT
int hwtr_values_load_tail(struct hwtr_history *tail, struct hwtr_values **values);

/* hwtr_values_load_tail reading less: only back to BACK instructions
 * before the end of THREAD (a thread of TAIL; NULL: of every thread), from
 * the restart point at or before that (one every 32,768 instructions;
 * never before the tail), so that the first values at the end cost that
 * part of the log, not the whole tail's.  Values at positions the part
 * does not reach are not known to it (hwtr_values_register:
 * -hwtr_err_notfound, memory: unknown; for the other threads, as far back
 * as the part happens to reach, none of a thread it lacks):
 * hwtr_values_first_known says where they start, and a caller that needs
 * older ones loads again with a larger BACK.  UINT64_MAX and NULL: the
 * whole tail, as hwtr_values_load_tail. */
HWTR_EXPORT
int hwtr_values_load_tail_back(struct hwtr_history *tail,
			       struct hwtr_thread *thread, uint64_t back,
			       struct hwtr_values **values);

/* The first history number of THREAD whose values VALUES holds (1 but
 * for a part read by hwtr_values_load_tail_back, and for the thread that
 * exec'd, whose log begins after the exec; UINT64_MAX: none): 0 or a
 * negative error. */
HWTR_EXPORT
int hwtr_values_first_known(struct hwtr_values *values,
			    struct hwtr_thread *thread, uint64_t *number);
HWTR_EXPORT
void hwtr_values_free(struct hwtr_values *values);

/* Register REGNO (enum hwtr_amd64_regno) of THREAD just before the
 * instruction at position NUMBER executes, little-endian in BUF (SIZE at
 * least the register's size: 8, 16 for xmm and ymm halves, 10 for st0..st7,
 * 4 for eflags, fctrl, fstat, ftag and mxcsr): the register's
 * size, or -hwtr_err_notfound when not known (a register the log does not
 * hold, a gap, a position outside the log), or another negative error. */
HWTR_EXPORT
int hwtr_values_register(struct hwtr_values *values, struct hwtr_thread *thread,
			 uint64_t number, unsigned regno, void *buf,
			 size_t size);

/* Memory [ADDR, ADDR+SIZE) as THREAD saw it just before the instruction at
 * NUMBER: for each byte, STATE[i] (enum hwtr_value_state) and, when
 * hwtr_value_old, its value in BUF[i].  0, or a negative error;
 * hwtr_value_unknown everywhere when the log cannot say (a position outside
 * it, a log whose end is missing). */
HWTR_EXPORT
int hwtr_values_memory(struct hwtr_values *values, struct hwtr_thread *thread,
		       uint64_t number, uint64_t addr, void *buf,
		       uint8_t *state, size_t size);

/* The instruction of THREAD nearest to NUMBER that changed memory
 * [ADDR, ADDR+SIZE) (a store, the kernel's write during it, or a mapping
 * that made it unknown), what a write watchpoint stops at: DIRECTION < 0
 * the last one before NUMBER, no earlier than LIMIT; DIRECTION > 0 the
 * first one at or after NUMBER, no later than LIMIT.  1 with its number in
 * *FOUND and the first byte of the range it changed in *HIT_ADDR; 0 when
 * there is none within LIMIT; -hwtr_err_notfound when the log cannot say
 * (a log without its end, or without this thread), or another negative
 * error.  Only the log's records of the range are read (its chunks'
 * filters skip the rest), not every instruction. */
HWTR_EXPORT
int hwtr_values_find_change(struct hwtr_values *values,
			    struct hwtr_thread *thread, uint64_t number,
			    int direction, uint64_t limit, uint64_t addr,
			    uint64_t size, uint64_t *found, uint64_t *hit_addr);

/* Registers recovered from a control-flow trace and the end state, for
 * recordings without a data log (doc/value-recovery.md): over a window of
 * a thread's last instructions, values are carried backwards from the end
 * state through instructions that can be inverted and forwards through
 * instructions whose inputs are known.  Only proven values are given: the
 * rest is "not known" (-hwtr_err_notfound), as in hwtr_values_register.
 * The general registers rax..r15 (and rip, from the history) only. */
struct hwtr_recovery;

/* Registers known just before instruction POSITION from elsewhere than
 * the history: a frame of the end state's call stack unwound with the
 * binaries' CFI gives those of each caller at its pending call. */
struct hwtr_recovery_anchor {
	uint64_t position;
	uint64_t regs[16];	/* rax..r15, enum hwtr_amd64_regno order */
	uint16_t known;		/* bit per register of REGS that is known */
};

/* The thread's state at its end (a core's registers, say). */
struct hwtr_recovery_end {
	uint64_t position;	/* the state is before this instruction: the
				 * thread's instruction count when it stopped
				 * at its last (a fault), one more when it
				 * stopped after it */
	uint64_t pc;		/* the state's pc (used when after the last) */
	uint64_t regs[16];	/* rax..r15, enum hwtr_amd64_regno order */
	uint16_t known;		/* bit per register of REGS that is known */
	/* The end state's memory: up to LEN bytes at ADDR into BUF, how many
	 * it holds.  NULL: memory is not recovered (and registers are not
	 * recovered through it).  Give it only when nothing but this thread
	 * changed the memory it holds (one thread; no memory shared with
	 * another process or a device). */
	size_t (*read_memory)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *memory_ctx;
	/* Bytes of the end state the program cannot write (MEMORY_CTX too):
	 * a read-only segment's (hwtr_core_memory_read_only).  They
	 * are taken as memory's before every operation after the last system
	 * call that may change mappings (all but a short list that leaves
	 * them alone: write, read, close, fstat, ...; never mmap, mprotect,
	 * munmap, mremap, madvise, brk, an exec or a number not known), even
	 * before a store to an unknown address: no store could reach them.
	 * NULL: only READ_MEMORY's, and those only back to such a store. */
	size_t (*read_fixed_memory)(void *ctx, uint64_t addr, void *buf,
				    size_t len);
	/* The thread's fs base (its TLS pointer): %fs: loads and stores
	 * (the stack protector's canary, the pointer guard) get addresses
	 * after the last instruction that may have changed it. */
	uint64_t fs_base;
	bool fs_base_known;
	/* The thread's eflags (EFLAGS_KNOWN): its bits hold back to the last
	 * instruction that may change them, and the arithmetic flags are
	 * computed forwards from known registers. */
	uint32_t eflags;
	bool eflags_known;
	/* The program ran under Valgrind (the software source): a system call
	 * leaves r11 as it was (VEX), where the kernel puts rflags there. */
	bool under_valgrind;
	/* NANCHORS register values known at earlier positions, in ascending
	 * order of position (NULL: none); taken as proven. */
	const struct hwtr_recovery_anchor *anchors;
	size_t nanchors;
};

/* Instructions before the end that are looked at by default. */
#define HWTR_RECOVERY_WINDOW 1000000u

/* Recover THREAD's registers over the last WINDOW instructions before
 * END (0: HWTR_RECOVERY_WINDOW; fewer after a gap).  Takes about a second
 * per million instructions. */
HWTR_EXPORT
int hwtr_recovery_open(struct hwtr_thread *thread,
		       const struct hwtr_recovery_end *end, uint64_t window,
		       struct hwtr_recovery **recovery);
HWTR_EXPORT
void hwtr_recovery_free(struct hwtr_recovery *recovery);

/* Register REGNO (0..17 of enum hwtr_amd64_regno: eflags only when every
 * one of its 32 bits is proven) just before the
 * instruction at NUMBER, in BUF (SIZE at least 8): 8, or
 * -hwtr_err_notfound when it is not proven (or NUMBER is outside the
 * window), or another negative error. */
HWTR_EXPORT
int hwtr_recovery_register(struct hwtr_recovery *recovery, uint64_t number,
			   unsigned regno, void *buf, size_t size);

/* Memory [ADDR, ADDR+SIZE) just before the instruction at NUMBER, as
 * hwtr_values_memory gives it: per byte STATE[i] hwtr_value_same (no store
 * can have changed it between then and the end: the end state's byte),
 * hwtr_value_old (BUF[i], stored by a recovered store since the last
 * point where memory may have changed unseen) or hwtr_value_unknown.  0,
 * or a negative error. */
HWTR_EXPORT
int hwtr_recovery_memory(struct hwtr_recovery *recovery, uint64_t number,
			 uint64_t addr, void *buf, uint8_t *state, size_t size);

struct hwtr_recovery_stats {
	uint64_t first, end;	/* the window: positions first..end */
	uint64_t operations;	/* instructions and clobbers between them */
	uint64_t unmodelled;	/* instructions whose writes become unknown */
	uint64_t barriers;	/* steps the code does not explain (signals) */
	uint64_t conflicts;	/* two proofs disagreed: a model is wrong */
	unsigned passes;	/* backward+forward rounds to the fixed point */
};
HWTR_EXPORT
int hwtr_recovery_stats(const struct hwtr_recovery *recovery,
			struct hwtr_recovery_stats *stats);

/* Why register REGNO (0..15) is not known just before the instruction at
 * NUMBER, for reports (hwtr-recover-check's profile of what stays
 * unknown): in BUF (SIZE bytes) the kind of cause and the mnemonic of the
 * instruction that last wrote the register: "unmodelled cmovne" (not
 * modelled), "load mov" (a load from memory not proven), "input add" (a
 * modelled operation with an input not known), "syscall", "window start"
 * (not known before the window), "unexplained step".  0, or
 * -hwtr_err_notfound when the register is known or NUMBER is outside the
 * window. */
HWTR_EXPORT
int hwtr_recovery_unknown_cause(struct hwtr_recovery *recovery,
				uint64_t number, unsigned regno, char *buf,
				size_t size);

/* hwtr_list_insns with, for each instruction, the registers it changed
 * and the memory it stored, from VALUES (hwtr_values_open of THREAD's
 * history): JSON fields "regs" and "stores", or text lines under the
 * instruction (doc/json-schema.md, `hwtrec dump --values`). */
HWTR_EXPORT
int hwtr_list_insns_values(struct hwtr_thread *thread,
			   struct hwtr_values *values, uint64_t first,
			   uint64_t last, unsigned flags, bool json, FILE *out);

/* The memory one instruction changed, from the data log's undo records
 * (its stores, and the kernel's writes during it: a system call's buffers,
 * a signal frame).  A range of a REP string instruction's iterations is
 * one store. */
struct hwtr_store {
	uint64_t addr;
	uint64_t size;
	/* false: the memory was mapped or unmapped here, its contents before
	 * and after are not known (OLD, NEW_BYTES, NEW_KNOWN are NULL) */
	bool known;
	const uint8_t *old;		/* SIZE bytes before the instruction */
	const uint8_t *new_bytes;	/* SIZE bytes after it, where ... */
	const uint8_t *new_known;	/* ... NEW_KNOWN[i] is 1; 0: not known
					 * (the data log and the end state
					 * cannot say) */
};

/* Reads the stores of one thread, instruction by instruction; fastest for
 * ascending numbers.  Owns the stores it returns. */
struct hwtr_stores;

HWTR_EXPORT
int hwtr_stores_open(struct hwtr_values *values, struct hwtr_thread *thread,
		     struct hwtr_stores **stores);
HWTR_EXPORT
void hwtr_stores_free(struct hwtr_stores *stores);

/* The stores of THREAD's instruction NUMBER, in address order, in *STORES
 * (valid until the next call) and *COUNT: 0; -hwtr_err_notfound when the
 * log cannot say (a gap, a position the log does not hold, or an
 * instruction followed by a gap, whose records may include code the trace
 * left out); or another negative error. */
HWTR_EXPORT
int hwtr_stores_at(struct hwtr_stores *stores, uint64_t number,
		   const struct hwtr_store **list, size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* HWTRECORD_H */
