/* test-symbolizer.c: functions and source lines of a recording's binaries
 * (symbols.c), at the load address and in the program of each time.
 *
 * Oracles, run on the binaries the test builds: readelf -s (each FUNC
 * symbol's address, size and name), objdump -d (the PLT stubs' NAME@plt
 * labels, and every instruction address of .text) and addr2line (the
 * source line of each of those instructions), readelf --debug-dump=
 * frames-interp (the CFA rule at each of them).  symbols-program is a PIE
 * mapped at BIAS, so every expected address is the tools' plus BIAS.  The
 * exec case maps fixture-code, then execs fixture-next: other functions at
 * the same addresses, each named in the window of its own program.
 */
#include "fixture.h"
#include "image.h"
#include "symbols.h"
#include "check-main.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIAS 0x555555554000ULL

struct expected_function {
	uint64_t start, size;
	char name[128];
};

/* Lines of the output of COMMAND, one at a time to EACH. */
static void each_output_line(const char *command, void (*each)(const char *, void *),
			     void *ctx)
{
	char line[1024];
	FILE *p = popen(command, "r");

	ck_assert_msg(p != NULL, "cannot run %s", command);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		each(line, ctx);
	}
	ck_assert_int_eq(pclose(p), 0);
}

struct function_list {
	struct expected_function list[256];
	size_t n;
	/* FUNC symbols without a size (_init, _fini): where they start */
	uint64_t sizeless[16];
	size_t nsizeless;
};

/* "  Num:    Value          Size Type    Bind   Vis      Ndx Name" */
static void readelf_function(const char *line, void *ctx)
{
	struct function_list *f = ctx;
	char type[16], bind[16], vis[16], ndx[16], name[128];
	unsigned long long value, size;
	unsigned num;

	if (sscanf(line, " %u: %llx %llu %15s %15s %15s %15s %127s", &num, &value,
		   &size, type, bind, vis, ndx, name) != 8 ||
	    strcmp(type, "FUNC") || !strcmp(ndx, "UND"))
		return;
	if (!size) {
		if (f->nsizeless < 16)
			f->sizeless[f->nsizeless++] = value;
		return;
	}
	ck_assert_uint_lt(f->n, 256);
	f->list[f->n].start = value;
	f->list[f->n].size = size;
	snprintf(f->list[f->n].name, sizeof(f->list[f->n].name), "%s", name);
	f->n++;
}

/* Whether a FUNC symbol without a size starts at ADDR (the symbolizer
 * names it from there, as GDB does; its extent is not known). */
static bool starts_sizeless(const struct function_list *f, uint64_t addr)
{
	size_t i;

	for (i = 0; i < f->nsizeless; i++)
		if (f->sizeless[i] == addr)
			return true;
	return false;
}

/* readelf's FUNC symbols of PATH with a size, without the aliases (two
 * symbols at one address, which the symbolizer ranks). */
static void functions_of(const char *path, struct function_list *f)
{
	char command[600];
	size_t i, j, k = 0;

	snprintf(command, sizeof(command), "readelf -sW '%s'", path);
	f->n = f->nsizeless = 0;
	each_output_line(command, readelf_function, f);
	for (i = 0; i < f->n; i++) {
		for (j = 0; j < f->n; j++)
			if (j != i && f->list[j].start == f->list[i].start)
				break;
		if (j == f->n)
			f->list[k++] = f->list[i];
	}
	f->n = k;
	ck_assert_uint_ge(f->n, 1);
}

static const char *program_path(void)
{
	return SYMBOLS_PROGRAM;
}

struct opened {
	struct hwtr_recording *rec;
	struct image_set *images;
	struct hwtr_symbolizer *symbols;
};

