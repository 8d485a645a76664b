/* make-seeds.c: writes the fuzzers' seed corpora (`make seeds`).
 *
 * Decoder seeds are Intel PT streams written with libipt's encoder along real
 * paths through the unit tests' fixture code (testsuite/unit/fixture-code.S,
 * linked at fixed addresses), plus the error cases the decoder must survive:
 * overflow, a truncated packet, garbage between PSBs, bytes before the first
 * PSB, tracing disabled and re-enabled.  Recording seeds are recordings made
 * by the library's writer, joined into one input as fuzz-recording.c splits
 * them, plus a few that are cut off or malformed.
 *
 * The ETM fuzzers' seeds come from etm-seeds.c.
 *
 * Usage: make-seeds FIXTURE OUTDIR  (writes OUTDIR/seeds-decoder/,
 * OUTDIR/seeds-recording/, OUTDIR/seeds-etm/, OUTDIR/seeds-snapshot/ and
 * the hand-made cases in OUTDIR/regressions/). */
#define _GNU_SOURCE
#include "elf-facts.h"
#include "etm-seeds.h"
#include "../unit/pt-encode.h"

#include "hwtrecord.h"

#include <intel-pt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_SEPARATOR "\n----\n"

static const char *fixture;
static const char *outdir;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "make-seeds: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static uint64_t sym(const char *name)
{
	uint64_t v = elf_symbol(fixture, name);

	if (!v)
		die("no symbol %s in %s", name, fixture);
	return v;
}

/* ------------------------------------------------------------ encoding */

/* The unit tests' main path (fixture.c): the loop three times through leaf,
 * outer -> leaf, a tail jump to tail, back to _start, an indirect jump to
 * done, and the exit system call. */
static void main_path(struct trace *t)
{
	enc_psb(t, sym("i1"), 100);
	enc_tnt(t, "1111");
	enc_psb(t, sym("loop"), 200);
	enc_tnt(t, "1011");
	enc_tip(t, sym("done"));
	enc_tip_pgd(t);
}

/* ------------------------------------------------------------- output */

static void write_file(const char *sub, const char *name, const void *a,
		       size_t n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
	f = fopen(path, "wb");
	if (!f || (n && fwrite(a, 1, n, f) != n) || fclose(f))
		die("cannot write %s", path);
}

static void decoder_seed(const char *name, struct trace *t)
{
	write_file("seeds-decoder", name, t->buf, trace_size(t));
	trace_end(t);
}

static void decoder_seeds(void)
{
	struct trace t;
	size_t i, cut;
	char bits[48];

	trace_begin(&t);
	main_path(&t);
	decoder_seed("main-path", &t);

	/* No return compression: returns are TIPs. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tip(&t, sym("i5"));
	enc_tnt(&t, "1");
	enc_tip(&t, sym("i5"));
	enc_tnt(&t, "0");
	enc_tip(&t, sym("i24"));
	enc_tip(&t, sym("i26"));
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	decoder_seed("returns-as-tip", &t);

	/* A long loop in long TNT packets, PSB+ every few iterations. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	for (i = 0; i < 40; i++) {
		memset(bits, '1', 46);
		bits[46] = 0;
		enc_tnt(&t, bits);
		if (i % 10 == 9)
			enc_psb(&t, sym("loop"), 200 + i);
	}
	enc_tip_pgd(&t);
	decoder_seed("long-loop", &t);

	/* Overflow, then tracing resumes at a FUP. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "11");
	enc_simple(&t, ppt_ovf);
	enc_fup(&t, sym("loop"));
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	decoder_seed("overflow", &t);

	/* Garbage between two PSBs: a gap, then the history goes on. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "11");
	enc_raw(&t, "\xd7\xd7\xd7\xff\x13\x37\xd7", 7);
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	decoder_seed("garbage-then-psb", &t);

	/* Bytes before the first PSB (a ring that wrapped). */
	trace_begin(&t);
	enc_tnt(&t, "101");
	enc_tip(&t, sym("i20"));
	main_path(&t);
	decoder_seed("bytes-before-psb", &t);

	/* Tracing off at a system call, back on elsewhere. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "11");
	enc_tip_pgd(&t);
	enc_tip_pge(&t, sym("i20"));
	enc_tnt(&t, "1");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	decoder_seed("disabled-enabled", &t);

	/* Tracing off at the system call, back on right after it (where
	 * libipt expects the resume), as the software source writes it. */
	trace_begin(&t);
	main_path(&t);
	enc_tip_pge(&t, sym("leaf"));
	enc_tip(&t, sym("i26"));
	enc_psb(&t, sym("i26"), 300);
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	decoder_seed("syscall-resume", &t);

	/* A jump out of the mapped code: a decode error. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	enc_tnt(&t, "1111");
	enc_tip(&t, 0x7fff00001000ULL);
	enc_psb(&t, sym("loop"), 200);
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	decoder_seed("unmapped-ip", &t);

	/* Cut mid-packet: the last TIP is incomplete. */
	trace_begin(&t);
	main_path(&t);
	cut = trace_size(&t) - 3;
	write_file("seeds-decoder", "truncated", t.buf, cut);
	trace_end(&t);

	/* PSB+ with no FUP (tracing off at the PSB), then enabled. */
	trace_begin(&t);
	enc_psb(&t, 0, 100);
	enc_tip_pge(&t, sym("i1"));
	enc_tnt(&t, "1111");
	enc_tip_pgd(&t);
	decoder_seed("psb-while-disabled", &t);
}

