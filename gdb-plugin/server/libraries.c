/* libraries.c: the shared-library list, from the dynamic linker's list of
 * loaded objects in memory or, when memory does not hold it (no core), from
 * the objects the recording's mappings show loaded at the end.
 *
 * AT_PHDR in the auxv gives the executable's program headers in memory; the
 * load bias is AT_PHDR minus PT_PHDR's p_vaddr; PT_DYNAMIC's DT_DEBUG entry
 * points at struct r_debug, whose r_map heads the link_map chain (l_addr,
 * l_name, l_ld, l_next, l_prev).  The first entry is the executable itself
 * (GDB's main-lm); the others are the libraries, in load order. */
#include "libraries.h"

#include "loaded-objects.h"
#include "replay.h"

#include <elf.h>
#include <hwtrecord.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool read_u64(struct replay *r, uint64_t addr, uint64_t *v)
{
	return replay_read_memory(r, addr, v, 8) == 8;
}

static void say(const char *msg)
{
	hwtr_fail(hwtr_err_notfound, "%s", msg);
}

/* The vDSO's address range from AT_SYSINFO_EHDR and its program headers in
 * memory: GDB leaves the vDSO out of the list (no file on disk holds it). */
static void vdso_range(struct replay *r, uint64_t *start, uint64_t *end)
{
	const Elf64_auxv_t *auxv;
	Elf64_Ehdr eh;
	size_t size, i;

	*start = *end = 0;
	auxv = replay_auxv(r, &size);
	for (i = 0; auxv && i < size / sizeof(*auxv); i++)
		if (auxv[i].a_type == AT_SYSINFO_EHDR)
			*start = auxv[i].a_un.a_val;
	if (!*start || replay_read_memory(r, *start, &eh, sizeof(eh)) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phnum > 64)
		return;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (replay_read_memory(r, *start + eh.e_phoff + i * sizeof(ph), &ph,
				       sizeof(ph)) != sizeof(ph))
			return;
		if (ph.p_type == PT_LOAD && *start + ph.p_vaddr + ph.p_memsz > *end)
			*end = *start + ph.p_vaddr + ph.p_memsz;
	}
}

/* The address of struct r_debug, or 0. */
static uint64_t find_r_debug(struct replay *r)
{
	const Elf64_auxv_t *auxv;
	size_t size, i, n;
	uint64_t phdr = 0, phnum = 0, bias = 0, dynamic = 0;
	bool have_bias = false;

	auxv = replay_auxv(r, &size);
	if (!auxv) {
		say("no auxiliary vector in the core");
		return 0;
	}
	n = size / sizeof(*auxv);
	for (i = 0; i < n; i++) {
		if (auxv[i].a_type == AT_PHDR)
			phdr = auxv[i].a_un.a_val;
		else if (auxv[i].a_type == AT_PHNUM)
			phnum = auxv[i].a_un.a_val;
	}
	if (!phdr || !phnum || phnum > 4096) {
		say("no AT_PHDR/AT_PHNUM in the auxiliary vector");
		return 0;
	}
	for (i = 0; i < phnum; i++) {
		Elf64_Phdr ph;

		if (replay_read_memory(r, phdr + i * sizeof(ph), &ph, sizeof(ph)) != sizeof(ph)) {
			say("the executable's program headers are not in memory");
			return 0;
		}
		if (ph.p_type == PT_PHDR) {
			bias = phdr - ph.p_vaddr;
			have_bias = true;
		} else if (ph.p_type == PT_DYNAMIC) {
			dynamic = ph.p_vaddr;
		}
	}
	if (!dynamic) {
		say("the executable is static (no PT_DYNAMIC)");
		return 0;
	}
	if (!have_bias)
		bias = 0;	/* no PT_PHDR: a non-PIE executable */
	for (i = 0; i < 4096; i++) {
		uint64_t tag, val;

		if (!read_u64(r, bias + dynamic + 16 * i, &tag) ||
		    !read_u64(r, bias + dynamic + 16 * i + 8, &val) || tag == DT_NULL)
			break;
		if (tag == DT_DEBUG) {
			if (!val)
				say("DT_DEBUG is 0: the dynamic linker had not started");
			return val;
		}
	}
	say("no DT_DEBUG in the executable's dynamic section");
	return 0;
}

struct text {
	char *s;
	size_t len, cap;
	bool oom;
};

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = true;
			return;
		}
		if (t->s && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		t->cap = 2 * (t->cap + (size_t)n + 64);
		char *p = realloc(t->s, t->cap);
		if (!p) {
			t->oom = true;
			return;
		}
		t->s = p;
	}
}

/* The name, escaped for an XML attribute. */
static void add_name(struct text *t, const char *name)
{
	for (; *name; name++) {
		switch (*name) {
		case '&': add(t, "&amp;"); break;
		case '<': add(t, "&lt;"); break;
		case '>': add(t, "&gt;"); break;
		case '"': add(t, "&quot;"); break;
		default: add(t, "%c", *name);
		}
	}
}

static char *finish(struct text *t)
{
	if (t->oom) {
		free(t->s);
		say("out of memory");
		return NULL;
	}
	return t->s;
}

/* The list from the recording's mappings: l_addr and l_ld from each file's
 * load bias, as ld.so would have set them.  There is no link_map in memory:
 * lm is 0 (GDB then has no thread-local storage to read, and there is no
 * memory to read it from) and there is no main-lm. */