/* A recording whose sideband is EVENTS, its image and symbolizer. */
static void open_with(struct opened *o, const struct hwtr_sideband_event *events,
		      size_t n)
{
	char dir[300];
	struct trace t;

	snprintf(dir, sizeof(dir), "%s/s.hwtrec", fixture_tmpdir());
	trace_begin(&t);
	enc_psb_disabled(&t, 1);
	fixture_recording_with(dir, t.buf, trace_size(&t), events, n);
	trace_end(&t);
	ck_assert_int_eq(hwtr_recording_open(dir, &o->rec), 0);
	ck_assert_int_eq(image_set_build(o->rec, NULL, &o->images), 0);
	ck_assert_int_eq(symbolizer_build(o->images, NULL, &o->symbols), 0);
}

static void close_opened(struct opened *o)
{
	symbolizer_free(o->symbols);
	image_set_free(o->images);
	hwtr_recording_close(o->rec);
	fixture_cleanup();
}

/* The PIE mapped at BIAS. */
static void open_program(struct opened *o, unsigned *epoch)
{
	struct hwtr_sideband_event mm;

	fixture_mapping(program_path(), 0, &mm);
	mm.addr += BIAS;
	open_with(o, &mm, 1);
	ck_assert_int_eq(symbolizer_end_epoch(o->symbols, epoch), 0);
}

static void assert_function_at(struct opened *o, unsigned epoch, uint64_t ip,
			       const char *name, uint64_t start)
{
	uint32_t id = symbolizer_function(o->symbols, epoch, ip);
	const char *got = symbolizer_function_name(o->symbols, id);

	ck_assert_msg(got && !strcmp(got, name), "0x%" PRIx64 ": function %s, "
		      "want %s", ip, got ? got : "(none)", name);
	ck_assert_uint_eq(symbolizer_function_start(o->symbols, id), start);
}

/* The function readelf names at IP (with *START), or NULL. */
static const char *readelf_function_at(const struct function_list *f,
				       uint64_t ip, uint64_t *start)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (ip >= f->list[i].start && ip < f->list[i].start + f->list[i].size) {
			*start = f->list[i].start;
			return f->list[i].name;
		}
	return NULL;
}

START_TEST(functions_are_readelfs_at_the_load_address)
{
	struct function_list f;
	struct opened o;
	unsigned epoch;
	size_t i, checked = 0, gaps = 0;

	functions_of(program_path(), &f);
	open_program(&o, &epoch);
	for (i = 0; i < f.n; i++) {
		const struct expected_function *e = &f.list[i];
		uint64_t start = e->start + BIAS, end;

		assert_function_at(&o, epoch, start, e->name, start);
		assert_function_at(&o, epoch, start + e->size / 2, e->name, start);
		assert_function_at(&o, epoch, start + e->size - 1, e->name, start);
		symbolizer_function_range(o.symbols,
					  symbolizer_function(o.symbols, epoch, start),
					  &start, &end);
		ck_assert_uint_eq(end - start, e->size);
		/* Right after it: the next function, or none (alignment
		 * padding between functions belongs to neither). */
		{
			uint64_t after = e->start + e->size, next_start = 0;
			const char *next = readelf_function_at(&f, after, &next_start);

			if (next)
				assert_function_at(&o, epoch, after + BIAS, next,
						   next_start + BIAS);
			else if (!starts_sizeless(&f, after))
			{
				uint32_t id = symbolizer_function(o.symbols, epoch,
								  after + BIAS);

				ck_assert_msg(id == 0, "0x%llx, after %s: function "
					      "%s, readelf has none",
					      (unsigned long long)after, e->name,
					      symbolizer_function_name(o.symbols, id));
			}
			gaps += next == NULL;
		}
		checked++;
	}
	/* Our own functions are among them (the static ones too). */
	for (i = 0; i < f.n && strcmp(f.list[i].name, "square"); i++)
		;
	ck_assert_uint_lt(i, f.n);
	ck_assert_uint_ge(checked, 5);
	ck_assert_uint_ge(gaps, 1);
	/* At the link address nothing is mapped: no function. */
	ck_assert_uint_eq(symbolizer_function(o.symbols, epoch, f.list[0].start), 0);
	close_opened(&o);
}
END_TEST

