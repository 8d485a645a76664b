/* hwtr-compare-history: do two views of one program's execution list the same
 * instructions of one object, per thread, in the same order?
 *
 *     hwtr-compare-history [--lackey-base ADDR] [--allow-gap ERROR]...
 *                          [--resync-after-gap ERROR]... [--prefix]
 *                          --object PATH EXPECTED ACTUAL
 *
 * Each input is read line by line, in any mix of these formats:
 *   - hwtr-stepper --offsets output: "TID OBJECT 0xOFFSET" ("#" lines are
 *     events; "# start TID" makes a thread known even if it never runs PATH);
 *   - `hwtrec dump REC --insn --json` lines (doc/json-schema.md): thread,
 *     number, object, object_offset; a "gap" line is a divergence, unless its
 *     error is named by --allow-gap (e.g. "disabled": tracing stopped and
 *     resumed elsewhere, as at a signal, which loses no instruction: the
 *     instruction sequences around it are still compared exactly);
 *   - valgrind --tool=lackey --trace-mem=yes lines "I  ADDR,SIZE": one thread;
 *     ADDR minus --lackey-base (where Valgrind loaded PATH: 0 for a non-PIE
 *     executable, 0x108000 for a PIE one on amd64) is turned into a file
 *     offset with PATH's program headers.
 * With --resync-after-gap ERROR, gaps of that kind in ACTUAL are trace that
 * was lost (an overflow): ACTUAL is then a series of runs, each of which must
 * be a contiguous stretch of EXPECTED, in order, later runs after earlier
 * ones; the first run (if no gap precedes it) starts where EXPECTED starts
 * and the last (if no gap follows it) ends where EXPECTED ends.
 * With --prefix, ACTUAL is a recording cut off early: each of its threads
 * must list the first instructions of the expected thread (all of them or
 * fewer, none differing, no gap but the allowed ones), and threads that the
 * recording never reached may be missing from it (not threads it has and
 * EXPECTED has not).
 * Only instructions of PATH are compared, as file offsets: a recording made
 * under Valgrind runs PIE programs at another base and redirects some libc and
 * ld.so functions, so only the program's own code can be compared exactly.
 * Threads are paired in creation order (both runs create them in the same
 * order): the first thread each input lists (the stepper's "# start" of the
 * process, a recording's first thread) is the process's first, and the others
 * follow in tid order, a tid below the first one's counting as later: the
 * kernel's pid counter wrapped around (at pid_max, back to 300) while the
 * program ran.  Plain tid order then put the last threads first.
 *
 * Exit status: 0 equal, 1 different (the first difference is described), 2 on
 * a bad input (named with its line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <jansson.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct insn {
	uint64_t offset;
	uint64_t number;	/* line number in the input, or dump number */
};

struct thread {
	long tid;
	struct insn *insns;
	size_t count, alloc;
	char *gap;		/* first gap in this thread, as text */
	size_t gap_at;		/* own-code instructions before the gap */
	size_t *resyncs;	/* own-code counts at lossy gaps */
	size_t nresyncs, cap_resyncs;
};

struct view {
	const char *file;
	struct thread *threads;
	size_t nthreads;
	uint64_t other;		/* instructions outside PATH */
};

/* Object names seen in inputs, with whether each is PATH. */
struct name { char *text; bool is_target; };
static struct name *names;
static size_t nnames;
static char *target;		/* realpath of --object */
static uint64_t lackey_base;
static const char *allowed_gaps[8];
static size_t nallowed_gaps;
static const char *resync_gaps[8];
static size_t nresync_gaps;
static uint64_t skipped_gaps;
static bool prefix_only;
static const char *target_base;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hwtr-compare-history: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		fail("out of memory");
	return p;
}

/* A recording may name the program as it was started ("./prog") or by
 * its real path; a file that no longer exists is matched by base name. */
