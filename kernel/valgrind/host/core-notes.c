/* core-notes.c: make Valgrind's core of a fatal signal usable by GDB.
 *
 * Valgrind's vgcore has the threads' registers (NT_PRSTATUS, NT_FPREGSET)
 * and the memory, but no NT_AUXV and no NT_FILE, so GDB cannot tell where a
 * PIE program was loaded (Valgrind puts it at 0x108000) and shows `??`
 * frames.  We add both notes from what the recorder knows: the client's auxv
 * as the tool read it, and the file mappings the tool reported.  Nor has it
 * NT_SIGINFO (GDB's `$_siginfo`): where the recording knows it
 * (core-siginfo.c) we add the siginfo the kernel would have given, for the
 * first thread (the signalled one, as Valgrind writes it), right after its
 * NT_PRSTATUS, where the kernel puts it and GDB looks for it.
 *
 * How: copy the core, append a new note blob (the old notes plus ours) at the
 * end of the copy, and point the PT_NOTE program header at it (converted to
 * file layout by libelf and written in place, so nothing else moves).
 */
#include "core-notes.h"
#include "core-siginfo.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/user.h>
#include <unistd.h>

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif

struct blob {
	uint8_t *p;
	size_t len, cap;
};

static int blob_put(struct blob *b, const void *p, size_t n)
{
	if (b->len + n + 8 > b->cap) {
		size_t cap = (b->cap ? 2 * b->cap : 4096) + n;
		uint8_t *q = realloc(b->p, cap);

		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	while (b->len % 4)
		b->p[b->len++] = 0;
	return 0;
}

static int add_note(struct blob *b, uint32_t type, const void *desc,
		    size_t size)
{
	Elf64_Nhdr nh = { .n_namesz = 5, .n_descsz = (Elf64_Word)size,
			  .n_type = type };

	return blob_put(b, &nh, sizeof(nh)) || blob_put(b, "CORE", 5) ||
	       blob_put(b, desc, size) ? -1 : 0;
}

/* N bytes of the core ELF's memory at ADDR (its PT_LOAD segments, read
 * from FD) into OUT: false when the core does not hold them. */
static bool read_memory(Elf *elf, int fd, uint64_t addr, uint8_t *out, size_t n)
{
	size_t nphdr, i;

	if (elf_getphdrnum(elf, &nphdr))
		return false;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    addr >= ph.p_vaddr && addr - ph.p_vaddr <= ph.p_filesz &&
		    ph.p_filesz - (addr - ph.p_vaddr) >= n)
			return pread(fd, out, n, (off_t)(ph.p_offset +
				     (addr - ph.p_vaddr))) == (ssize_t)n;
	}
	return false;
}

/* The instruction at PC in the core's memory is a div or idiv. */
static bool divides_at(Elf *elf, int fd, uint64_t pc)
{
	uint8_t code[15];
	size_t n = sizeof(code), count;
	cs_insn *insn;
	csh cs;
	bool divides;

	/* An instruction may end where the core's memory does. */
	while (n > 0 && !read_memory(elf, fd, pc, code, n))
		n--;
	if (n == 0 || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return false;
	count = cs_disasm(cs, code, n, pc, 1, &insn);
	divides = count == 1 && (insn->id == X86_INS_DIV ||
				 insn->id == X86_INS_IDIV);
	if (count)
		cs_free(insn, count);
	cs_close(&cs);
	return divides;
}

/* Copy the notes RAW (SIZE bytes) into B, with NT_SIGINFO for END after
 * the first NT_PRSTATUS when the recording knows it (core-siginfo.c); -1
 * when out of memory.  ELF and FD: the core, for its memory. */
static int copy_notes(struct blob *b, const uint8_t *raw, size_t size,
		      const struct core_end *how, Elf *elf, int fd)
{
	struct core_end end = how ? *how : (struct core_end){ 0 };
	bool added = !how;
	size_t off = 0;


	while (off + sizeof(Elf64_Nhdr) <= size) {
		Elf64_Nhdr nh;
		size_t desc, next;

		memcpy(&nh, raw + off, sizeof(nh));
		desc = off + sizeof(nh) + ((nh.n_namesz + 3) & ~(size_t)3);
		next = desc + ((nh.n_descsz + (size_t)3) & ~(size_t)3);
		if (desc > size || next > size)
			break;	/* not ours to mend: copied as it is below */
		if (blob_put(b, raw + off, next - off))
			return -1;
		off = next;
		if (!added && nh.n_type == NT_PRSTATUS && nh.n_namesz == 5 &&
		    !memcmp(raw + desc - 8, "CORE", 5) &&
		    nh.n_descsz >= sizeof(struct elf_prstatus)) {
			struct elf_prstatus st;
			struct user_regs_struct regs;
			uint8_t info[CORE_SIGINFO_SIZE];

			added = true;
			memcpy(&st, raw + desc, sizeof(st));	/* 4-aligned */
			memcpy(&regs, &st.pr_reg, sizeof(regs));
			end.has_bytes_before_pc = regs.rip >= 2 &&
				read_memory(elf, fd, regs.rip - 2,
					    end.bytes_before_pc, 2);
			end.pc_divides = divides_at(elf, fd, regs.rip);
			if (core_siginfo(&st, &end, info) &&
			    add_note(b, NT_SIGINFO, info, sizeof(info)))
				return -1;
		}
	}
	return off < size && blob_put(b, raw + off, size - off) ? -1 : 0;
}

static int fail(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return -1;
}

static int copy_file(const char *from, const char *to, char *err, size_t size)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return fail(err, size, "%s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0) {
		close(in);
		return fail(err, size, "%s: %s", to, strerror(errno));
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			close(in);
			close(out);
			return fail(err, size, "%s: write failed: %s", to,
				    strerror(errno));
		}
	close(in);
	if (close(out) < 0 || n < 0)
		return fail(err, size, "%s: %s", to, strerror(errno));
	return 0;
}

