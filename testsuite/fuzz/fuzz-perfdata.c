/* fuzz-perfdata.c: libFuzzer target for the perf.data reader and the
 * importer (formats/perf-data.c, formats/import-perf.c, kernel/linux's record
 * parser and sideband converter).
 *
 * The input is a perf.data file.  Import must accept it or refuse it with a
 * message; an accepted file becomes a recording that the library must open,
 * whose history is then built and walked, so that imported sideband and
 * per-CPU splits reach the decoder. */
#define _GNU_SOURCE
#include "history-walk.h"
#include "scratch-dir.h"
#include "hwtrecord.h"
#include "../../formats/import-perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwtr_history_options options = { .cache_bytes = 4u << 20 };
	struct import_options opt = { .debug_dirs = NULL, .warn = NULL };
	char out[4096], cmd[4200];
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	int err;

	scratch_write("in.data", data, size);
	snprintf(out, sizeof(out), "%s", scratch_path("imported.hwtrec"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", out);
	if (system(cmd) != 0)
		abort();
	err = import_perf(scratch_path("in.data"), out, &opt);
	if (err) {
		if (!hwtr_last_error()[0])
			abort();	/* a refusal must say why */
		return 0;
	}
	if (hwtr_recording_open(out, &rec) < 0)
		abort();	/* import wrote a recording we cannot open */
	if (hwtr_history_build(rec, &options, &history) == 0) {
		uint64_t probe = 0x401000;

		history_walk(history, &probe, 1);
		hwtr_history_free(history);
	}
	hwtr_recording_close(rec);
	return 0;
}