static bool is_target(const char *object)
{
	char *real;
	bool match;

	for (size_t i = 0; i < nnames; i++)
		if (!strcmp(names[i].text, object))
			return names[i].is_target;
	real = realpath(object, NULL);
	if (real)
		match = !strcmp(real, target);
	else {
		const char *slash = strrchr(object, '/');

		match = !strcmp(slash ? slash + 1 : object, target_base);
	}
	free(real);
	names = xrealloc(names, (nnames + 1) * sizeof(*names));
	names[nnames].text = strdup(object);
	names[nnames].is_target = match;
	nnames++;
	return match;
}

static struct thread *get_thread(struct view *v, long tid)
{
	for (size_t i = 0; i < v->nthreads; i++)
		if (v->threads[i].tid == tid)
			return &v->threads[i];
	v->threads = xrealloc(v->threads, (v->nthreads + 1) * sizeof(*v->threads));
	v->threads[v->nthreads] = (struct thread){ .tid = tid };
	return &v->threads[v->nthreads++];
}

static void add_insn(struct thread *t, uint64_t offset, uint64_t number)
{
	if (t->count == t->alloc) {
		t->alloc = t->alloc ? 2 * t->alloc : 1024;
		t->insns = xrealloc(t->insns, t->alloc * sizeof(*t->insns));
	}
	t->insns[t->count++] = (struct insn){ offset, number };
}

/* Executable PT_LOADs of the target, to place lackey's addresses. */
static GElf_Phdr *loads;
static size_t nloads;

static void read_loads(void)
{
	Elf *elf;
	size_t n;
	int fd;

	if (loads)
		return;
	elf_version(EV_CURRENT);
	fd = open(target, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("%s: %s", target, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n) != 0)
		fail("%s: not an ELF file: %s", target, elf_errmsg(-1));
	loads = xrealloc(NULL, (n + 1) * sizeof(*loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X))
			loads[nloads++] = ph;
	}
	elf_end(elf);
	close(fd);
}

static bool lackey_offset(uint64_t addr, uint64_t *offset)
{
	read_loads();
	addr -= lackey_base;
	for (size_t i = 0; i < nloads; i++)
		if (addr >= loads[i].p_vaddr &&
		    addr < loads[i].p_vaddr + loads[i].p_filesz) {
			*offset = addr - loads[i].p_vaddr + loads[i].p_offset;
			return true;
		}
	return false;
}

/* Most lines of a dump are outside PATH: take their thread from the fixed
 * prefix the schema's writer prints ({"thread":N,...) without parsing the
 * line, and parse only lines that may hold PATH or a gap. */
static bool quick_other(struct view *v, const char *line)
{
	long tid;

	if (strstr(line, target_base) || strstr(line, "\"gap\""))
		return false;
	if (sscanf(line, "{\"thread\":%ld,", &tid) != 1)
		return false;
	get_thread(v, tid);
	v->other++;
	return true;
}

static void read_json(struct view *v, const char *line, uint64_t lineno)
{
	json_error_t err;
	json_t *o = json_loads(line, 0, &err), *j;
	struct thread *t;

	if (!o || !json_is_object(o))
		fail("%s:%" PRIu64 ": not a JSON object: %s", v->file, lineno,
		     o ? "" : err.text);
	j = json_object_get(o, "thread");
	if (!json_is_integer(j))
		fail("%s:%" PRIu64 ": no integer \"thread\"", v->file, lineno);
	t = get_thread(v, (long)json_integer_value(j));
	j = json_object_get(o, "number");
	uint64_t number = json_is_integer(j) ? (uint64_t)json_integer_value(j) : lineno;
	if ((j = json_object_get(o, "gap"))) {
		const char *error = json_string_value(json_object_get(j, "error"));
		bool allowed = false, resync = false;

		for (size_t i = 0; error && i < nallowed_gaps; i++)
			allowed |= !strcmp(error, allowed_gaps[i]);
		for (size_t i = 0; error && i < nresync_gaps; i++)
			resync |= !strcmp(error, resync_gaps[i]);
		if (resync) {
			if (t->nresyncs == t->cap_resyncs) {
				t->cap_resyncs = t->cap_resyncs ? 2 * t->cap_resyncs : 16;
				t->resyncs = realloc(t->resyncs, t->cap_resyncs *
							 sizeof(*t->resyncs));
				if (!t->resyncs)
					fail("out of memory");
			}
			t->resyncs[t->nresyncs++] = t->count;
		} else if (allowed)
			skipped_gaps++;
		else if (!t->gap) {
			char *text = json_dumps(j, JSON_COMPACT);

			if (asprintf(&t->gap, "gap at instruction number %" PRIu64
				     ": %s", number, text ? text : "?") < 0)
				fail("out of memory");
			t->gap_at = t->count;
			free(text);
		}
	} else {
		json_t *obj = json_object_get(o, "object");
		json_t *off = json_object_get(o, "object_offset");

		if (json_is_string(obj) && json_is_integer(off) &&
		    is_target(json_string_value(obj)))
			add_insn(t, (uint64_t)json_integer_value(off), number);
		else
			v->other++;
	}
	json_decref(o);
}

