/* fuzz-decoder.c: libFuzzer target for the decoder, the history and the
 * cursor.  The input is a thread's Intel PT stream; the manifest and the
 * sideband are fixed and valid and map the unit tests' fixture code
 * (testsuite/unit/fixture-code.S), so traces that follow its branches decode
 * into real instructions.  The history is then walked end to end
 * (history-walk.c). */
#include "elf-facts.h"
#include "history-walk.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FIXTURE_CODE
#error "FIXTURE_CODE must name the assembled fixture"
#endif

static uint64_t probes[3];

/* A valid recording of one thread with an empty stream, written once. */
static void write_recording(void)
{
	struct hwtr_writer_info info = { .source = "fuzz", .pid = 1 };
	struct hwtr_sideband_event mm = { .kind = hwtr_ev_mmap };
	struct hwtr_end end = { hwtr_end_exited, 0 };
	struct hwtr_writer *w;
	char build_id[128];
	const char *dir = scratch_path("rec");

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;
	info.pt.stepping = 4;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.executable = FIXTURE_CODE;
	if (elf_text_mapping(FIXTURE_CODE, &mm.addr, &mm.len, &mm.pgoff) ||
	    elf_build_id(FIXTURE_CODE, build_id, sizeof(build_id))) {
		fprintf(stderr, "fuzz-decoder: cannot read %s\n", FIXTURE_CODE);
		abort();
	}
	mm.prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	mm.path = FIXTURE_CODE;
	mm.build_id = build_id;
	if (hwtr_writer_create(dir, &info, &w) ||
	    hwtr_writer_add_thread(w, 1, 0) || hwtr_writer_event(w, &mm) ||
	    hwtr_writer_finish(w, &end)) {
		fprintf(stderr, "fuzz-decoder: writer: %s\n", hwtr_last_error());
		abort();
	}
	hwtr_writer_free(w);
	probes[0] = elf_symbol(FIXTURE_CODE, "i3");	/* leaf, hit often */
	probes[1] = elf_symbol(FIXTURE_CODE, "i25");	/* tail, hit once */
	probes[2] = elf_symbol(FIXTURE_CODE, "i28");	/* done */
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	write_recording();
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
		history_walk(history, probes, 3);
		hwtr_history_free(history);
	}
	hwtr_recording_close(rec);
	return 0;
}
