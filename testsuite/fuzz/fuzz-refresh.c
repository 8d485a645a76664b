/* fuzz-refresh.c: libFuzzer target for a recording that changes while it
 * is read (hwtr_recording_refresh, hwtr_history_extend).
 *
 * The input is a recording as fuzz-recording.c takes it (manifest.json,
 * sideband.jsonl, trace/1.pt, objects/code, split at "----" lines), then a
 * line "====" and what happens to it before the refresh, in pieces split the
 * same way: a new manifest.json (empty: unchanged), bytes appended to the
 * sideband, bytes appended to the stream, and a control piece whose first
 * byte says what else: bit 0 cuts the stream to half, bit 1 cuts the
 * sideband to half, bit 2 removes the stream.  The recording is opened and
 * its history built before, then refreshed and extended: a refresh refuses
 * with a message or succeeds; after a success that only appended, the
 * extended history must show what a build of the same directory shows. */
#define _GNU_SOURCE
#include "history-walk.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NPIECES 4
static const char *const pieces[NPIECES] = { "manifest.json", "sideband.jsonl",
					     "trace/1.pt", "objects/code" };

static void append(const char *name, const uint8_t *bytes, size_t n)
{
	FILE *f;

	if (!n)
		return;
	f = fopen(scratch_path(name), "ab");
	if (!f || fwrite(bytes, 1, n, f) != n || fclose(f)) {
		perror(name);
		abort();
	}
}

static void cut_to_half(const char *name)
{
	const char *path = scratch_path(name);
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	if (truncate(path, size / 2) < 0)
		abort();
}

/* Apply the change pieces in DATA (see the top); true when it only
 * appended. */
static bool change(const uint8_t *data, size_t size)
{
	static const char separator[] = "\n----\n";
	const uint8_t *p = data, *end = data + size, *piece[4] = { 0 };
	size_t len[4] = { 0 }, i;
	bool appended_only = true;

	for (i = 0; i < 4 && p; i++) {
		const uint8_t *sep = i < 3 ? memmem(p, (size_t)(end - p), separator,
						    sizeof(separator) - 1)
					   : NULL;
		const uint8_t *stop = sep ? sep : end;

		piece[i] = p;
		len[i] = (size_t)(stop - p);
		p = sep ? sep + sizeof(separator) - 1 : NULL;
	}
	if (len[0]) {
		scratch_write("manifest.json", piece[0], len[0]);
		appended_only = false;	/* new threads need not be appended */
	}
	append("sideband.jsonl", piece[1], len[1]);
	append("trace/1.pt", piece[2], len[2]);
	if (len[3]) {
		appended_only = false;
		if (piece[3][0] & 1)
			cut_to_half("trace/1.pt");
		if (piece[3][0] & 2)
			cut_to_half("sideband.jsonl");
		if (piece[3][0] & 4)
			scratch_remove("trace/1.pt");
	}
	return appended_only;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char marker[] = "\n====\n";
	struct hwtr_history_options options = { .cache_bytes = 4u << 20 };
	const uint8_t *split = memmem(data, size, marker, sizeof(marker) - 1);
	size_t before = split ? (size_t)(split - data) : size;
	struct hwtr_recording *rec, *again;
	struct hwtr_history *history = NULL, *built;
	uint64_t probe = 0x401000;
	bool appended_only;

	scratch_write_pieces(data, before, pieces, NPIECES);
	if (hwtr_recording_open(scratch_dir(), &rec) < 0)
		return 0;
	if (hwtr_history_build(rec, &options, &history) < 0)
		history = NULL;
	appended_only = change(split ? split + sizeof(marker) - 1 : data + size,
			       split ? size - before - (sizeof(marker) - 1) : 0);
	if (hwtr_recording_refresh(rec) < 0) {
		if (!hwtr_last_error()[0])
			abort();	/* a refusal must say why */
		hwtr_history_free(history);	/* reads nothing */
		hwtr_recording_close(rec);
		return 0;
	}
	if (history && hwtr_history_extend(history) < 0) {
		if (!hwtr_last_error()[0])
			abort();
		hwtr_history_free(history);
		history = NULL;
	}
	if (history) {
		history_walk(history, &probe, 1);
		if (appended_only && hwtr_recording_open(scratch_dir(), &again) == 0) {
			if (hwtr_history_build(again, &options, &built) == 0) {
				history_same(history, built);
				hwtr_history_free(built);
			}
			hwtr_recording_close(again);
		}
		hwtr_history_free(history);
	}
	hwtr_recording_close(rec);
	return 0;
}