static void read_view(struct view *v)
{
	FILE *f = fopen(v->file, "re");
	char *line = NULL;
	size_t cap = 0;
	uint64_t lineno = 0;

	if (!f)
		fail("%s: %s", v->file, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		char object[4096];
		uint64_t offset, addr;
		unsigned size;
		long tid;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '{') {
			if (!quick_other(v, line))
				read_json(v, line, lineno);
		} else if (sscanf(line, "# start %ld", &tid) == 1) {
			get_thread(v, tid);
		} else if (line[0] == '#' || line[0] == '\0' ||
			   !strncmp(line, "==", 2)) {
			continue;	/* events; lackey's own messages */
		} else if (sscanf(line, "I %" SCNx64 ",%u", &addr, &size) == 2) {
			if (lackey_offset(addr, &offset))
				add_insn(get_thread(v, 1), offset, lineno);
			else
				v->other++;
		} else if (line[0] == ' ' || line[0] == 'S' || line[0] == 'L' ||
			   line[0] == 'M') {
			continue;	/* lackey's data accesses */
		} else if (sscanf(line, "%ld %4095s 0x%" SCNx64,
				  &tid, object, &offset) == 3) {
			struct thread *t = get_thread(v, tid);

			if (is_target(object))
				add_insn(t, offset, lineno);
			else
				v->other++;
		} else {
			fail("%s:%" PRIu64 ": unrecognised line: %.80s", v->file,
			     lineno, line);
		}
	}
	free(line);
	fclose(f);
}

/* The tid of the thread being sorted views' first thread: see the header. */
static long first_tid;

/* Tids in allocation order from FIRST_TID on: after the wrap, lower is later. */
static int by_creation(const void *a, const void *b)
{
	long x = ((const struct thread *)a)->tid, y = ((const struct thread *)b)->tid;
	bool xw = x < first_tid, yw = y < first_tid;

	if (xw != yw)
		return xw ? 1 : -1;
	return (x > y) - (x < y);
}

static void sort_creation_order(struct view *v)
{
	if (!v->nthreads)
		return;
	first_tid = v->threads[0].tid;	/* threads are in first-seen order */
	qsort(v->threads, v->nthreads, sizeof(struct thread), by_creation);
}

static void show_context(const struct thread *e, const struct thread *a, size_t at)
{
	size_t from = at > 5 ? at - 5 : 0;

	fprintf(stderr, "  own-code #  expected (line)        recorded (number)\n");
	for (size_t i = from; i < at + 5; i++) {
		if (i >= e->count && i >= a->count)
			break;
		fprintf(stderr, "  %9zu  ", i + 1);
		if (i < e->count)
			fprintf(stderr, "0x%-8" PRIx64 " (%8" PRIu64 ")   ",
				e->insns[i].offset, e->insns[i].number);
		else
			fprintf(stderr, "%-23s", "(end)");
		if (i < a->count)
			fprintf(stderr, "0x%-8" PRIx64 " (%8" PRIu64 ")",
				a->insns[i].offset, a->insns[i].number);
		else
			fprintf(stderr, "(end)");
		fprintf(stderr, "%s\n", i == at ? "   <== first difference" : "");
	}
}