struct plt_list {
	uint64_t addr[32];
	char name[32][64];
	size_t n;
};

/* "0000000000001030 <puts@plt>:" */
static void objdump_label(const char *line, void *ctx)
{
	struct plt_list *p = ctx;
	unsigned long long addr;
	char name[64];

	/* Not PLT0, the resolver's stub ("<puts@plt-0x10>"): no symbol. */
	if (sscanf(line, "%llx <%63[^>]>:", &addr, name) == 2 &&
	    strstr(name, "@plt") && !strpbrk(name, "+-") && p->n < 32) {
		p->addr[p->n] = addr;
		snprintf(p->name[p->n], sizeof(p->name[p->n]), "%s", name);
		p->n++;
	}
}

START_TEST(plt_stubs_are_named_as_objdump_names_them)
{
	struct plt_list p = { .n = 0 };
	struct opened o;
	unsigned epoch;
	char command[600];
	size_t i;

	snprintf(command, sizeof(command), "objdump -d '%s'", program_path());
	each_output_line(command, objdump_label, &p);
	ck_assert_uint_ge(p.n, 2);	/* puts and strlen */
	open_program(&o, &epoch);
	for (i = 0; i < p.n; i++) {
		assert_function_at(&o, epoch, p.addr[i] + BIAS, p.name[i],
				   p.addr[i] + BIAS);
		assert_function_at(&o, epoch, p.addr[i] + BIAS + 6, p.name[i],
				   p.addr[i] + BIAS);
	}
	close_opened(&o);
}
END_TEST

struct insn_list {
	uint64_t addr[4096];
	size_t n;
	bool in_text;
};

/* objdump -d's instruction lines ("    1139:\t55  push %rbp") in .text. */
static void objdump_insn(const char *line, void *ctx)
{
	struct insn_list *l = ctx;
	unsigned long long addr;
	char colon;

	if (!strncmp(line, "Disassembly of section ", 23))
		l->in_text = !strcmp(line + 23, ".text:");
	else if (l->in_text && sscanf(line, " %llx%c", &addr, &colon) == 2 &&
		 colon == ':' && line[0] == ' ' && l->n < 4096)
		l->addr[l->n++] = addr;
}

struct line_answers {
	const struct insn_list *insns;
	struct opened *o;
	unsigned epoch;
	size_t i, compared;
};

/* addr2line's answer for the next address: "PATH:LINE", maybe with
 * " (discriminator N)"; "??:0" or "PATH:?" when it does not know. */
static void addr2line_answer(const char *text, void *ctx)
{
	struct line_answers *a = ctx;
	uint64_t ip = a->insns->addr[a->i++] + BIAS;
	struct hwtr_source_line got;
	char path[800];
	const char *colon = strrchr(text, ':');
	int want;

	ck_assert_ptr_nonnull(colon);
	if (sscanf(colon + 1, "%d", &want) != 1 || want == 0 || text[0] == '?')
		return;
	snprintf(path, sizeof(path), "%.*s", (int)(colon - text), text);
	ck_assert_int_eq(symbolizer_line(a->o->symbols, a->epoch, ip, &got), 1);
	ck_assert_msg(got.line == want, "0x%" PRIx64 ": line %d, addr2line says %d",
		      ip, got.line, want);
	ck_assert_str_eq(got.path, path);
	a->compared++;
}

