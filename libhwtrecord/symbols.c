/* symbols.c: function and line lookup over the recording's binaries.
 *
 * Each ELF file at one load address is a module with its own functions in
 * address order.  An address alone does not name a function: before and
 * after an exec (or a library unloaded and another loaded in its place)
 * different files hold the same addresses.  So a lookup takes the image
 * epoch of the instruction (image.h): the mapping that epoch reads the code
 * from names the module, the same file the decoder read the bytes from.
 * Questions asked without a time (the public hwtr_symbolize_*) get the
 * mappings alive at the end, where a debugger stands.
 */
#define _GNU_SOURCE /* qsort_r */
#include "symbols.h"

#include "cfi-entries.h"
#include "error.h"
#include "integrity.h"
#include "object-lookup.h"
#include "recording-file.h"

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
	unsigned traits;	/* SYMBOL_* of its name, found once */
};

struct cache_slot {
	uint64_t ip;
	unsigned epoch;
	uint32_t id;
	bool valid;
};

/* A source name the line table gives relative to the compilation
 * directory (libdw's string), and that directory joined in front (owned). */
struct joined_path {
	const char *relative;
	const char *full;
};

/* One file at one load address. */
struct module {
	Dwfl_Module *dwfl_module;	/* for source lines */
	uint32_t *order;	/* ids of its functions by address, one per
				 * address */
	size_t norder;
	struct cfi_entries entries;	/* where its FDEs start (file addresses) */
	uint64_t bias;		/* file address + bias = address in the image */
};

struct hwtr_symbolizer {
	Dwfl *dwfl;
	char **owned_names;	/* synthesised names (NAME@plt), joined paths */
	size_t nowned, cap_owned;
	struct joined_path *joined;	/* relative source names made absolute */
	size_t njoined, cap_joined, last_joined;
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	struct function *functions;	/* [0] is "no symbol"; ids never move */
	size_t nfunctions, cap_functions;
	struct image_set *images;	/* which mapping holds an IP, per epoch */
	struct module *modules;
	size_t nmodules;
	uint32_t *module_of;	/* per image mapping: module index + 1, or 0 */
	size_t nmappings;	/* image mappings whose files are read */
	bool have_end_epoch;	/* end_epoch is the view of the mappings */
	unsigned end_epoch;	/* read so far that are alive at the end */
	struct cache_slot cache[CACHE_SIZE];
	/* While collect_module reads a module: where the function being
	 * added may end at the latest (its module's or section's end). */
	uint64_t collecting_end;
};

static int symbol_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK: return 2;
	default: return 1;
	}
}

/* What the index pass asks of a function's name, asked once per function
 * here instead of at every block (segments.c). */
static unsigned name_traits(const char *name)
{
	unsigned traits = 0;

	if (!name)
		return 0;
	if (!strcmp(name, "_dl_runtime_resolve"))
		traits |= SYMBOL_RETURNS_TO_CALLEE;
	if (!strncmp(name, "_Unwind_", 8))
		traits |= SYMBOL_UNWINDER;
	if (!strcmp(name, "_Unwind_Resume"))
		traits |= SYMBOL_RESUMES_UNWINDING;
	if (!strcmp(name, "__longjmp") || !strcmp(name, "____longjmp_chk"))
		traits |= SYMBOL_LONGJMP;
	if (!strcmp(name, "execve") || !strcmp(name, "__execve") ||
	    !strcmp(name, "execveat") || !strcmp(name, "fexecve"))
		traits |= SYMBOL_EXECS;
	return traits;
}

