/* test-extend: a recording that grows on disk, read again with
 * hwtr_recording_refresh and followed by hwtr_history_extend.
 *
 * The final recording is written with the library's writer (traces made
 * with libipt's encoder over fixture-code.S, or etm-encode.c's ETMv4 over its
 * A64 fixture); a second directory then grows towards it a piece at a time,
 * cut anywhere: inside a packet, inside a chunk, inside a sideband line,
 * with a second thread and a mapping of other code appearing on the way.
 * After every extension each thread must be (1) a prefix of the path the
 * trace encodes, instruction for instruction (the assembler's labels are
 * the oracle) and segment for segment (GDB's btrace model, as in
 * test-history), with a gap only where the path has one or at the cut end,
 * and (2) exactly what hwtr_history_build makes of the same bytes. */
#include "etm-encode.h"
#include "fixture.h"
#include "check-main.h"

#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------- files */

struct blob {
	char *bytes;
	size_t len;
};

static void read_blob(const char *dir, const char *name, struct blob *b)
{
	char path[600];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_msg(stat(path, &st) == 0, "%s", path);
	b->len = (size_t)st.st_size;
	b->bytes = malloc(b->len + 1);
	ck_assert_ptr_nonnull(b->bytes);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(b->bytes, 1, b->len, f), b->len);
	fclose(f);
}

/* A file in DIR that grows to the first WANT bytes of B, as a writer
 * appends (*HAVE: how much it has). */
static void grow(const char *dir, const char *name, const struct blob *b,
		 size_t *have, size_t want)
{
	char path[600];
	int fd;

	if (want > b->len)
		want = b->len;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	ck_assert_msg(fd >= 0, "%s", path);
	if (want > *have) {
		ck_assert_int_eq(write(fd, b->bytes + *have, want - *have),
				 (ssize_t)(want - *have));
		*have = want;
	}
	close(fd);
}

/* Replace a file at once, as the writer replaces the manifest. */
static void put(const char *dir, const char *name, const struct blob *b)
{
	char path[600], tmp[620];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b->bytes, 1, b->len, f), b->len);
	fclose(f);
	ck_assert_int_eq(rename(tmp, path), 0);
}

/* Manifest B without the lengths and checksums a finished recording
 * carries: these tests grow files after the final manifest is in place (and
 * add late losses to it), as an older writer's recording was read; a
 * finished recording with its checks refuses any of that
 * (test-damaged.c). */