/* ---------------------------------------------------------- recordings */

static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long n;

	*size = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)n + 1);
	if (!data || fread(data, 1, (size_t)n, f) != (size_t)n)
		die("cannot read %s", path);
	fclose(f);
	*size = (size_t)n;
	return data;
}

struct joined {
	char *data;
	size_t size;
};

static void join(struct joined *j, const void *bytes, size_t n, int sep)
{
	size_t s = sep ? strlen(RECORD_SEPARATOR) : 0;

	j->data = realloc(j->data, j->size + s + n + 1);
	if (!j->data)
		die("out of memory");
	memcpy(j->data + j->size, RECORD_SEPARATOR, s);
	if (n)
		memcpy(j->data + j->size + s, bytes, n);
	j->size += s + n;
}

/* Join DIR's manifest, sideband, trace/1.pt and objects/code, as
 * fuzz-recording.c splits them; drop the last SKIP pieces. */
static void recording_seed(const char *name, const char *dir, int skip)
{
	static const char *const pieces[] = { "manifest.json", "sideband.jsonl",
					      "trace/1.pt", "objects/code" };
	struct joined j = { 0 };
	int i;

	for (i = 0; i < 4 - skip; i++) {
		char path[1024];
		size_t n;
		char *data;

		snprintf(path, sizeof(path), "%s/%s", dir, pieces[i]);
		data = slurp(path, &n);
		join(&j, data, n, i > 0);
		free(data);
	}
	write_file("seeds-recording", name, j.data, j.size);
	free(j.data);
}

static void text_seed(const char *name, const char *manifest,
		      const char *sideband)
{
	struct joined j = { 0 };

	join(&j, manifest, strlen(manifest), 0);
	if (sideband)
		join(&j, sideband, strlen(sideband), 1);
	write_file("seeds-recording", name, j.data, j.size);
	free(j.data);
}

/* A recording by the writer: the fixture's code saved inside it (so the
 * history builds wherever the fuzzer runs), the main path's trace, and
 * sideband events of every kind. */
