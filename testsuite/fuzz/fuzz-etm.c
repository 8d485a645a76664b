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
	const struct etm_source sources[2] = { { .id = 0x10 }, { .id = 0x11 } };

	if (etm_fixture_recording(scratch_path(name), sources, formatted ? 2 : 1,
				  formatted) < 0) {
		fprintf(stderr, "fuzz-etm: cannot write the %s recording: %s\n", name,
			hwtr_last_error());
		abort();
	}
	scratch_drop_checks(name);
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

	snprintf(path, sizeof(path), "%s/trace/%s", name,
		 strcmp(name, "raw") ? "frames" : "16");
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