static void strip_checks(struct blob *b)
{
	json_t *root = json_loadb(b->bytes, b->len, 0, NULL), *t;
	size_t i;
	char *text;

	ck_assert_ptr_nonnull(root);
	json_object_del(root, "files");
	json_array_foreach(json_object_get(root, "threads"), i, t) {
		json_object_del(t, "stream_size");
		json_object_del(t, "stream_crc32");
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ck_assert_ptr_nonnull(text);
	json_decref(root);
	free(b->bytes);
	b->bytes = text;
	b->len = strlen(text);
}

static void make_dir(const char *dir, const char *sub)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

/* ------------------------------------------------- comparing histories */

static void same_segment(const struct hwtr_segment *a, const struct hwtr_segment *b,
			 const char *when, uint32_t tid)
{
	ck_assert_msg(a->up == b->up && a->prev == b->prev && a->next == b->next &&
		      a->level == b->level && a->flags == b->flags &&
		      a->insn_begin == b->insn_begin && a->insn_end == b->insn_end &&
		      a->function_start == b->function_start,
		      "%s: thread %u segment %llu: extended up %llu prev %llu next "
		      "%llu level %d flags %u insns %llu-%llu, built up %llu prev %llu "
		      "next %llu level %d flags %u insns %llu-%llu", when, tid,
		      (unsigned long long)a->number, (unsigned long long)a->up,
		      (unsigned long long)a->prev, (unsigned long long)a->next,
		      a->level, a->flags, (unsigned long long)a->insn_begin,
		      (unsigned long long)a->insn_end, (unsigned long long)b->up,
		      (unsigned long long)b->prev, (unsigned long long)b->next,
		      b->level, b->flags, (unsigned long long)b->insn_begin,
		      (unsigned long long)b->insn_end);
	ck_assert_msg(!a->function == !b->function &&
		      (!a->function || !strcmp(a->function, b->function)),
		      "%s: thread %u segment %llu: function %s, built %s", when, tid,
		      (unsigned long long)a->number, a->function ? a->function : "-",
		      b->function ? b->function : "-");
	ck_assert(!a->gap == !b->gap);
	if (a->gap)
		ck_assert_str_eq(a->gap->message, b->gap->message);
}

/* Everything the public API shows of A's threads equals B's. */
static void same_histories(struct hwtr_history *a, struct hwtr_history *b,
			   const char *when)
{
	size_t i;

	ck_assert_uint_eq(hwtr_history_nthreads(a), hwtr_history_nthreads(b));
	for (i = 0; i < hwtr_history_nthreads(a); i++) {
		struct hwtr_thread *ta = hwtr_history_thread(a, i);
		struct hwtr_thread *tb = hwtr_history_thread(b, i);
		struct hwtr_thread_stats sa, sb;
		struct hwtr_cursor *ca, *cb;
		uint64_t n;

		ck_assert_int_eq(hwtr_thread_stats(ta, &sa), 0);
		ck_assert_int_eq(hwtr_thread_stats(tb, &sb), 0);
		ck_assert_uint_eq(sa.tid, sb.tid);
		ck_assert_msg(sa.instructions == sb.instructions &&
			      sa.segments == sb.segments && sa.gaps == sb.gaps &&
			      sa.chunks == sb.chunks,
			      "%s: thread %u: extended %llu instructions, %llu "
			      "segments, %llu gaps, %llu chunks; built %llu, %llu, "
			      "%llu, %llu", when, sa.tid,
			      (unsigned long long)sa.instructions,
			      (unsigned long long)sa.segments,
			      (unsigned long long)sa.gaps, (unsigned long long)sa.chunks,
			      (unsigned long long)sb.instructions,
			      (unsigned long long)sb.segments,
			      (unsigned long long)sb.gaps, (unsigned long long)sb.chunks);
		ck_assert_uint_eq(sa.trace_bytes, sb.trace_bytes);
		for (n = 1; n <= sa.segments; n++) {
			struct hwtr_segment x, y;

			ck_assert_int_eq(hwtr_thread_segment(ta, n, &x), 0);
			ck_assert_int_eq(hwtr_thread_segment(tb, n, &y), 0);
			same_segment(&x, &y, when, sa.tid);
		}
		if (!sa.instructions)
			continue;
		ck_assert_int_eq(hwtr_cursor_alloc(ta, &ca), 0);
		ck_assert_int_eq(hwtr_cursor_alloc(tb, &cb), 0);
		for (n = 1; n <= sa.instructions; n++) {
			struct hwtr_insn x, y;

			ck_assert_int_eq(hwtr_cursor_goto(ca, n), 0);
			ck_assert_int_eq(hwtr_cursor_goto(cb, n), 0);
			ck_assert_msg(hwtr_cursor_insn(ca, &x) == 0, "%s: %s", when,
				      hwtr_last_error());
			ck_assert_msg(hwtr_cursor_insn(cb, &y) == 0, "%s: %s", when,
				      hwtr_last_error());
			ck_assert_msg(x.ip == y.ip && x.size == y.size &&
				      x.iclass == y.iclass && x.isa == y.isa &&
				      x.speculative == y.speculative &&
				      !x.gap == !y.gap &&
				      !memcmp(x.raw, y.raw, x.size),
				      "%s: thread %u instruction %llu: extended 0x%llx "
				      "(%s), built 0x%llx (%s)", when, sa.tid,
				      (unsigned long long)n, (unsigned long long)x.ip,
				      x.gap ? x.gap->message : "", (unsigned long long)y.ip,
				      y.gap ? y.gap->message : "");
			if (x.gap) {
				ck_assert_str_eq(x.gap->message, y.gap->message);
				ck_assert_str_eq(x.gap->kind, y.gap->kind);
				ck_assert_uint_eq(x.gap->offset, y.gap->offset);
				ck_assert_int_eq(x.gap->error, y.gap->error);
			}
		}
		hwtr_cursor_free(ca);
		hwtr_cursor_free(cb);
	}
}

/* A full build of what DIR holds now equals the extended history. */
static void same_as_built(const char *dir, struct hwtr_history *extended,
			  const char *when)
{
	struct hwtr_recording *rec;
	struct hwtr_history *h;

	ck_assert_msg(hwtr_recording_open(dir, &rec) == 0, "%s", hwtr_last_error());
	ck_assert_msg(hwtr_history_build(rec, NULL, &h) == 0, "%s", hwtr_last_error());
	same_histories(extended, h, when);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
}

/* --------------------------------------------------- the known paths */

struct expected_segment {
	const char *function;	/* NULL: a gap */
	uint64_t function_start;
	uint64_t begin;
	int level;		/* normalised */
	uint64_t up, prev, next;
	uint32_t flags;
};

/* A thread's path: every instruction's IP (0: a gap) and the segments. */
struct path {
	uint64_t ips[512];
	size_t n;
	struct expected_segment segs[256];
	size_t nsegs;
};

/* Append one trip through a path whose segments TABLE gives (numbers
 * relative to the trip), after a gap when it does not start the thread. */
static void add_trip(struct path *p, const char *binary,
		     const char *const *labels, size_t nlabels,
		     const struct fixture_segment *table, size_t nsegs)
{
	size_t base, first, i;

	if (p->n) {
		p->ips[p->n++] = 0;
		p->segs[p->nsegs++] = (struct expected_segment){
			.begin = p->n, .flags = HWTR_SEG_GAP,
			.level = p->segs[p->nsegs - 1].level };
	}
	base = p->nsegs;
	first = p->n;
	for (i = 0; i < nlabels; i++)
		p->ips[p->n++] = fixture_symbol_in(binary, labels[i]);
	for (i = 0; i < nsegs; i++) {
		const struct fixture_segment *t = &table[i];

		p->segs[p->nsegs++] = (struct expected_segment){
			.function = t->function,
			.function_start = fixture_symbol_in(binary, t->function),
			.begin = first + t->begin, .level = t->level - 1,
			.up = t->up ? t->up + base : 0,
			.prev = t->prev ? t->prev + base : 0,
			.next = t->next ? t->next + base : 0, .flags = t->flags };
	}
}

/* From inside leaf up to outer and _start, which the trace did not see
 * call: callers are added above the top (GDB's btrace does the same). */
static const char *const leaf_start_labels[] = {
	"i3", "i4", "i24", "i25", "i26", "i27", "i28", "i29" };
static const struct fixture_segment leaf_start_trip[] = {
	{ "leaf", 1, 2, 3, 2, 0, 0, HWTR_SEG_UP_LINKS_TO_RET },
	{ "outer", 3, 3, 2, 4, 0, 0, HWTR_SEG_UP_LINKS_TO_RET },
	{ "tail", 4, 4, 3, 2, 0, 0, HWTR_SEG_UP_LINKS_TO_TAILCALL },
	{ "_start", 5, 8, 1, 0, 0, 0, 0 },
};

static const char *const far_labels[] = { "e1", "e2", "e3", "e4" };
static const struct fixture_segment far_trip[] = {
	{ "_start", 1, 4, 1, 0, 0, 0, 0 },
};

/* The history of T is a prefix of path P: instructions as far as the cut
 * trace reaches, then at most two gaps at the cut; every segment that
 * begins within the prefix as P has it (the end and next link where they
 * are already known).  COMPLETE: all of P. */
static void check_prefix(struct hwtr_thread *t, const struct path *p,
			 bool complete, const char *when)
{
	struct hwtr_thread_stats st;
	struct hwtr_cursor *c;
	uint64_t n, matched = 0;
	size_t k, known;
	int shift = 0;

	ck_assert_int_eq(hwtr_thread_stats(t, &st), 0);
	if (!st.instructions) {
		ck_assert(!complete);
		return;
	}
	ck_assert_int_eq(hwtr_cursor_alloc(t, &c), 0);
	for (n = 1; n <= st.instructions; n++) {
		struct hwtr_insn insn;
		uint64_t want = n <= p->n ? p->ips[n - 1] : UINT64_MAX;
		bool ok;

		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_msg(hwtr_cursor_insn(c, &insn) == 0, "%s", hwtr_last_error());
		/* The path's gaps are tracing turned off and on again. */
		ok = n <= p->n && (insn.gap ? want == 0 && !strcmp(insn.gap->kind,
								   "disabled")
					    : insn.ip == want);
		if (ok && matched == n - 1) {
			matched = n;
			continue;
		}
		/* Past the known path: only the cut end, as gaps. */
		ck_assert_msg(insn.gap != NULL, "%s: thread %u instruction %llu: 0x%llx, "
			      "the path has 0x%llx", when, st.tid, (unsigned long long)n,
			      (unsigned long long)insn.ip, (unsigned long long)want);
	}
	hwtr_cursor_free(c);
	ck_assert_msg(st.instructions - matched <= 2, "%s: thread %u: %llu of %llu "
		      "instructions follow the path", when, st.tid,
		      (unsigned long long)matched,
		      (unsigned long long)st.instructions);
	if (complete)
		ck_assert_uint_eq(st.instructions, p->n);
	if (complete)
		ck_assert_uint_eq(st.segments, p->nsegs);
	for (known = 0; known < st.segments; known++) {
		struct hwtr_segment s;

		ck_assert_int_eq(hwtr_thread_segment(t, known + 1, &s), 0);
		if (s.insn_begin > matched)
			break;
	}
	for (k = 0; k < st.segments && k < p->nsegs; k++) {
		const struct expected_segment *e = &p->segs[k];
		struct hwtr_segment s, next;
		bool next_known;

		ck_assert_int_eq(hwtr_thread_segment(t, k + 1, &s), 0);
		if (s.insn_begin > matched)
			break;	/* the cut end */
		ck_assert_uint_eq(s.insn_begin, e->begin);
		ck_assert_msg(!e->function == !s.function &&
			      (!e->function || !strcmp(e->function, s.function)),
			      "%s: thread %u segment %zu: %s, the path has %s", when,
			      st.tid, k + 1, s.function ? s.function : "-",
			      e->function ? e->function : "-");
		if (e->function)
			ck_assert_uint_eq(s.function_start, e->function_start);
		/* Levels count from the lowest so far: the same shift for
		 * every segment, none at the end. */
		if (k == 0)
			shift = s.level - e->level;
		ck_assert_msg(s.level - e->level == shift && (!complete || !shift),
			      "%s: thread %u segment %zu level %d, the path has %d "
			      "(+%d)", when, st.tid, k + 1, s.level, e->level, shift);
		ck_assert_uint_eq(s.prev, e->prev);
		/* A link to a segment not on the path yet is made later (a
		 * caller found when the return comes). */
		if (e->up <= known) {
			ck_assert_uint_eq(s.up, e->up);
			ck_assert_uint_eq(s.flags, e->flags);
		} else {
			ck_assert_uint_eq(s.up, 0);
			ck_assert_uint_eq(s.flags & ~HWTR_SEG_UP_LINKS_TO_RET,
					  e->flags & ~HWTR_SEG_UP_LINKS_TO_RET);
		}
		ck_assert_uint_eq(s.next, e->next <= known ? e->next : 0);
		next_known = k + 1 < st.segments &&
			     hwtr_thread_segment(t, k + 2, &next) == 0 &&
			     next.insn_begin <= matched && k + 1 < p->nsegs;
		if (next_known)
			ck_assert_uint_eq(s.insn_end, p->segs[k + 1].begin);
	}
}

/* ------------------------------------------ the Intel PT recording */

#define ROUNDS 6	/* trips through the main path before the far code */

struct pt_final {
	char dir[512];
	struct blob manifests[4];	/* thread 1; threads 1 and 2; finished
					 * (without its checks); finished */
	struct blob sideband;
	struct blob trace1, trace2;
	size_t lines[5];		/* where each sideband line ends */
	size_t nlines;
	size_t psbs[32];		/* PSB offsets in trace 1 */
	size_t npsbs;
	struct path path1, path2;
};

static void capture_manifest(struct pt_final *f, int k)
{
	read_blob(f->dir, "manifest.json", &f->manifests[k]);
}

static void note_psb(struct pt_final *f, struct trace *t)
{
	f->psbs[f->npsbs++] = trace_size(t);
}

/* Thread 1: the main path ROUNDS times, tracing off between trips (a
 * "disabled" gap), then code in a mapping that appears later (fixture-far
 * at 0x600000).  Thread 2, from time 250: returns from leaf up to callers
 * it never saw called, then the recursion path. */
static void write_pt_final(struct pt_final *f, const char *base)
{
	struct hwtr_writer_info info = { .source = "unit-test", .pid = 1 };
	struct hwtr_end end = { hwtr_end_exited, 0 };
	struct hwtr_sideband_event code, far;
	struct hwtr_writer *w;
	struct trace t1, t2;
	size_t i;
	int r;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "%s/final.hwtrec", base);
	trace_begin(&t1);
	for (r = 0; r < ROUNDS; r++) {
		note_psb(f, &t1);
		if (r == 0) {
			enc_psb(&t1, fixture_symbol("i1"), 100);
		} else {
			enc_psb_disabled(&t1, 100 + 100 * r);
			enc_tip_pge(&t1, fixture_symbol("i1"));
		}
		if (r == 3) {
			/* A PSB inside the second call of leaf: the return
			 * after it links an older segment (_start's next). */
			enc_tnt(&t1, "11");
			note_psb(f, &t1);
			enc_psb(&t1, fixture_symbol("i4"), 110 + 100 * r);
			enc_tip(&t1, fixture_symbol("i5"));
			enc_tnt(&t1, "11011");
		} else {
			enc_tnt(&t1, "1111");
			note_psb(f, &t1);
			enc_psb(&t1, fixture_symbol("loop"), 110 + 100 * r);
			enc_tnt(&t1, "1011");
		}
		enc_tip(&t1, fixture_symbol("done"));
		enc_tip_pgd(&t1);
		add_trip(&f->path1, fixture_path(), main_path_labels, 29,
			 main_path_segments, 12);
	}
	note_psb(f, &t1);
	enc_psb_disabled(&t1, 100 + 100 * ROUNDS);
	enc_tip_pge(&t1, fixture_symbol_in(fixture_far_path(), "e1"));
	enc_tip_pgd(&t1);
	add_trip(&f->path1, fixture_far_path(), far_labels, 4, far_trip, 1);

	/* Thread 2 starts inside leaf, two calls down, and returns up to
	 * callers the trace never saw; a PSB between the returns. */
	trace_begin(&t2);
	enc_psb(&t2, fixture_symbol("i3"), 300);
	enc_tip(&t2, fixture_symbol("i24"));
	enc_psb(&t2, fixture_symbol("i25"), 350);
	enc_tip(&t2, fixture_symbol("i26"));
	enc_tip(&t2, fixture_symbol("done"));
	enc_tip_pgd(&t2);
	add_trip(&f->path2, fixture_path(), leaf_start_labels, 8, leaf_start_trip, 4);
	enc_psb_disabled(&t2, 400);
	enc_tip_pge(&t2, fixture_symbol("r1"));
	enc_tnt(&t2, "0111");
	enc_tip_pgd(&t2);
	add_trip(&f->path2, fixture_path(), recursion_path_labels, 14,
		 recursion_path_segments, 6);

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;
	info.pt.stepping = 4;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.executable = fixture_path();
	fixture_mapping(fixture_path(), 0, &code);
	code.build_id = fixture_build_id();
	fixture_mapping(fixture_far_path(), 50 + 100 * ROUNDS, &far);
	ck_assert_uint_gt(far.addr, code.addr + code.len);
	ck_assert_int_eq(hwtr_writer_create(f->dir, &info, &w), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	capture_manifest(f, 0);
	ck_assert_int_eq(hwtr_writer_event(w, &code), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 2, 250), 0);
	capture_manifest(f, 1);
	ck_assert_int_eq(hwtr_writer_event(w, &far), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 1, t1.buf, trace_size(&t1)), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 2, t2.buf, trace_size(&t2)), 0);
	ck_assert_int_eq(hwtr_writer_finish(w, &end), 0);
	hwtr_writer_free(w);
	capture_manifest(f, 2);
	capture_manifest(f, 3);
	strip_checks(&f->manifests[2]);
	trace_end(&t1);
	trace_end(&t2);
	read_blob(f->dir, "sideband.jsonl", &f->sideband);
	read_blob(f->dir, "trace/1.pt", &f->trace1);
	read_blob(f->dir, "trace/2.pt", &f->trace2);
	for (i = 0; i < f->sideband.len; i++)
		if (f->sideband.bytes[i] == '\n')
			f->lines[f->nlines++] = i + 1;
	/* thread-start 1, mmap code, thread-start 2, mmap far */
	ck_assert_uint_eq(f->nlines, 4);
}

