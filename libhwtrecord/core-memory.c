/* core-memory.c: the memory an ELF core holds (core-memory.h).
 *
 * The program headers are read once with libelf; the core is mapped
 * read-only and the bytes copied from the mapping (a read per GDB packet or
 * per recovered load: no system call each).  Only PT_LOAD segments with a
 * file part count; the kernel leaves out pages it can read again from the
 * mapped files, and those are not guessed here. */
#include "core-memory.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct core_segment {
	uint64_t vaddr, filesz, offset;
	uint64_t held;		/* of filesz, what the file holds (cut short) */
	bool writable;		/* PF_W */
};

struct hwtr_core_memory {
	char *path;
	const uint8_t *map;	/* the whole core, read-only */
	size_t size;
	struct core_segment *segments;
	size_t nsegments;
};

static int read_segments(struct hwtr_core_memory *cm)
{
	Elf *elf;
	size_t n, i;
	int err = 0;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)cm->map, cm->size);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n)) {
		err = hwtr_fail(hwtr_err_format, "%s: not an ELF core: %s",
				cm->path, elf_errmsg(-1));
		goto out;
	}
	cm->segments = calloc(n ? n : 1, sizeof(*cm->segments));
	if (!cm->segments) {
		err = hwtr_fail(hwtr_err_nomem, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct core_segment *s = &cm->segments[cm->nsegments];
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph)) {
			err = hwtr_fail(hwtr_err_format, "%s: program header "
					"%zu: %s", cm->path, i, elf_errmsg(-1));
			goto out;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		*s = (struct core_segment){ ph.p_vaddr, ph.p_filesz,
					    ph.p_offset, ph.p_filesz,
					    (ph.p_flags & PF_W) != 0 };
		if (ph.p_offset > cm->size)
			s->held = 0;
		else if (ph.p_filesz > cm->size - ph.p_offset)
			s->held = cm->size - ph.p_offset;
		cm->nsegments++;
	}
out:
	if (elf)
		elf_end(elf);
	return err;
}

int hwtr_core_memory_open(const char *path, struct hwtr_core_memory **out)
{
	struct hwtr_core_memory *cm = calloc(1, sizeof(*cm));
	struct stat st;
	int fd = -1, err;
	void *map;

	*out = NULL;
	if (!cm || !(cm->path = strdup(path))) {
		free(cm);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	/* O_NONBLOCK: a FIFO (or a device) named as the core must not block
	 * the open; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = hwtr_fail(hwtr_err_io, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		err = hwtr_fail(hwtr_err_format, "%s: not an ELF core: %s", path,
				S_ISREG(st.st_mode) ? "the file is empty"
						    : "not a regular file");
		goto fail;
	}
	cm->size = (size_t)st.st_size;
	map = mmap(NULL, cm->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		err = hwtr_fail(hwtr_err_io, "%s: mmap: %s", path,
				strerror(errno));
		goto fail;
	}
	cm->map = map;
	close(fd);
	fd = -1;
	if ((err = read_segments(cm)))
		goto fail;
	*out = cm;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	hwtr_core_memory_close(cm);
	return err;
}

void hwtr_core_memory_close(struct hwtr_core_memory *cm)
{
	if (!cm)
		return;
	if (cm->map)
		munmap((void *)cm->map, cm->size);
	free(cm->segments);
	free(cm->path);
	free(cm);
}

/* The first segment whose held bytes include ADDR, or NULL. */
static const struct core_segment *segment_at(const struct hwtr_core_memory *cm,
					     uint64_t addr)
{
	size_t i;

	for (i = 0; i < cm->nsegments; i++) {
		const struct core_segment *s = &cm->segments[i];

		if (addr >= s->vaddr && addr - s->vaddr < s->held)
			return s;
	}
	return NULL;
}

size_t hwtr_core_memory_read(const struct hwtr_core_memory *cm, uint64_t addr,
			     void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t a = addr + done;
		const struct core_segment *s = segment_at(cm, a);
		size_t n;

		if (!s)
			break;
		n = (size_t)(s->held - (a - s->vaddr));
		if (n > len - done)
			n = len - done;
		memcpy((uint8_t *)buf + done, cm->map + s->offset + (a - s->vaddr),
		       n);
		done += n;
	}
	return done;
}

bool hwtr_core_memory_writable(const struct hwtr_core_memory *cm,
			       uint64_t addr)
{
	size_t i;

	for (i = 0; i < cm->nsegments; i++) {
		const struct core_segment *s = &cm->segments[i];

		if (s->writable && addr >= s->vaddr &&
		    addr - s->vaddr < s->held)
			return true;
	}
	return false;
}

bool hwtr_core_memory_read_only(const struct hwtr_core_memory *cm,
				uint64_t addr)
{
	const struct core_segment *s = segment_at(cm, addr);

	return s && !s->writable;
}

int core_memory_read_known(const struct hwtr_core_memory *cm, uint64_t addr,
			   uint8_t *buf, uint8_t *known, size_t size)
{
	size_t i;

	for (i = 0; i < cm->nsegments; i++) {
		const struct core_segment *s = &cm->segments[i];
		uint64_t lo = addr > s->vaddr ? addr : s->vaddr;
		uint64_t hi = addr + size < s->vaddr + s->filesz
			      ? addr + size : s->vaddr + s->filesz;

		if (lo >= hi)
			continue;
		if (hi - s->vaddr > s->held)
			return hwtr_fail(hwtr_err_io, "%s: reading 0x%llx bytes "
					 "at offset 0x%llx: the core is cut "
					 "short", cm->path,
					 (unsigned long long)(hi - lo),
					 (unsigned long long)(s->offset +
							      (lo - s->vaddr)));
		memcpy(buf + (lo - addr), cm->map + s->offset + (lo - s->vaddr),
		       hi - lo);
		memset(known + (lo - addr), 1, hi - lo);
	}
	return 0;
}
