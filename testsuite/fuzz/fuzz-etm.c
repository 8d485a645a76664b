/* fuzz-etm.c: libFuzzer target for the ETMv4 decoder (decode-etm.c, OpenCSD
 * underneath), the history and the cursor over it.
 *
 * Two fixed, valid recordings map the A64 fixture code of the unit tests
 * (testsuite/unit/etm-encode.c) at 0x1000: in "raw", source 0x10's trace is
 * a stream of its own; in "frames", sources 0x10 and 0x11 share one
 * CoreSight formatted buffer.  An input's first byte picks the recording
 * (even: raw, odd: frames) and the rest is that trace stream.  The history
 * is built and walked end to end (history-walk.c). */
#include "etm-encode.h"
#include "history-walk.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_recording(const char *name, bool formatted)
{
	struct hwtr_writer_info winfo = {
		.source = "fuzz", .trace_format = "etm4", .arch = "aarch64",
	};
	struct hwtr_sideband_event mm = {
		.kind = hwtr_ev_mmap, .addr = ETM_FIXTURE_BASE,
		.len = sizeof(etm_fixture_code),
		.prot = HWTR_PROT_READ | HWTR_PROT_EXEC, .path = "code",
	};
	struct hwtr_writer *w = NULL;
	const char *stream = NULL;
	uint8_t id;

	if (hwtr_writer_create(scratch_path(name), &winfo, &w) ||
	    hwtr_writer_save_object(w, "code", etm_fixture_code,
				    sizeof(etm_fixture_code), &mm.saved) ||
	    hwtr_writer_event(w, &mm) ||
	    hwtr_writer_save_trace(w, "stream", "", 0, &stream))
		goto fail;
	for (id = 0x10; id <= (formatted ? 0x11 : 0x10); id++) {
		struct hwtr_etm_config e = {
			.trace_id = id, .formatted = formatted,
			.frame_flags = formatted ? HWTR_ETM_FRAME_MEM_ALIGN : 0,
			.arch_version = 0x800, .profile = 'A', .trctraceidr = id,
			.cpu = -1,
		};

		e.trcidr[0] = 0x28000ea1;
		e.trcidr[1] = 0x4100f400;
		e.trcidr[2] = 0x488;
		if (hwtr_writer_add_source(w, id, 0, stream, &e))
			goto fail;
	}
	if (hwtr_writer_finish(w, NULL))
		goto fail;
	hwtr_writer_free(w);
	return;
fail:
	fprintf(stderr, "fuzz-etm: cannot write the %s recording: %s\n", name,
		hwtr_last_error());
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	write_recording("raw", false);
	write_recording("frames", true);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t probes[] = { 0x1004, 0x1020, 0x1010 };
	struct hwtr_history_options options = { .cache_bytes = 1 };
	const char *name = size && (data[0] & 1) ? "frames" : "raw";
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	char path[64];

	snprintf(path, sizeof(path), "%s/trace/stream", name);
	scratch_write(path, size ? data + 1 : data, size ? size - 1 : 0);
	if (hwtr_recording_open(scratch_path(name), &rec) < 0) {
		fprintf(stderr, "fuzz-etm: the fixed recording does not open: %s\n",
			hwtr_last_error());
		abort();
	}
	if (hwtr_history_build(rec, &options, &history) == 0) {
		history_walk(history, probes, sizeof(probes) / sizeof(probes[0]));
		hwtr_history_free(history);
	} else if (!hwtr_last_error()[0]) {
		abort();	/* a failure must say why */
	}
	hwtr_recording_close(rec);
	return 0;
}