static void free_pt_final(struct pt_final *f)
{
	int k;

	for (k = 0; k < 4; k++)
		free(f->manifests[k].bytes);
	free(f->sideband.bytes);
	free(f->trace1.bytes);
	free(f->trace2.bytes);
}

/* The growing recording: what it holds of the final one. */
struct growing {
	char dir[512];
	size_t sideband, trace1, trace2;
	int manifest;
};

static void start_growing(struct growing *g, const char *base)
{
	memset(g, 0, sizeof(*g));
	g->manifest = -1;
	snprintf(g->dir, sizeof(g->dir), "%s/growing.hwtrec", base);
	ck_assert_int_eq(mkdir(g->dir, 0755), 0);
	make_dir(g->dir, "trace");
}

/* Bring the growing recording to: manifest M, the first SB bytes of the
 * sideband, T1 and T2 bytes of the traces (T2 < 0: no file yet). */
static void grow_to(struct growing *g, const struct pt_final *f, int m,
		    size_t sb, size_t t1, long t2)
{
	if (m != g->manifest) {
		put(g->dir, "manifest.json", &f->manifests[m]);
		g->manifest = m;
	}
	grow(g->dir, "sideband.jsonl", &f->sideband, &g->sideband, sb);
	grow(g->dir, "trace/1.pt", &f->trace1, &g->trace1, t1);
	if (t2 >= 0)
		grow(g->dir, "trace/2.pt", &f->trace2, &g->trace2, (size_t)t2);
}

