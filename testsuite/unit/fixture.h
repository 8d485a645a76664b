/* fixture.h: recordings over real code (fixture-code.S) for the unit tests.
 *
 * The trace is written with libipt's encoder (pt_enc_next) along a path whose
 * branch outcomes the test chooses; instruction addresses come from the
 * assembler's labels (i1, i2, ...) in the fixture's symbol table. */
#ifndef FIXTURE_H
#define FIXTURE_H

#include "hwtrecord.h"

#include "pt-encode.h"

#include <intel-pt.h>

/* Path of the assembled fixture (set by the Makefile). */
const char *fixture_path(void);
/* Address of a label or function in the fixture (aborts if missing). */
uint64_t fixture_symbol(const char *name);
/* Address of a label or function in another test binary. */
uint64_t fixture_symbol_in(const char *path, const char *name);
/* The FUNC symbol of ELF file PATH that holds IP (by its symbol table):
 * its name (a static buffer) and *START; aborts if there is none. */
const char *fixture_function_of(const char *path, uint64_t ip, uint64_t *start);
/* The fixture's real build-id, lower-case hex. */
const char *fixture_build_id(void);

/* The main path through the fixture (see fixture.c) and what it executes. */
void trace_main_path(struct trace *t);
/* Its second part: the PSB at "loop" (main_path_labels[13] on) to the end. */
void trace_main_path_from_loop(struct trace *t);
extern const char *const main_path_labels[29];

/* A function segment of a known path as GDB's btrace model makes it:
 * instruction numbers (inclusive) and links within the path; levels count
 * from 1 (the depth; normalised levels are one less). */
struct fixture_segment {
	const char *function;
	uint64_t begin, end;
	int level;
	uint64_t up, prev, next;
	uint32_t flags;
};
extern const struct fixture_segment main_path_segments[12];
/* The recursion from entry2 whose inner call ends in a tail jump to leaf
 * (trace: PSB+ at r1, TNT 0111, TIP.PGD): the return from the tail-called
 * function goes to the outer activation. */
extern const char *const recursion_path_labels[14];
extern const struct fixture_segment recursion_path_segments[6];

/* Write a recording of one thread (tid 1) with TRACE, mapping the fixture's
 * text as PATH with BUILD_ID (NULL: the real ones). */
void fixture_recording(const char *dir, const uint8_t *trace, size_t size,
		       const char *path, const char *build_id);

/* Like fixture_recording, with these sideband events instead. */
void fixture_recording_with(const char *dir, const uint8_t *trace, size_t size,
			    const struct hwtr_sideband_event *events, size_t n);
/* An mmap event for the executable segment of ELF file PATH at TSC. */
void fixture_mapping(const char *path, uint64_t tsc,
		     struct hwtr_sideband_event *event);
/* Path of fixture-exec.S assembled: other code at the same address. */
const char *fixture_exec_path(void);
/* fixture-next.S assembled: other functions at fixture-code's addresses. */
const char *fixture_next_path(void);
/* fixture-exec.S linked at 0x600000: code in a mapping of its own. */
const char *fixture_far_path(void);

/* A fresh temporary directory, and removing it. */
const char *fixture_tmpdir(void);
void fixture_cleanup(void);

/* A history built from a trace over fixture-code, and its only thread. */
struct fixture_history {
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	struct hwtr_thread *thread;
};
/* Write T's trace as a recording of fixture-code (ending T) and build its
 * history into H. */
void fixture_history_open(struct fixture_history *h, struct trace *t);
/* The history of the main path (trace_main_path). */
void fixture_history_main_path(struct fixture_history *h);
void fixture_history_close(struct fixture_history *h);


#endif
