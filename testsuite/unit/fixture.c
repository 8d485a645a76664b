/* fixture.c: see fixture.h. */
#include "fixture.h"

#include <check.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_CODE
#error "FIXTURE_CODE must name the assembled fixture"
#endif

const char *fixture_path(void)
{
	return FIXTURE_CODE;
}

const char *fixture_exec_path(void)
{
	return FIXTURE_EXEC;
}

const char *fixture_far_path(void)
{
#ifdef FIXTURE_FAR
	return FIXTURE_FAR;
#else
	ck_abort_msg("FIXTURE_FAR is not set");
	return NULL;
#endif
}

const char *fixture_next_path(void)
{
#ifdef FIXTURE_NEXT
	return FIXTURE_NEXT;
#else
	ck_abort_msg("FIXTURE_NEXT is not set");
	return NULL;
#endif
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	ck_assert_msg(*fd >= 0, "cannot open %s", path);
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	return elf;
}

uint64_t fixture_symbol(const char *name)
{
	return fixture_symbol_in(fixture_path(), name);
}

/* Call VISIT on each symbol of PATH's symbol table until it returns true. */
static void each_symbol(const char *path,
			bool (*visit)(const GElf_Sym *sym, const char *name,
				      void *arg),
			void *arg)
{
	Elf_Scn *scn = NULL;
	bool done = false;
	int fd;
	Elf *elf = open_elf(path, &fd);

	while (!done && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i;

		gelf_getshdr(scn, &shdr);
		if (shdr.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; !done && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;

			gelf_getsym(data, (int)i, &sym);
			done = visit(&sym, elf_strptr(elf, shdr.sh_link,
						      sym.st_name), arg);
		}
	}
	elf_end(elf);
	close(fd);
}

struct symbol_query {
	const char *name;
	uint64_t value;
	bool found;
};

static bool symbol_named(const GElf_Sym *sym, const char *name, void *arg)
{
	struct symbol_query *q = arg;

	if (!name || strcmp(name, q->name))
		return false;
	q->value = sym->st_value;
	q->found = true;
	return true;
}

uint64_t fixture_symbol_in(const char *path, const char *name)
{
	struct symbol_query q = { .name = name };

	each_symbol(path, symbol_named, &q);
	ck_assert_msg(q.found, "symbol %s not in %s", name, path);
	return q.value;
}

struct function_query {
	uint64_t ip, start;
	char name[128];
};

/* The last function symbol covering the IP wins, as before. */
static bool function_covering(const GElf_Sym *sym, const char *name, void *arg)
{
	struct function_query *q = arg;

	if (GELF_ST_TYPE(sym->st_info) == STT_FUNC && name &&
	    q->ip >= sym->st_value && q->ip - sym->st_value < sym->st_size) {
		snprintf(q->name, sizeof(q->name), "%s", name);
		q->start = sym->st_value;
	}
	return false;
}

const char *fixture_function_of(const char *path, uint64_t ip, uint64_t *start)
{
	static struct function_query q;

	memset(&q, 0, sizeof(q));
	q.ip = ip;
	each_symbol(path, function_covering, &q);
	ck_assert_msg(q.name[0], "no function at 0x%llx in %s",
		      (unsigned long long)ip, path);
	*start = q.start;
	return q.name;
}

const char *fixture_build_id(void)
{
	static char id[128];
	FILE *p;
	char cmd[512];

	/* readelf is the independent reader here. */
	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", fixture_path());
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(id, sizeof(id), p));
	pclose(p);
	id[strcspn(id, "\n")] = 0;
	ck_assert_int_gt(strlen(id), 8);
	return id;
}

static void text_mapping_of(const char *path, uint64_t *addr, uint64_t *len,
			    uint64_t *pgoff)
{
	size_t n, i;
	int fd;
	Elf *elf = open_elf(path, &fd);

	ck_assert_int_eq(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		gelf_getphdr(elf, (int)i, &ph);
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			/* As the kernel maps it: page-aligned. */
			*addr = ph.p_vaddr & ~0xfffULL;
			*pgoff = ph.p_offset & ~0xfffULL;
			*len = (ph.p_vaddr + ph.p_memsz - *addr + 0xfff) & ~0xfffULL;
			elf_end(elf);
			close(fd);
			return;
		}
	}
	ck_abort_msg("no executable segment in fixture");
}

/* The main path: loop three times through leaf (returns compressed), then
 * outer -> leaf, a tail jump to tail, return to _start, an indirect jump to
 * done and the exit system call, where user-mode tracing stops.  A second
 * PSB+ comes after the second loop iteration. */
void trace_main_path(struct trace *t)
{
	enc_psb(t, fixture_symbol("i1"), 100);
	enc_tnt(t, "1111");		/* ret, jne, ret, jne */
	trace_main_path_from_loop(t);
}

void trace_main_path_from_loop(struct trace *t)
{
	enc_psb(t, fixture_symbol("loop"), 200);
	enc_tnt(t, "1011");		/* ret, jne (exit), ret (leaf), ret (tail) */
	enc_tip(t, fixture_symbol("done"));	/* jmp *%rax */
	enc_tip_pgd(t);			/* syscall */
}

const char *const main_path_labels[29] = {
	"i1",  "i2",  "i3", "i4",  "i5",  "i6",  "i7",  "i2",  "i3",  "i4",
	"i5",  "i6",  "i7", "i2",  "i3",  "i4",  "i5",  "i6",  "i7",  "i20",
	"i21", "i3",  "i4", "i24", "i25", "i26", "i27", "i28", "i29",
};

