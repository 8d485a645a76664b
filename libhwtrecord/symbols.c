/* symbols.c: function and line lookup over the recording's binaries. */
#define _GNU_SOURCE /* qsort_r */
#include "symbols.h"

#include "error.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SIZE 4096

struct function {
	uint64_t start, end;
	uint64_t module_end;	/* a symbol without size ends here at the latest */
	const char *name;	/* in libdw's string tables */
	int rank;		/* global beats weak beats local at one address */
};

struct cache_slot {
	uint64_t ip;
	uint32_t id;
	bool valid;
};

struct hwtr_symbolizer {
	Dwfl *dwfl;
	char **owned_names;	/* synthesised names (NAME@plt) */
	size_t nowned, cap_owned;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	struct function *functions;	/* [0] is "no symbol"; ids never move */
	size_t nfunctions, cap_functions;
	uint32_t *order;	/* ids of the functions by address, one per
				 * address */
	size_t norder;
	size_t nmappings;	/* image mappings whose files are read */
	struct cache_slot cache[CACHE_SIZE];
};

static int symbol_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK: return 2;
	default: return 1;
	}
}

static uint64_t current_module_end;	/* set while collecting one module */

static int add_function(struct hwtr_symbolizer *s, uint64_t start,
			uint64_t end, const char *name, int rank)
{
	if (s->nfunctions == s->cap_functions) {
		size_t ncap = s->cap_functions ? 2 * s->cap_functions : 1024;
		void *p = realloc(s->functions, ncap * sizeof(*s->functions));

		if (!p)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		s->functions = p;
		s->cap_functions = ncap;
	}
	s->functions[s->nfunctions++] =
		(struct function){ start, end, current_module_end, name, rank };
	return 0;
}

static const char *own_name(struct hwtr_symbolizer *s, const char *name)
{
	char *copy;

	if (s->nowned == s->cap_owned) {
		size_t cap = s->cap_owned ? 2 * s->cap_owned : 256;
		void *p = realloc(s->owned_names, cap * sizeof(char *));

		if (!p)
			return NULL;
		s->owned_names = p;
		s->cap_owned = cap;
	}
	copy = strdup(name);
	if (copy)
		s->owned_names[s->nowned++] = copy;
	return copy;
}

/* The name of the relocation that fills GOT slot SLOT (link-time address),
 * from .rela.plt or .rela.dyn: "puts", or "*ABS*+0x..." for IRELATIVE. */
static bool got_slot_name(Elf *elf, GElf_Addr slot, char *buf, size_t size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			Elf_Data *symdata;
			const char *name;

			if (!gelf_getrela(data, (int)i, &r) || r.r_offset != slot)
				continue;
			if (GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE) {
				snprintf(buf, size, "*ABS*+0x%llx",
					 (unsigned long long)r.r_addend);
				return true;
			}
			symdata = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
			if (!symdata || !gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym))
				return false;
			{
				GElf_Shdr symsh;

				gelf_getshdr(elf_getscn(elf, sh.sh_link), &symsh);
				name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			}
			if (!name || !*name)
				return false;
			snprintf(buf, size, "%s", name);
			return true;
		}
	}
	return false;
}

/* PLT stubs have no symbols; GDB names them NAME@plt (BFD's synthetic
 * symbols).  Each entry of .plt, .plt.sec and .plt.got jumps through a GOT
 * slot (jmp *disp(%rip)); the relocation of that slot gives the name. */
static int add_plt_functions(struct hwtr_symbolizer *s, Dwfl_Module *mod)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *secname;
		size_t entsize, off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(secname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(secname, ".plt") && strcmp(secname, ".plt.sec") &&
		     strcmp(secname, ".plt.got")) ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		entsize = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
		for (off = 0; off + entsize <= data->d_size; off += entsize) {
			const uint8_t *e = (const uint8_t *)data->d_buf + off;
			char name[300], full[310];
			const char *owned;
			size_t k;

			for (k = 0; k + 6 <= entsize; k++) {
				int32_t disp;
				GElf_Addr slot;

				if (e[k] != 0xff || e[k + 1] != 0x25)
					continue;
				memcpy(&disp, e + k + 2, 4);
				slot = sh.sh_addr + off + k + 6 + (GElf_Addr)(int64_t)disp;
				if (!got_slot_name(elf, slot, name, sizeof(name)))
					break;
				snprintf(full, sizeof(full), "%s@plt", name);
				owned = own_name(s, full);
				if (!owned ||
				    add_function(s, sh.sh_addr + off + bias,
						 sh.sh_addr + off + entsize + bias,
						 owned, 0) < 0)
					return -1;
				break;
			}
		}
	}
	return 0;
}

/* Whether section SHNDX of MOD's ELF file holds instructions. */
static bool executable_section(Dwfl_Module *mod, GElf_Word shndx)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Shdr sh;

	return elf && shndx != SHN_UNDEF && shndx < SHN_LORESERVE &&
	       gelf_getshdr(elf_getscn(elf, shndx), &sh) &&
	       (sh.sh_flags & SHF_EXECINSTR);
}