static void writer_recording(const char *dir, int finish, int threads)
{
	struct hwtr_writer_info info = { .source = "fuzz-seed", .pid = 42 };
	struct hwtr_sideband_event ev = { .kind = hwtr_ev_mmap };
	struct hwtr_end end = { hwtr_end_signaled, 11 };
	const char *argv[] = { "/fixture-code", "arg" };
	uint64_t addr, len, pgoff;
	struct hwtr_writer *w;
	const char *saved;
	struct trace t;
	char *code;
	size_t size;
	int k;

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x8c;
	info.pt.stepping = 1;
	info.pt.mtc_freq = 3;
	info.pt.nom_freq = 36;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.pt.psb_period = 4096;
	info.executable = "/fixture-code";
	info.argc = 2;
	info.argv = argv;
	if (elf_text_mapping(fixture, &addr, &len, &pgoff))
		die("%s: no text segment", fixture);
	code = slurp(fixture, &size);
	if (!code || pgoff >= size)
		die("%s: cannot read", fixture);
	if (len > size - pgoff)
		len = size - pgoff;
	if (hwtr_writer_create(dir, &info, &w) ||
	    hwtr_writer_add_thread(w, 1, 10) ||
	    hwtr_writer_save_object(w, "code", code + pgoff, len, &saved))
		die("writer: %s", hwtr_last_error());
	ev.tsc = 20;
	ev.addr = addr;
	ev.len = len;
	ev.prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	ev.path = "/fixture-code";
	ev.saved = saved;
	if (hwtr_writer_event(w, &ev))
		die("writer: %s", hwtr_last_error());
	ev = (struct hwtr_sideband_event){ .kind = hwtr_ev_mmap, .tsc = 30,
					   .addr = 0x7f0000000000ULL,
					   .len = 0x2000, .pgoff = 0x1000,
					   .prot = HWTR_PROT_READ,
					   .path = "/lib/data",
					   .build_id = "00112233445566778899aabbccddeeff00112233" };
	hwtr_writer_event(w, &ev);
	for (k = 2; k <= threads; k++)
		hwtr_writer_add_thread(w, (uint32_t)k, 40);
	trace_begin(&t);
	main_path(&t);
	hwtr_writer_trace(w, 1, t.buf, trace_size(&t));
	trace_end(&t);
	ev = (struct hwtr_sideband_event){ .kind = hwtr_ev_loss, .tsc = 300,
					   .tid = 1, .offset = 12, .len = 100,
					   .reason = "aux buffer full" };
	hwtr_writer_event(w, &ev);
	ev = (struct hwtr_sideband_event){ .kind = hwtr_ev_munmap, .tsc = 400,
					   .addr = 0x7f0000000000ULL,
					   .len = 0x2000 };
	hwtr_writer_event(w, &ev);
	ev = (struct hwtr_sideband_event){ .kind = hwtr_ev_thread_exit,
					   .tsc = 500, .tid = 1 };
	hwtr_writer_event(w, &ev);
	if (finish && hwtr_writer_finish(w, &end))
		die("writer: %s", hwtr_last_error());
	hwtr_writer_free(w);
	free(code);
}

static void recording_seeds(void)
{
	static const char cut_line[] =
		"{\"event\":\"mmap\",\"tsc\":1,\"addr\":4096,\"len\":4096,"
		"\"prot\":\"r-x\",\"path\":\"/x\"}\n{\"event\":\"mm";
	char tmp[] = "/tmp/hwtr-seeds-XXXXXX", dir[1100], cmd[1200];
	struct joined j = { 0 };
	char *manifest;
	size_t n;

	if (!mkdtemp(tmp))
		die("mkdtemp");
	snprintf(dir, sizeof(dir), "%s/complete", tmp);
	writer_recording(dir, 1, 1);
	recording_seed("complete", dir, 0);
	recording_seed("no-saved-code", dir, 1);
	recording_seed("manifest-and-sideband", dir, 2);

	snprintf(dir, sizeof(dir), "%s/threads", tmp);
	writer_recording(dir, 1, 3);
	recording_seed("three-threads", dir, 0);

	/* The recorder was killed: "complete": false. */
	snprintf(dir, sizeof(dir), "%s/cut", tmp);
	writer_recording(dir, 0, 1);
	recording_seed("not-finished", dir, 0);

	/* The sideband's last line without its newline. */
	snprintf(dir, sizeof(dir), "%s/complete/manifest.json", tmp);
	manifest = slurp(dir, &n);
	join(&j, manifest, n, 0);
	join(&j, cut_line, strlen(cut_line), 1);
	write_file("seeds-recording", "sideband-cut-mid-line", j.data, j.size);
	free(j.data);
	free(manifest);

	text_seed("bad-json", "{\"format\": \"hwtrecord\", \"version\": 1,", NULL);
	text_seed("version-2",
		  "{\"format\":\"hwtrecord\",\"version\":2,\"arch\":\"x86_64\","
		  "\"trace_format\":\"intel-pt\",\"source\":\"x\",\"pt\":{\"cpu\":{}},"
		  "\"process\":{},\"threads\":[],\"complete\":true}", "");
	text_seed("missing-threads",
		  "{\"format\":\"hwtrecord\",\"version\":1,\"arch\":\"x86_64\","
		  "\"trace_format\":\"intel-pt\",\"source\":\"x\",\"pt\":{\"cpu\":{}},"
		  "\"process\":{},\"complete\":true}", "");
	text_seed("stream-escapes",
		  "{\"format\":\"hwtrecord\",\"version\":1,\"arch\":\"x86_64\","
		  "\"trace_format\":\"intel-pt\",\"source\":\"x\",\"pt\":{\"cpu\":{}},"
		  "\"process\":{},\"threads\":[{\"tid\":1,\"stream\":\"../x\"}],"
		  "\"complete\":true}", "");
	text_seed("tsc-goes-back",
		  "{\"format\":\"hwtrecord\",\"version\":1,\"arch\":\"x86_64\","
		  "\"trace_format\":\"intel-pt\",\"source\":\"x\",\"pt\":{\"cpu\":{}},"
		  "\"process\":{},\"threads\":[],\"complete\":true}",
		  "{\"event\":\"exec\",\"tsc\":9,\"path\":\"/a\"}\n"
		  "{\"event\":\"exec\",\"tsc\":3,\"path\":\"/b\"}\n");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		die("cannot remove %s", tmp);
}

