/* cfi-entries.h: where a binary's functions start by its call frame
 * information, for code no ELF symbol names (a stripped program's own
 * functions).
 *
 * Every frame description entry (FDE) of .eh_frame begins at a function's
 * first instruction (or at a compiler's cold part, foo.cold, which calls do
 * not enter).  The linker sorts their initial locations into the binary
 * search table of .eh_frame_hdr (PT_GNU_EH_FRAME), which is read here as
 * it is: a file without one, or with an encoding other than the linker's
 * (datarel sdata4), has no entries, and nothing is taken for a start.
 * libdw answers which FDE covers an address, not where that FDE begins.
 */
#ifndef HWTR_CFI_ENTRIES_H
#define HWTR_CFI_ENTRIES_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cfi_entries {
	uint64_t *start;	/* ascending, the file's addresses */
	size_t n;
};

/* The initial locations of ELF's .eh_frame_hdr table into OUT: 0, or
 * -hwtr_err_nomem (OUT is then empty). */
int cfi_entries_read(Elf *elf, struct cfi_entries *out);

/* The same from the header's SIZE bytes at H, mapped at VADDR: a header
 * that is short, of another version or encoding, or whose table does not
 * fit or is not sorted gives no entries. */
int cfi_entries_parse(const uint8_t *h, size_t size, uint64_t vaddr,
		      struct cfi_entries *out);

/* Whether an FDE starts at ADDR (the file's address). */
bool cfi_entries_has(const struct cfi_entries *entries, uint64_t addr);

void cfi_entries_free(struct cfi_entries *entries);

#endif /* HWTR_CFI_ENTRIES_H */