/* Whether a function collected from the module (from FIRST on) covers
 * ADDR. */
static bool function_covers(const struct hwtr_symbolizer *s, size_t first,
			    uint64_t addr)
{
	size_t i;

	for (i = first; i < s->nfunctions; i++)
		if (s->functions[i].start <= addr &&
		    (addr < s->functions[i].end || s->functions[i].start == addr))
			return true;
	return false;
}

/* Functions are the FUNC (and IFUNC) symbols.  Like GDB's minimal symbols,
 * a global or weak symbol of no type in an executable section (_start or
 * an entry point of hand-written assembly) names the code no function
 * covers: it runs to the next symbol, and ranks below functions. */
static int collect_module(struct hwtr_symbolizer *s, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod), i;
	Dwarf_Addr mod_start = 0, mod_end = 0;
	size_t first = s->nfunctions;

	dwfl_module_info(mod, NULL, &mod_start, &mod_end, NULL, NULL, NULL, NULL);
	current_module_end = mod_end;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *sname = dwfl_module_getsym_info(mod, i, &sym, &addr,
							    NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!sname || !*sname || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (add_function(s, addr, addr + (sym.st_size ? sym.st_size : 1),
				 sname, symbol_rank(sym.st_info)) < 0)
			return -1;
	}
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx = 0;
		const char *sname = dwfl_module_getsym_info(mod, i, &sym, &addr,
							    &shndx, NULL, NULL);
		int bind = GELF_ST_BIND(sym.st_info);

		if (!sname || !*sname || GELF_ST_TYPE(sym.st_info) != STT_NOTYPE ||
		    (bind != STB_GLOBAL && bind != STB_WEAK) ||
		    !executable_section(mod, shndx) ||
		    function_covers(s, first, addr))
			continue;
		/* Rank 0: a function at the same address wins. */
		if (add_function(s, addr, addr + (sym.st_size ? sym.st_size : 1),
				 sname, 0) < 0)
			return -1;
	}
	return add_plt_functions(s, mod);
}

/* Report each file of mappings FROM.. once, at the bias its mappings
 * imply (a file reported before is not reported again); NEW gets the
 * modules reported. */
