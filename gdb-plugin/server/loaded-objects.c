/* loaded-objects.c: the ELF objects alive at the end of a program image (see
 * loaded-objects.h).
 *
 * A mapping of file offset PGOFF at address A puts the segment whose file
 * range holds PGOFF (p_offset .. p_offset + p_filesz) at A + (p_offset -
 * PGOFF), so the load bias is A - PGOFF + p_offset - p_vaddr.  Two mappings
 * of one file with the same bias are one object; the same file at another
 * bias is another object (loaded twice). */
#include "loaded-objects.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <hwtrecord.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A mapping of the image, trimmed by later munmaps and mmaps over it. */
struct live_map {
	uint64_t start, end, pgoff;
	const struct hwtr_sideband_event *ev;
	bool alive;
};

struct maps {
	size_t n, cap;
	struct live_map *v;
};

/* What [start, end) leaves of each older mapping: a mapping wholly inside
 * is gone; one cut at an end keeps the rest (one cut in the middle keeps its
 * whole range: its bias is all we need). */
static void unmap(struct maps *m, uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct live_map *p = &m->v[i];

		if (!p->alive || end <= p->start || start >= p->end)
			continue;
		if (start <= p->start && end >= p->end)
			p->alive = false;
		else if (start <= p->start) {
			p->pgoff += end - p->start;
			p->start = end;
		} else if (end >= p->end) {
			p->end = start;
		}
	}
}

static int note(char **problems, const char *fmt, ...)
{
	char *line, *joined;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (asprintf(&joined, "%s%s%s", *problems ? *problems : "",
		     *problems ? "\n" : "", line) < 0) {
		free(line);
		return -ENOMEM;
	}
	free(line);
	free(*problems);
	*problems = joined;
	return 0;
}

/* The ELF file's program headers into O (everything but the bias-dependent
 * addresses, which stay file vaddrs for now); 0, or a reason. */
static const char *read_elf(const char *file, struct loaded_object *o,
			    GElf_Phdr **phdrs_out, size_t *nphdrs_out)
{
	const char *why = NULL;
	GElf_Phdr *phdrs = NULL;
	GElf_Ehdr eh;
	size_t n = 0, i;
	Elf *elf;
	struct stat st;
	/* O_NONBLOCK: a FIFO or a device at a mapping's path must not block
	 * the open; only a regular file is read. */
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return strerror(errno);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return "not a regular file";
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		why = "not an ELF file";
		goto out;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		why = "not an executable or shared object";
		goto out;
	}
	if (elf_getphdrnum(elf, &n) < 0 || !n || n > 65535 ||
	    !(phdrs = calloc(n, sizeof(*phdrs)))) {
		why = phdrs || !n || n > 65535 ? "bad program headers" : "out of memory";
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!gelf_getphdr(elf, (int)i, &phdrs[i])) {
			why = "bad program headers";
			goto out;
		}
	o->shared = eh.e_type == ET_DYN;
	o->entry = eh.e_entry;
	o->phnum = n;
	/* The program headers in memory: PT_PHDR, else the load that holds
	 * them (as the kernel computes AT_PHDR). */
	for (i = 0; i < n; i++)
		if (phdrs[i].p_type == PT_PHDR)
			o->phdr = phdrs[i].p_vaddr;
	for (i = 0; i < n && !o->phdr; i++)
		if (phdrs[i].p_type == PT_LOAD && eh.e_phoff >= phdrs[i].p_offset &&
		    eh.e_phoff - phdrs[i].p_offset < phdrs[i].p_filesz)
			o->phdr = phdrs[i].p_vaddr + (eh.e_phoff - phdrs[i].p_offset);
	for (i = 0; i < n; i++) {
		if (phdrs[i].p_type == PT_DYNAMIC)
			o->dynamic = phdrs[i].p_vaddr;
		else if (phdrs[i].p_type == PT_INTERP && !o->interp) {
			size_t len;
			const char *s = elf_rawfile(elf, &len);

			if (s && phdrs[i].p_offset < len && phdrs[i].p_filesz &&
			    phdrs[i].p_filesz <= len - phdrs[i].p_offset)
				o->interp = strndup(s + phdrs[i].p_offset,
						    phdrs[i].p_filesz);
		}
	}
	*phdrs_out = phdrs;
	*nphdrs_out = n;
	phdrs = NULL;
out:
	free(phdrs);
	if (elf)
		elf_end(elf);
	close(fd);
	return why;
}

/* The bias of mapping M of a file with PHDRS, or false if no load segment
 * holds its offset. */