static int add_function(struct hwtr_symbolizer *s, uint64_t start,
			uint64_t end, const char *name, int rank)
{
	int err = hwtr_array_grow((void **)&s->functions, &s->cap_functions,
				  s->nfunctions, sizeof(*s->functions));

	if (err)
		return err;
	s->functions[s->nfunctions++] = (struct function){
		start, end, s->collecting_end, name, rank, name_traits(name)
	};
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

/* A relocation of ELF's .rela.plt or .rela.dyn, where its GOT slot is
 * looked up by address: a PLT has an entry per slot, and a scan of every
 * relocation per entry took 40% of opening a python3 recording (libcrypto's
 * PLT and relocations are both in the thousands). */
struct got_reloc {
	GElf_Addr slot;		/* r_offset: the slot it fills */
	size_t order;		/* in section, then table order: the first of
				 * two relocations of one slot names it */
	GElf_Rela rela;
	GElf_Word symtab;	/* the section of its symbols (sh_link) */
};

struct got_relocs {
	struct got_reloc *relocs;	/* by slot, then order */
	size_t n, cap;
};

static int compare_got_relocs(const void *a, const void *b)
{
	const struct got_reloc *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* ELF's RELA relocations sorted by slot; hwtr_err_nomem or 0. */
static int got_relocs_read(Elf *elf, struct got_relocs *out)
{
	Elf_Scn *scn = NULL;

	memset(out, 0, sizeof(*out));
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

			if (!gelf_getrela(data, (int)i, &r))
				continue;
			if (hwtr_array_grow((void **)&out->relocs, &out->cap,
					    out->n, sizeof(*out->relocs)) < 0)
				return hwtr_err_nomem;
			out->relocs[out->n] = (struct got_reloc){
				r.r_offset, out->n, r, sh.sh_link };
			out->n++;
		}
	}
	if (out->n)
		qsort(out->relocs, out->n, sizeof(*out->relocs), compare_got_relocs);
	return 0;
}

/* The name of the relocation that fills GOT slot SLOT (link-time address),
 * the first of RELOCS for it: "puts", or "*ABS*+0x..." for IRELATIVE. */
static bool got_slot_name(Elf *elf, const struct got_relocs *relocs,
			  GElf_Addr slot, char *buf, size_t size)
{
	size_t lo = 0, hi = relocs->n;
	const struct got_reloc *g;
	GElf_Sym sym;
	GElf_Shdr symsh;
	Elf_Data *symdata;
	const char *name;

	while (lo < hi) {	/* the first at or after SLOT */
		size_t mid = lo + (hi - lo) / 2;

		if (relocs->relocs[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == relocs->n || relocs->relocs[lo].slot != slot)
		return false;
	g = &relocs->relocs[lo];
	if (GELF_R_TYPE(g->rela.r_info) == R_X86_64_IRELATIVE) {
		snprintf(buf, size, "*ABS*+0x%llx",
			 (unsigned long long)g->rela.r_addend);
		return true;
	}
	symdata = elf_getdata(elf_getscn(elf, g->symtab), NULL);
	if (!symdata || !gelf_getsym(symdata, (int)GELF_R_SYM(g->rela.r_info), &sym))
		return false;
	gelf_getshdr(elf_getscn(elf, g->symtab), &symsh);
	name = elf_strptr(elf, symsh.sh_link, sym.st_name);
	if (!name || !*name)
		return false;
	snprintf(buf, size, "%s", name);
	return true;
}

/* Whether ELF has a dynamic symbol table: BFD makes its synthetic NAME@plt
 * symbols from the dynamic relocations only, so a static executable's PLT
 * (IRELATIVE slots of IFUNCs such as strlen) has none, and GDB names no
 * function there. */
static bool has_dynsym(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			return true;
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
	struct got_relocs relocs;
	int err = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0 || !has_dynsym(elf))
		return 0;
	if (got_relocs_read(elf, &relocs) < 0) {
		free(relocs.relocs);
		return -1;
	}
	while (!err && (scn = elf_nextscn(elf, scn))) {
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
		for (off = 0; !err && off + entsize <= data->d_size; off += entsize) {
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
				if (!got_slot_name(elf, &relocs, slot, name,
						   sizeof(name)))
					break;
				snprintf(full, sizeof(full), "%s@plt", name);
				owned = own_name(s, full);
				if (!owned ||
				    add_function(s, sh.sh_addr + off + bias,
						 sh.sh_addr + off + entsize + bias,
						 owned, 0) < 0)
					err = -1;
				break;
			}
		}
	}
	free(relocs.relocs);
	return err;
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

/* Where a symbol without size in section SHNDX ends at the latest: its
 * section's end (GDB takes a minimal symbol only for addresses in its own
 * section: _init, of no size in .init, does not name the static PLT after
 * it), or the module's end FALLBACK. */
static uint64_t section_end(Dwfl_Module *mod, GElf_Word shndx,
			    uint64_t fallback)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Shdr sh;

	if (!elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE ||
	    !gelf_getshdr(elf_getscn(elf, shndx), &sh) || !sh.sh_size)
		return fallback;
	return sh.sh_addr + sh.sh_size + bias;
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
	s->collecting_end = mod_end;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx = 0;
		const char *sname = dwfl_module_getsym_info(mod, i, &sym, &addr,
							    &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!sname || !*sname || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		s->collecting_end = sym.st_size ? mod_end
				     : section_end(mod, shndx, mod_end);
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

		/* Labels of code, as GDB's minimal symbols (mst_text, and
		 * mst_file_text for local ones such as ld.so's _start):
		 * not the assembler's local labels (.L), not section
		 * markers (_etext: no code after it in its section). */
		if (!sname || !*sname || GELF_ST_TYPE(sym.st_info) != STT_NOTYPE ||
		    (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_LOCAL) ||
		    !strncmp(sname, ".L", 2) ||
		    !executable_section(mod, shndx) ||
		    addr >= section_end(mod, shndx, mod_end) ||
		    function_covers(s, first, addr))
			continue;
		/* Rank 0: a function at the same address wins. */
		s->collecting_end = sym.st_size ? mod_end
				     : section_end(mod, shndx, mod_end);
		if (add_function(s, addr, addr + (sym.st_size ? sym.st_size : 1),
				 sname, 0) < 0)
			return -1;
	}
	s->collecting_end = mod_end;
	return add_plt_functions(s, mod);
}