static size_t report_modules(struct hwtr_symbolizer *s, struct image_set *images,
			     size_t from, Dwfl_Module **new, size_t max)
{
	size_t i, j, n = 0;

	dwfl_report_begin_add(s->dwfl);
	for (i = from; i < image_set_count(images); i++) {
		const struct image_mapping *m = image_set_mapping(images, i);
		bool seen = false;

		if (!m->file)
			continue;
		for (j = 0; j < i && !seen; j++) {
			const struct image_mapping *o = image_set_mapping(images, j);

			seen = o->file && !strcmp(o->file, m->file) &&
			       o->addr - o->pgoff == m->addr - m->pgoff;
		}
		if (seen)
			continue;
		{
			Dwfl_Module *mod;
			GElf_Addr bias = 0;
			uint64_t b = 0;

			if (hwtr_load_bias_of_file(m->file, m->addr, m->pgoff, &b) > 0)
				bias = b;
			mod = dwfl_report_elf(s->dwfl, m->path ? m->path : m->file,
					      m->file, -1, bias, false);
			/* Overlapping modules are skipped (NULL). */
			if (mod && n < max)
				new[n++] = mod;
		}
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	return n;
}

static int compare_ids(const void *a, const void *b, void *table)
{
	const struct function *functions = table;
	const struct function *x = &functions[*(const uint32_t *)a];
	const struct function *y = &functions[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* At one address: best rank first, then the oldest id (an id in use
	 * keeps its place). */
	if (x->rank != y->rank)
		return y->rank - x->rank;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The functions of the mappings not read yet: new ids after the old ones,
 * and the address order again.  Where a symbol has no size it ends at the
 * next function, and no function runs into the next; only the new ones are
 * adjusted, since modules do not overlap. */
static int add_modules(struct hwtr_symbolizer *s, struct image_set *images)
{
	size_t count = image_set_count(images), first = s->nfunctions, i, w, n;
	Dwfl_Module **mods = calloc(count - s->nmappings + 1, sizeof(*mods));
	uint32_t *order;

	if (!mods)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	n = report_modules(s, images, s->nmappings, mods, count - s->nmappings);
	for (i = 0; i < n; i++)
		if (collect_module(s, mods[i]) < 0) {
			free(mods);
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		}
	free(mods);
	s->nmappings = count;
	order = realloc(s->order, (s->nfunctions + 1) * sizeof(*order));
	if (!order)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	s->order = order;
	for (i = first; i < s->nfunctions; i++)
		order[s->norder++] = (uint32_t)i;
	qsort_r(order, s->norder, sizeof(*order), compare_ids, s->functions);
	/* One function per address: the best-ranked, or the one in use. */
	for (i = 0, w = 0; i < s->norder; i++) {
		if (w && s->functions[order[w - 1]].start ==
			      s->functions[order[i]].start)
			continue;
		order[w++] = order[i];
	}
	s->norder = w;
	for (i = 0; i < s->norder; i++) {
		struct function *f = &s->functions[order[i]];
		const struct function *next =
			i + 1 < s->norder ? &s->functions[order[i + 1]] : NULL;
		uint64_t next_start = next ? next->start : f->module_end;

		if (order[i] < first)
			continue;
		if (f->end == f->start + 1)	/* no size: up to the next symbol */
			f->end = next_start < f->module_end ? next_start
							    : f->module_end;
		if (next && f->end > next->start)
			f->end = next->start;
		if (f->end <= f->start)
			f->end = f->start + 1;
	}
	memset(s->cache, 0, sizeof(s->cache));
	return 0;
}

int symbolizer_build(struct image_set *images, const char *const *debug_dirs,
		     struct hwtr_symbolizer **out)
{
	struct hwtr_symbolizer *s = calloc(1, sizeof(*s));
	size_t i, len = 1;
	int err;

	if (!s)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; debug_dirs && debug_dirs[i]; i++)
		len += strlen(debug_dirs[i]) + 1;
	s->debuginfo_path = calloc(1, len + 64);
	if (!s->debuginfo_path) {
		free(s);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	strcpy(s->debuginfo_path, "-:.debug:/usr/lib/debug");
	for (i = 0; debug_dirs && debug_dirs[i]; i++) {
		strcat(s->debuginfo_path, ":");
		strcat(s->debuginfo_path, debug_dirs[i]);
	}
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl) {
		symbolizer_free(s);
		return hwtr_fail(hwtr_err_nomem, "libdw: %s", dwfl_errmsg(-1));
	}
	if ((err = add_function(s, 0, 0, NULL, 0)) < 0 ||
	    (err = add_modules(s, images)) < 0) {
		symbolizer_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int symbolizer_extend(struct hwtr_symbolizer *s, struct image_set *images)
{
	if (image_set_count(images) == s->nmappings)
		return 0;
	return add_modules(s, images);
}

void symbolizer_free(struct hwtr_symbolizer *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	while (s->nowned)
		free(s->owned_names[--s->nowned]);
	free(s->owned_names);
	free(s->functions);
	free(s->order);
	free(s->debuginfo_path);
	free(s);
}

static uint32_t find_function(const struct hwtr_symbolizer *s, uint64_t ip)
{
	size_t lo = 0, hi = s->norder;

	/* The last function starting at or before IP. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->functions[s->order[mid]].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && ip < s->functions[s->order[lo - 1]].end)
		return s->order[lo - 1];
	return 0;
}

uint32_t symbolizer_function(struct hwtr_symbolizer *s, uint64_t ip)
{
	struct cache_slot *slot = &s->cache[(ip ^ (ip >> 12)) % CACHE_SIZE];

	if (!slot->valid || slot->ip != ip) {
		slot->ip = ip;
		slot->id = find_function(s, ip);
		slot->valid = true;
	}
	return slot->id;
}

const char *symbolizer_function_name(const struct hwtr_symbolizer *s,
				     uint32_t id)
{
	return id < s->nfunctions ? s->functions[id].name : NULL;
}

uint64_t symbolizer_function_start(const struct hwtr_symbolizer *s, uint32_t id)
{
	return id < s->nfunctions ? s->functions[id].start : 0;
}

void symbolizer_function_range(const struct hwtr_symbolizer *s, uint32_t id,
			       uint64_t *start, uint64_t *end)
{
	*start = id && id < s->nfunctions ? s->functions[id].start : 0;
	*end = id && id < s->nfunctions ? s->functions[id].end : 0;
}

const char *hwtr_symbolize_function(struct hwtr_symbolizer *s, uint64_t ip,
				    uint64_t *start)
{
	uint32_t id;

	if (!s)
		return NULL;
	id = symbolizer_function(s, ip);
	if (start)
		*start = symbolizer_function_start(s, id);
	return symbolizer_function_name(s, id);
}

int hwtr_symbolize_line(struct hwtr_symbolizer *s, uint64_t ip,
			struct hwtr_source_line *line)
{
	Dwfl_Module *mod;
	Dwfl_Line *dl;
	int lineno = 0;

	if (!s || !line)
		return hwtr_fail(hwtr_err_invalid, "hwtr_symbolize_line: bad argument");
	line->file = NULL;
	line->path = NULL;
	line->line = 0;
	mod = dwfl_addrmodule(s->dwfl, ip);
	if (!mod || !(dl = dwfl_module_getsrc(mod, ip)))
		return 0;
	line->path = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
	line->line = lineno;
	line->file = line->path;
	if (line->path) {
		/* libdw joins the compilation directory in; GDB shows the name
		 * as the compiler recorded it (filename-display relative). */
		Dwarf_Die *cu = dwfl_linecu(dl);
		Dwarf_Attribute attr;
		const char *comp_dir = cu ? dwarf_formstring(dwarf_attr(cu,
						DW_AT_comp_dir, &attr)) : NULL;
		size_t n = comp_dir ? strlen(comp_dir) : 0;

		if (n && !strncmp(line->path, comp_dir, n) && line->path[n] == '/')
			line->file = line->path + n + 1;
	}
	return line->file ? 1 : 0;
}
