/* elf-facts.c: see elf-facts.h. */
#include "elf-facts.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf)
		close(*fd);
	return elf;
}

static void close_elf(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

int elf_text_mapping(const char *path, uint64_t *addr, uint64_t *len,
		     uint64_t *pgoff)
{
	size_t n, i;
	int fd;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return -1;
	if (elf_getphdrnum(elf, &n) != 0)
		n = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		*addr = ph.p_vaddr & ~0xfffULL;
		*pgoff = ph.p_offset & ~0xfffULL;
		*len = (ph.p_vaddr + ph.p_memsz - *addr + 0xfff) & ~0xfffULL;
		close_elf(elf, fd);
		return 0;
	}
	close_elf(elf, fd);
	return -1;
}

int elf_build_id(const char *path, char *buf, size_t size)
{
	Elf_Scn *scn = NULL;
	int fd, found = -1;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return -1;
	while (found < 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		GElf_Nhdr nhdr;
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nhdr, &name_off,
						   &desc_off)) > 0) {
			const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;
			size_t i;

			if (nhdr.n_type != NT_GNU_BUILD_ID)
				continue;
			if (2 * nhdr.n_descsz + 1 > size)
				break;
			for (i = 0; i < nhdr.n_descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", desc[i]);
			found = 0;
			break;
		}
	}
	close_elf(elf, fd);
	return found;
}

uint64_t elf_symbol(const char *path, const char *name)
{
	Elf_Scn *scn = NULL;
	uint64_t value = 0;
	int fd;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return 0;
	while (!value && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			s = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				value = sym.st_value;
				break;
			}
		}
	}
	close_elf(elf, fd);
	return value;
}
