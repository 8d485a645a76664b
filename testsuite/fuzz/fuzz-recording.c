/* fuzz-recording.c: libFuzzer target for the recording reader.
 *
 * The input is a recording in one piece: manifest.json, sideband.jsonl, the
 * trace stream trace/1.pt and a saved object objects/code (raw code that an
 * mmap event can name as "saved"), separated by the line "----"
 * (scratch_write_pieces); a piece that is absent is not written, as after a
 * recorder that died.  The
 * reader must accept the recording or reject it with a message; an accepted
 * one is read field by field, and its history is built and walked too, so
 * that fuzzed sideband (mappings over time) reaches the image code. */
#define _GNU_SOURCE
#include "history-walk.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPIECES 4
static const char *const pieces[NPIECES] = { "manifest.json", "sideband.jsonl",
					     "trace/1.pt", "objects/code" };

static volatile size_t sink;	/* keeps reads of the fields */

static void touch(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void read_everything(struct hwtr_recording *rec)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(rec);
	size_t i;

	touch(info->arch);
	touch(info->trace_format);
	touch(info->source);
	touch(info->executable);
	touch(info->core);
	touch(info->cut_off_reason);
	touch(hwtr_recording_path(rec));
	for (i = 0; i < info->argc; i++)
		touch(info->argv[i]);
	for (i = 0; i < info->nthreads; i++) {
		const uint8_t *bytes;
		size_t size, k;

		touch(info->threads[i].stream);
		if (hwtr_recording_trace(rec, i, &bytes, &size) == 0)
			for (k = 0; k < size; k += 4096)
				sink += bytes[k];
	}
	for (i = 0; i < hwtr_recording_nevents(rec); i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		touch(ev->path);
		touch(ev->build_id);
		touch(ev->saved);
		touch(ev->reason);
	}
	if (hwtr_recording_event(rec, i) != NULL)
		abort();	/* one past the last event must be NULL */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwtr_history_options options = { .cache_bytes = 4u << 20 };
	struct hwtr_recording *rec;
	struct hwtr_history *history;

	scratch_write_pieces(data, size, pieces, NPIECES);
	if (hwtr_recording_open(scratch_dir(), &rec) < 0) {
		if (!hwtr_last_error()[0])
			abort();	/* a rejection must say why */
		return 0;
	}
	read_everything(rec);
	if (hwtr_history_build(rec, &options, &history) == 0) {
		uint64_t probe = 0x401000;

		history_walk(history, &probe, 1);
		hwtr_history_free(history);
	}
	hwtr_recording_close(rec);
	return 0;
}