/* The module an earlier mapping of the same file at the same load address
 * has (index + 1), or 0. */
static uint32_t known_module(const struct hwtr_symbolizer *s,
			     struct image_set *images, size_t i)
{
	const struct image_mapping *m = image_set_mapping(images, i);
	size_t j;

	for (j = 0; j < i; j++) {
		const struct image_mapping *o = image_set_mapping(images, j);

		if (s->module_of[j] && o->file && !strcmp(o->file, m->file) &&
		    o->addr - o->pgoff == m->addr - m->pgoff)
			return s->module_of[j];
	}
	return 0;
}

/* The name libdw knows mapping I's file by: its path, or, when an earlier
 * mapping reported the file under that name at another bias (one file
 * mapped twice, e.g. a program that maps its own executable again), the
 * path and the bias: libdw (0.188) crashes in dwfl_module_getsymtab on the
 * second of two modules reported under one name.  *UNIQUE is to be freed. */
static const char *module_name(const struct hwtr_symbolizer *s,
			       struct image_set *images, size_t i,
			       GElf_Addr bias, char **unique)
{
	const struct image_mapping *m = image_set_mapping(images, i);
	const char *name = m->path ? m->path : m->file;
	size_t j;

	*unique = NULL;
	for (j = 0; j < i; j++) {
		const struct image_mapping *o = image_set_mapping(images, j);

		if (s->module_of[j] && o->file &&
		    !strcmp(o->path ? o->path : o->file, name)) {
			if (asprintf(unique, "%s@0x%llx", name,
				     (unsigned long long)bias) < 0) {
				*unique = NULL;
				return NULL;
			}
			return *unique;
		}
	}
	return name;
}

/* libdw's search for a module's separate debug file, after the recording's
 * own copy, objects/BUILD_ID.debug (hwtrec pack's), checked for the
 * module's build-id.  *USERDATA is the symbolizer (report_modules). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct hwtr_symbolizer *s = *userdata;
	const unsigned char *bits;
	char id[130], name[200], path[4352], got[130];
	GElf_Addr vaddr;
	struct stat st;
	int len = dwfl_module_build_id(mod, &bits, &vaddr), i, fd;

	if (s && len > 0 && len <= 64) {
		for (i = 0; i < len; i++)
			snprintf(id + 2 * i, 3, "%02x", bits[i]);
		if (object_name(id, true, name, sizeof(name)) &&
		    recording_file_open(image_set_recording_dir(s->images), name,
					&fd, &st) == 0) {
			snprintf(path, sizeof(path), "%s/%s",
				 image_set_recording_dir(s->images), name);
			if (hwtr_build_id_of_file(path, got, sizeof(got)) > 0 &&
			    !strcmp(got, id) && (*debuginfo_file_name = strdup(path)))
				return fd;
			close(fd);
		}
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

/* Report the file of each mapping from FROM on to libdw, at the bias the
 * mapping implies, unless an earlier mapping has it at that bias already;
 * NEW[i - FROM] gets the libdw module of a file reported for mapping i. */