START_TEST(lines_are_addr2lines)
{
	static struct insn_list insns;
	struct line_answers a = { &insns };
	struct opened o;
	char command[600];
	size_t i;
	FILE *list;
	char list_path[400];
	struct hwtr_source_line none;

	insns.n = 0;
	insns.in_text = false;
	snprintf(command, sizeof(command), "objdump -d '%s'", program_path());
	each_output_line(command, objdump_insn, &insns);
	ck_assert_uint_ge(insns.n, 20);
	open_program(&o, &a.epoch);
	a.o = &o;
	snprintf(list_path, sizeof(list_path), "%s/addresses", fixture_tmpdir());
	list = fopen(list_path, "w");
	ck_assert_ptr_nonnull(list);
	for (i = 0; i < insns.n; i++)
		fprintf(list, "0x%" PRIx64 "\n", insns.addr[i]);
	fclose(list);
	snprintf(command, sizeof(command), "addr2line -e '%s' < '%s'",
		 program_path(), list_path);
	each_output_line(command, addr2line_answer, &a);
	ck_assert_uint_eq(a.i, insns.n);
	/* symbols-program.c's own instructions at least (crt code has none). */
	ck_assert_uint_ge(a.compared, 20);
	/* Unmapped: no line. */
	ck_assert_int_eq(symbolizer_line(o.symbols, a.epoch, insns.addr[0], &none), 0);
	ck_assert_int_eq(none.line, 0);
	close_opened(&o);
}
END_TEST

/* readelf --debug-dump=frames-interp's rows: a CIE's first row is the
 * rule every FDE of it starts with; an FDE's rows ("LOC CFA ...") follow
 * its "FDE cie=C pc=LO..HI" line, none when it has no instructions. */
struct cfa_row {
	uint64_t loc, end;	/* the FDE's end */
	int regno;		/* DWARF number; -1: not register+offset */
	int64_t offset;
	bool ra_undefined;	/* the return address's rule is "u" */
};

struct cfa_rows {
	struct cfa_row row[4096];
	size_t n;
	unsigned long long cie, fde_cie, lo, hi;
	bool in_cie;
	int ra_column;		/* of the table's "LOC CFA ... ra" header */
	struct { unsigned long long offset; struct cfa_row first; } cies[64];
	size_t ncies;
	unsigned long long fde_start[1024];	/* each FDE's first address */
	size_t nfdes;
};