/* NT_FILE: count, page size, (start, end, offset in pages) each, names. */
static int nt_file(struct blob *b, const struct sideband *sb)
{
	size_t n, i;
	const struct mapping *m = sideband_get_mappings(sb, &n);
	struct blob d = { 0 };
	uint64_t hdr[2] = { n, 4096 };
	int rc;

	/* Build unpadded: names follow each other directly. */
	d.cap = 16 + 24 * n + 1;
	for (i = 0; i < n; i++)
		d.cap += strlen(m[i].path) + 1;
	d.p = malloc(d.cap);
	if (!d.p)
		return -1;
	memcpy(d.p, hdr, sizeof(hdr));
	d.len = sizeof(hdr);
	for (i = 0; i < n; i++) {
		uint64_t e[3] = { m[i].addr, m[i].addr + m[i].len,
				  m[i].pgoff / 4096 };

		memcpy(d.p + d.len, e, sizeof(e));
		d.len += sizeof(e);
	}
	for (i = 0; i < n; i++) {
		size_t k = strlen(m[i].path) + 1;

		memcpy(d.p + d.len, m[i].path, k);
		d.len += k;
	}
	rc = add_note(b, NT_FILE, d.p, d.len);
	free(d.p);
	return rc;
}

int core_add_notes(const char *vgcore, const char *out,
		   const struct sideband *sb, const struct core_end *end,
		   char *err, size_t size)
{
	struct blob notes = { 0 };
	size_t nphdr, i, nauxv;
	const uint64_t *auxv = sideband_get_auxv(sb, &nauxv);
	int fd, note_index = -1, rc = -1;
	GElf_Phdr note;
	Elf *elf;
	off_t blob_at;

	if (!auxv)
		return fail(err, size, "no auxv from the tool for the core");
	if (copy_file(vgcore, out, err, size) < 0)
		return -1;
	elf_version(EV_CURRENT);
	fd = open(out, O_RDWR);
	if (fd < 0)
		return fail(err, size, "%s: %s", out, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr)) {
		fail(err, size, "%s: not an ELF core: %s", vgcore,
		     elf_errmsg(-1));
		goto out;
	}
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE) {
			note = ph;
			note_index = (int)i;
			break;
		}
	}
	if (note_index < 0) {
		fail(err, size, "%s: core has no PT_NOTE segment", vgcore);
		goto out;
	}
	if (note.p_filesz) {
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)note.p_offset,
						   note.p_filesz, ELF_T_BYTE);

		if (!d || copy_notes(&notes, d->d_buf, d->d_size, end, elf, fd)) {
			fail(err, size, "%s: cannot read the notes at offset "
			     "%llu", vgcore, (unsigned long long)note.p_offset);
			goto out;
		}
	}
	if (add_note(&notes, NT_AUXV, auxv, nauxv * 16) || nt_file(&notes, sb)) {
		fail(err, size, "out of memory");
		goto out;
	}
	blob_at = lseek(fd, 0, SEEK_END);
	blob_at = (blob_at + 7) & ~(off_t)7;
	if (pwrite(fd, notes.p, notes.len, blob_at) != (ssize_t)notes.len) {
		fail(err, size, "%s: write failed: %s", out, strerror(errno));
		goto out;
	}
	/* Only the PT_NOTE header changes: convert it to file layout with
	 * libelf and write it in place (elf_update would rewrite the file
	 * from its sections, and a core has none). */
	{
		GElf_Ehdr eh;
		Elf64_Phdr ph = {
			.p_type = PT_NOTE, .p_flags = (Elf64_Word)note.p_flags,
			.p_offset = (Elf64_Off)blob_at, .p_filesz = notes.len,
			.p_align = note.p_align,
		};
		Elf_Data src = { .d_buf = &ph, .d_type = ELF_T_PHDR,
				 .d_size = sizeof(ph), .d_version = EV_CURRENT };
		Elf64_Phdr raw;
		Elf_Data dst = { .d_buf = &raw, .d_type = ELF_T_PHDR,
				 .d_size = sizeof(raw), .d_version = EV_CURRENT };

		if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
		    !elf64_xlatetof(&dst, &src, eh.e_ident[EI_DATA])) {
			fail(err, size, "%s: %s", vgcore, elf_errmsg(-1));
			goto out;
		}
		if (pwrite(fd, &raw, sizeof(raw), (off_t)(eh.e_phoff +
			   (uint64_t)note_index * eh.e_phentsize)) !=
		    (ssize_t)sizeof(raw)) {
			fail(err, size, "%s: write failed: %s", out,
			     strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	elf_end(elf);
	close(fd);
	free(notes.p);
	if (rc < 0)
		unlink(out);
	return rc;
}