static void report_modules(struct hwtr_symbolizer *s, struct image_set *images,
			   size_t from, Dwfl_Module **new)
{
	size_t i;

	dwfl_report_begin_add(s->dwfl);
	for (i = from; i < image_set_count(images); i++) {
		const struct image_mapping *m = image_set_mapping(images, i);
		GElf_Addr bias = 0;
		uint64_t b = 0;
		const char *name;
		char *unique;

		s->module_of[i] = m->file ? known_module(s, images, i) : 0;
		if (!m->file || s->module_of[i])
			continue;
		if (hwtr_load_bias_of_file(m->file, m->addr, m->pgoff, &b) > 0)
			bias = b;
		/* NULL: libdw cannot read it, or has another file under this
		 * name at this address; the mapping gets no symbols. */
		name = module_name(s, images, i, bias, &unique);
		new[i - from] = name ? dwfl_report_elf(s->dwfl, name, m->file,
						       -1, bias, false)
				     : NULL;
		free(unique);
		/* Later mappings of the same file find it (known_module). */
		if (new[i - from]) {
			void **userdata = NULL;

			s->module_of[i] = UINT32_MAX;
			dwfl_module_info(new[i - from], &userdata, NULL, NULL,
					 NULL, NULL, NULL, NULL);
			if (userdata)
				*userdata = s;
		}
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
}

static int compare_ids(const void *a, const void *b, void *table)
{
	const struct function *functions = table;
	const struct function *x = &functions[*(const uint32_t *)a];
	const struct function *y = &functions[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* At one address: best rank first, then the oldest id. */
	if (x->rank != y->rank)
		return y->rank - x->rank;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The module of functions FIRST.. (just collected from one file): their
 * address order, one per address; where a symbol has no size it ends at the
 * next function, and no function runs into the next. */
static int order_module(struct hwtr_symbolizer *s, struct module *mod,
			size_t first)
{
	uint32_t *order = malloc((s->nfunctions - first + 1) * sizeof(*order));
	size_t i, w, n = 0;

	if (!order)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = first; i < s->nfunctions; i++)
		order[n++] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), compare_ids, s->functions);
	for (i = 0, w = 0; i < n; i++) {
		if (w && s->functions[order[w - 1]].start ==
			      s->functions[order[i]].start)
			continue;
		order[w++] = order[i];
	}
	for (i = 0; i < w; i++) {
		struct function *f = &s->functions[order[i]];
		const struct function *next =
			i + 1 < w ? &s->functions[order[i + 1]] : NULL;
		uint64_t next_start = next ? next->start : f->module_end;

		if (f->end == f->start + 1)	/* no size: up to the next symbol */
			f->end = next_start < f->module_end ? next_start
							    : f->module_end;
		if (next && f->end > next->start)
			f->end = next->start;
		if (f->end <= f->start)
			f->end = f->start + 1;
	}
	mod->order = order;
	mod->norder = w;
	return 0;
}

/* MOD's FDE starts, read with the module: a lookup only reads (the index
 * pass's threads share the symbolizer). */
static int read_cfi_entries(struct module *mod)
{
	Dwarf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod->dwfl_module, &bias);

	mod->bias = bias;
	return elf ? cfi_entries_read(elf, &mod->entries) : 0;
}

/* The modules of the mappings not read yet: new function ids after the old
 * ones, which keep their meaning. */
