/* fixture-recording.c: see fixture-recording.h. */
#include "fixture-recording.h"

#include "elf-facts.h"
#include "scratch-dir.h"

#include "hwtrecord.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fixture_recording_write(const char *code)
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
	info.executable = code;
	if (elf_text_mapping(code, &mm.addr, &mm.len, &mm.pgoff) ||
	    elf_build_id(code, build_id, sizeof(build_id))) {
		fprintf(stderr, "fixture-recording: cannot read %s\n", code);
		abort();
	}
	mm.prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	mm.path = code;
	mm.build_id = build_id;
	if (hwtr_writer_create(dir, &info, &w) ||
	    hwtr_writer_add_thread(w, 1, 0) || hwtr_writer_event(w, &mm) ||
	    hwtr_writer_finish(w, &end)) {
		fprintf(stderr, "fixture-recording: writer: %s\n", hwtr_last_error());
		abort();
	}
	hwtr_writer_free(w);
	scratch_drop_checks("rec");
}

void fixture_recording_use_trace(const char *trace)
{
	static uint8_t bytes[1 << 16];
	FILE *f = fopen(trace, "rb");
	size_t n;

	if (!f) {
		perror(trace);
		abort();
	}
	n = fread(bytes, 1, sizeof(bytes), f);
	fclose(f);
	scratch_write("rec/trace/1.pt", bytes, n);
}
