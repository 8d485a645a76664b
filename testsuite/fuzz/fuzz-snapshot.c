/* fuzz-snapshot.c: libFuzzer target for `hwtrec import --opencsd-snapshot`
 * (formats/import-snapshot.c and the ini reader, formats/ini.c), and for what
 * it writes: an imported recording is opened and its history built and
 * walked, so fuzzed registers and traces reach OpenCSD through the decoder.
 *
 * The input is a snapshot in one piece: snapshot.ini, cpu_0.ini,
 * device_1.ini, trace.ini, trace.bin and code.bin, separated by the line
 * "----" (as fuzz-recording.c does); absent pieces are not written.  An
 * import must succeed or fail with a message. */
#define _GNU_SOURCE
#include "history-walk.h"
#include "import-snapshot.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NPIECES 6
static const char *const pieces[NPIECES] = {
	"snap/snapshot.ini", "snap/cpu_0.ini", "snap/device_1.ini",
	"snap/trace.ini", "snap/trace.bin", "snap/code.bin",
};

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	return remove(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (mkdir(scratch_path("snap"), 0700) < 0) {
		perror("mkdir");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t probes[] = { 0x1004, 0x1020, 0x1010 };
	struct hwtr_history_options options = { .cache_bytes = 1 };
	struct hwtr_recording *rec;
	struct hwtr_history *history;
	char out[512], err[2048] = "";

	scratch_write_pieces(data, size, pieces, NPIECES);
	snprintf(out, sizeof(out), "%s", scratch_path("out.hwtrec"));
	nftw(out, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	if (import_opencsd_snapshot(scratch_path("snap"), out, false, NULL, NULL, err,
				    sizeof(err)) < 0) {
		if (!err[0])
			abort();	/* a rejection must say why */
		return 0;
	}
	if (hwtr_recording_open(out, &rec) < 0) {
		fprintf(stderr, "fuzz-snapshot: the import wrote a recording that "
			"does not open: %s\n", hwtr_last_error());
		abort();
	}
	if (hwtr_history_build(rec, &options, &history) == 0) {
		history_walk(history, probes, sizeof(probes) / sizeof(probes[0]));
		hwtr_history_free(history);
	}
	hwtr_recording_close(rec);
	return 0;
}