static bool run_at(const struct thread *e, size_t at, const struct insn *run,
		   size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (e->insns[at + i].offset != run[i].offset)
			return false;
	return true;
}

/* ACTUAL with lossy gaps: each run a stretch of EXPECTED, in order. */
static bool compare_runs(size_t index, const struct thread *e,
			 const struct thread *a, const char *object)
{
	size_t pos = 0, matched = 0, r;

	if (a->gap && a->gap_at < a->count) {
		fprintf(stderr, "thread %zu (tid %ld): after %zu instructions the "
			"recording has a %s\n", index + 1, a->tid, a->gap_at,
			a->gap);
		return false;
	}
	for (r = 0; r <= a->nresyncs; r++) {
		size_t from = r ? a->resyncs[r - 1] : 0;
		size_t to = r < a->nresyncs ? a->resyncs[r] : a->count;
		size_t len = to - from, at;
		bool first = r == 0, last = r == a->nresyncs;

		if (!len)
			continue;
		if (len > e->count - pos) {
			at = e->count;
		} else if (first) {
			at = run_at(e, 0, a->insns, len) ? 0 : e->count;
		} else if (last) {
			at = e->count - len;
			if (at < pos || !run_at(e, at, a->insns + from, len))
				at = e->count;
		} else {
			for (at = pos; at + len <= e->count; at++)
				if (run_at(e, at, a->insns + from, len))
					break;
			if (at + len > e->count)
				at = e->count;
		}
		if (at == e->count) {
			fprintf(stderr, "thread %zu (expected tid %ld, recorded tid "
				"%ld): run %zu of %zu (recorded own-code instructions "
				"%zu..%zu, numbers %" PRIu64 "..%" PRIu64 ") is not a "
				"stretch of the expected sequence %s (after expected "
				"own-code instruction %zu)\n", index + 1, e->tid,
				a->tid, r + 1, a->nresyncs + 1, from + 1, to,
				a->insns[from].number, a->insns[to - 1].number,
				first ? "at its start" : last ? "at its end" :
				"in order", pos);
			return false;
		}
		pos = at + len;
		matched += len;
	}
	printf("thread %zu (expected tid %ld, recorded tid %ld): %zu runs "
	       "between %zu lossy gaps, %zu of %zu instructions of %s recorded, "
	       "each run a stretch of the expected sequence, in order; %zu "
	       "lost\n", index + 1, e->tid, a->tid, a->nresyncs + 1,
	       a->nresyncs, matched, e->count, object, e->count - matched);
	return true;
}

