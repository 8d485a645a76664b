/* test-history-file: the history index saved in a finished recording
 * (history.idx, libhwtrecord/history-file.c).
 *
 * A history read back from the file must be the history a build makes:
 * every segment, instruction and gap through the public API (the fuzzers'
 * history_same, ../fuzz/history-walk.c, plus the gaps' words, the stack
 * after the end and the times), on Intel PT recordings with calls, tail
 * calls and an overflow gap, and on ETM recordings of two trace units,
 * raw and in CoreSight frames.  The oracle for the history itself is the
 * build (test-history, test-etm, and testsuite/record against the
 * single-stepper, which also run with the file present).  A file that is
 * stale, damaged or of another version is not used: one line on stderr
 * names it and the reason, the history is built, and the file is written
 * again.  A recording still being written never gets one. */
#include "etm-encode.h"
#include "fixture.h"
#include "history.h"
#include "../fuzz/history-walk.h"

#include "check-main.h"
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <lz4.h>

#include "history-idx-layout.h"


static char dir[400];

static void index_path(char *out, size_t size)
{
	snprintf(out, size, "%s/history.idx", dir);
}

static bool index_exists(void)
{
	char path[450];
	struct stat st;

	index_path(path, sizeof(path));
	return stat(path, &st) == 0;
}

/* A build of DIR (the saved index used when ALLOW_SAVED), and what the
 * library said on stderr meanwhile. */