static int add_modules(struct hwtr_symbolizer *s, struct image_set *images)
{
	size_t count = image_set_count(images), i;
	Dwfl_Module **new = calloc(count - s->nmappings + 1, sizeof(*new));
	void *p = realloc(s->module_of, (count + 1) * sizeof(*s->module_of));
	int err = 0;

	if (p)
		s->module_of = p;
	if (!new || !p ||
	    !(p = realloc(s->modules, (s->nmodules + count - s->nmappings + 1) *
				      sizeof(*s->modules)))) {
		free(new);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	s->modules = p;
	report_modules(s, images, s->nmappings, new);
	for (i = s->nmappings; i < count && !err; i++) {
		struct module *mod = &s->modules[s->nmodules];
		size_t first = s->nfunctions;

		if (!new[i - s->nmappings]) {
			if (s->module_of[i] == UINT32_MAX)	/* the file of an
								 * earlier one */
				s->module_of[i] = known_module(s, images, i);
			continue;
		}
		memset(mod, 0, sizeof(*mod));
		mod->dwfl_module = new[i - s->nmappings];
		if (collect_module(s, mod->dwfl_module) < 0)
			err = hwtr_fail(hwtr_err_nomem, "out of memory");
		else if (!(err = order_module(s, mod, first)))
			err = read_cfi_entries(mod);
		if (!err)
			s->module_of[i] = (uint32_t)++s->nmodules;
	}
	free(new);
	if (err) {
		/* Mappings left with the placeholder get no symbols. */
		for (i = s->nmappings; i < count; i++)
			if (s->module_of[i] == UINT32_MAX)
				s->module_of[i] = 0;
		return err;
	}
	s->nmappings = count;
	s->have_end_epoch = false;
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
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->callbacks);
	s->images = images;
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
	/* An munmap or exec read since ends mappings without adding any. */
	s->have_end_epoch = false;
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
	free(s->joined);
	free(s->functions);
	while (s->nmodules) {
		free(s->modules[--s->nmodules].order);
		cfi_entries_free(&s->modules[s->nmodules].entries);
	}
	free(s->modules);
	free(s->module_of);
	free(s->debuginfo_path);
	free(s);
}

/* The module of the file EPOCH reads the code at IP from, or NULL. */
static const struct module *module_at(const struct hwtr_symbolizer *s,
				      unsigned epoch, uint64_t ip)
{
	long map = image_epoch_mapping(s->images, epoch, ip);

	if (map < 0 || (size_t)map >= s->nmappings || !s->module_of[map])
		return NULL;
	return &s->modules[s->module_of[map] - 1];
}