static void check_against_paths(struct hwtr_history *h, const struct pt_final *f,
				bool complete, const char *when)
{
	struct hwtr_thread *t;

	t = hwtr_history_find_thread(h, 1);
	ck_assert_ptr_nonnull(t);
	check_prefix(t, &f->path1, complete, when);
	if ((t = hwtr_history_find_thread(h, 2)))
		check_prefix(t, &f->path2, complete, when);
	else
		ck_assert(!complete);
}

START_TEST(a_history_extended_piece_by_piece_is_the_path_and_a_full_build)
{
	const char *base = fixture_tmpdir();
	struct pt_final f;
	struct growing g;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_cursor *early;
	size_t cuts[64], ncuts = 0, i, incremental = 0;
	uint64_t early_ip;

	write_pt_final(&f, base);
	/* Thread 1's cuts: in the middle of PSBs (a packet), right after
	 * them, and spread over the stream at odd places (chunks, TNT and
	 * TIP packets); increasing. */
	for (i = 1; i <= 40; i++) {
		size_t at = f.trace1.len * i / 40 + (i % 3 == 1 ? 3 : 0);

		if (i % 5 == 2 && i / 5 < f.npsbs)
			at = f.psbs[2 * (i / 5) + 1] + 7;	/* inside a PSB */
		if (i % 5 == 4 && i / 5 < f.npsbs)
			at = f.psbs[2 * (i / 5)] + 16;	/* just after one */
		if (at > f.trace1.len)
			at = f.trace1.len;
		if (!ncuts || at > cuts[ncuts - 1])
			cuts[ncuts++] = at;
	}
	if (cuts[ncuts - 1] != f.trace1.len)
		cuts[ncuts++] = f.trace1.len;

	start_growing(&g, base);
	/* The recorder's first piece: the manifest of thread 1, its
	 * thread-start, half the code mapping's line, a few bytes of trace. */
	grow_to(&g, &f, 0, f.lines[0] + 20, cuts[0], -1);
	ck_assert_msg(hwtr_recording_open(g.dir, &rec) == 0, "%s", hwtr_last_error());
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 1);
	ck_assert(hwtr_recording_info(rec)->cut_off);	/* not finished, and
							 * half a line */
	ck_assert_msg(hwtr_history_build(rec, NULL, &h) == 0, "%s", hwtr_last_error());
	early = NULL;
	for (i = 1; i < ncuts; i++) {
		struct hwtr_thread_stats st;
		char when[64];
		int m = i < ncuts / 3 ? 0 : i + 1 < ncuts ? 1 : 2;
		size_t sb = i < ncuts / 4 ? f.lines[1]
			    : i < ncuts / 3 ? f.lines[2] + 10	/* mid-line */
			    : i < ncuts / 2 ? f.lines[2]
					    : f.sideband.len;
		long t2 = i < ncuts / 3 ? -1 : i == ncuts / 3 ? 0
			  : (long)(f.trace2.len * (i - ncuts / 3) / (ncuts - 1 - ncuts / 3));

		/* Thread 2 is in the manifest one piece before its stream. */
		if (i + 1 == ncuts / 3)
			m = 1;
		snprintf(when, sizeof(when), "piece %zu (trace 1: %zu bytes)", i, cuts[i]);
		grow_to(&g, &f, m, sb, cuts[i], t2);
		ck_assert_msg(hwtr_recording_refresh(rec) == 0, "%s: %s", when,
			      hwtr_last_error());
		ck_assert_msg(hwtr_history_extend(h) == 0, "%s: %s", when,
			      hwtr_last_error());
		check_against_paths(h, &f, i + 1 == ncuts, when);
		same_as_built(g.dir, h, when);
		/* A cursor made early keeps its place and its instruction. */
		if (!early && hwtr_cursor_alloc(hwtr_history_find_thread(h, 1), &early) == 0) {
			ck_assert_int_eq(hwtr_cursor_goto(early, 3), 0);
			early_ip = f.path1.ips[2];
		}
		if (early) {
			struct hwtr_insn insn;

			ck_assert_uint_eq(hwtr_cursor_position(early), 3);
			ck_assert_int_eq(hwtr_cursor_insn(early, &insn), 0);
			ck_assert_uint_eq(insn.ip, early_ip);
		}
		ck_assert_int_eq(hwtr_thread_stats(hwtr_history_find_thread(h, 1), &st), 0);
		if (!st.rebuilt && st.decoded_instructions < st.instructions)
			incremental++;
	}
	ck_assert(!hwtr_recording_info(rec)->cut_off);
	ck_assert(hwtr_recording_info(rec)->complete);
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 4);
	/* The pieces went on from the last chunk, not from the start. */
	ck_assert_msg(incremental >= ncuts / 2, "%zu of %zu extensions of thread 1 "
		      "went on from its last chunk", incremental, ncuts - 1);
	hwtr_cursor_free(early);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free_pt_final(&f);
	fixture_cleanup();
}
END_TEST

