/* load-bias.c: where an ELF file's addresses land when mapped (libelf).
 *
 * A mapping of file offset PGOFF at address ADDR lies in the PT_LOAD segment
 * that holds PGOFF; the file's addresses are then moved by ADDR - (p_vaddr +
 * PGOFF - p_offset).  The symbolizer (libdw) and GDB (add-symbol-file -o)
 * both need this number for a recording's binaries.
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

int hwtr_load_bias_of_file(const char *path, uint64_t addr, uint64_t pgoff,
			   uint64_t *bias)
{
	size_t phnum = 0, k;
	struct stat st;
	int fd, found;
	Elf *elf;

	if (!path || !bias)
		return hwtr_fail(hwtr_err_invalid, "hwtr_load_bias_of_file: bad argument");
	if ((found = regular_file_open(path, &fd, &st)) < 0)
		return found;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &phnum) == 0) {
		for (k = 0; k < phnum; k++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)k, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (pgoff >= (ph.p_offset & ~0xfffULL) &&
			    pgoff < ph.p_offset + ph.p_filesz) {
				*bias = addr - (ph.p_vaddr + pgoff - ph.p_offset);
				found = 1;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}