static struct hwtr_history *open_history(struct hwtr_recording **rec,
					 bool allow_saved, char *said, size_t size)
{
	struct hwtr_history_options opt = { .no_saved_index = !allow_saved };
	struct hwtr_history *h = NULL;
	char log[450];
	int fd, saved_fd;
	ssize_t n;

	snprintf(log, sizeof(log), "%s.stderr", dir);
	fd = open(log, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved_fd = dup(2);
	ck_assert_int_ge(saved_fd, 0);
	ck_assert_int_ge(dup2(fd, 2), 0);
	ck_assert_msg(hwtr_recording_open(dir, rec) == 0, "%s", hwtr_last_error());
	ck_assert_msg(hwtr_history_build(*rec, &opt, &h) == 0, "%s", hwtr_last_error());
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	n = pread(fd, said, size - 1, 0);
	said[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(log);
	return h;
}

static void close_history(struct hwtr_recording *rec, struct hwtr_history *h)
{
	hwtr_history_free(h);
	hwtr_recording_close(rec);
}

/* What history_same leaves out: the gaps' words, the times, the stack an
 * instruction after the end gets, the context IDs. */
static void same_details(struct hwtr_history *a, struct hwtr_history *b)
{
	size_t i;

	for (i = 0; i < hwtr_history_nthreads(a); i++) {
		struct hwtr_thread *ta = hwtr_history_thread(a, i);
		struct hwtr_thread *tb = hwtr_history_thread(b, i);
		struct hwtr_thread_stats sa, sb;
		struct hwtr_segment xa[8], xb[8];
		const uint32_t *ida, *idb;
		size_t nida, nidb;
		struct hwtr_cursor *ca, *cb;
		uint64_t n, probe;
		int ka, kb;

		ck_assert_int_eq(hwtr_thread_stats(ta, &sa), 0);
		ck_assert_int_eq(hwtr_thread_stats(tb, &sb), 0);
		ck_assert_uint_eq(sa.trace_bytes, sb.trace_bytes);
		ck_assert_int_eq(hwtr_thread_context_ids(ta, &ida, &nida), 0);
		ck_assert_int_eq(hwtr_thread_context_ids(tb, &idb, &nidb), 0);
		ck_assert_uint_eq(nida, nidb);
		ck_assert(nida == 0 || !memcmp(ida, idb, nida * sizeof(*ida)));
		/* After the end: the next instruction, a return target, a
		 * call target: the index pass's last block decides. */
		for (probe = 0; probe < 3 && sa.instructions; probe++) {
			uint64_t ip = probe == 0 ? 0 : probe == 1 ? fixture_symbol("i2")
								  : 0x1020;

			ka = hwtr_thread_callstack_next(ta, ip, xa, 8);
			kb = hwtr_thread_callstack_next(tb, ip, xb, 8);
			ck_assert_int_eq(ka, kb);
			for (int k = 0; k < ka; k++)
				ck_assert_msg(xa[k].number == xb[k].number &&
					      xa[k].level == xb[k].level &&
					      xa[k].up == xb[k].up &&
					      xa[k].function_start == xb[k].function_start,
					      "thread %zu: the stack after the end "
					      "differs at frame %d", i, k);
		}
		if (!sa.instructions)
			continue;
		ck_assert_int_eq(hwtr_cursor_alloc(ta, &ca), 0);
		ck_assert_int_eq(hwtr_cursor_alloc(tb, &cb), 0);
		for (n = 1; n <= sa.instructions; n++) {
			struct hwtr_insn x, y;
			uint64_t tx = 0, ty = 0;

			ck_assert_int_eq(hwtr_cursor_goto(ca, n), 0);
			ck_assert_int_eq(hwtr_cursor_goto(cb, n), 0);
			ck_assert_int_eq(hwtr_cursor_insn(ca, &x), 0);
			ck_assert_int_eq(hwtr_cursor_insn(cb, &y), 0);
			ck_assert_int_eq(!x.gap, !y.gap);
			if (x.gap) {
				ck_assert_str_eq(x.gap->message, y.gap->message);
				ck_assert_str_eq(x.gap->kind, y.gap->kind);
				ck_assert_uint_eq(x.gap->offset, y.gap->offset);
				ck_assert_int_eq(x.gap->error, y.gap->error);
				ck_assert_int_eq(x.gap->pt_error, y.gap->pt_error);
			}
			ck_assert_int_eq(hwtr_thread_insn_time(ta, n, &tx),
					 hwtr_thread_insn_time(tb, n, &ty));
			ck_assert_uint_eq(tx, ty);
		}
		hwtr_cursor_free(ca);
		hwtr_cursor_free(cb);
	}
}

/* The recording at DIR: a build writes history.idx, the next open reads
 * it, and what it reads is what a build without it makes. */
static void saved_is_built(void)
{
	struct hwtr_recording *rf, *r1, *r2;
	struct hwtr_history *fresh, *first, *again;
	char said[2048];

	fresh = open_history(&rf, false, said, sizeof(said));
	ck_assert_msg(!index_exists(), "no_saved_index wrote history.idx");
	ck_assert_int_eq(hwtr_history_index_source(fresh), hwtr_index_built);
	first = open_history(&r1, true, said, sizeof(said));
	ck_assert_str_eq(said, "");
	ck_assert_int_eq(hwtr_history_index_source(first), hwtr_index_built);
	ck_assert_msg(index_exists(), "the first build saved no history.idx");
	again = open_history(&r2, true, said, sizeof(said));
	ck_assert_str_eq(said, "");
	ck_assert_int_eq(hwtr_history_index_source(again), hwtr_index_saved);
	ck_assert_uint_gt(hwtr_history_nthreads(again), 0);
	history_same(again, fresh);
	same_details(again, fresh);
	close_history(r2, again);
	close_history(r1, first);
	close_history(rf, fresh);
}

static void pt_recording(const char *name, void (*path)(struct trace *),
			 const char *binary)
{
	struct trace t;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_tmpdir(), name);
	trace_begin(&t);
	path(&t);
	fixture_recording(dir, t.buf, trace_size(&t), binary, NULL);
	trace_end(&t);
}

/* The main path, twice over, with an overflow between. */
static void main_path_with_overflow(struct trace *t)
{
	trace_main_path(t);
	enc_ovf(t);
	trace_main_path(t);
}

START_TEST(an_intel_pt_history_read_back_is_the_built_one)
{
	pt_recording("main.hwtrec", trace_main_path, NULL);
	saved_is_built();
	fixture_cleanup();
	pt_recording("ovf.hwtrec", main_path_with_overflow, NULL);
	saved_is_built();
	fixture_cleanup();
}
END_TEST

static void etm_saved_is_built(bool formatted)
{
	struct etm_trace a = { .len = 0 }, b = { .len = 0 };
	struct etm_source src[2] = { { .id = 0x10 }, { .id = 0x11 } };

	etm_main_path(&a);
	etm_periodic_async_path(&b);
	src[0].bytes = a.buf;
	src[0].len = a.len;
	src[1].bytes = b.buf;
	src[1].len = b.len;
	snprintf(dir, sizeof(dir), "%s/etm.hwtrec", fixture_tmpdir());
	ck_assert_msg(etm_fixture_recording(dir, src, 2, formatted) == 0, "%s",
		      hwtr_last_error());
	saved_is_built();
	fixture_cleanup();
}

START_TEST(a_history_read_back_extends_like_a_built_one)
{
	struct hwtr_recording *rf, *r1, *r2;
	struct hwtr_history *fresh, *first, *h;
	struct hwtr_thread_stats st;
	char said[2048];

	pt_recording("ext.hwtrec", main_path_with_overflow, NULL);
	first = open_history(&r1, true, said, sizeof(said));
	h = open_history(&r2, true, said, sizeof(said));
	ck_assert_int_eq(hwtr_history_index_source(h), hwtr_index_saved);
	/* A finished recording does not grow: nothing to decode. */
	ck_assert_int_eq(hwtr_recording_refresh(r2), 0);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert(!st.rebuilt);
	ck_assert_uint_eq(st.decoded_instructions, 0);
	fresh = open_history(&rf, false, said, sizeof(said));
	history_same(h, fresh);
	close_history(rf, fresh);
	close_history(r2, h);
	close_history(r1, first);
	fixture_cleanup();
}
END_TEST

START_TEST(an_etm_history_read_back_is_the_built_one)
{
	etm_saved_is_built(false);
	etm_saved_is_built(true);
}
END_TEST

/* ------------------------------------------------- files not to trust */

static void read_file(const char *path, uint8_t **bytes, size_t *size)
{
	struct stat st;
	FILE *f;

	ck_assert_int_eq(stat(path, &st), 0);
	*size = (size_t)st.st_size;
	*bytes = malloc(*size + 1);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(*bytes, 1, *size, f), *size);
	fclose(f);
}