/* Append LINE to the growing recording's sideband (after what it has of
 * the final one). */
static void add_line(struct growing *g, const char *line)
{
	struct blob b = { (char *)line, strlen(line) };
	size_t have = 0;

	grow(g->dir, "sideband.jsonl", &b, &have, b.len);
	g->sideband += b.len;
}

/* Append a loss event of thread 1 at stream OFFSET, written late. */
static void add_late_loss(struct growing *g, size_t offset)
{
	char line[200];

	snprintf(line, sizeof(line), "{\"event\":\"loss\",\"tsc\":400,\"tid\":1,"
		 "\"offset\":%zu,\"len\":1,\"reason\":\"late\"}\n", offset);
	add_line(g, line);
}

/* How many trace-loss gaps thread T has; *LAST: the last one's number. */
static int trace_loss_gaps(struct hwtr_thread *t, uint64_t *last)
{
	struct hwtr_thread_stats st;
	struct hwtr_cursor *c;
	struct hwtr_insn insn;
	uint64_t n;
	int lost = 0;

	*last = 0;
	ck_assert_int_eq(hwtr_thread_stats(t, &st), 0);
	ck_assert_int_eq(hwtr_cursor_alloc(t, &c), 0);
	for (n = 1; n <= st.instructions; n++) {
		ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
		ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
		if (insn.gap && !strcmp(insn.gap->kind, "trace-loss")) {
			lost++;
			*last = n;
		}
	}
	hwtr_cursor_free(c);
	return lost;
}

