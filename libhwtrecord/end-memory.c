/* end-memory.c: the end state's memory from the recording's ELF core
 * (end-memory.h).  Reads the program headers once and then the bytes with
 * pread, so a large core is not mapped or copied. */
#include "end-memory.h"
#include "error.h"

#include <hwtrecord.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct end_segment {
	uint64_t vaddr, filesz, offset;
};

struct end_memory {
	int fd;			/* -1: no core */
	char *path;
	struct end_segment *segments;
	size_t nsegments;
};

static int read_segments(struct end_memory *em)
{
	Elf *elf;
	size_t n, i;
	int err = 0;

	elf_version(EV_CURRENT);
	elf = elf_begin(em->fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n)) {
		err = hwtr_fail(hwtr_err_format, "%s: not an ELF core: %s",
				em->path, elf_errmsg(-1));
		goto out;
	}
	em->segments = calloc(n ? n : 1, sizeof(*em->segments));
	if (!em->segments) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph)) {
			err = hwtr_fail(hwtr_err_format, "%s: program header "
					"%zu: %s", em->path, i, elf_errmsg(-1));
			goto out;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		em->segments[em->nsegments++] = (struct end_segment){
			ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
out:
	if (elf)
		elf_end(elf);
	return err;
}

int end_memory_open(const struct hwtr_recording *recording,
		    struct end_memory **out)
{
	const struct hwtr_recording_info *info = hwtr_recording_info(recording);
	struct end_memory *em = calloc(1, sizeof(*em));
	int err;

	*out = NULL;
	if (!em)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	em->fd = -1;
	if (info->core) {
		em->path = hwtr_path_join(hwtr_recording_path(recording),
					  info->core);
		if (!em->path) {
			end_memory_close(em);
			return -hwtr_err_nomem;
		}
		em->fd = open(em->path, O_RDONLY | O_CLOEXEC);
		if (em->fd < 0) {
			err = hwtr_fail(hwtr_err_io, "%s: %s", em->path,
					strerror(errno));
			end_memory_close(em);
			return err;
		}
		if ((err = read_segments(em))) {
			end_memory_close(em);
			return err;
		}
	}
	*out = em;
	return 0;
}

void end_memory_close(struct end_memory *em)
{
	if (!em)
		return;
	if (em->fd >= 0)
		close(em->fd);
	free(em->segments);
	free(em->path);
	free(em);
}

int end_memory_read(struct end_memory *em, uint64_t addr, uint8_t *buf,
		    uint8_t *known, size_t size)
{
	size_t i;

	for (i = 0; i < em->nsegments; i++) {
		const struct end_segment *s = &em->segments[i];
		uint64_t lo = addr > s->vaddr ? addr : s->vaddr;
		uint64_t hi = addr + size < s->vaddr + s->filesz
			      ? addr + size : s->vaddr + s->filesz;
		ssize_t got;

		if (lo >= hi)
			continue;
		got = pread(em->fd, buf + (lo - addr), hi - lo,
			    (off_t)(s->offset + (lo - s->vaddr)));
		if (got != (ssize_t)(hi - lo))
			return hwtr_fail(hwtr_err_io, "%s: reading 0x%llx bytes "
					 "at offset 0x%llx: %s", em->path,
					 (unsigned long long)(hi - lo),
					 (unsigned long long)(s->offset +
							      (lo - s->vaddr)),
					 got < 0 ? strerror(errno)
						 : "the core is cut short");
		memset(known + (lo - addr), 1, hi - lo);
	}
	return 0;
}
