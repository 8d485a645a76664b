/* corefile.c: reading an x86-64 Linux ELF core with libelf (see corefile.h).
 *
 * Registers come from NT_PRSTATUS (struct elf_prstatus, pr_reg is the
 * kernel's user_regs_struct) and from the NT_FPREGSET that follows each
 * NT_PRSTATUS (the FXSAVE image); they are converted to the 'g' layout of
 * tdesc.h the way GDB's amd64-linux and i387 code read them. */
#include "corefile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <hwtrecord.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <unistd.h>

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

static void put(struct core_thread *t, unsigned regnum, const void *value,
		size_t size)
{
	int off = tdesc_register_offset(regnum);
	int rsize = tdesc_register_size(regnum);

	if (off < 0 || rsize < 0)
		return;
	memset(t->regs + off, 0, (size_t)rsize);
	memcpy(t->regs + off, value, size < (size_t)rsize ? size : (size_t)rsize);
	memset(t->valid + off, 1, (size_t)rsize);
}

static void put_u64(struct core_thread *t, unsigned regnum, uint64_t v)
{
	put(t, regnum, &v, 8);	/* x86-64 is little-endian, as the packet */
}

static void supply_prstatus(struct core_thread *t, const struct user_regs_struct *r)
{
	const unsigned long long gp[16] = {
		r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};
	const unsigned long long seg[6] = { r->cs, r->ss, r->ds, r->es, r->fs, r->gs };
	unsigned i;

	for (i = 0; i < 16; i++)
		put_u64(t, tdesc_rax + i, gp[i]);
	put_u64(t, tdesc_rip, r->rip);
	put_u64(t, tdesc_eflags, r->eflags);
	for (i = 0; i < 6; i++)
		put_u64(t, tdesc_cs + i, seg[i]);
	put_u64(t, tdesc_orig_rax, r->orig_rax);
	put_u64(t, tdesc_fs_base, r->fs_base);
	put_u64(t, tdesc_gs_base, r->gs_base);
}

/* The full x87 tag of one register from its contents, as GDB's
 * i387_supply_fxsave rebuilds it from FXSAVE's abridged tag. */
static unsigned x87_tag(const uint8_t *raw)
{
	unsigned exponent = (raw[9] & 0x7f) << 8 | raw[8];
	unsigned integer = raw[7] & 0x80;
	bool fraction_zero = !(raw[7] & 0x7f);
	int i;

	for (i = 0; i < 7; i++)
		fraction_zero = fraction_zero && !raw[i];
	if (exponent == 0x7fff)
		return 2;	/* special */
	if (exponent == 0)
		return (fraction_zero && !integer) ? 1 : 2;	/* zero or special */
	return integer ? 0 : 2;	/* valid or special */
}

static void supply_fxsave(struct core_thread *t, const uint8_t *fx)
{
	uint16_t cwd, swd, fop;
	uint8_t abridged;
	uint32_t fioff, fooff, mxcsr, tag = 0;
	uint16_t fiseg, foseg;
	unsigned i, top;

	memcpy(&cwd, fx + 0, 2);
	memcpy(&swd, fx + 2, 2);
	abridged = fx[4];
	memcpy(&fop, fx + 6, 2);
	memcpy(&fioff, fx + 8, 4);
	memcpy(&fiseg, fx + 12, 2);
	memcpy(&fooff, fx + 16, 4);
	memcpy(&foseg, fx + 20, 2);
	memcpy(&mxcsr, fx + 24, 4);
	top = (swd >> 11) & 7;
	for (i = 0; i < 8; i++) {
		unsigned t8 = 3;	/* empty */

		if (abridged & (1u << i))
			t8 = x87_tag(fx + 32 + 16 * ((i - top) & 7));
		tag |= t8 << (2 * i);
	}
	put(t, tdesc_fctrl, &(uint32_t){ cwd }, 4);
	put(t, tdesc_fstat, &(uint32_t){ swd }, 4);
	put(t, tdesc_ftag, &tag, 4);
	put(t, tdesc_fiseg, &(uint32_t){ fiseg }, 4);
	put(t, tdesc_fioff, &fioff, 4);
	put(t, tdesc_foseg, &(uint32_t){ foseg }, 4);
	put(t, tdesc_fooff, &fooff, 4);
	put(t, tdesc_fop, &(uint32_t){ fop & 0x7ffu }, 4);
	for (i = 0; i < 8; i++)
		put(t, tdesc_st0 + i, fx + 32 + 16 * i, 10);
	for (i = 0; i < 16; i++)
		put(t, tdesc_xmm0 + i, fx + 160 + 16 * i, 16);
	put(t, tdesc_mxcsr, &mxcsr, 4);
}

/* The message for hwtr_last_error(); the code stays the caller's. */
static int fail(int code, const char *fmt, const char *path, const char *what)
{
	char message[1024];

	snprintf(message, sizeof(message), fmt, path, what);
	hwtr_fail(hwtr_err_format, "%s", message);
	return code;
}

/* NT_FILE: count, page size, count x (start, end, page offset), names. */
static int parse_nt_file(struct core *core, const uint8_t *desc, size_t size)
{
	uint64_t count, page, i;
	const char *names, *end = (const char *)desc + size;

	if (size < 16)
		return -1;
	memcpy(&count, desc, 8);
	memcpy(&page, desc + 8, 8);
	if (count > (size - 16) / 24)
		return -1;
	names = (const char *)desc + 16 + 24 * count;
	core->files = calloc(count ? count : 1, sizeof(*core->files));
	if (!core->files)
		return -1;
	for (i = 0; i < count; i++) {
		struct core_file_map *f = &core->files[i];
		const char *nul = memchr(names, '\0', (size_t)(end - names));

		if (!nul)
			return -1;
		memcpy(&f->start, desc + 16 + 24 * i, 8);
		memcpy(&f->end, desc + 24 + 24 * i, 8);
		memcpy(&f->pgoff, desc + 32 + 24 * i, 8);
		f->pgoff *= page;
		f->path = names;
		names = nul + 1;
		core->nfiles++;
	}
	return 0;
}