static void write_file(const char *path, const uint8_t *bytes, size_t size)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
	fclose(f);
}

/* The first section of KIND: its offset, and its index in the table. */
static uint64_t section_offset(const uint8_t *file, uint32_t kind, size_t *entry)
{
	uint32_t n = get32(file + HEADER_NSECTIONS), k;
	uint64_t off;

	for (k = 0; k < n; k++) {
		const uint8_t *e = file + HEADER_SIZE + k * SECTION_ENTRY;

		if (get32(e) == kind) {
			memcpy(&off, e + 8, 8);
			*entry = k;
			return off;
		}
	}
	ck_abort_msg("no section of kind %u", kind);
	return 0;
}

static uint64_t segments_offset(const uint8_t *file, size_t *entry)
{
	return section_offset(file, SECTION_SEGMENTS, entry);
}

/* Open DIR (its history.idx as CHANGE left it): the index is built, not
 * read, stderr says WANT in one line naming the file, the history is what
 * a build makes, and the file is saved again for the next open. */
static void not_trusted(const char *want)
{
	struct hwtr_recording *rf, *r1, *r2;
	struct hwtr_history *fresh, *h, *again;
	char said[2048], path[450];

	index_path(path, sizeof(path));
	h = open_history(&r1, true, said, sizeof(said));
	ck_assert_int_eq(hwtr_history_index_source(h), hwtr_index_built);
	ck_assert_msg(strstr(said, path) == said && strstr(said, want) &&
		      strchr(said, '\n') == said + strlen(said) - 1,
		      "wanted one line naming %s and saying \"%s\", got \"%s\"",
		      path, want, said);
	fresh = open_history(&rf, false, said, sizeof(said));
	history_same(h, fresh);
	again = open_history(&r2, true, said, sizeof(said));
	ck_assert_str_eq(said, "");
	ck_assert_int_eq(hwtr_history_index_source(again), hwtr_index_saved);
	history_same(again, fresh);
	close_history(r2, again);
	close_history(rf, fresh);
	close_history(r1, h);
}