/* A fuzz-refresh seed: DIR's recording with its sideband cut at SB bytes
 * and its stream at TR (SIZE_MAX: whole), then "====", the manifest that
 * replaces it (NULL: none), what is appended to the sideband (the rest of
 * it, then EXTRA) and to the stream (its rest), and CONTROL. */
static void refresh_seed(const char *name, const char *dir, size_t sb, size_t tr,
			 const char *manifest_dir, const char *extra, int control)
{
	static const char *const pieces[] = { "manifest.json", "sideband.jsonl",
					      "trace/1.pt", "objects/code" };
	struct joined j = { 0 };
	char path[1024];
	char *data[4], *after = NULL;
	size_t n[4], after_n = 0, i, cut[4] = { SIZE_MAX, sb, tr, SIZE_MAX };

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pieces[i]);
		data[i] = slurp(path, &n[i]);
		if (cut[i] > n[i])
			cut[i] = n[i];
		join(&j, data[i], cut[i], i > 0);
	}
	join(&j, "\n====\n", 6, 0);
	if (manifest_dir) {
		snprintf(path, sizeof(path), "%s/manifest.json", manifest_dir);
		after = slurp(path, &after_n);
	}
	join(&j, after, after_n, 0);
	join(&j, data[1] + cut[1], n[1] - cut[1], 1);
	join(&j, extra, extra ? strlen(extra) : 0, 0);
	join(&j, data[2] + cut[2], n[2] - cut[2], 1);
	if (control) {
		char c = (char)control;

		join(&j, &c, 1, 1);
	}
	write_file("seeds-refresh", name, j.data, j.size);
	for (i = 0; i < 4; i++)
		free(data[i]);
	free(after);
	free(j.data);
}

static void refresh_seeds(void)
{
	char tmp[] = "/tmp/hwtr-seeds-XXXXXX", one[1100], three[1100], cmd[1200];
	size_t sb, tr;
	char *text;

	if (!mkdtemp(tmp))
		die("mkdtemp");
	snprintf(one, sizeof(one), "%s/one", tmp);
	writer_recording(one, 0, 1);
	snprintf(three, sizeof(three), "%s/three", tmp);
	writer_recording(three, 0, 3);
	snprintf(cmd, sizeof(cmd), "%s/trace/1.pt", one);
	free(slurp(cmd, &tr));
	snprintf(cmd, sizeof(cmd), "%s/sideband.jsonl", one);
	text = slurp(cmd, &sb);
	/* The stream grows from inside a packet, the sideband from inside a
	 * line, as a recorder that is still writing leaves them. */
	refresh_seed("stream-grows", one, SIZE_MAX, tr / 2 + 3, NULL, NULL, 0);
	refresh_seed("sideband-line-completed", one, sb - 17, tr / 3, NULL, NULL, 0);
	refresh_seed("nothing-new", one, SIZE_MAX, SIZE_MAX, NULL, NULL, 0);
	refresh_seed("loss-appended", one, SIZE_MAX, tr / 2, NULL,
		     "{\"event\":\"loss\",\"tsc\":600,\"tid\":1,\"offset\":40,"
		     "\"len\":8,\"reason\":\"late\"}\n", 0);
	refresh_seed("mapping-appended", one, SIZE_MAX, tr / 2, NULL,
		     "{\"event\":\"mmap\",\"tsc\":700,\"addr\":\"0x500000\","
		     "\"len\":4096,\"prot\":\"r-x\",\"path\":\"/late\","
		     "\"saved\":\"objects/code\"}\n", 0);
	refresh_seed("threads-appear", one, SIZE_MAX, tr / 2, three, NULL, 0);
	refresh_seed("stream-cut-shorter", one, SIZE_MAX, tr, NULL, NULL, 1);
	refresh_seed("sideband-cut-shorter", one, SIZE_MAX, tr, NULL, NULL, 2);
	refresh_seed("stream-removed", one, SIZE_MAX, tr, NULL, NULL, 4);
	/* Another process's recording in its place. */
	snprintf(cmd, sizeof(cmd), "mkdir '%s/other' && sed 's/\"pid\": 42/\"pid\": 43/' "
		 "'%s/manifest.json' > '%s/other/manifest.json'", tmp, one, tmp);
	if (system(cmd) != 0)
		die("cannot write %s/other", tmp);
	snprintf(three, sizeof(three), "%s/other", tmp);
	refresh_seed("other-recording", one, SIZE_MAX, tr / 2, three, NULL, 0);
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		die("cannot remove %s", tmp);
}