/* How many of MOD's functions, in start order, start at or before IP. */
static size_t functions_up_to(const struct hwtr_symbolizer *s,
			      const struct module *mod, uint64_t ip)
{
	size_t lo = 0, hi = mod->norder;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->functions[mod->order[mid]].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t find_function(const struct hwtr_symbolizer *s,
			      const struct module *mod, uint64_t ip)
{
	/* The last function starting at or before IP. */
	size_t lo = functions_up_to(s, mod, ip);

	if (lo > 0 && ip < s->functions[mod->order[lo - 1]].end)
		return mod->order[lo - 1];
	return 0;
}

uint32_t symbolizer_function_uncached(const struct hwtr_symbolizer *s,
				      unsigned epoch, uint64_t ip)
{
	const struct module *mod = module_at(s, epoch, ip);

	return mod ? find_function(s, mod, ip) : 0;
}

uint64_t symbolizer_next_start(const struct hwtr_symbolizer *s,
			       unsigned epoch, uint64_t ip)
{
	const struct module *mod = module_at(s, epoch, ip);
	size_t lo;

	if (!mod)
		return UINT64_MAX;
	lo = functions_up_to(s, mod, ip);
	return lo < mod->norder ? s->functions[mod->order[lo]].start : UINT64_MAX;
}

uint32_t symbolizer_function(struct hwtr_symbolizer *s, unsigned epoch,
			     uint64_t ip)
{
	uint64_t key = ip ^ (ip >> 12) ^ ((uint64_t)epoch * 0x9e3779b1u);
	struct cache_slot *slot = &s->cache[key % CACHE_SIZE];

	if (!slot->valid || slot->ip != ip || slot->epoch != epoch) {
		slot->ip = ip;
		slot->epoch = epoch;
		slot->id = symbolizer_function_uncached(s, epoch, ip);
		slot->valid = true;
	}
	return slot->id;
}

int symbolizer_end_epoch(struct hwtr_symbolizer *s, unsigned *epoch)
{
	int err;

	if (!s->have_end_epoch) {
		if ((err = image_set_at_end(s->images, &s->end_epoch)) < 0)
			return err;
		s->have_end_epoch = true;
	}
	*epoch = s->end_epoch;
	return 0;
}

const char *symbolizer_function_name(const struct hwtr_symbolizer *s,
				     uint32_t id)
{
	return id < s->nfunctions ? s->functions[id].name : NULL;
}

uint32_t symbolizer_digest(const struct hwtr_symbolizer *s, uint64_t *nfunctions)
{
	uint32_t crc = 0;
	size_t i;

	for (i = 0; i < s->nfunctions; i++) {
		const struct function *f = &s->functions[i];
		uint64_t fields[3] = { f->start, f->end, f->traits };
		const char *name = f->name ? f->name : "";

		crc = integrity_crc32(crc, fields, sizeof(fields));
		crc = integrity_crc32(crc, name, strlen(name) + 1);
	}
	*nfunctions = s->nfunctions;
	return crc;
}

uint64_t symbolizer_function_start(const struct hwtr_symbolizer *s, uint32_t id)
{
	return id < s->nfunctions ? s->functions[id].start : 0;
}

unsigned symbolizer_function_traits(const struct hwtr_symbolizer *s,
				    uint32_t id)
{
	return id < s->nfunctions ? s->functions[id].traits : 0;
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
	unsigned epoch;
	uint32_t id;

	if (!s || symbolizer_end_epoch(s, &epoch) < 0)
		return NULL;
	id = symbolizer_function(s, epoch, ip);
	if (start)
		*start = symbolizer_function_start(s, id);
	return symbolizer_function_name(s, id);
}

/* DIR/RELATIVE, made once per source name and kept by the symbolizer;
 * RELATIVE itself when out of memory (the name still reads as GDB's). */
static const char *joined_path(struct hwtr_symbolizer *s, const char *dir,
			       const char *relative)
{
	size_t i = s->last_joined, size;
	char *full;
	const char *owned;

	/* Listings ask line after line in the same file. */
	if (i < s->njoined && s->joined[i].relative == relative)
		return s->joined[i].full;
	for (i = 0; i < s->njoined; i++)
		if (s->joined[i].relative == relative) {
			s->last_joined = i;
			return s->joined[i].full;
		}
	if (s->njoined == s->cap_joined) {
		size_t cap = s->cap_joined ? 2 * s->cap_joined : 16;
		void *p = cap > SIZE_MAX / sizeof(*s->joined) ? NULL
			  : realloc(s->joined, cap * sizeof(*s->joined));

		if (!p)
			return relative;
		s->joined = p;
		s->cap_joined = cap;
	}
	size = strlen(dir) + strlen(relative) + 2;
	if (!(full = malloc(size)))
		return relative;
	snprintf(full, size, "%s/%s", dir, relative);
	owned = own_name(s, full);
	free(full);
	if (!owned)
		return relative;
	s->joined[s->njoined] = (struct joined_path){ relative, owned };
	s->last_joined = s->njoined++;
	return owned;
}

int symbolizer_line(struct hwtr_symbolizer *s, unsigned epoch, uint64_t ip,
		    struct hwtr_source_line *line)
{
	const struct module *mod = module_at(s, epoch, ip);
	Dwfl_Line *dl;
	int lineno = 0;

	line->file = NULL;
	line->path = NULL;
	line->line = 0;
	if (!mod || !(dl = dwfl_module_getsrc(mod->dwfl_module, ip)))
		return 0;
	line->path = dwfl_lineinfo(dl, NULL, &lineno, NULL, NULL, NULL);
	line->line = lineno;
	line->file = line->path;
	if (line->path) {
		/* libdw joins the compilation directory in front of a name
		 * relative to a directory of the line table, but not of one
		 * relative to the compilation directory itself ("../src/a.c"
		 * of an out-of-tree build): join it, as addr2line does, so
		 * that the path can be read from anywhere.  GDB shows the
		 * name as the compiler recorded it (filename-display
		 * relative). */
		Dwarf_Die *cu = dwfl_linecu(dl);
		Dwarf_Attribute attr;
		const char *comp_dir = cu ? dwarf_formstring(dwarf_attr(cu,
						DW_AT_comp_dir, &attr)) : NULL;
		size_t n = comp_dir ? strlen(comp_dir) : 0;

		if (n && !strncmp(line->path, comp_dir, n) && line->path[n] == '/')
			line->file = line->path + n + 1;
		else if (n && line->path[0] != '/')
			line->path = joined_path(s, comp_dir, line->path);
	}
	return line->file ? 1 : 0;
}

/* The frame of the call frame information at IP, or NULL (no CFI there). */
static Dwarf_Frame *cfi_frame(struct hwtr_symbolizer *s, unsigned epoch,
			      uint64_t ip)
{
	const struct module *mod = module_at(s, epoch, ip);
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr bias;

	/* .eh_frame, which every x86-64 object has (the ABI); else
	 * .debug_frame. */
	if (!mod || (!(cfi = dwfl_module_eh_cfi(mod->dwfl_module, &bias)) &&
		     !(cfi = dwfl_module_dwarf_cfi(mod->dwfl_module, &bias))) ||
	    dwarf_cfi_addrframe(cfi, ip - bias, &frame) != 0)
		return NULL;
	return frame;
}

bool symbolizer_cfi_entry(struct hwtr_symbolizer *s, unsigned epoch,
			  uint64_t ip)
{
	const struct module *mod = module_at(s, epoch, ip);
	Dwarf_Frame *frame;
	Dwarf_Addr start, end;
	bool signal_frame, entry;

	if (!mod || !cfi_entries_has(&mod->entries, ip - mod->bias) ||
	    !(frame = cfi_frame(s, epoch, ip)))
		return false;
	/* A signal trampoline's FDE (glibc's __restore_rt) is no function
	 * that a call enters. */
	entry = dwarf_frame_info(frame, &start, &end, &signal_frame) >= 0 &&
		!signal_frame;
	free(frame);
	return entry;
}

int hwtr_symbolize_cfa(struct hwtr_symbolizer *s, uint64_t ip,
		       unsigned *regno, int64_t *offset)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t nops;
	unsigned epoch;
	int err, found = -hwtr_err_notfound;

	if (!s || !regno || !offset)
		return hwtr_fail(hwtr_err_invalid, "hwtr_symbolize_cfa: bad argument");
	if ((err = symbolizer_end_epoch(s, &epoch)) < 0)
		return err;
	if (!(frame = cfi_frame(s, epoch, ip)))
		return -hwtr_err_notfound;
	/* A register plus a constant: DW_OP_bregN, or DW_OP_bregx. */
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			*regno = ops[0].atom - DW_OP_breg0;
			*offset = (int64_t)ops[0].number;
			found = 0;
		} else if (ops[0].atom == DW_OP_bregx) {
			*regno = (unsigned)ops[0].number;
			*offset = (int64_t)ops[0].number2;
			found = 0;
		}
	}
	free(frame);
	return found;
}