/* A recording of the main path with its index saved; the file's bytes. */
static void saved_main_path(uint8_t **file, size_t *size)
{
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	char said[2048], path[450];

	pt_recording("r.hwtrec", trace_main_path, NULL);
	h = open_history(&rec, true, said, sizeof(said));
	close_history(rec, h);
	index_path(path, sizeof(path));
	read_file(path, file, size);
}

START_TEST(a_damaged_index_is_rebuilt_with_a_message)
{
	char path[450];
	uint8_t *file;
	size_t size, entry;
	uint64_t seg;

	/* A flipped byte in the segments. */
	saved_main_path(&file, &size);
	index_path(path, sizeof(path));
	seg = segments_offset(file, &entry);
	file[seg + 9] ^= 0x40;
	write_file(path, file, size);
	not_trusted("damaged: section 3 (segments of thread 0) at offset");
	/* Cut short. */
	write_file(path, file, size - 7);
	not_trusted("(cut)");
	/* A flipped byte in the header. */
	file[HEADER_CHUNK_SIZE + 1] ^= 1;
	write_file(path, file, size);
	not_trusted("damaged: header CRC-32");
	free(file);
	fixture_cleanup();
}
END_TEST

START_TEST(an_index_of_another_version_is_rebuilt_with_a_message)
{
	char path[450];
	uint8_t *file;
	size_t size;

	uint32_t version;
	char want[200];

	saved_main_path(&file, &size);
	index_path(path, sizeof(path));
	/* The library's version is what the file it saved says. */
	version = get32(file + HEADER_INDEX_VERSION);
	ck_assert_uint_ge(version, 1);
	put32(file + HEADER_INDEX_VERSION, version + 1);
	reseal_header(file);
	write_file(path, file, size);
	/* Format 2: the segments in LZ4 runs. */
	ck_assert_uint_eq(get32(file + HEADER_FORMAT), 2);
	snprintf(want, sizeof(want), "another version: format 2, index version "
		 "%u (this library: format 2, index version %u)", version + 1,
		 version);
	not_trusted(want);
	free(file);
	/* Another layout of struct chunk (the chunk filter grew). */
	read_file(path, &file, &size);
	put32(file + HEADER_CHUNK_SIZE, get32(file + HEADER_CHUNK_SIZE) + 8);
	reseal_header(file);
	write_file(path, file, size);
	not_trusted("another version: record sizes chunk");
	free(file);
	fixture_cleanup();
}
END_TEST

static const uint8_t *skip_varint(const uint8_t *p)
{
	while (*p & 0x80)
		p++;
	return p + 1;
}

/* Section ENTRY of *FILE (*SIZE bytes) from its byte AT on replaced by
 * the LEN bytes at BYTES: the sections after it moved by whole 64-byte
 * steps (they stay aligned), the table saying where they are now. */