static int dwarf_regno(const char *name)
{
	static const char *const names[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

/* The index of the word NAME among LINE's words, or -1. */
static int column_of(const char *line, const char *name)
{
	char copy[512], *save = NULL, *w;
	int i = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (w = strtok_r(copy, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save), i++)
		if (!strcmp(w, name))
			return i;
	return -1;
}

/* Whether LINE's word number COLUMN is WORD. */
static bool word_is(const char *line, int column, const char *word)
{
	char copy[512], *save = NULL, *w;
	int i = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (w = strtok_r(copy, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save), i++)
		if (i == column)
			return !strcmp(w, word);
	return false;
}

static void readelf_cfa_row(const char *line, void *ctx)
{
	struct cfa_rows *r = ctx;
	unsigned long long a, b, c, loc;
	char rule[32], reg[16];
	long long offset;
	struct cfa_row row = { 0 };
	size_t i;

	if (sscanf(line, "%llx %llx %llx CIE", &a, &b, &c) == 3 &&
	    strstr(line, " CIE ")) {
		r->in_cie = true;
		r->cie = a;
		return;
	}
	if (strstr(line, " FDE ") &&
	    sscanf(strstr(line, "cie="), "cie=%llx pc=%llx..%llx", &a, &b, &c) == 3) {
		r->in_cie = false;
		r->lo = b;
		r->hi = c;
		if (r->nfdes < 1024)
			r->fde_start[r->nfdes++] = b;
		for (i = 0; i < r->ncies; i++)	/* its CIE's initial rule */
			if (r->cies[i].offset == a && r->n < 4096) {
				row = r->cies[i].first;
				row.loc = b;
				row.end = c;
				r->row[r->n++] = row;
			}
		return;
	}
	if (strstr(line, "LOC") && strstr(line, "CFA")) {
		r->ra_column = column_of(line, "ra");
		return;
	}
	if (strlen(line) < 18 || line[16] != ' ' ||
	    sscanf(line, "%llx %31s", &loc, rule) != 2)
		return;
	row.loc = loc;
	row.end = r->hi;
	row.regno = -1;
	row.ra_undefined = r->ra_column > 0 &&
			   word_is(line, r->ra_column, "u");
	if (sscanf(rule, "%15[a-z0-9]+%lld", reg, &offset) == 2 &&
	    dwarf_regno(reg) >= 0) {
		row.regno = dwarf_regno(reg);
		row.offset = offset;
	}
	if (r->in_cie) {
		if (r->ncies < 64 && (!r->ncies ||
				      r->cies[r->ncies - 1].offset != r->cie)) {
			r->cies[r->ncies].offset = r->cie;
			r->cies[r->ncies++].first = row;
		}
	} else if (r->n < 4096) {
		r->row[r->n++] = row;
	}
}

/* The rule at ADDR: the last row at or before it in an FDE holding it. */
static const struct cfa_row *cfa_rule_at(const struct cfa_rows *r, uint64_t addr)
{
	const struct cfa_row *found = NULL;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->row[i].loc <= addr && addr < r->row[i].end &&
		    (!found || r->row[i].loc >= found->loc))
			found = &r->row[i];
	return found;
}

/* symbols-program's instructions (objdump) and its CFI rows (readelf),
 * the oracle of the CFI tests. */
static void read_program_cfi(struct insn_list *insns, struct cfa_rows *rows)
{
	char command[600];

	memset(rows, 0, sizeof(*rows));
	insns->n = 0;
	insns->in_text = false;
	snprintf(command, sizeof(command), "objdump -d '%s'", program_path());
	each_output_line(command, objdump_insn, insns);
	snprintf(command, sizeof(command),
		 "readelf --debug-dump=frames-interp '%s'", program_path());
	each_output_line(command, readelf_cfa_row, rows);
	ck_assert_uint_ge(rows->n, 10);
}

START_TEST(cfa_rules_are_readelfs)
{
	static struct insn_list insns;
	static struct cfa_rows rows;
	struct opened o;
	unsigned epoch, regno;
	int64_t offset;
	size_t i, rsp = 0, rbp = 0, other = 0;

	read_program_cfi(&insns, &rows);
	open_program(&o, &epoch);
	for (i = 0; i < insns.n; i++) {
		const struct cfa_row *want = cfa_rule_at(&rows, insns.addr[i]);
		uint64_t ip = insns.addr[i] + BIAS;
		int rc = hwtr_symbolize_cfa(o.symbols, ip, &regno, &offset);

		if (!want || want->regno < 0) {
			ck_assert_msg(rc < 0, "0x%" PRIx64 ": a rule where readelf "
				      "has none", ip);
			other++;
			continue;
		}
		ck_assert_msg(rc == 0, "0x%" PRIx64 ": no rule, readelf has "
			      "reg %d + %" PRId64, ip, want->regno, want->offset);
		ck_assert_msg(regno == (unsigned)want->regno &&
			      offset == want->offset, "0x%" PRIx64 ": reg %u + %"
			      PRId64 ", readelf says reg %d + %" PRId64, ip,
			      regno, offset, want->regno, want->offset);
		if (regno == 7)
			rsp++;
		else if (regno == 6)
			rbp++;
	}
	/* Both kinds of frame are in the program (symbols-program.c). */
	ck_assert_uint_ge(rsp, 5);
	ck_assert_uint_ge(rbp, 5);
	(void)other;
	close_opened(&o);
}
END_TEST

/* symbolizer_cfi_entry against readelf: at every instruction of .text
 * (objdump), true exactly where one of readelf's FDEs begins (each
 * function's first, crt1's _start's), false at every other. */
START_TEST(cfi_entries_are_readelfs_fde_starts)
{
	static struct insn_list insns;
	static struct cfa_rows rows;
	struct opened o;
	unsigned epoch;
	size_t i, j, entries = 0;

	read_program_cfi(&insns, &rows);
	ck_assert_uint_lt(rows.nfdes, 1024);
	open_program(&o, &epoch);
	for (i = 0; i < insns.n; i++) {
		uint64_t ip = insns.addr[i] + BIAS;
		bool expect = false;

		for (j = 0; j < rows.nfdes; j++)
			expect |= rows.fde_start[j] == insns.addr[i];
		ck_assert_msg(symbolizer_cfi_entry(o.symbols, epoch, ip) == expect,
			      "0x%" PRIx64 ": readelf says an FDE %s there", ip,
			      expect ? "starts" : "does not start");
		entries += expect;
	}
	/* symbols-program's functions, each with its FDE. */
	ck_assert_uint_ge(entries, 5);
	/* Not in any mapped file: no entry. */
	ck_assert(!symbolizer_cfi_entry(o.symbols, epoch, 0x1000));
	close_opened(&o);
}
END_TEST

/* hwtr_symbolize_outermost against readelf: the return address's rule is
 * undefined ("u") at exactly the instructions readelf says, which
 * symbols-program has in its _start (crt1's cfi_undefined rip). */
START_TEST(outermost_is_readelfs)
{
	static struct insn_list insns;
	static struct cfa_rows rows;
	struct opened o;
	unsigned epoch;
	size_t i, undefined = 0;

	read_program_cfi(&insns, &rows);
	open_program(&o, &epoch);
	for (i = 0; i < insns.n; i++) {
		const struct cfa_row *want = cfa_rule_at(&rows, insns.addr[i]);
		uint64_t ip = insns.addr[i] + BIAS;
		int rc = hwtr_symbolize_outermost(o.symbols, ip);
		bool expect = want && want->ra_undefined;

		ck_assert_msg(rc == (expect ? 1 : 0), "0x%" PRIx64 ": %d, "
			      "readelf says the return address is %s", ip, rc,
			      expect ? "undefined" : "defined");
		undefined += expect;
	}
	ck_assert_uint_ge(undefined, 1);
	close_opened(&o);
}
END_TEST

START_TEST(each_program_names_its_own_functions_across_an_exec)
{
	struct hwtr_sideband_event ev[3];
	struct function_list before, after;
	struct opened o;
	unsigned epoch_before, epoch_after;
	size_t i, differ = 0;

	functions_of(fixture_path(), &before);
	functions_of(fixture_next_path(), &after);
	fixture_mapping(fixture_path(), 0, &ev[0]);
	memset(&ev[1], 0, sizeof(ev[1]));
	ev[1].kind = hwtr_ev_exec;
	ev[1].tsc = 100;
	ev[1].path = fixture_next_path();
	fixture_mapping(fixture_next_path(), 100, &ev[2]);
	open_with(&o, ev, 3);
	ck_assert_int_eq(image_set_for_window(o.images, 0, 50, &epoch_before), 0);
	ck_assert_int_eq(image_set_for_window(o.images, 150, 200, &epoch_after), 0);
	ck_assert_uint_ne(epoch_before, epoch_after);
	for (i = 0; i < before.n; i++) {
		uint64_t ip = before.list[i].start, next_start = 0;
		const char *next = readelf_function_at(&after, ip, &next_start);

		assert_function_at(&o, epoch_before, ip, before.list[i].name, ip);
		if (next) {
			assert_function_at(&o, epoch_after, ip, next, next_start);
			differ += strcmp(next, before.list[i].name) != 0;
		} else {
			ck_assert_uint_eq(symbolizer_function(o.symbols, epoch_after,
							      ip), 0);
		}
	}
	ck_assert_uint_ge(differ, 1);
	close_opened(&o);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("functions and lines");

	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, functions_are_readelfs_at_the_load_address);
	tcase_add_test(tc, plt_stubs_are_named_as_objdump_names_them);
	tcase_add_test(tc, lines_are_addr2lines);
	tcase_add_test(tc, cfa_rules_are_readelfs);
	tcase_add_test(tc, outermost_is_readelfs);
	tcase_add_test(tc, cfi_entries_are_readelfs_fde_starts);
	tcase_add_test(tc, each_program_names_its_own_functions_across_an_exec);
	return check_run_tcase("symbolizer", tc);
}