/* The loop through leaf K times: each pass adds two function segments (the
 * call into leaf, the return to _start); the first segment is _start's. */
static void loop_passes(struct trace *t, int k)
{
	while (k > 0) {
		int n = k > 23 ? 23 : k;
		char bits[47];

		memset(bits, '1', (size_t)(2 * n));
		bits[2 * n] = 0;
		enc_tnt(t, bits);	/* ret (compressed), jne loop */
		k -= n;
	}
}

/* Smallest inputs for the bugs the fuzzers found (regressions/). */
static void regression_seeds(void)
{
	struct trace t;

	/* 32 passes: the return that makes segment 65 grows the segment array
	 * (64 entries) while new_return holds a pointer into it. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	loop_passes(&t, 32);
	enc_tip_pgd(&t);
	write_file("regressions", "decoder-return-grows-segments", t.buf,
		   trace_size(&t));
	trace_end(&t);

	/* 31 passes (63 segments), an overflow (the gap is segment 64), then
	 * the block after the gap grows the array while update_function holds
	 * a pointer to the gap's segment. */
	trace_begin(&t);
	enc_psb(&t, sym("i1"), 100);
	loop_passes(&t, 31);
	enc_simple(&t, ppt_ovf);
	enc_fup(&t, sym("loop"));
	enc_tnt(&t, "1011");
	enc_tip(&t, sym("done"));
	enc_tip_pgd(&t);
	write_file("regressions", "decoder-gap-grows-segments", t.buf,
		   trace_size(&t));
	trace_end(&t);

	/* An empty stream: no trace bytes at all. */
	write_file("regressions", "decoder-empty-trace", "", 0);

	/* Saved code that is "jmp ." and a PSB+ that starts there: the block
	 * decoder follows the direct jump forever without reading a packet. */
	{
		static const char manifest[] =
			"{\"format\":\"hwtrecord\",\"version\":1,\"arch\":\"x86_64\","
			"\"trace_format\":\"intel-pt\",\"source\":\"x\","
			"\"pt\":{\"cpu\":{\"vendor\":\"intel\",\"family\":6,"
			"\"model\":85,\"stepping\":4},\"tsc\":true},"
			"\"process\":{},\"threads\":[{\"tid\":1,\"stream\":"
			"\"trace/1.pt\"}],\"complete\":true}";
		static const char sideband[] =
			"{\"event\":\"mmap\",\"tsc\":0,\"addr\":\"0x401000\","
			"\"len\":2,\"pgoff\":0,\"prot\":\"r-x\",\"path\":\"/x\","
			"\"saved\":\"objects/code\"}\n";
		struct joined j = { 0 };

		trace_begin(&t);
		enc_psb(&t, 0x401000, 100);
		join(&j, manifest, strlen(manifest), 0);
		join(&j, sideband, strlen(sideband), 1);
		join(&j, t.buf, trace_size(&t), 1);
		join(&j, "\xeb\xfe", 2, 1);
		write_file("regressions", "recording-jump-to-self", j.data, j.size);
		free(j.data);
		trace_end(&t);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: make-seeds FIXTURE OUTDIR\n");
		return 2;
	}
	fixture = argv[1];
	outdir = argv[2];
	decoder_seeds();
	recording_seeds();
	refresh_seeds();
	regression_seeds();
	etm_seeds(write_file);
	return 0;
}
