/* fuzz-decoder.c: libFuzzer target for the decoder, the history and the
 * cursor.  The input is a thread's Intel PT stream; the manifest and the
 * sideband are fixed and valid and map the unit tests' fixture code
 * (testsuite/unit/fixture-code.S), so traces that follow its branches decode
 * into real instructions.  The history is then walked end to end
 * (history-walk.c), and the stream walked with libipt's block decoder and
 * with the query walk, which must give the same items (pt-walks.c). */
#include "elf-facts.h"
#include "fixture-recording.h"
#include "history-walk.h"
#include "pt-walks.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FIXTURE_CODE
#error "FIXTURE_CODE must name the assembled fixture"
#endif

static uint64_t probes[3];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fixture_recording_write(FIXTURE_CODE);
	probes[0] = elf_symbol(FIXTURE_CODE, "i3");	/* leaf, hit often */
	probes[1] = elf_symbol(FIXTURE_CODE, "i25");	/* tail, hit once */
	probes[2] = elf_symbol(FIXTURE_CODE, "i28");	/* done */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwtr_history_options options = { .cache_bytes = 4u << 20 };
	struct hwtr_recording *rec;
	struct hwtr_history *history;

	scratch_write("rec/trace/1.pt", data, size);
	if (hwtr_recording_open(scratch_path("rec"), &rec) < 0) {
		fprintf(stderr, "fuzz-decoder: the fixed recording does not open: %s\n",
			hwtr_last_error());
		abort();
	}
	if (hwtr_history_build(rec, &options, &history) == 0) {
		struct fast_stats stats;

		history_walk(history, probes, 3);
		hwtr_history_free(history);
		pt_walks_same(rec, true, 2, &stats);
	}
	hwtr_recording_close(rec);
	return 0;
}