/* Compare one pair of threads; print the first difference. */
static bool compare_thread(size_t index, const struct thread *e,
			   const struct thread *a, const char *object)
{
	size_t n = e->count < a->count ? e->count : a->count;
	size_t i;

	if (nresync_gaps)
		return compare_runs(index, e, a, object);
	if (a->gap && a->gap_at <= n)
		n = a->gap_at;
	if (prefix_only && !a->gap) {
		for (i = 0; i < n; i++)
			if (e->insns[i].offset != a->insns[i].offset)
				break;
		if (i == n && a->count <= e->count) {
			printf("thread %zu (expected tid %ld, recorded tid %ld): "
			       "the first %zu of %zu instructions of %s, equal\n",
			       index + 1, e->tid, a->tid, a->count, e->count,
			       object);
			return true;
		}
	}
	for (i = 0; i < n; i++)
		if (e->insns[i].offset != a->insns[i].offset)
			break;
	if (i == n && a->gap && a->gap_at <= e->count) {
		fprintf(stderr, "thread %zu (expected tid %ld, recorded tid %ld): "
			"after %zu equal instructions of %s the recording has a %s\n",
			index + 1, e->tid, a->tid, i, object, a->gap);
		show_context(e, a, i);
		return false;
	}
	if (i == n && e->count == a->count) {
		printf("thread %zu (expected tid %ld, recorded tid %ld): %zu "
		       "instructions of %s equal\n", index + 1, e->tid, a->tid,
		       e->count, object);
		return true;
	}
	if (i == n)
		fprintf(stderr, "thread %zu (expected tid %ld, recorded tid %ld): "
			"expected %zu instructions of %s, recorded %zu; the first "
			"%zu are equal\n", index + 1, e->tid, a->tid, e->count,
			object, a->count, n);
	else
		fprintf(stderr, "thread %zu (expected tid %ld, recorded tid %ld): "
			"own-code instruction %zu differs: expected %s+0x%" PRIx64
			" (expected line %" PRIu64 "), recorded %s+0x%" PRIx64
			" (recorded instruction number %" PRIu64 ")\n", index + 1,
			e->tid, a->tid, i + 1, object, e->insns[i].offset,
			e->insns[i].number, object, a->insns[i].offset,
			a->insns[i].number);
	show_context(e, a, i);
	return false;
}

static void free_view(struct view *v)
{
	for (size_t i = 0; i < v->nthreads; i++) {
		free(v->threads[i].insns);
		free(v->threads[i].gap);
		free(v->threads[i].resyncs);
	}
	free(v->threads);
}

int main(int argc, char **argv)
{
	struct view expected = { 0 }, actual = { 0 };
	bool equal = true;
	size_t n;

	while (argc > 5) {
		if (!strcmp(argv[1], "--prefix")) {
			prefix_only = true;
			argc--;
			argv++;
			continue;
		}
		if (!strcmp(argv[1], "--lackey-base"))
			lackey_base = strtoull(argv[2], NULL, 0);
		else if (!strcmp(argv[1], "--allow-gap") &&
			 nallowed_gaps < sizeof(allowed_gaps) / sizeof(allowed_gaps[0]))
			allowed_gaps[nallowed_gaps++] = argv[2];
		else if (!strcmp(argv[1], "--resync-after-gap") &&
			 nresync_gaps < sizeof(resync_gaps) / sizeof(resync_gaps[0]))
			resync_gaps[nresync_gaps++] = argv[2];
		else
			break;
		argc -= 2;
		argv += 2;
	}
	if (argc != 5 || strcmp(argv[1], "--object")) {
		fprintf(stderr, "usage: hwtr-compare-history [--lackey-base ADDR] "
			"[--allow-gap ERROR]... [--resync-after-gap ERROR]... "
			"[--prefix] --object PATH EXPECTED ACTUAL\n");
		return 2;
	}
	target = realpath(argv[2], NULL);
	if (!target)
		fail("%s: %s", argv[2], strerror(errno));
	target_base = strrchr(target, '/') + 1;
	expected.file = argv[3];
	actual.file = argv[4];
	read_view(&expected);
	read_view(&actual);
	sort_creation_order(&expected);
	sort_creation_order(&actual);

	if (prefix_only ? expected.nthreads < actual.nthreads
			: expected.nthreads != actual.nthreads) {
		fprintf(stderr, "%s has %zu threads, %s has %zu\n", expected.file,
			expected.nthreads, actual.file, actual.nthreads);
		equal = false;
	}
	n = expected.nthreads < actual.nthreads ? expected.nthreads : actual.nthreads;
	for (size_t i = 0; i < n; i++)
		equal &= compare_thread(i, &expected.threads[i],
					&actual.threads[i], target);
	if (skipped_gaps)
		printf("%" PRIu64 " gap(s) of an allowed kind were skipped\n",
		       skipped_gaps);
	free_view(&expected);
	free_view(&actual);
	for (size_t i = 0; i < nnames; i++)
		free(names[i].text);
	free(names);
	free(loads);
	free(target);
	return equal ? 0 : 1;
}
