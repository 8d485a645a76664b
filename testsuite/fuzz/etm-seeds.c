/* etm-seeds.c: seed corpora of the ETM fuzzers, for make-seeds.c.
 *
 * ETMv4 traces along known paths through the unit tests' A64 fixture
 * (../unit/etm-encode.c): the main path, an overflow, bytes before the
 * first A-sync, code with no image, a packet cut short; raw (seeds-etm/,
 * first byte 0) and, with a second source, in CoreSight frames (first byte
 * 1).  seeds-snapshot/ holds snapshots of the same traces, joined as
 * fuzz-snapshot.c splits them. */
#include "etm-seeds.h"

#include "etm-encode.h"

#include <stdio.h>
#include <string.h>

#define RECORD_SEPARATOR "\n----\n"

static seed_writer write_file;

/* Source 0x11's path: into the loop at 0x1008, once round, out. */
static void other_path(struct etm_trace *t)
{
	etm_start(t, 0x1008);
	etm_atom(t, true);
	etm_atom(t, true);
	etm_atom(t, true);
	etm_addr(t, 0x1008);
	etm_atom(t, false);
	etm_atom(t, true);
}

static void snapshot_seed(const char *name, const char *format,
			  const uint8_t *trace, size_t len)
{
	static char text[1 << 16];
	struct etm_file files[ETM_SNAPSHOT_FILES];
	size_t n = 0, i;

	/* As fuzz-snapshot.c splits them. */
	etm_snapshot_files(format, 0, trace, len, files);
	for (i = 0; i < ETM_SNAPSHOT_FILES; i++) {
		if (i) {
			memcpy(text + n, RECORD_SEPARATOR, strlen(RECORD_SEPARATOR));
			n += strlen(RECORD_SEPARATOR);
		}
		memcpy(text + n, files[i].bytes, files[i].len);
		n += files[i].len;
	}
	write_file("seeds-snapshot", name, text, n);
}

/* TRACE raw and, beside source 0x11's path, in frames; and as a snapshot. */
static void seeds(const char *name, const struct etm_trace *t)
{
	static uint8_t frames[1 << 16], seed[1 << 16];
	struct etm_trace other = { .len = 0 };
	struct etm_source src[2];
	char fname[128];
	size_t len;

	/* fuzz-etm's first byte: 0 a raw stream, 1 CoreSight frames. */
	seed[0] = 0;
	memcpy(seed + 1, t->buf, t->len);
	write_file("seeds-etm", name, seed, t->len + 1);
	other_path(&other);
	src[0] = (struct etm_source){ .id = 0x10, .bytes = t->buf, .len = t->len };
	src[1] = (struct etm_source){ .id = 0x11, .bytes = other.buf, .len = other.len };
	len = etm_frames(src, 2, 7, frames, sizeof(frames));
	snprintf(fname, sizeof(fname), "%s-frames", name);
	seed[0] = 1;
	memcpy(seed + 1, frames, len);
	write_file("seeds-etm", fname, seed, len + 1);
	snapshot_seed(name, "source_data", t->buf, t->len);
	len = etm_frames(src, 1, 7, frames, sizeof(frames));
	snapshot_seed(fname, "coresight", frames, len);
}

void etm_seeds(seed_writer write)
{
	struct etm_trace t;

	write_file = write;
	t.len = 0;
	etm_main_path(&t);
	seeds("main-path", &t);

	t.len = 0;
	etm_start(&t, 0x1000);
	etm_atom(&t, true);
	etm_atom(&t, true);
	etm_addr(&t, 0x1008);
	etm_overflow(&t);
	other_path(&t);
	seeds("overflow", &t);

	t.len = 0;
	etm_bytes(&t, "\x55\x66\x77\x01\x02", 5);
	etm_main_path(&t);
	seeds("bytes-before-async", &t);

	t.len = 0;
	etm_start(&t, 0x9000);
	etm_atom(&t, true);
	etm_addr(&t, 0x1010);
	etm_atom(&t, true);
	seeds("no-image", &t);

	t.len = 0;
	etm_main_path(&t);
	etm_bytes(&t, "\x9d\x12\x34", 3);
	seeds("truncated", &t);

	t.len = 0;
	etm_periodic_async_path(&t);
	seeds("periodic-async", &t);
}
