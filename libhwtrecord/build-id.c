/* build-id.c: the GNU build-id of an ELF file or in-memory image (libelf).
 *
 * One reader for the recorder (which writes build-ids into the sideband, the
 * vDSO from memory) and the image (which checks files against them).  The
 * PT_NOTE segments are read first: they are there in memory images and in
 * stripped files; section headers are the fallback for files without them.
 */
#include "hwtrecord.h"

#include "error.h"
#include "recording-file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

/* 1 if DATA holds the GNU build-id note (written to BUF), else 0. */
static int note_build_id(Elf_Data *data, char *buf, size_t size)
{
	size_t off = 0, name_off, desc_off, i;
	GElf_Nhdr nh;

	while (data && (off = gelf_getnote(data, off, &nh, &name_off,
					   &desc_off)) > 0) {
		const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (2 * (size_t)nh.n_descsz + 1 > size)
			return 0;
		for (i = 0; i < nh.n_descsz; i++)
			snprintf(buf + 2 * i, 3, "%02x", desc[i]);
		return 1;
	}
	return 0;
}

static int elf_build_id(Elf *elf, char *buf, size_t size)
{
	Elf_Scn *scn = NULL;
	size_t nphdr = 0, i;

	for (i = 0; elf_getphdrnum(elf, &nphdr) == 0 && i < nphdr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE &&
		    note_build_id(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
						       ph.p_filesz, ELF_T_NHDR),
				  buf, size))
			return 1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    note_build_id(elf_getdata(scn, NULL), buf, size))
			return 1;
	}
	return 0;
}

static int checked_build_id(Elf *elf, const char *what, char *buf, size_t size)
{
	int found;

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return hwtr_fail(hwtr_err_format, "%s: not an ELF file", what);
	}
	found = elf_build_id(elf, buf, size);
	elf_end(elf);
	return found;
}

int hwtr_build_id_of_file(const char *path, char *buf, size_t size)
{
	struct stat st;
	int fd, found;

	if (!path || !buf || size == 0)
		return hwtr_fail(hwtr_err_invalid, "hwtr_build_id_of_file: bad argument");
	buf[0] = 0;
	elf_version(EV_CURRENT);
	if ((found = regular_file_open(path, &fd, &st)) < 0)
		return found;
	found = checked_build_id(elf_begin(fd, ELF_C_READ_MMAP, NULL), path, buf,
				 size);
	close(fd);
	return found;
}

int hwtr_build_id_of_image(const void *image, size_t image_size, char *buf,
			   size_t size)
{
	if (!image || !buf || size == 0)
		return hwtr_fail(hwtr_err_invalid,
				 "hwtr_build_id_of_image: bad argument");
	buf[0] = 0;
	elf_version(EV_CURRENT);
	return checked_build_id(elf_memory((char *)image, image_size),
				"in-memory image", buf, size);
}