static void replace_section(uint8_t **file, size_t *size, size_t entry,
			    uint64_t at, const uint8_t *bytes, uint64_t len)
{
	uint8_t *e = *file + HEADER_SIZE + entry * SECTION_ENTRY, *out;
	uint32_t n = get32(*file + HEADER_NSECTIONS), k;
	uint64_t off, old, end, shift, new_size;

	memcpy(&off, e + 8, 8);
	memcpy(&old, e + 16, 8);
	end = (off + old + 63) / 64 * 64;	/* the next section's start */
	if (end > *size)
		end = *size;
	shift = (off + at + len + 63) / 64 * 64 - end;	/* may wrap: mod 2^64 */
	new_size = *size + shift;
	out = calloc(1, new_size);
	memcpy(out, *file, off + at);
	memcpy(out + off + at, bytes, len);
	memcpy(out + end + shift, *file + end, *size - end);
	for (k = 0; k < n; k++) {
		uint8_t *ek = out + HEADER_SIZE + k * SECTION_ENTRY;
		uint64_t ok;

		memcpy(&ok, ek + 8, 8);
		if (ok >= end) {
			ok += shift;
			memcpy(ek + 8, &ok, 8);
		}
	}
	old = at + len;
	memcpy(out + HEADER_SIZE + entry * SECTION_ENTRY + 16, &old, 8);
	free(*file);
	*file = out;
	*size = new_size;
}

/* In a thread's segments (one group: few segments) decompressed from
 * their run at RUN, the first segment whose link to its next part is one
 * byte: its number, and *LINK that byte; 0 when there is none. */
static unsigned next_link_byte(uint8_t *run, uint8_t **link)
{
	uint8_t *p = run;	/* one group: the run's table is empty */
	unsigned number;

	for (number = 1; number <= 12; number++) {
		unsigned h = p[0], h2 = p[1];

		p = (uint8_t *)skip_varint(p + 2);	/* insn_begin */
		if ((h2 & 3) == 3)			/* level, coded */
			p = (uint8_t *)skip_varint(p);
		if (h & 0x10)				/* more flags */
			p = (uint8_t *)skip_varint(p);
		if (!(h & 0x20) && !(h2 & 0x10))	/* up, coded */
			p = (uint8_t *)skip_varint(p);
		if (!(h & 0x40))			/* prev */
			p = (uint8_t *)skip_varint(p);
		if (!(h & 0x80)) {			/* next */
			if (!(*p & 0x80)) {
				*link = p;
				return number;
			}
			p = (uint8_t *)skip_varint(p);
		}
		if (!(h2 & 0xc))			/* function, coded */
			p = (uint8_t *)skip_varint(p);
	}
	return 0;
}

/* The saved index as CHANGE left it, with good checksums and a segment
 * NUMBER that breaks a rule, is opened (its segments are checked a group
 * at a time when first read, not at the open), says nothing until that
 * segment is read; then one line naming the file says WANT, the segment
 * reads as empty, the file is gone, and the next open builds the history
 * and saves it again. */
