/* test-damaged.c: damaged, hostile and huge variants of a fresh recording
 * (issue 16).
 *
 * The recording is written by the library's writer with libipt's encoder
 * over fixture-code.S: thread 1 runs the main path (29 instructions), thread
 * 2 its second part (16), both in a saved copy of the fixture, with a core.
 * Each variant damages one thing and must end in one of two ways: refused,
 * with a message naming the damaged file, or opened with the damage shown
 * (a gap or a cut-off note).  A variant that opens without either must give
 * the undamaged history: the fixture's labels (the assembler is the oracle),
 * instruction by instruction.  Links and FIFOs must not be followed or read,
 * and every variant runs under an alarm, so that a hang fails the test.
 */
#define _GNU_SOURCE	/* memrchr */
#include "fixture.h"
#include "check-main.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Seconds any one variant may take, under memcheck on a loaded machine. */
#define VARIANT_SECONDS 60

static char base[256], rec[300], outside[300];

struct blob {
	char *bytes;
	size_t len;
};

/* The files of the undamaged recording, to put back after each variant. */
static const char *const files[] = {
	"manifest.json", "sideband.jsonl", "trace/1.pt", "trace/2.pt", "core",
	"objects/fixture-copy",
};
#define NFILES (sizeof(files) / sizeof(files[0]))
static struct blob original[NFILES];

static char *path_in(const char *dir, const char *name)
{
	static char paths[4][600];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

static void read_blob(const char *path, struct blob *b)
{
	struct stat st;
	FILE *f;

	ck_assert_msg(stat(path, &st) == 0, "%s", path);
	b->len = (size_t)st.st_size;
	b->bytes = malloc(b->len + 1);
	ck_assert_ptr_nonnull(b->bytes);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(b->bytes, 1, b->len, f), b->len);
	b->bytes[b->len] = 0;
	fclose(f);
}

/* NAME of the recording holds LEN bytes of BYTES (whatever was there, a
 * link or a FIFO, is replaced). */
static void put(const char *name, const void *bytes, size_t len)
{
	char *path = path_in(rec, name);
	FILE *f;

	unlink(path);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
	fclose(f);
}

static int file_index(const char *name)
{
	size_t i;

	for (i = 0; i < NFILES; i++)
		if (!strcmp(files[i], name))
			return (int)i;
	ck_abort_msg("no file %s", name);
	return -1;
}

static void restore(void)
{
	char cmd[700];
	size_t i;

	/* A variant may have made trace/ a link. */
	if (unlink(path_in(rec, "trace")) == 0)
		ck_assert_int_eq(mkdir(path_in(rec, "trace"), 0755), 0);
	for (i = 0; i < NFILES; i++)
		put(files[i], original[i].bytes, original[i].len);
	snprintf(cmd, sizeof(cmd), "rm -f '%s/objects/fifo'", rec);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_recording(void)
{
	struct hwtr_writer_info info = { .source = "unit-test", .pid = 1 };
	struct hwtr_end end = { hwtr_end_signaled, 11 };
	struct hwtr_sideband_event mm;
	struct hwtr_writer *w;
	struct trace t1, t2;
	struct blob code, core = { "not an ELF core: the library only checks it", 0 };
	const char *saved;
	char *core_path = path_in(base, "core-to-move");
	size_t i;

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;
	info.pt.stepping = 4;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.executable = fixture_path();
	trace_begin(&t1);
	trace_main_path(&t1);
	trace_begin(&t2);
	trace_main_path_from_loop(&t2);
	read_blob(fixture_path(), &code);
	core.len = strlen(core.bytes);
	{
		FILE *f = fopen(core_path, "wb");

		ck_assert_ptr_nonnull(f);
		fwrite(core.bytes, 1, core.len, f);
		fclose(f);
	}
	ck_assert_int_eq(hwtr_writer_create(rec, &info, &w), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 2, 0), 0);
	ck_assert_int_eq(hwtr_writer_save_object(w, "fixture-copy", code.bytes,
						 code.len, &saved), 0);
	fixture_mapping(fixture_path(), 0, &mm);
	mm.build_id = fixture_build_id();
	mm.saved = saved;
	ck_assert_int_eq(hwtr_writer_event(w, &mm), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 1, t1.buf, trace_size(&t1)), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 2, t2.buf, trace_size(&t2)), 0);
	ck_assert_int_eq(hwtr_writer_add_core(w, core_path), 0);
	ck_assert_int_eq(hwtr_writer_finish(w, &end), 0);
	hwtr_writer_free(w);
	trace_end(&t1);
	trace_end(&t2);
	free(code.bytes);
	for (i = 0; i < NFILES; i++)
		read_blob(path_in(rec, files[i]), &original[i]);
}

