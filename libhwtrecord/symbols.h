/* symbols.h: functions and source lines of the recording's binaries (libdw).
 *
 * Building the history asks "which function holds this IP" at every call and
 * return, so functions live in one flat table (sorted per file) with a
 * small direct-mapped cache in front; names and lines come from libdw.
 * Different programs hold the same addresses before and after an exec, so
 * a lookup names the image epoch of the instruction it is asked about.
 */
#ifndef HWTR_SYMBOLS_H
#define HWTR_SYMBOLS_H

#include "hwtrecord.h"
#include "image.h"

/* Function ids: 0 is "no symbol". */
int symbolizer_build(struct image_set *images, const char *const *debug_dirs,
		     struct hwtr_symbolizer **symbolizer);
void symbolizer_free(struct hwtr_symbolizer *symbolizer);
/* Read the files of the image's mappings added since (image_set_extend):
 * function ids given before keep their meaning. */
int symbolizer_extend(struct hwtr_symbolizer *symbolizer,
		      struct image_set *images);

/* The function at IP in the image of EPOCH (image.h): the symbols of the
 * file that epoch reads the code at IP from. */
uint32_t symbolizer_function(struct hwtr_symbolizer *symbolizer, unsigned epoch,
			     uint64_t ip);
/* symbolizer_function without its cache, which is not shared between
 * threads: the index pass's build threads look up here (history-parallel.c)
 * while its own thread uses the cached one. */
uint32_t symbolizer_function_uncached(const struct hwtr_symbolizer *symbolizer,
				      unsigned epoch, uint64_t ip);
/* Where the addresses after IP (at which symbolizer_function finds no
 * function) may start to find one in the image of EPOCH: the next function
 * start in IP's file, UINT64_MAX when none (the caller bounds it by the
 * mapping). */
uint64_t symbolizer_next_start(const struct hwtr_symbolizer *symbolizer,
			       unsigned epoch, uint64_t ip);
/* The source line at IP in the image of EPOCH: 1, or 0 if unknown. */
int symbolizer_line(struct hwtr_symbolizer *symbolizer, unsigned epoch,
		    uint64_t ip, struct hwtr_source_line *line);
/* Whether a frame description entry of the file the image of EPOCH reads
 * IP from starts at IP (its .eh_frame_hdr table: cfi-entries.h), other than
 * a signal trampoline's: what marks a function's first instruction where no
 * ELF symbol does (a stripped program's own functions).  A compiler's cold
 * parts (foo.cold) have one of their own too. */
bool symbolizer_cfi_entry(struct hwtr_symbolizer *symbolizer, unsigned epoch,
			  uint64_t ip);
/* The epoch of the mappings alive at the end (of the image read so far):
 * for questions without a time, such as an instruction after the last. */
int symbolizer_end_epoch(struct hwtr_symbolizer *symbolizer, unsigned *epoch);
const char *symbolizer_function_name(const struct hwtr_symbolizer *symbolizer,
				     uint32_t id);
uint64_t symbolizer_function_start(const struct hwtr_symbolizer *symbolizer,
				   uint32_t id);
/* What a function's name tells the function segments (segments.c):
 * _dl_runtime_resolve may "return" into the function it resolved; the
 * _Unwind_ functions "return" to a handler with an indirect jump, and
 * glibc's __longjmp (____longjmp_chk) to the function that called setjmp,
 * with `jmp *%rdx` (AArch64: `br x30`). */
#define SYMBOL_RETURNS_TO_CALLEE 1u
#define SYMBOL_UNWINDER 2u
#define SYMBOL_LONGJMP 4u
/* _Unwind_Resume: its caller's frame is the one being unwound, so the
 * handler it jumps to is in a frame above that. */
#define SYMBOL_RESUMES_UNWINDING 8u
/* glibc's execve and its kin: code after the gap their system call
 * leaves is another program's, never a signal handler's (segments.c). */
#define SYMBOL_EXECS 16u
/* SYMBOL_* of function ID's name. */
unsigned symbolizer_function_traits(const struct hwtr_symbolizer *symbolizer,
				    uint32_t id);
/* [start, end) of function ID, for a fast "still in the same function". */
void symbolizer_function_range(const struct hwtr_symbolizer *symbolizer,
			       uint32_t id, uint64_t *start, uint64_t *end);

/* A CRC-32 of the function table (every id's range, traits and name, in id
 * order) and its size: equal digests give equal ids for equal addresses,
 * which a saved index's segments rely on (history-file.c). */
uint32_t symbolizer_digest(const struct hwtr_symbolizer *symbolizer,
			   uint64_t *nfunctions);

#endif
