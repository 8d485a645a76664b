/* fuzz-cfi.c: libFuzzer target for the reader of a binary's function starts
 * by its call frame information (libhwtrecord/cfi-entries.c: the binary
 * search table of .eh_frame_hdr, which the symbolizer reads from every
 * binary a recording names, packed copies in objects/ included).
 *
 * An input that begins with the ELF magic is a whole file, read as the
 * symbolizer reads one (libelf, PT_GNU_EH_FRAME); any other is a header's
 * bytes after an 8-byte address it is mapped at.  Nothing may crash or
 * read out of bounds, and what is read must be what cfi-entries.h
 * promises: starts in ascending order, each one found by cfi_entries_has,
 * each the mapped address plus a 32-bit offset, no more than the bytes
 * hold. */
#include "cfi-entries.h"

#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What cfi-entries.h promises of a table read from SIZE bytes at VADDR
 * (VADDR 0 and SIZE 0: not known, an ELF file's). */
static void check(const struct cfi_entries *e, uint64_t vaddr, size_t size)
{
	for (size_t i = 0; i < e->n; i++) {
		int64_t offset = (int64_t)(e->start[i] - vaddr);

		if (i && e->start[i] < e->start[i - 1])
			abort();	/* not ascending */
		if (!cfi_entries_has(e, e->start[i]))
			abort();
		if (size && (offset < INT32_MIN || offset > INT32_MAX))
			abort();	/* not a datarel sdata4 location */
	}
	if (size && e->n > size / 8)
		abort();		/* more entries than the bytes hold */
}

static void read_header(const uint8_t *data, size_t size)
{
	struct cfi_entries e;
	uint64_t vaddr;

	if (size < 8)
		return;
	memcpy(&vaddr, data, 8);
	if (cfi_entries_parse(data + 8, size - 8, vaddr, &e) < 0)
		return;
	check(&e, vaddr, size - 8);
	cfi_entries_free(&e);
}

static void read_elf(const uint8_t *data, size_t size)
{
	/* elf_memory reads its image in place, and may write it: a copy. */
	char *image = malloc(size);
	struct cfi_entries e;
	Elf *elf;

	if (!image)
		return;
	memcpy(image, data, size);
	elf = elf_memory(image, size);
	if (elf && cfi_entries_read(elf, &e) == 0) {
		check(&e, 0, 0);
		cfi_entries_free(&e);
	}
	if (elf)
		elf_end(elf);
	free(image);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		elf_version(EV_CURRENT);
		ready = 1;
	}
	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG))
		read_elf(data, size);
	else
		read_header(data, size);
	return 0;
}