static bool bias_of(const struct live_map *m, const GElf_Phdr *phdrs, size_t n,
		    uint64_t *bias)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const GElf_Phdr *p = &phdrs[i];
		uint64_t align = p->p_align > 1 ? p->p_align : 1;

		if (p->p_type != PT_LOAD || m->pgoff < (p->p_offset & ~(align - 1)) ||
		    m->pgoff >= p->p_offset + p->p_filesz)
			continue;
		*bias = m->start - m->pgoff + p->p_offset - p->p_vaddr;
		return true;
	}
	return false;
}

/* O's addresses in memory, from the file's vaddrs and the bias. */
static int place(struct loaded_object *o, const GElf_Phdr *phdrs, size_t n)
{
	size_t i;

	o->entry += o->bias;
	if (o->phdr)
		o->phdr += o->bias;
	if (o->dynamic)
		o->dynamic += o->bias;
	o->segments = calloc(n, sizeof(*o->segments));
	if (!o->segments)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (phdrs[i].p_type == PT_LOAD)
			o->segments[o->nsegments++] = (struct loaded_segment){
				o->bias + phdrs[i].p_vaddr, phdrs[i].p_filesz,
				phdrs[i].p_offset, (phdrs[i].p_flags & PF_W) != 0,
			};
	return 0;
}

/* Is O the file PATH names: the same file here, or (a recording from
 * another machine, read from its saved copies) the same name? */