START_TEST(what_reaches_back_builds_the_thread_again)
{
	const char *base = fixture_tmpdir();
	struct hwtr_thread_stats st;
	struct pt_final f;
	struct growing g;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	char loss[200];
	struct blob line;
	uint64_t at;
	int n;

	write_pt_final(&f, base);
	start_growing(&g, base);
	/* All the trace first, the far code's mapping only later: its time
	 * reaches back before the last chunk's start. */
	grow_to(&g, &f, 1, f.lines[2], f.trace1.len, (long)f.trace2.len);
	ck_assert_int_eq(hwtr_recording_open(g.dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build(rec, NULL, &h), 0);
	same_as_built(g.dir, h, "before the mapping");
	grow_to(&g, &f, 2, f.sideband.len, f.trace1.len, (long)f.trace2.len);
	ck_assert_int_eq(hwtr_recording_refresh(rec), 0);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_find_thread(h, 1), &st), 0);
	ck_assert(st.rebuilt);
	ck_assert_uint_eq(st.decoded_instructions, st.instructions);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_find_thread(h, 2), &st), 0);
	ck_assert(!st.rebuilt);
	check_against_paths(h, &f, true, "after the mapping");
	same_as_built(g.dir, h, "after the mapping");

	/* A loss event of thread 2 inside its first trip, written late. */
	n = snprintf(loss, sizeof(loss), "{\"event\":\"loss\",\"tsc\":900,\"tid\":2,"
		     "\"offset\":%zu,\"len\":1,\"reason\":\"late\"}\n",
		     f.trace2.len / 4);
	line.bytes = loss;
	line.len = (size_t)n;
	{
		size_t have = 0;
		struct blob all = { malloc(f.sideband.len + line.len),
				    f.sideband.len + line.len };

		memcpy(all.bytes, f.sideband.bytes, f.sideband.len);
		memcpy(all.bytes + f.sideband.len, line.bytes, line.len);
		have = g.sideband;
		grow(g.dir, "sideband.jsonl", &all, &have, all.len);
		free(all.bytes);
	}
	ck_assert_int_eq(hwtr_recording_refresh(rec), 0);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_find_thread(h, 2), &st), 0);
	ck_assert(st.rebuilt);
	ck_assert_int_gt(trace_loss_gaps(hwtr_history_find_thread(h, 2), &at), 0);
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_find_thread(h, 1), &st), 0);
	ck_assert(!st.rebuilt);
	ck_assert_uint_eq(st.decoded_instructions, 0);
	same_as_built(g.dir, h, "after the loss");
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free_pt_final(&f);
	fixture_cleanup();
}
END_TEST

/* The refresh that reads the finished manifest checks the files against
 * its lengths and checksums: while a stream is short of them it is refused
 * and leaves the recording as it was; once all are whole it succeeds. */
