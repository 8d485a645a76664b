/* fuzz-index.c: libFuzzer target for the saved history index's reader
 * (history-file.c, the segment store's runs and groups in segment-store.c; the
 * format in doc/recording-format.md).  The input is the recording's
 * history.idx; the rest of the recording is fixed and valid: the unit
 * tests' fixture code (testsuite/unit/fixture-code.S) and a real trace of
 * its main path (seeds-decoder/main-path).  Before the file is written its
 * size field and every CRC-32 (the sections' in range, the table's, the
 * header's) are made to match its bytes, so that a mutation reaches the
 * checks behind them rather than stopping at a checksum; the segments'
 * groups are checked only when first read, so the history is then built
 * (the saved index used, or refused and built again) and every read-side
 * call made at every position and segment (read_everything).  Nothing may
 * crash or read out of bounds.  What the history says is not checked (as
 * history-walk.c does for built histories): an index whose checksums were
 * made to match its changes may tell another history, in range, and
 * nothing short of a build can tell; damage that was not made on purpose
 * fails a checksum.  Seed: the fixture recording's own index
 * (FUZZ_INDEX_SEED=PATH ./fuzz-index -runs=0 writes it). */
#include "elf-facts.h"
#include "fixture-recording.h"
#include "history-idx-layout.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef FIXTURE_CODE
#error "FIXTURE_CODE must name the assembled fixture"
#endif
#ifndef FIXTURE_TRACE
#error "FIXTURE_TRACE must name a trace of the fixture (seeds-decoder/main-path)"
#endif

static uint64_t probes[3];
static uint8_t *copy;

/* Every read-side call at every position and segment of HISTORY. */
static void read_everything(struct hwtr_history *history)
{
	for (size_t i = 0; i < hwtr_history_nthreads(history); i++) {
		struct hwtr_thread *t = hwtr_history_thread(history, i);
		struct hwtr_thread_stats st;
		struct hwtr_segment seg, stack[8];
		struct hwtr_cursor *c;
		struct hwtr_insn insn;
		uint64_t pos, n;

		if (hwtr_thread_stats(t, &st) < 0)
			continue;
		for (n = 1; n <= st.segments + 1 && n < 4096; n++)
			hwtr_thread_segment(t, n, &seg);
		hwtr_thread_callstack_next(t, probes[0], stack, 8);
		if (hwtr_cursor_alloc(t, &c) < 0)
			continue;
		for (pos = 0; pos <= st.instructions + 1 && pos < 4096; pos++) {
			if (hwtr_cursor_goto(c, pos) < 0)
				continue;
			hwtr_cursor_insn(c, &insn);
			hwtr_cursor_segment(c, &seg);
			hwtr_cursor_callstack(c, stack, 8);
		}
		hwtr_cursor_goto(c, st.instructions);
		hwtr_cursor_find(c, -1, probes, 3);
		hwtr_cursor_goto(c, 1);
		hwtr_cursor_find(c, 1, probes, 3);
		hwtr_cursor_free(c);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seed = getenv("FUZZ_INDEX_SEED");
	struct hwtr_recording *rec;
	struct hwtr_history *h;

	fixture_recording_write(FIXTURE_CODE);
	fixture_recording_use_trace(FIXTURE_TRACE);
	probes[0] = elf_symbol(FIXTURE_CODE, "i3");
	probes[1] = elf_symbol(FIXTURE_CODE, "i25");
	probes[2] = elf_symbol(FIXTURE_CODE, "i28");
	/* The fixture's own index, written by a build. */
	if (hwtr_recording_open(scratch_path("rec"), &rec) < 0 ||
	    hwtr_history_build(rec, NULL, &h) < 0) {
		fprintf(stderr, "fuzz-index: the fixed recording does not build: %s\n",
			hwtr_last_error());
		abort();
	}
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	if (seed) {
		FILE *in = fopen(scratch_path("rec/history.idx"), "rb");
		FILE *out = fopen(seed, "wb");
		int c;

		if (!in || !out) {
			fprintf(stderr, "fuzz-index: the fixture saved no index, or "
				"%s cannot be written\n", seed);
			abort();
		}
		while ((c = getc(in)) != EOF)
			putc(c, out);
		fclose(in);
		fclose(out);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwtr_history_options options = { .cache_bytes = 4u << 20 };
	struct hwtr_recording *rec;
	struct hwtr_history *history;

	free(copy);
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	reseal(copy, size);
	scratch_write("rec/history.idx", copy, size);
	if (hwtr_recording_open(scratch_path("rec"), &rec) < 0) {
		fprintf(stderr, "fuzz-index: the fixed recording does not open: %s\n",
			hwtr_last_error());
		abort();
	}
	if (hwtr_history_build(rec, &options, &history) == 0) {
		read_everything(history);
		hwtr_history_free(history);
	}
	hwtr_recording_close(rec);
	return 0;
}