static bool is_file(const struct loaded_object *o, const char *path)
{
	const char *a = strrchr(o->path, '/'), *b = strrchr(path, '/');
	struct stat sa, sb;

	if (!strcmp(o->path, path))
		return true;
	if (stat(o->path, &sa) == 0 && stat(path, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return a && b && !strcmp(a, b);
}

/* A file of the program's image, not a pseudo-file: [vdso], [heap],
 * perf's //anon, anon_inode:... */
static bool is_file_path(const char *path)
{
	return path[0] == '/' && path[1] != '/';
}

/* The mapping M as an object: a new one, or the one it belongs to. */
static int add_object(struct loaded_objects *lo,
		      const struct hwtr_recording *rec, const struct live_map *m)
{
	const struct hwtr_sideband_event *ev = m->ev;
	struct loaded_object o = { .path = ev->path }, *grown;
	GElf_Phdr *phdrs = NULL;
	size_t nphdrs = 0, i;
	const char *why;
	int rc = -ENOMEM;

	/* The library's lookup: the recording's copies first, a file of
	 * another build-id never. */
	rc = hwtr_recording_find_code(rec, ev, NULL, &o.file);
	if (rc == -hwtr_err_nomem)
		return -ENOMEM;
	why = rc ? hwtr_last_error() : read_elf(o.file, &o, &phdrs, &nphdrs);
	rc = -ENOMEM;
	if (!why && !bias_of(m, phdrs, nphdrs, &o.bias))
		why = "no load segment holds the mapped offset";
	if (why) {
		/* A file of data mapped executable, or one not found: not an
		 * object GDB could load. */
		rc = note(&lo->problems, "%s (mapped at 0x%llx): %s", ev->path,
			  (unsigned long long)m->start, why);
		goto out;
	}
	for (i = 0; i < lo->n; i++)
		if (lo->objects[i].bias == o.bias && !strcmp(lo->objects[i].file, o.file)) {
			rc = 0;
			goto out;
		}
	if (place(&o, phdrs, nphdrs) < 0)
		goto out;
	grown = realloc(lo->objects, (lo->n + 1) * sizeof(*grown));
	if (!grown)
		goto out;
	lo->objects = grown;
	lo->objects[lo->n++] = o;
	free(phdrs);
	return 0;
out:
	free(o.file);
	free(o.interp);
	free(o.segments);
	free(phdrs);
	return rc;
}

/* The sideband's exec events: how many, and where the Nth is (or n). */
static size_t exec_event(const struct hwtr_recording *rec, size_t nth, size_t *count)
{
	size_t n = hwtr_recording_nevents(rec), i, seen = 0, at = n;

	for (i = 0; i < n; i++)
		if (hwtr_recording_event(rec, i)->kind == hwtr_ev_exec && seen++ == nth)
			at = i;
	if (count)
		*count = seen;
	return at;
}

size_t loaded_objects_nimages(const struct hwtr_recording *rec)
{
	size_t count;

	exec_event(rec, 0, &count);
	return count + 1;
}

/* The mappings of image IMAGE alive at its end: from its exec (or the
 * start) to the next exec (or the end). */
static int final_mappings(const struct hwtr_recording *rec, size_t image,
			  struct maps *m, uint64_t *vdso)
{
	size_t first = image ? exec_event(rec, image - 1, NULL) + 1 : 0;
	size_t last = exec_event(rec, image, NULL), i;

	for (i = first; i < last; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		if (ev->kind != hwtr_ev_mmap && ev->kind != hwtr_ev_munmap)
			continue;
		if (ev->len == 0 || ev->addr + ev->len < ev->addr)
			continue;
		unmap(m, ev->addr, ev->addr + ev->len);
		if (ev->kind == hwtr_ev_munmap || !ev->path)
			continue;
		if (m->n == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 32;
			struct live_map *v = realloc(m->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			m->v = v;
			m->cap = cap;
		}
		m->v[m->n++] = (struct live_map){ ev->addr, ev->addr + ev->len,
						  ev->pgoff, ev, true };
	}
	*vdso = 0;
	for (i = 0; i < m->n; i++)
		if (m->v[i].alive && !strcmp(m->v[i].ev->path, "[vdso]"))
			*vdso = m->v[i].start;
	return 0;
}

int loaded_objects_build(const struct hwtr_recording *rec, size_t image,
			 struct loaded_objects **out)
{
	struct loaded_objects *lo = calloc(1, sizeof(*lo));
	struct maps m = { 0 };
	size_t i;
	int rc;

	*out = NULL;
	if (!lo)
		return -ENOMEM;
	lo->exe = lo->interp = (size_t)-1;
	/* x86-64 has one page size; AArch64 kernels have three. */
	if (!strcmp(hwtr_recording_info(rec)->arch, "x86_64"))
		lo->page_size = 4096;
	lo->execd = image > 0;
	rc = final_mappings(rec, image, &m, &lo->vdso);
	for (i = 0; rc == 0 && i < m.n; i++) {
		bool first = !lo->n && !lo->problems;

		if (!m.v[i].alive || !is_file_path(m.v[i].ev->path))
			continue;
		rc = add_object(lo, rec, &m.v[i]);
		/* Without the program's own file there is no executable (the
		 * next file is its interpreter). */
		if (first && lo->n)
			lo->exe = 0;
	}
	free(m.v);
	if (rc < 0) {
		loaded_objects_free(lo);
		return rc;
	}
	for (i = 0; lo->exe == 0 && lo->objects[0].interp && i < lo->n; i++)
		if (i != lo->exe && is_file(&lo->objects[i], lo->objects[0].interp))
			lo->interp = i;
	if (lo->interp != (size_t)-1)
		lo->first_ip = lo->objects[lo->interp].entry;
	else if (lo->exe != (size_t)-1 && !lo->objects[0].interp)
		lo->first_ip = lo->objects[0].entry;
	*out = lo;
	return 0;
}

void loaded_objects_free(struct loaded_objects *lo)
{
	size_t i;

	if (!lo)
		return;
	for (i = 0; i < lo->n; i++) {
		free(lo->objects[i].file);
		free(lo->objects[i].interp);
		free(lo->objects[i].segments);
	}
	free(lo->objects);
	free(lo->problems);
	free(lo);
}

void *loaded_objects_auxv(const struct loaded_objects *lo, size_t *size)
{
	const struct loaded_object *exe;
	uint64_t *v = calloc(2 * 8, sizeof(*v));
	size_t n = 0;

	if (!v || lo->exe == (size_t)-1) {
		free(v);
		return NULL;
	}
	exe = &lo->objects[lo->exe];
	if (lo->vdso) {
		v[n++] = AT_SYSINFO_EHDR;
		v[n++] = lo->vdso;
	}
	if (lo->page_size) {
		v[n++] = AT_PAGESZ;
		v[n++] = lo->page_size;
	}
	if (exe->phdr) {
		v[n++] = AT_PHDR;
		v[n++] = exe->phdr;
		v[n++] = AT_PHENT;
		v[n++] = sizeof(Elf64_Phdr);
		v[n++] = AT_PHNUM;
		v[n++] = exe->phnum;
	}
	/* A static program has no interpreter (AT_BASE 0); one whose
	 * interpreter is not found gets no AT_BASE rather than a wrong one. */
	if (!exe->interp || lo->interp != (size_t)-1) {
		v[n++] = AT_BASE;
		v[n++] = exe->interp ? lo->objects[lo->interp].bias : 0;
	}
	v[n++] = AT_ENTRY;
	v[n++] = exe->entry;
	v[n++] = AT_NULL;
	v[n++] = 0;
	*size = n * sizeof(*v);
	return v;
}