static char *from_loaded_objects(struct replay *r)
{
	const struct loaded_objects *lo = replay_loaded_objects(r);
	struct text t = { 0 };
	size_t i;

	if (!lo || lo->exe == (size_t)-1)
		return NULL;
	add(&t, "<library-list-svr4 version=\"1.0\">");
	for (i = 0; i < lo->n; i++) {
		const struct loaded_object *o = &lo->objects[i];

		if (i == lo->exe || !o->shared || !o->dynamic)
			continue;
		/* The program's name for it: GDB reads the file through
		 * vFile (vfile.c), which serves the recording's copy. */
		add(&t, "<library name=\"");
		add_name(&t, o->path);
		add(&t, "\" lm=\"0x0\" l_addr=\"0x%llx\" l_ld=\"0x%llx\" lmid=\"0x0\"/>",
		    (unsigned long long)o->bias, (unsigned long long)o->dynamic);
	}
	add(&t, "</library-list-svr4>");
	return finish(&t);
}

/* One entry of the dynamic linker's list, the executable's (main-lm)
 * excepted; the vDSO's too (GDB leaves it out: no file holds it). */
struct link_entry {
	uint64_t lm, l_addr, l_ld;
	const char *name;
};

/* Call EACH for every entry of the link_map chain in memory (until it
 * returns false); false, with the reason in hwtr_last_error(), when the
 * chain is not in memory.  *MAIN_LM: the executable's entry. */
static bool walk_link_map(struct replay *r, uint64_t *main_lm,
			  bool (*each)(void *ctx, const struct link_entry *e),
			  void *ctx)
{
	uint64_t r_debug = find_r_debug(r), lm;
	uint64_t vdso_start, vdso_end;
	unsigned count = 0;

	if (!r_debug)
		return false;
	if (!read_u64(r, r_debug + offsetof(struct r_debug, r_map), main_lm) ||
	    !*main_lm) {
		say("r_debug.r_map is not in memory");
		return false;
	}
	vdso_range(r, &vdso_start, &vdso_end);
	if (!read_u64(r, *main_lm + offsetof(struct link_map, l_next), &lm))
		lm = 0;
	while (lm && count++ < 100000) {
		uint64_t l_name, next;
		struct link_entry e = { .lm = lm };
		char name[4097];
		size_t n;

		if (!read_u64(r, lm + offsetof(struct link_map, l_addr), &e.l_addr) ||
		    !read_u64(r, lm + offsetof(struct link_map, l_name), &l_name) ||
		    !read_u64(r, lm + offsetof(struct link_map, l_ld), &e.l_ld) ||
		    !read_u64(r, lm + offsetof(struct link_map, l_next), &next))
			break;
		n = l_name ? replay_read_memory(r, l_name, name, sizeof(name) - 1) : 0;
		name[n] = '\0';
		e.name = name;
		if (name[0] && !(e.l_ld >= vdso_start && e.l_ld < vdso_end) &&
		    !each(ctx, &e))
			break;
		lm = next;
	}
	return true;
}

/* The name GDB is given for a library: the dynamic linker's, unless it
 * is relative (dlopen("./plugin.so"), LD_LIBRARY_PATH=build): GDB opens
 * a relative name from its own working directory, never through the
 * target, so it would miss the library wherever the replay does not run
 * where the program ran, and in a packed recording always.  Then the
 * path of the file mapped at the entry's load bias, if one is. */
static const char *library_name(struct replay *r, const struct link_entry *e)
{
	const struct loaded_objects *lo = replay_loaded_objects(r);
	size_t i;

	if (e->name[0] == '/')
		return e->name;
	for (i = 0; lo && i < lo->n; i++)
		if (lo->objects[i].shared && lo->objects[i].bias == e->l_addr &&
		    lo->objects[i].path && lo->objects[i].path[0] == '/')
			return lo->objects[i].path;
	return e->name;
}

struct library_list {
	struct replay *replay;
	struct text text;
};

static bool add_library(void *ctx, const struct link_entry *e)
{
	struct library_list *l = ctx;
	struct text *t = &l->text;

	add(t, "<library name=\"");
	add_name(t, library_name(l->replay, e));
	add(t, "\" lm=\"0x%llx\" l_addr=\"0x%llx\" l_ld=\"0x%llx\" lmid=\"0x0\"/>",
	    (unsigned long long)e->lm, (unsigned long long)e->l_addr,
	    (unsigned long long)e->l_ld);
	return true;
}

static char *from_link_map(struct replay *r)
{
	struct text t = { 0 };
	struct library_list entries = { .replay = r };
	uint64_t main_lm;

	if (!walk_link_map(r, &main_lm, add_library, &entries)) {
		free(entries.text.s);
		return NULL;
	}
	add(&t, "<library-list-svr4 version=\"1.0\" main-lm=\"0x%llx\">",
	    (unsigned long long)main_lm);
	add(&t, "%s", entries.text.s ? entries.text.s : "");
	add(&t, "</library-list-svr4>");
	t.oom |= entries.text.oom;
	free(entries.text.s);
	return finish(&t);
}

struct name_search {
	const char *name;
	uint64_t l_addr;
	bool found;
};

static bool match_name(void *ctx, const struct link_entry *e)
{
	struct name_search *s = ctx;

	if (strcmp(e->name, s->name))
		return true;
	s->l_addr = e->l_addr;
	s->found = true;
	return false;
}

bool libraries_load_bias(struct replay *r, const char *name, uint64_t *l_addr)
{
	struct name_search s = { .name = name };
	uint64_t main_lm;

	if (!walk_link_map(r, &main_lm, match_name, &s) || !s.found)
		return false;
	*l_addr = s.l_addr;
	return true;
}

char *libraries_svr4_xml(struct replay *r)
{
	char *xml = from_link_map(r);

	return xml ? xml : from_loaded_objects(r);
}