static void damaged_when_read(uint64_t number, const char *want)
{
	struct hwtr_recording *rf, *r1, *r2, *r3;
	struct hwtr_history *fresh, *h, *built, *again;
	struct hwtr_segment seg;
	char said[2048], path[450], log[450];
	int fd, saved_fd;
	ssize_t n;

	index_path(path, sizeof(path));
	h = open_history(&r1, true, said, sizeof(said));
	ck_assert_int_eq(hwtr_history_index_source(h), hwtr_index_saved);
	ck_assert_str_eq(said, "");
	snprintf(log, sizeof(log), "%s.stderr", dir);
	fd = open(log, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	saved_fd = dup(2);
	ck_assert_int_ge(dup2(fd, 2), 0);
	ck_assert_int_eq(hwtr_thread_segment(hwtr_history_thread(h, 0), number,
					     &seg), 0);
	/* Read again: said once. */
	ck_assert_int_eq(hwtr_thread_segment(hwtr_history_thread(h, 0), number,
					     &seg), 0);
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	n = pread(fd, said, sizeof(said) - 1, 0);
	said[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(log);
	ck_assert_msg(strstr(said, path) == said && strstr(said, want) &&
		      strchr(said, '\n') == said + strlen(said) - 1,
		      "wanted one line naming %s and saying \"%s\", got \"%s\"",
		      path, want, said);
	ck_assert_uint_eq(seg.next, 0);
	ck_assert_uint_eq(seg.insn_begin, 0);
	ck_assert_msg(!index_exists(), "the damaged history.idx was kept");
	close_history(r1, h);
	built = open_history(&r2, true, said, sizeof(said));
	ck_assert_int_eq(hwtr_history_index_source(built), hwtr_index_built);
	ck_assert_str_eq(said, "");
	fresh = open_history(&rf, false, said, sizeof(said));
	history_same(built, fresh);
	again = open_history(&r3, true, said, sizeof(said));
	ck_assert_int_eq(hwtr_history_index_source(again), hwtr_index_saved);
	history_same(again, fresh);
	close_history(r3, again);
	close_history(rf, fresh);
	close_history(r2, built);
}

START_TEST(an_index_with_good_checksums_and_bad_links_is_rebuilt)
{
	char path[450];
	uint8_t *file;
	size_t size, entry;
	uint64_t seg;
	uint8_t *link;
	unsigned number;
	char want[200];

	saved_main_path(&file, &size);
	index_path(path, sizeof(path));
	seg = segments_offset(file, &entry);
	/* A segment's link to its next part (its last varint, one byte, in
	 * the store's coding: libhwtrecord/segment-store.c) made to point
	 * 50 segments past itself, past the last one, in the segments' one
	 * run (a table entry, then its frame: its block's size and the block
	 * compressed with LZ4) compressed again, every checksum made to
	 * match. */
	{
		uint64_t len, off;
		uint32_t content;
		uint8_t *run, *frame;
		int framed;

		memcpy(&len, file + HEADER_SIZE + entry * SECTION_ENTRY + 16, 8);
		memcpy(&off, file + seg, 8);
		ck_assert_uint_eq(off, 0);
		memcpy(&content, file + seg + 16, 4);
		ck_assert(content < 65536);
		run = malloc(content);
		ck_assert_int_eq(LZ4_decompress_safe((const char *)file + seg + 20,
						     (char *)run, (int)(len - 20),
						     (int)content), (int)content);
		number = next_link_byte(run, &link);
		ck_assert_uint_gt(number, 0);
		*link = 100;	/* zigzag(-50) + 1 */
		frame = malloc(4 + LZ4_compressBound((int)content));
		memcpy(frame, &content, 4);
		framed = LZ4_compress_default((const char *)run,
					      (char *)frame + 4, (int)content,
					      LZ4_compressBound((int)content));
		ck_assert_int_gt(framed, 0);
		replace_section(&file, &size, entry, 16, frame, 4 + (uint64_t)framed);
		free(frame);
		free(run);
	}
	reseal(file, size);
	write_file(path, file, size);
	snprintf(want, sizeof(want), "damaged: thread 1's segments: segment %u "
		 "out of order or range", number);
	damaged_when_read(number, want);
	free(file);
	/* A level base (struct saved_thread: tid, then the base) below 0:
	 * levels would print below 0.  (One larger than minus the lowest
	 * level only indents the listings more: the open no longer reads
	 * every segment to find the lowest.) */
	read_file(path, &file, &size);
	{
		uint64_t th = section_offset(file, 2, &entry);

		put32(file + th + 4, (uint32_t)-1);
		reseal(file, size);
	}
	write_file(path, file, size);
	not_trusted("damaged: thread 1's level base -1");
	free(file);
	/* A chunk's code ranges counted past their array (a lookup would
	 * read beyond it), then out of order: refused before any search. */
	read_file(path, &file, &size);
	{
		uint64_t ch = section_offset(file, SECTION_CHUNKS, &entry);
		uint8_t *ranges = file + ch + offsetof(struct chunk, ranges);

		ck_assert_uint_le(get32(ranges), CODE_RANGES_MAX);
		put32(ranges, CODE_RANGES_MAX + 1);
		reseal(file, size);
		write_file(path, file, size);
		not_trusted("damaged: thread 1 chunk 0: its code ranges are not "
			    "sorted or too many");
		free(file);
		read_file(path, &file, &size);
		ch = section_offset(file, SECTION_CHUNKS, &entry);
		ranges = file + ch + offsetof(struct chunk, ranges);
		put32(ranges, 2);
		memset(ranges + 8, 0, 32);	/* two ranges at 0, touching */
		reseal(file, size);
	}
	write_file(path, file, size);
	not_trusted("damaged: thread 1 chunk 0: its code ranges");
	free(file);
	fixture_cleanup();
}
END_TEST

START_TEST(a_stale_index_is_rebuilt_with_a_message)
{
	char path[450], other[450], cmd[2000];
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_thread_stats st;
	char said[2048];
	uint8_t *file;
	size_t size;
	json_t *root;
	uint64_t main_insns, other_insns;

	/* The manifest written again (the same fields, other bytes). */
	saved_main_path(&file, &size);
	free(file);
	h = open_history(&rec, false, said, sizeof(said));
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	main_insns = st.instructions;
	close_history(rec, h);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	root = json_load_file(path, 0, NULL);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(json_dump_file(root, path, JSON_COMPACT), 0);
	json_decref(root);
	not_trusted("stale: manifest.json changed since it was saved");

	/* Another trace and its manifest: the index of the first must not
	 * give the main path's instructions for the second's fewer. */
	snprintf(other, sizeof(other), "%s/../other.hwtrec", dir);
	{
		struct trace t;

		trace_begin(&t);
		trace_main_path_from_loop(&t);
		fixture_recording(other, t.buf, trace_size(&t), NULL, NULL);
		trace_end(&t);
	}
	snprintf(cmd, sizeof(cmd), "cp '%s/trace/1.pt' '%s/trace/1.pt' && "
		 "cp '%s/manifest.json' '%s/manifest.json'", other, dir, other, dir);
	ck_assert_int_eq(system(cmd), 0);
	not_trusted("stale: manifest.json changed");
	h = open_history(&rec, true, said, sizeof(said));
	ck_assert_int_eq(hwtr_history_index_source(h), hwtr_index_saved);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	close_history(rec, h);
	other_insns = st.instructions;
	snprintf(dir, sizeof(dir), "%.*s", (int)sizeof(dir) - 1, other);
	h = open_history(&rec, false, said, sizeof(said));
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	close_history(rec, h);
	ck_assert_uint_eq(other_insns, st.instructions);
	ck_assert_uint_lt(other_insns, main_insns);
	fixture_cleanup();
}
END_TEST

START_TEST(an_index_over_a_changed_binary_is_rebuilt_with_a_message)
{
	char binary[450], cmd[1000];
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };
	const char *tmp = fixture_tmpdir();
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	char said[2048];

	/* The recording maps a copy of the fixture, found at its path. */
	snprintf(binary, sizeof(binary), "%s/fixture-copy", tmp);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", fixture_path(), binary);
	ck_assert_int_eq(system(cmd), 0);
	{
		struct trace t;

		snprintf(dir, sizeof(dir), "%s/bin.hwtrec", tmp);
		trace_begin(&t);
		trace_main_path(&t);
		fixture_recording(dir, t.buf, trace_size(&t), binary, NULL);
		trace_end(&t);
	}
	h = open_history(&rec, true, said, sizeof(said));
	close_history(rec, h);
	ck_assert(index_exists());
	ck_assert_int_eq(utimensat(AT_FDCWD, binary, times, 0), 0);
	not_trusted("stale: a binary the history reads changed");
	fixture_cleanup();
}
END_TEST

/* A copy of the binary inside the recording that the manifest's "files"
 * does not list (one copied in by hand here; a recording cut off before
 * its end has such copies too) is rewritten with other bytes of the same
 * size: its name and size are what they were, its bytes are not. */
START_TEST(an_index_over_a_rewritten_unlisted_copy_is_rebuilt)
{
	char copy[480], cmd[1100];
	struct hwtr_sideband_event mm;
	struct timespec times[2];
	struct stat before;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct trace t;
	char said[2048];
	FILE *f;
	long size;

	snprintf(dir, sizeof(dir), "%s/copy.hwtrec", fixture_tmpdir());
	fixture_mapping(fixture_path(), 0, &mm);
	mm.build_id = fixture_build_id();
	mm.saved = "objects/code";
	trace_begin(&t);
	trace_main_path(&t);
	fixture_recording_with(dir, t.buf, trace_size(&t), &mm, 1);
	trace_end(&t);
	snprintf(copy, sizeof(copy), "%s/objects/code", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/objects' && cp '%s' '%s'",
		 dir, fixture_path(), copy);
	ck_assert_int_eq(system(cmd), 0);
	h = open_history(&rec, true, said, sizeof(said));
	close_history(rec, h);
	ck_assert(index_exists());
	/* The mapped code (not the symbols) becomes int3s, in place, and the
	 * file's times are put back (as a rewrite within one tick of the
	 * file system's clock leaves them). */
	ck_assert_int_eq(stat(copy, &before), 0);
	f = fopen(copy, "r+");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, (long)mm.pgoff, SEEK_SET), 0);
	for (size = (long)mm.len; size > 0; size--)
		ck_assert_int_eq(fputc(0xcc, f), 0xcc);
	ck_assert_int_eq(fclose(f), 0);
	times[0] = before.st_atim;
	times[1] = before.st_mtim;
	ck_assert_int_eq(utimensat(AT_FDCWD, copy, times, 0), 0);
	not_trusted("stale: a binary the history reads changed");
	fixture_cleanup();
}
END_TEST