static void setup(void)
{
	snprintf(base, sizeof(base), "%s", fixture_tmpdir());
	snprintf(rec, sizeof(rec), "%s/rec.hwtrec", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	write_recording();
}

static void teardown(void)
{
	size_t i;

	for (i = 0; i < NFILES; i++)
		free(original[i].bytes);
	fixture_cleanup();
}

/* ------------------------------------------------------------ outcomes */

struct outcome {
	int err;		/* of the open or the build */
	char message[1100];
	bool cut_off;
	uint64_t instructions[2], gaps[2];
	char gap_messages[1100];	/* all of them, joined */
	bool paths_match;	/* every instruction is the fixture's path */
	double seconds;
};

static const char *const *expected_labels(uint32_t tid, size_t *n)
{
	*n = tid == 1 ? 29 : 16;
	return tid == 1 ? main_path_labels : main_path_labels + 13;
}

static void read_thread(struct hwtr_thread *t, struct outcome *o, size_t k)
{
	struct hwtr_thread_stats st;
	struct hwtr_cursor *c;
	const char *const *labels;
	size_t nlabels;
	uint64_t n;

	ck_assert_int_eq(hwtr_thread_stats(t, &st), 0);
	o->instructions[k] = st.instructions;
	o->gaps[k] = st.gaps;
	labels = expected_labels(st.tid, &nlabels);
	if (st.instructions != nlabels)
		o->paths_match = false;
	if (!st.instructions)
		return;
	ck_assert_int_eq(hwtr_cursor_alloc(t, &c), 0);
	for (n = 1; n <= st.instructions; n++) {
		struct hwtr_insn insn;

		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		if (insn.gap) {
			size_t used = strlen(o->gap_messages);

			snprintf(o->gap_messages + used, sizeof(o->gap_messages) - used,
				 "%s; ", insn.gap->message);
			o->paths_match = false;
		} else if (n > nlabels || insn.ip != fixture_symbol(labels[n - 1])) {
			o->paths_match = false;
		}
	}
	hwtr_cursor_free(c);
}

/* Open and build the recording as it is now, under the alarm. */
static struct outcome try_open(void)
{
	struct hwtr_recording *r = NULL;
	struct hwtr_history *h = NULL;
	struct outcome o;
	struct timespec t0, t1;
	size_t k;

	memset(&o, 0, sizeof(o));
	o.paths_match = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	alarm(VARIANT_SECONDS);	/* a hang kills the test */
	o.err = hwtr_recording_open(rec, &r);
	if (!o.err)
		o.err = hwtr_history_build(r, NULL, &h);
	snprintf(o.message, sizeof(o.message), "%s", o.err ? hwtr_last_error() : "");
	if (!o.err) {
		o.cut_off = hwtr_recording_info(r)->cut_off;
		ck_assert_uint_le(hwtr_history_nthreads(h), 2);
		for (k = 0; k < hwtr_history_nthreads(h); k++)
			read_thread(hwtr_history_thread(h, k), &o, k);
		if (hwtr_history_nthreads(h) != 2)
			o.paths_match = false;
	}
	alarm(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	o.seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	hwtr_history_free(h);
	hwtr_recording_close(r);
	return o;
}

/* The variant WHAT is refused with a message naming FILE (and the
 * recording it is in). */
static void refused_naming(const char *what, const char *file)
{
	struct outcome o = try_open();

	ck_assert_msg(o.err < 0, "%s: opened (%llu and %llu instructions, %llu "
		      "and %llu gaps, cut off: %d): expected a refusal naming %s",
		      what, (unsigned long long)o.instructions[0],
		      (unsigned long long)o.instructions[1],
		      (unsigned long long)o.gaps[0], (unsigned long long)o.gaps[1],
		      o.cut_off, file);
	ck_assert_msg(strstr(o.message, file) != NULL,
		      "%s: refused with \"%s\", which does not name %s", what,
		      o.message, file);
}

/* The variant WHAT opens, shows its damage as a gap naming DAMAGE, and
 * reads nothing it must not. */
static void shown_as_gap(const char *what, const char *damage)
{
	struct outcome o = try_open();

	ck_assert_msg(o.err == 0, "%s: refused (%s): expected a gap", what,
		      o.message);
	ck_assert_msg(o.gaps[0] + o.gaps[1] > 0, "%s: no gap", what);
	ck_assert_msg(strstr(o.gap_messages, damage) != NULL,
		      "%s: the gaps (%s) do not name %s", what, o.gap_messages,
		      damage);
}

/* ---------------------------------------------------------- the variants */

START_TEST(the_undamaged_recording_is_the_fixture_path)
{
	struct outcome o = try_open();

	ck_assert_msg(o.err == 0, "%s", o.message);
	ck_assert(!o.cut_off);
	ck_assert_uint_eq(o.instructions[0] + o.instructions[1], 29 + 16);
	ck_assert_uint_eq(o.gaps[0] + o.gaps[1], 0);
	ck_assert(o.paths_match);
}
END_TEST

/* Packet boundaries of a stream by libipt's packet decoder (not ours). */
static size_t packet_boundaries(const struct blob *b, bool *boundary)
{
	struct pt_config config;
	struct pt_packet_decoder *d;
	struct pt_packet p;
	uint64_t offset;
	size_t n = 0;

	memset(boundary, 0, b->len + 1);
	pt_config_init(&config);
	config.begin = (uint8_t *)b->bytes;
	config.end = (uint8_t *)b->bytes + b->len;
	d = pt_pkt_alloc_decoder(&config);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_ge(pt_pkt_sync_set(d, 0), 0);
	for (;;) {
		ck_assert_int_ge(pt_pkt_get_offset(d, &offset), 0);
		boundary[offset] = true;
		n++;
		if (pt_pkt_next(d, &p, sizeof(p)) < 0)
			break;
	}
	pt_pkt_free_decoder(d);
	return n;
}

/* Main opened 12 of 35 such cuts as complete with a shorter history. */
START_TEST(every_cut_of_a_finished_stream_is_refused_naming_it)
{
	static const char *const streams[] = { "trace/1.pt", "trace/2.pt" };
	size_t s, k, at_boundary = 0, inside = 0;

	for (s = 0; s < 2; s++) {
		const struct blob *b = &original[file_index(streams[s])];
		bool *boundary = calloc(b->len + 1, 1);
		char what[100];

		ck_assert_uint_gt(packet_boundaries(b, boundary), 5);
		for (k = 0; k < b->len; k++) {
			snprintf(what, sizeof(what), "%s cut at %zu (%s)", streams[s],
				 k, boundary[k] ? "packet boundary" : "mid-packet");
			put(streams[s], b->bytes, k);
			refused_naming(what, streams[s]);
			*(boundary[k] ? &at_boundary : &inside) += 1;
		}
		/* Grown after the recorder finished. */
		{
			char *more = malloc(b->len + 17);

			memcpy(more, b->bytes, b->len);
			memset(more + b->len, 0, 17);	/* PAD packets */
			put(streams[s], more, b->len + 17);
			refused_naming("stream extended by PADs", streams[s]);
			free(more);
		}
		restore();
		free(boundary);
	}
	ck_assert_uint_gt(at_boundary, 10);
	ck_assert_uint_gt(inside, 10);
}
END_TEST

START_TEST(every_flipped_byte_is_refused_naming_its_file)
{
	static const char *const damaged[] = {
		"trace/1.pt", "trace/2.pt", "sideband.jsonl", "core",
		"objects/fixture-copy",
	};
	size_t f, k, step;

	for (f = 0; f < sizeof(damaged) / sizeof(damaged[0]); f++) {
		const struct blob *b = &original[file_index(damaged[f])];
		char *copy = malloc(b->len);

		/* Every byte of the small files; the fixture copy at 97
		 * places spread over it. */
		step = b->len > 1000 ? b->len / 97 : 1;
		for (k = 0; k < b->len; k += step) {
			char what[100];

			memcpy(copy, b->bytes, b->len);
			copy[k] ^= 0x20;
			put(damaged[f], copy, b->len);
			snprintf(what, sizeof(what), "%s with byte %zu flipped",
				 damaged[f], k);
			refused_naming(what, damaged[f]);
		}
		restore();
		free(copy);
	}
}
END_TEST

static json_t *manifest(void)
{
	json_t *root = json_loadb(original[0].bytes, original[0].len, 0, NULL);

	ck_assert_ptr_nonnull(root);
	return root;
}

static void put_manifest(json_t *root)
{
	char *text = json_dumps(root, JSON_INDENT(2));

	ck_assert_ptr_nonnull(text);
	put("manifest.json", text, strlen(text));
	free(text);
	json_decref(root);
}

static json_t *thread_of(json_t *root, size_t i)
{
	return json_array_get(json_object_get(root, "threads"), i);
}

/* A manifest as an older writer made it: no lengths, no checksums. */
static json_t *unchecked(json_t *root)
{
	json_object_del(root, "files");
	json_object_del(thread_of(root, 0), "stream_size");
	json_object_del(thread_of(root, 0), "stream_crc32");
	json_object_del(thread_of(root, 1), "stream_size");
	json_object_del(thread_of(root, 1), "stream_crc32");
	return root;
}

START_TEST(crafted_manifests_are_refused_naming_the_file)
{
	json_t *root, *t;
	size_t i;

	root = manifest();
	json_array_clear(json_object_get(root, "threads"));
	put_manifest(root);
	refused_naming("an empty thread list", "manifest.json");

	root = manifest();
	json_array_append(json_object_get(root, "threads"), thread_of(root, 0));
	put_manifest(root);
	refused_naming("a thread listed twice", "manifest.json");

	root = manifest();
	json_object_set_new(thread_of(root, 0), "tid", json_integer(2));
	put_manifest(root);
	refused_naming("two threads with one tid", "manifest.json");

	root = manifest();
	t = json_object_get(thread_of(root, 0), "stream");
	json_incref(t);
	json_object_set(thread_of(root, 0), "stream",
			json_object_get(thread_of(root, 1), "stream"));
	json_object_set_new(thread_of(root, 1), "stream", t);
	put_manifest(root);
	refused_naming("stream names swapped between threads", "trace/");

	root = manifest();
	json_object_set_new(thread_of(root, 1), "stream", json_string("trace/1.pt"));
	put_manifest(root);
	refused_naming("a stream named by two threads", "manifest.json");

	root = manifest();
	json_object_del(thread_of(root, 1), "stream");
	put_manifest(root);
	refused_naming("a thread without its stream name", "manifest.json");

	root = manifest();
	json_object_set_new(thread_of(root, 0), "trace_start",
			    json_integer((json_int_t)original[file_index("trace/1.pt")].len));
	put_manifest(root);
	refused_naming("trace_start at the stream's end", "trace/1.pt");
	root = unchecked(manifest());
	json_object_set_new(thread_of(root, 0), "trace_start",
			    json_integer((json_int_t)original[file_index("trace/1.pt")].len));
	put_manifest(root);
	refused_naming("trace_start at the stream's end, no checks", "trace/1.pt");

	root = manifest();
	json_object_set_new(root, "core", json_string("../outside/core"));
	put_manifest(root);
	refused_naming("core ../outside/core", "manifest.json");

	root = manifest();
	json_object_set_new(thread_of(root, 1), "stream", json_string("trace/../../x"));
	put_manifest(root);
	refused_naming("stream trace/../../x", "manifest.json");

	/* Many threads naming one stream: refused at once, not decoded 20000
	 * times. */
	root = manifest();
	for (i = 3; i < 20000; i++) {
		t = json_deep_copy(thread_of(root, 1));
		json_object_set_new(t, "tid", json_integer((json_int_t)i));
		json_array_append_new(json_object_get(root, "threads"), t);
	}
	put_manifest(root);
	refused_naming("20000 threads naming one stream", "manifest.json");
	restore();

	unlink(path_in(rec, "trace/2.pt"));
	refused_naming("a missing stream", "trace/2.pt");
	restore();
	unlink(path_in(rec, "core"));
	refused_naming("a missing core", "core");
	restore();

	/* The sideband cut at a line boundary: no half line says so. */
	{
		const struct blob *b = &original[file_index("sideband.jsonl")];
		char *last = memrchr(b->bytes, '\n', b->len - 1);

		ck_assert_ptr_nonnull(last);
		put("sideband.jsonl", b->bytes, (size_t)(last + 1 - b->bytes));
		refused_naming("sideband cut at its last line", "sideband.jsonl");
	}
	restore();

	/* A recording of an older writer is still read, unchecked. */
	put_manifest(unchecked(manifest()));
	{
		struct outcome o = try_open();

		ck_assert_msg(o.err == 0, "%s", o.message);
		ck_assert(o.paths_match);
	}
	restore();
}
END_TEST

/* NAME of the recording becomes a symbolic link to an identical copy
 * outside it. */
static void link_out(const char *name)
{
	char copy[700], cmd[4000];

	snprintf(copy, sizeof(copy), "%s/%s", outside, strrchr(name, '/') ?
		 strrchr(name, '/') + 1 : name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/%s' '%s' && rm -rf "
		 "'%s/%s' && ln -s '%s' '%s/%s'", copy, rec, name, copy, rec, name,
		 copy, rec, name);
	ck_assert_int_eq(system(cmd), 0);
}

static void make_fifo(const char *name)
{
	unlink(path_in(rec, name));
	ck_assert_int_eq(mkfifo(path_in(rec, name), 0600), 0);
}

START_TEST(links_and_fifos_are_never_followed_or_read)
{
	static const char *const named[] = {
		"trace/1.pt", "core", "objects/fixture-copy", "sideband.jsonl",
		"manifest.json",
	};
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		char what[100];

		link_out(named[i]);
		snprintf(what, sizeof(what), "%s a link to an identical copy",
			 named[i]);
		refused_naming(what, named[i]);
		restore();
		make_fifo(named[i]);
		snprintf(what, sizeof(what), "%s a FIFO", named[i]);
		refused_naming(what, named[i]);
		restore();
	}
	link_out("trace");
	refused_naming("trace/ a link to an identical copy", "trace/1.pt");
	restore();
}
END_TEST

/* The sideband's mmap event (line 3: after the two thread starts) as
 * JSON, to change in an unchecked recording. */
static json_t *mmap_event(void)
{
	const struct blob *b = &original[file_index("sideband.jsonl")];
	const char *line = b->bytes;
	json_t *ev;
	int k;

	for (k = 0; k < 2; k++)
		line = strchr(line, '\n') + 1;
	ev = json_loadb(line, (size_t)(strchr(line, '\n') - line), 0, NULL);
	ck_assert_ptr_nonnull(ev);
	ck_assert_str_eq(json_string_value(json_object_get(ev, "event")), "mmap");
	return ev;
}

/* The sideband with its mmap event replaced by EV (and more lines after
 * it), in a recording without checks. */
static void put_sideband(json_t *ev, const char *more)
{
	const struct blob *b = &original[file_index("sideband.jsonl")];
	const char *line = strchr(strchr(b->bytes, '\n') + 1, '\n') + 1;
	char *text = json_dumps(ev, JSON_COMPACT), *all;
	size_t n = (size_t)(line - b->bytes);

	ck_assert_ptr_nonnull(text);
	all = malloc(n + strlen(text) + (more ? strlen(more) : 0) + 2);
	memcpy(all, b->bytes, n);
	sprintf(all + n, "%s\n%s", text, more ? more : "");
	put("sideband.jsonl", all, strlen(all));
	free(all);
	free(text);
	json_decref(ev);
	put_manifest(unchecked(manifest()));
}

START_TEST(crafted_sideband_values_are_refused_or_shown)
{
	char stripped[700], cmd[2000], *many;
	json_t *ev;
	size_t i, used;

	ev = mmap_event();
	json_object_set_new(ev, "build_id", json_string("../../../../etc/passwd"));
	json_object_del(ev, "saved");
	put_sideband(ev, NULL);
	refused_naming("build_id with ../", "sideband.jsonl:3");

	ev = mmap_event();
	json_object_set_new(ev, "saved", json_string("../outside/copy"));
	put_sideband(ev, NULL);
	refused_naming("saved ../outside/copy", "sideband.jsonl:3");

	ev = mmap_event();
	json_object_set_new(ev, "len", json_integer(0));
	put_sideband(ev, NULL);
	refused_naming("a zero-length mmap", "sideband.jsonl:3");

	ev = mmap_event();
	json_object_set_new(ev, "addr", json_string("0xfffffffffffff000"));
	json_object_set_new(ev, "len", json_integer(0x2000));
	put_sideband(ev, NULL);
	refused_naming("a wrapping mmap", "sideband.jsonl:3");

	put_sideband(mmap_event(), "{\"event\":\"munmap\",\"tsc\":1,"
		     "\"addr\":\"0x1000\",\"len\":0}\n");
	refused_naming("a zero-length munmap", "sideband.jsonl:4");

	/* A file without a build-id is not the code of a mapping whose
	 * build-id the sideband names. */
	snprintf(stripped, sizeof(stripped), "%s/no-build-id", outside);
	snprintf(cmd, sizeof(cmd), "objcopy --remove-section=.note.gnu.build-id "
		 "'%s' '%s' 2>/dev/null", fixture_path(), stripped);
	ck_assert_int_eq(system(cmd), 0);
	ev = mmap_event();
	json_object_set_new(ev, "path", json_string(stripped));
	json_object_del(ev, "saved");
	put_sideband(ev, NULL);
	shown_as_gap("a mapped file without a build-id", "file has none");
	shown_as_gap("a mapped file without a build-id", fixture_build_id());

	ev = mmap_event();
	json_object_set_new(ev, "path", json_string(fixture_exec_path()));
	json_object_del(ev, "saved");
	put_sideband(ev, NULL);
	shown_as_gap("a mapped file with another build-id", "build-id mismatch");

	/* A saved copy or a mapped path that is a FIFO: a gap, no hang. */
	ck_assert_int_eq(mkfifo(path_in(rec, "objects/fifo"), 0600), 0);
	ev = mmap_event();
	json_object_set_new(ev, "saved", json_string("objects/fifo"));
	json_object_set_new(ev, "path", json_string("/nonexistent/fixture"));
	put_sideband(ev, NULL);
	shown_as_gap("a saved copy that is a FIFO", "objects/fifo");
	ev = mmap_event();
	json_object_set_new(ev, "path", json_string(path_in(rec, "objects/fifo")));
	json_object_del(ev, "saved");
	put_sideband(ev, NULL);
	shown_as_gap("a mapped path that is a FIFO", "objects/fifo");

	/* Without the checks too, a saved copy that is a link out of the
	 * recording is not read (no other file holds the code here). */
	restore();
	link_out("objects/fixture-copy");
	ev = mmap_event();
	json_object_set_new(ev, "path", json_string("/nonexistent/fixture"));
	put_sideband(ev, NULL);
	shown_as_gap("a saved copy that is a link, no checks", "objects/fixture-copy");
	restore();

	/* 10000 more mappings elsewhere: the history is the same, soon. */
	many = malloc(10000 * 200);
	ck_assert_ptr_nonnull(many);
	for (i = 0, used = 0; i < 10000; i++)
		used += (size_t)sprintf(many + used, "{\"event\":\"mmap\",\"tsc\":%zu,"
					"\"addr\":\"0x%llx\",\"len\":4096,\"pgoff\":0,"
					"\"prot\":\"r-x\",\"path\":\"/nonexistent/%zu\"}\n",
					i + 1, 0x10000000ULL + 0x2000ULL * i, i);
	put_sideband(mmap_event(), many);
	free(many);
	{
		struct outcome o = try_open();

		ck_assert_msg(o.err == 0, "%s", o.message);
		ck_assert(o.paths_match);
		fprintf(stderr, "test-damaged: 10000 mappings: %.2f s\n", o.seconds);
	}
	restore();
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("variants");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 0);	/* each variant has its alarm */
	tcase_add_test(tc, the_undamaged_recording_is_the_fixture_path);
	tcase_add_test(tc, every_cut_of_a_finished_stream_is_refused_naming_it);
	tcase_add_test(tc, every_flipped_byte_is_refused_naming_its_file);
	tcase_add_test(tc, crafted_manifests_are_refused_naming_the_file);
	tcase_add_test(tc, links_and_fifos_are_never_followed_or_read);
	tcase_add_test(tc, crafted_sideband_values_are_refused_or_shown);
	return check_run_tcase("damaged recordings", tc);
}