START_TEST(a_recording_that_finishes_is_checked_by_the_refresh_that_sees_it)
{
	const char *base = fixture_tmpdir();
	struct pt_final f;
	struct growing g;
	struct hwtr_recording *rec;
	struct hwtr_history *h;

	write_pt_final(&f, base);
	start_growing(&g, base);
	grow_to(&g, &f, 1, f.lines[3], f.trace1.len / 2, (long)f.trace2.len);
	ck_assert_int_eq(hwtr_recording_open(g.dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build(rec, NULL, &h), 0);
	grow_to(&g, &f, 3, f.sideband.len, f.trace1.len - 1, (long)f.trace2.len);
	ck_assert_int_eq(hwtr_recording_refresh(rec), -hwtr_err_format);
	ck_assert_msg(strstr(hwtr_last_error(), "trace/1.pt") &&
		      strstr(hwtr_last_error(), "the file was cut"), "%s",
		      hwtr_last_error());
	ck_assert(!hwtr_recording_info(rec)->complete);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	grow_to(&g, &f, 3, f.sideband.len, f.trace1.len, (long)f.trace2.len);
	ck_assert_msg(hwtr_recording_refresh(rec) == 0, "%s", hwtr_last_error());
	ck_assert(hwtr_recording_info(rec)->complete);
	ck_assert(hwtr_recording_info(rec)->threads[0].has_stream_check);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	check_against_paths(h, &f, true, "finished");
	same_as_built(g.dir, h, "finished");
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free_pt_final(&f);
	fixture_cleanup();
}
END_TEST

START_TEST(a_late_loss_in_the_last_chunk_undoes_what_the_chunk_did)
{
	const char *base = fixture_tmpdir();
	struct hwtr_thread_stats st;
	struct pt_final f;
	struct growing g;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct hwtr_segment caller;
	/* The third round's PSB inside leaf: PSB+ is 35 bytes, then the
	 * return's TIP (7) and the TNT after it. */
	size_t psb = 0, tip, cut;

	write_pt_final(&f, base);
	psb = f.psbs[7];
	tip = psb + 35;
	cut = tip + 7 + 1;
	start_growing(&g, base);
	grow_to(&g, &f, 0, f.lines[1], cut, -1);
	ck_assert_int_eq(hwtr_recording_open(g.dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build(rec, NULL, &h), 0);
	/* The return after that PSB linked _start's segment before it to the
	 * one it returned to. */
	ck_assert_int_eq(hwtr_thread_segment(hwtr_history_thread(h, 0), 3 * 13 + 3,
					     &caller), 0);
	ck_assert_str_eq(caller.function, "_start");
	ck_assert_uint_eq(caller.next, 3 * 13 + 5);
	/* Trace was lost right before that return, the source says late. */
	add_late_loss(&g, tip);
	grow_to(&g, &f, 0, g.sideband, f.psbs[8] + 20, -1);
	ck_assert_int_eq(hwtr_recording_refresh(rec), 0);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert(!st.rebuilt);
	ck_assert_int_eq(hwtr_thread_segment(hwtr_history_thread(h, 0), 3 * 13 + 3,
					     &caller), 0);
	ck_assert_uint_eq(caller.next, 0);	/* no return any more */
	same_as_built(g.dir, h, "after the late loss");
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free_pt_final(&f);
	fixture_cleanup();
}
END_TEST

/* A late loss exactly at a chunk start: a build puts a trace-loss gap
 * before that chunk (before the first one, at the trace's start), which
 * going on from the chunk start cannot give: the thread is built again.
 * Both places: the last chunk's start, and the only chunk's (offset 0). */
START_TEST(a_late_loss_at_the_kept_chunk_start_builds_the_thread_again)
{
	const char *base = fixture_tmpdir();
	struct hwtr_thread_stats st;
	struct pt_final f;
	struct growing g;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	uint64_t at;
	size_t psb;

	write_pt_final(&f, base);
	psb = _i == 0 ? f.psbs[7] : f.psbs[0];
	ck_assert(_i == 0 || psb == 0);
	start_growing(&g, base);
	grow_to(&g, &f, 0, f.lines[1], psb + 40, -1);
	ck_assert_int_eq(hwtr_recording_open(g.dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build(rec, NULL, &h), 0);
	add_late_loss(&g, psb);
	grow_to(&g, &f, 0, g.sideband, f.psbs[8] + 20, -1);
	ck_assert_int_eq(hwtr_recording_refresh(rec), 0);
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	ck_assert_int_eq(hwtr_thread_stats(hwtr_history_thread(h, 0), &st), 0);
	ck_assert(st.rebuilt);
	ck_assert_int_eq(trace_loss_gaps(hwtr_history_thread(h, 0), &at), 1);
	if (psb == 0)
		ck_assert_uint_eq(at, 1);	/* the history's first item */
	same_as_built(g.dir, h, "after a loss at the chunk start");
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free_pt_final(&f);
	fixture_cleanup();
}
END_TEST

START_TEST(a_recording_that_shrinks_or_changes_is_refused_as_it_was)
{
	const char *base = fixture_tmpdir();
	struct pt_final f;
	struct growing g;
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct blob other;
	char path[600], *text, *at;
	const uint8_t *bytes;
	size_t size;

	write_pt_final(&f, base);
	start_growing(&g, base);
	grow_to(&g, &f, 1, f.lines[2], f.trace1.len / 2, (long)f.trace2.len);
	ck_assert_int_eq(hwtr_recording_open(g.dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build(rec, NULL, &h), 0);

	/* A stream cut shorter underneath: refused, naming it. */
	snprintf(path, sizeof(path), "%s/trace/1.pt", g.dir);
	ck_assert_int_eq(truncate(path, (off_t)(f.trace1.len / 4)), 0);
	ck_assert_int_lt(hwtr_recording_refresh(rec), 0);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "trace/1.pt"));
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "shrank"));
	hwtr_recording_trace(rec, 0, &bytes, &size);
	ck_assert_uint_eq(size, f.trace1.len / 2);
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 3);
	g.trace1 = f.trace1.len / 4;
	grow(g.dir, "trace/1.pt", &f.trace1, &g.trace1, f.trace1.len / 2);

	/* The sideband cut shorter: refused. */
	snprintf(path, sizeof(path), "%s/sideband.jsonl", g.dir);
	ck_assert_int_eq(truncate(path, (off_t)f.lines[0]), 0);
	ck_assert_int_lt(hwtr_recording_refresh(rec), 0);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "sideband.jsonl"));
	g.sideband = f.lines[0];
	grow(g.dir, "sideband.jsonl", &f.sideband, &g.sideband, f.lines[2]);

	/* Another recording's manifest (another process) in its place. */
	text = strndup(f.manifests[1].bytes, f.manifests[1].len);
	at = strstr(text, "\"pid\": 1");
	ck_assert_ptr_nonnull(at);
	at[7] = '7';
	other.bytes = text;
	other.len = strlen(text);
	put(g.dir, "manifest.json", &other);
	ck_assert_int_lt(hwtr_recording_refresh(rec), 0);
	ck_assert_msg(strstr(hwtr_last_error(), "process.pid") != NULL, "%s",
		      hwtr_last_error());
	free(text);
	put(g.dir, "manifest.json", &f.manifests[1]);

	/* And back as it was, it reads on. */
	grow_to(&g, &f, 2, f.sideband.len, f.trace1.len, (long)f.trace2.len);
	ck_assert_msg(hwtr_recording_refresh(rec) == 0, "%s", hwtr_last_error());
	ck_assert_msg(hwtr_history_extend(h) == 0, "%s", hwtr_last_error());
	check_against_paths(h, &f, true, "restored");
	same_as_built(g.dir, h, "restored");
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free_pt_final(&f);
	fixture_cleanup();
}
END_TEST

