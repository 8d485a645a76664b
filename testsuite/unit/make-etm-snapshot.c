/* make-etm-snapshot DIR: an OpenCSD snapshot (etm-encode.c) whose source
 * traces context IDs, with two contexts taking turns: 100 runs 0x1000,
 * 0x1004, 0x1020, 0x1024, then 200 runs 0x1010 twice, then 100 again
 * 0x1008, 0x100c, 0x1004 (test-cli.sh imports it).
 *
 * make-etm-snapshot DIR periodic-async: the fixture's main path with a
 * periodic A-sync and Trace Info after the first ret's address, so the
 * atoms after it follow the address from before it, then a self-contained
 * A-sync and two more turns (../coresight/test-lister-fixture.sh).
 *
 * make-etm-snapshot DIR dstream: that path 24 times over, in CoreSight
 * frames as a TPIU sends them (a frame sync before every eighth frame),
 * stored as a DSTREAM probe stores them: an 8-byte footer after every 504
 * bytes (format dstream_coresight; ../coresight/test-import-snapshot.sh). */
#include "etm-encode.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int write_files(const char *dir, const struct etm_file *files)
{
	size_t i;

	mkdir(dir, 0777);
	for (i = 0; i < ETM_SNAPSHOT_FILES; i++) {
		char path[1024];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(files[i].bytes, 1, files[i].len, f) != files[i].len ||
		    fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct etm_file files[ETM_SNAPSHOT_FILES];
	struct etm_trace t = { .len = 0 };

	if (argc == 3 && !strcmp(argv[2], "dstream")) {
		static uint8_t frames[1 << 15], tpiu[1 << 15], blocks[1 << 15];
		struct etm_source src = { .id = 0x10 };
		size_t len, in, n = 0, out = 0;
		int k;

		for (k = 0; k < 24; k++)
			etm_periodic_async_path(&t);
		src.bytes = t.buf;
		src.len = t.len;
		len = etm_frames(&src, 1, 7, frames, sizeof(frames));
		/* A TPIU's stream: a frame sync before every eighth frame. */
		for (in = 0; in < len; in += 16) {
			if (in % 128 == 0) {
				memcpy(tpiu + n, "\xff\xff\xff\x7f", 4);
				n += 4;
			}
			memcpy(tpiu + n, frames + in, 16);
			n += 16;
		}
		/* DSTREAM's blocks: 504 bytes of it, then an 8-byte footer. */
		for (in = 0; in < n; in += 504) {
			size_t part = n - in < 504 ? n - in : 504;

			memcpy(blocks + out, tpiu + in, part);
			out += part;
			memcpy(blocks + out, "\x21\x43\x65\x87\xa9\xcb\xed\x0f", 8);
			out += 8;
		}
		etm_snapshot_files("dstream_coresight", 0, blocks, out, files);
		return write_files(argv[1], files);
	}
	if (argc == 3 && !strcmp(argv[2], "periodic-async")) {
		etm_periodic_async_path(&t);
		etm_snapshot_files("source_data", 0, t.buf, t.len, files);
		return write_files(argv[1], files);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: make-etm-snapshot DIR [periodic-async|dstream]\n");
		return 2;
	}
	etm_async(&t);
	etm_trace_info(&t);
	etm_trace_on(&t);
	etm_addr_ctxt_id(&t, 0x1000, 0, 100);
	etm_atom(&t, true);
	etm_atom(&t, true);
	etm_addr(&t, 0x1008);
	etm_addr_ctxt_id(&t, 0x1010, 0, 200);
	etm_atom(&t, true);
	etm_atom(&t, true);
	etm_addr_ctxt_id(&t, 0x1008, 0, 100);
	etm_atom(&t, true);
	etm_atom(&t, true);
	etm_snapshot_files("source_data", 0x40, t.buf, t.len, files);
	return write_files(argv[1], files);
}

