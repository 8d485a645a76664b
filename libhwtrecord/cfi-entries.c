/* cfi-entries.c: function starts from .eh_frame_hdr's binary search table
 * (cfi-entries.h).
 *
 * The header (the LSB's "Exception Frame Header"): version 1, the
 * encodings of eh_frame_ptr, fde_count and the table, then eh_frame_ptr,
 * fde_count and fde_count pairs (initial location, FDE address), sorted by
 * initial location.  GNU ld and lld write the table datarel sdata4:
 * 4-byte signed offsets from the header's own address.
 */
#include "cfi-entries.h"

#include "error.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Size of a value of encoding ENC (its low four bits), or 0 when not one
 * read here. */
static size_t encoded_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	default:
		return 0;
	}
}

static uint64_t unsigned_at(const uint8_t *p, size_t size)
{
	uint32_t v4;
	uint64_t v8;

	if (size == 4) {
		memcpy(&v4, p, 4);
		return v4;
	}
	memcpy(&v8, p, 8);
	return v8;
}

/* The segment PT_GNU_EH_FRAME names: its bytes and address, or NULL. */
static const uint8_t *eh_frame_hdr(Elf *elf, size_t *size, uint64_t *vaddr)
{
	size_t nphdr = 0, i;

	if (elf_getphdrnum(elf, &nphdr) != 0)
		return NULL;
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) ||
		    ph.p_type != PT_GNU_EH_FRAME)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ELF_T_BYTE);
		if (!d || !d->d_buf)
			return NULL;
		*size = d->d_size;
		*vaddr = ph.p_vaddr;
		return d->d_buf;
	}
	return NULL;
}

int cfi_entries_read(Elf *elf, struct cfi_entries *out)
{
	const uint8_t *h;
	size_t size;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (!(h = eh_frame_hdr(elf, &size, &vaddr)))
		return 0;
	return cfi_entries_parse(h, size, vaddr, out);
}

int cfi_entries_parse(const uint8_t *h, size_t size, uint64_t vaddr,
		      struct cfi_entries *out)
{
	size_t ptr_size, count_size, i;
	uint64_t count;
	int32_t loc;

	memset(out, 0, sizeof(*out));
	if (size < 4 || h[0] != 1 ||
	    h[1] == DW_EH_PE_omit || h[2] == DW_EH_PE_omit ||
	    h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return 0;
	ptr_size = encoded_size(h[1]);
	count_size = encoded_size(h[2]);
	if (!ptr_size || !count_size || (h[2] & 0x70) != DW_EH_PE_absptr ||
	    size < 4 + ptr_size + count_size)
		return 0;
	count = unsigned_at(h + 4 + ptr_size, count_size);
	h += 4 + ptr_size + count_size;
	size -= 4 + ptr_size + count_size;
	if (count == 0 || count > size / 8)
		return 0;
	out->start = malloc(count * sizeof(*out->start));
	if (!out->start)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	for (i = 0; i < count; i++) {
		memcpy(&loc, h + 8 * i, 4);
		out->start[i] = vaddr + (uint64_t)(int64_t)loc;
		/* A table out of order cannot be searched: none then. */
		if (i && out->start[i] < out->start[i - 1]) {
			cfi_entries_free(out);
			return 0;
		}
	}
	out->n = count;
	return 0;
}

static int compare_addresses(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

bool cfi_entries_has(const struct cfi_entries *e, uint64_t addr)
{
	return e->n && bsearch(&addr, e->start, e->n, sizeof(*e->start),
			       compare_addresses);
}

void cfi_entries_free(struct cfi_entries *e)
{
	free(e->start);
	e->start = NULL;
	e->n = 0;
}