/* ------------------------------------------------------------- ETM */

#define ETM_ROUNDS 4

static void etm_extension(bool formatted)
{
	struct etm_trace tr = { .len = 0 };
	struct etm_source src = { .id = 0x10 };
	char base[256], final[300], grown[300], cmd[1024];
	const char *stream = formatted ? "trace/frames" : "trace/16";
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	struct blob whole;
	size_t have, len, steps = 0, incremental = 0;
	int r;

	snprintf(base, sizeof(base), "/tmp/hwtr-extend-etm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	for (r = 0; r < ETM_ROUNDS; r++)
		etm_main_path(&tr);
	src.bytes = tr.buf;
	src.len = tr.len;
	snprintf(final, sizeof(final), "%s/final.hwtrec", base);
	snprintf(grown, sizeof(grown), "%s/grown.hwtrec", base);
	ck_assert_msg(etm_fixture_recording(final, &src, 1, formatted) == 0, "%s",
		      hwtr_last_error());
	read_blob(final, stream, &whole);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s' && : > '%s/%s'", final, grown,
		 grown, stream);
	ck_assert_int_eq(system(cmd), 0);
	{
		struct blob manifest;

		read_blob(grown, "manifest.json", &manifest);
		strip_checks(&manifest);
		put(grown, "manifest.json", &manifest);
		free(manifest.bytes);
	}
	have = 0;
	len = formatted ? 16 : 5;
	grow(grown, stream, &whole, &have, len);
	ck_assert_msg(hwtr_recording_open(grown, &rec) == 0, "%s", hwtr_last_error());
	ck_assert_msg(hwtr_history_build(rec, NULL, &h) == 0, "%s", hwtr_last_error());
	while (have < whole.len) {
		struct hwtr_thread *t;
		struct hwtr_thread_stats st;
		struct hwtr_cursor *c;
		char when[64];
		uint64_t n, matched = 0;

		/* Odd steps: cuts fall inside packets and frames. */
		len += formatted ? 16 * (1 + steps % 3) + (steps % 4 == 1 ? 7 : 0)
				 : 3 + steps % 5;
		grow(grown, stream, &whole, &have, len);
		steps++;
		snprintf(when, sizeof(when), "ETM %s, %zu bytes",
			 formatted ? "frames" : "raw", have);
		ck_assert_msg(hwtr_recording_refresh(rec) == 0, "%s: %s", when,
			      hwtr_last_error());
		ck_assert_msg(hwtr_history_extend(h) == 0, "%s: %s", when,
			      hwtr_last_error());
		same_as_built(grown, h, when);
		/* A prefix of the rounds of the main path, gaps at the cut. */
		t = hwtr_history_find_thread(h, 0x10);
		ck_assert_ptr_nonnull(t);
		ck_assert_int_eq(hwtr_thread_stats(t, &st), 0);
		if (!st.rebuilt && st.decoded_instructions < st.instructions)
			incremental++;
		if (!st.instructions)
			continue;
		ck_assert_int_eq(hwtr_cursor_alloc(t, &c), 0);
		for (n = 1; n <= st.instructions; n++) {
			struct hwtr_insn insn;

			ck_assert_int_eq(hwtr_cursor_goto(c, n), 0);
			ck_assert_int_eq(hwtr_cursor_insn(c, &insn), 0);
			if (!insn.gap && matched == n - 1 && n <= 18 * ETM_ROUNDS &&
			    insn.ip == etm_main_path_ips[(n - 1) % 18]) {
				matched = n;
				continue;
			}
			ck_assert_msg(insn.gap != NULL, "%s: instruction %llu at 0x%llx "
				      "is not on the path", when,
				      (unsigned long long)n, (unsigned long long)insn.ip);
		}
		hwtr_cursor_free(c);
		ck_assert_msg(st.instructions - matched <= 2, "%s: %llu of %llu follow "
			      "the path", when, (unsigned long long)matched,
			      (unsigned long long)st.instructions);
		if (have == whole.len)
			ck_assert_uint_eq(matched, 18 * ETM_ROUNDS);
	}
	ck_assert_msg(incremental >= steps / 2, "%zu of %zu extensions went on from "
		      "the last chunk", incremental, steps);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	free(whole.bytes);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(an_etm_history_extends_as_its_raw_trace_grows)
{
	etm_extension(false);
}
END_TEST

START_TEST(an_etm_history_extends_as_its_coresight_frames_grow)
{
	etm_extension(true);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("growing recordings");

	tcase_set_timeout(tc, 300);	/* under memcheck on a busy machine */
	tcase_add_test(tc, a_history_extended_piece_by_piece_is_the_path_and_a_full_build);
	tcase_add_test(tc, what_reaches_back_builds_the_thread_again);
	tcase_add_test(tc, a_late_loss_in_the_last_chunk_undoes_what_the_chunk_did);
	tcase_add_test(tc, a_recording_that_finishes_is_checked_by_the_refresh_that_sees_it);
	tcase_add_loop_test(tc, a_late_loss_at_the_kept_chunk_start_builds_the_thread_again, 0, 2);
	tcase_add_test(tc, a_recording_that_shrinks_or_changes_is_refused_as_it_was);
	tcase_add_test(tc, an_etm_history_extends_as_its_raw_trace_grows);
	tcase_add_test(tc, an_etm_history_extends_as_its_coresight_frames_grow);
	return check_run_tcase("extend", tc);
}