int hwtr_symbolize_outermost(struct hwtr_symbolizer *s, uint64_t ip)
{
	Dwarf_Frame *frame;
	Dwarf_Op ops_mem[3], *ops = NULL;
	size_t nops = 0;
	unsigned epoch;
	int err, ra, outermost = 0;

	if (!s)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_symbolize_outermost: bad argument");
	if ((err = symbolizer_end_epoch(s, &epoch)) < 0)
		return err;
	if (!(frame = cfi_frame(s, epoch, ip)))
		return 0;
	/* libdw: the undefined rule is no operations in OPS_MEM (a null
	 * pointer is the same-value rule). */
	ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	if (ra >= 0 && dwarf_frame_register(frame, ra, ops_mem, &ops,
					    &nops) == 0)
		outermost = nops == 0 && ops == ops_mem;
	free(frame);
	return outermost;
}

int hwtr_symbolize_line(struct hwtr_symbolizer *s, uint64_t ip,
			struct hwtr_source_line *line)
{
	unsigned epoch;
	int err;

	if (!s || !line)
		return hwtr_fail(hwtr_err_invalid, "hwtr_symbolize_line: bad argument");
	if ((err = symbolizer_end_epoch(s, &epoch)) < 0)
		return err;
	return symbolizer_line(s, epoch, ip, line);
}