const struct fixture_segment main_path_segments[12] = {
	{ "_start", 1, 2, 1, 0, 0, 3, 0 },
	{ "leaf", 3, 4, 2, 1, 0, 0, 0 },
	{ "_start", 5, 8, 1, 0, 1, 5, 0 },
	{ "leaf", 9, 10, 2, 3, 0, 0, 0 },
	{ "_start", 11, 14, 1, 0, 3, 7, 0 },
	{ "leaf", 15, 16, 2, 5, 0, 0, 0 },
	{ "_start", 17, 20, 1, 0, 5, 12, 0 },
	{ "outer", 21, 21, 2, 7, 0, 10, 0 },
	{ "leaf", 22, 23, 3, 8, 0, 0, 0 },
	{ "outer", 24, 24, 2, 7, 8, 0, 0 },
	{ "tail", 25, 25, 3, 10, 0, 0, HWTR_SEG_UP_LINKS_TO_TAILCALL },
	{ "_start", 26, 29, 1, 0, 7, 0, 0 },
};

const char *const recursion_path_labels[14] = {
	"r1", "r2", "t1", "t2", "t3", "t4", "t1", "t2", "t6", "i3", "i4", "t5",
	"r3", "r4" };

const struct fixture_segment recursion_path_segments[6] = {
	{ "entry2", 1, 2, 1, 0, 0, 6, 0 },
	{ "twice", 3, 6, 2, 1, 0, 5, 0 },
	{ "twice", 7, 9, 3, 2, 0, 0, 0 },
	{ "leaf", 10, 11, 4, 3, 0, 0, HWTR_SEG_UP_LINKS_TO_TAILCALL },
	/* GDB's btrace would match the inner "twice" by name here (one
	 * frame too many); the return goes to the outer activation. */
	{ "twice", 12, 12, 2, 1, 2, 0, 0 },
	{ "entry2", 13, 14, 1, 0, 1, 0, 0 },
};

void fixture_mapping(const char *path, uint64_t tsc,
		     struct hwtr_sideband_event *event)
{
	memset(event, 0, sizeof(*event));
	event->kind = hwtr_ev_mmap;
	event->tsc = tsc;
	text_mapping_of(path, &event->addr, &event->len, &event->pgoff);
	event->prot = HWTR_PROT_READ | HWTR_PROT_EXEC;
	event->path = path;
}

void fixture_recording(const char *dir, const uint8_t *trace, size_t size,
		       const char *path, const char *build_id)
{
	struct hwtr_sideband_event mm;

	fixture_mapping(fixture_path(), 0, &mm);
	mm.path = path ? path : fixture_path();
	mm.build_id = build_id ? build_id : fixture_build_id();
	fixture_recording_with(dir, trace, size, &mm, 1);
}

void fixture_recording_with(const char *dir, const uint8_t *trace, size_t size,
			    const struct hwtr_sideband_event *events, size_t n)
{
	struct hwtr_writer_info info = { .source = "unit-test", .pid = 1 };
	struct hwtr_end end = { .state = hwtr_end_exited };
	struct hwtr_writer *w;
	size_t i;

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;	/* Skylake-SP: errata must not matter here */
	info.pt.stepping = 4;
	info.pt.tsc = true;
	info.pt.return_compression = true;
	info.executable = fixture_path();
	ck_assert_int_eq(hwtr_writer_create(dir, &info, &w), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hwtr_writer_event(w, &events[i]), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 1, trace, size), 0);
	ck_assert_int_eq(hwtr_writer_finish(w, &end), 0);
	hwtr_writer_free(w);
}

/* Every directory fixture_tmpdir made since the last fixture_cleanup (a
 * test may ask for more than one: each is removed). */
static char tmpdirs[8][32];
static size_t ntmpdirs;

const char *fixture_tmpdir(void)
{
	char *dir;

	ck_assert_uint_lt(ntmpdirs, sizeof(tmpdirs) / sizeof(tmpdirs[0]));
	dir = tmpdirs[ntmpdirs];
	snprintf(dir, sizeof(tmpdirs[0]), "/tmp/hwtr-unit-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ntmpdirs++;
	return dir;
}

void fixture_cleanup(void)
{
	char cmd[64];

	for (; ntmpdirs > 0; ntmpdirs--) {
		const char *dir = tmpdirs[ntmpdirs - 1];

		if (getenv("HWTR_KEEP_TMP")) {	/* debugging a failing test */
			fprintf(stderr, "kept %s\n", dir);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
}

void fixture_history_open(struct fixture_history *h, struct trace *t)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/r.hwtrec", fixture_tmpdir());
	fixture_recording(dir, t->buf, trace_size(t), NULL, NULL);
	trace_end(t);
	ck_assert_int_eq(hwtr_recording_open(dir, &h->rec), 0);
	ck_assert_msg(hwtr_history_build(h->rec, NULL, &h->history) == 0, "%s",
		      hwtr_last_error());
	h->thread = hwtr_history_thread(h->history, 0);
	ck_assert_ptr_nonnull(h->thread);
}

void fixture_history_main_path(struct fixture_history *h)
{
	struct trace t;

	trace_begin(&t);
	trace_main_path(&t);
	fixture_history_open(h, &t);
}

void fixture_history_close(struct fixture_history *h)
{
	hwtr_history_free(h->history);
	hwtr_recording_close(h->rec);
	fixture_cleanup();
}