static int read_notes(struct core *core, Elf *elf, size_t phnum,
		      const char *path)
{
	size_t i;

	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ELF_T_NHDR);
		if (!data)
			return fail(-EINVAL,
				    "%s: note segment outside the file (%s)", path,
				    elf_errmsg(-1));
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *name = (const char *)data->d_buf + name_off;
			const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;

			if (nh.n_namesz != 5 || memcmp(name, "CORE", 5))
				continue;
			if (nh.n_type == NT_PRSTATUS) {
				/* A note's desc is 4-aligned (the kernel's are
				 * at 20 bytes into the note): read a copy. */
				struct elf_prstatus st_copy, *st = &st_copy;
				struct core_thread *t;
				struct user_regs_struct regs;

				if (nh.n_descsz < sizeof(*st))
					return fail(-EINVAL,
						    "%s: NT_PRSTATUS note too short%s", path, "");
				memcpy(&st_copy, desc, sizeof(st_copy));
				t = realloc(core->threads, (core->nthreads + 1) * sizeof(*t));
				if (!t)
					return -ENOMEM;
				core->threads = t;
				t += core->nthreads++;
				memset(t, 0, sizeof(*t));
				t->tid = (uint32_t)st->pr_pid;
				t->signal = st->pr_cursig;
				memcpy(&regs, &st->pr_reg, sizeof(regs));
				supply_prstatus(t, &regs);
			} else if (nh.n_type == NT_FPREGSET && core->nthreads &&
				   nh.n_descsz >= 512) {
				supply_fxsave(&core->threads[core->nthreads - 1], desc);
			} else if (nh.n_type == NT_SIGINFO && core->nthreads &&
				   nh.n_descsz >= CORE_SIGINFO_SIZE) {
				/* The kernel writes it after the signalled
				 * thread's NT_PRSTATUS, as GDB reads it. */
				struct core_thread *t = &core->threads[core->nthreads - 1];

				memcpy(t->siginfo, desc, CORE_SIGINFO_SIZE);
				t->has_siginfo = true;
			} else if (nh.n_type == NT_AUXV) {
				core->auxv = desc;
				core->auxv_size = nh.n_descsz;
			} else if (nh.n_type == NT_FILE && !core->files) {
				if (parse_nt_file(core, desc, nh.n_descsz) < 0)
					return fail(-EINVAL,
						    "%s: malformed NT_FILE note%s", path, "");
			}
		}
	}
	return 0;
}

int core_open(const char *path, struct core **out)
{
	struct core *core;
	struct stat st;
	GElf_Ehdr eh;
	size_t phnum;
	Elf *elf = NULL;
	int rc;

	*out = NULL;
	core = calloc(1, sizeof(*core));
	if (!core)
		return -ENOMEM;
	core->fd = -1;
	/* O_NONBLOCK: a FIFO (or a device) named as the core must not block
	 * the open; it is refused below. */
	core->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (core->fd < 0) {
		rc = fail(-errno, "%s: %s", path, strerror(errno));
		goto out_free;
	}
	if (fstat(core->fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		rc = fail(-EINVAL, "%s: %s", path,
			  "not a regular file (a core file is one)");
		goto out_free;
	}
	if (fstat(core->fd, &st) < 0 || st.st_size == 0) {
		rc = fail(-EINVAL, "%s: %s", path, "empty or unreadable");
		goto out_free;
	}
	core->size = (size_t)st.st_size;
	core->map = mmap(NULL, core->size, PROT_READ, MAP_PRIVATE, core->fd, 0);
	if (core->map == MAP_FAILED) {
		core->map = NULL;
		rc = fail(-errno, "%s: mmap: %s", path, strerror(errno));
		goto out_free;
	}
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)core->map, core->size);
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE ||
	    eh.e_machine != EM_X86_64 || gelf_getclass(elf) != ELFCLASS64) {
		rc = fail(-EINVAL, "%s: %s", path,
			  "not an x86-64 ELF core file");
		goto out_free;
	}
	if (elf_getphdrnum(elf, &phnum) < 0) {
		rc = fail(-EINVAL, "%s: program headers: %s", path,
			  elf_errmsg(-1));
		goto out_free;
	}
	rc = read_notes(core, elf, phnum, path);
	if (rc < 0)
		goto out_free;
	if (!core->nthreads) {
		rc = fail(-EINVAL, "%s: %s", path,
			  "no NT_PRSTATUS note (no thread registers)");
		goto out_free;
	}
	core->signal = core->threads[0].signal;
	rc = hwtr_core_memory_open(path, &core->memory);
	if (rc < 0) {
		rc = rc == -hwtr_err_nomem ? -ENOMEM : -EINVAL;
		goto out_free;
	}
	elf_end(elf);
	*out = core;
	return 0;

out_free:
	if (elf)
		elf_end(elf);
	core_close(core);
	return rc;
}

void core_close(struct core *core)
{
	if (!core)
		return;
	if (core->map)
		munmap((void *)core->map, core->size);
	if (core->fd >= 0)
		close(core->fd);
	free(core->threads);
	hwtr_core_memory_close(core->memory);
	free(core->files);
	free(core);
}

const struct core_thread *core_find_thread(const struct core *core,
					   uint32_t tid)
{
	size_t i;

	for (i = 0; i < core->nthreads; i++)
		if (core->threads[i].tid == tid)
			return &core->threads[i];
	return NULL;
}