START_TEST(a_recording_still_being_written_keeps_no_index)
{
	struct hwtr_writer_info info = { .source = "unit-test", .pid = 1 };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_writer *w;
	struct trace t;
	char said[2048];
	int round;

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.executable = fixture_path();
	snprintf(dir, sizeof(dir), "%s/live.hwtrec", fixture_tmpdir());
	ck_assert_int_eq(hwtr_writer_create(dir, &info, &w), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	{
		struct hwtr_sideband_event ev;

		fixture_mapping(fixture_path(), 0, &ev);
		ck_assert_int_eq(hwtr_writer_event(w, &ev), 0);
	}
	trace_begin(&t);
	trace_main_path(&t);
	ck_assert_int_eq(hwtr_writer_trace(w, 1, t.buf, trace_size(&t)), 0);
	trace_end(&t);
	ck_assert_int_eq(hwtr_writer_flush(w), 0);
	for (round = 0; round < 2; round++) {
		h = open_history(&rec, true, said, sizeof(said));
		ck_assert_int_eq(hwtr_history_index_source(h), hwtr_index_built);
		ck_assert_msg(!index_exists(), "a live recording got history.idx");
		close_history(rec, h);
	}
	hwtr_writer_free(w);
	fixture_cleanup();
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("saved index");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, an_intel_pt_history_read_back_is_the_built_one);
	tcase_add_test(tc, an_etm_history_read_back_is_the_built_one);
	tcase_add_test(tc, a_history_read_back_extends_like_a_built_one);
	tcase_add_test(tc, a_damaged_index_is_rebuilt_with_a_message);
	tcase_add_test(tc, an_index_of_another_version_is_rebuilt_with_a_message);
	tcase_add_test(tc, an_index_with_good_checksums_and_bad_links_is_rebuilt);
	tcase_add_test(tc, a_stale_index_is_rebuilt_with_a_message);
	tcase_add_test(tc, an_index_over_a_rewritten_unlisted_copy_is_rebuilt);
	tcase_add_test(tc, an_index_over_a_changed_binary_is_rebuilt_with_a_message);
	tcase_add_test(tc, a_recording_still_being_written_keeps_no_index);
	return check_run_tcase("history-file", tc);
}
