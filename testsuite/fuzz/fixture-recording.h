/* fixture-recording.h: the fixed, valid recording the decoder, server and
 * values fuzzers work on: one thread that maps the unit tests' fixture code
 * (testsuite/unit/fixture-code.S) and has an empty trace, written once into
 * the scratch directory (scratch-dir.h) as "rec". */
#ifndef FIXTURE_RECORDING_H
#define FIXTURE_RECORDING_H

#include <stdint.h>

/* Write the recording for the fixture binary CODE; aborts if that fails
 * (the harness's problem, not an input's).  The thread's trace is
 * scratch_path("rec/trace/1.pt"). */
void fixture_recording_write(const char *code);

/* Make the file TRACE (a real trace of the fixture, such as
 * seeds-decoder/main-path) the thread's trace; aborts if it cannot be
 * read. */
void fixture_recording_use_trace(const char *trace);

#endif
