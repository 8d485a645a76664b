/* page-release.h: giving back the pages a pass over a large block has read;
 * internal.
 *
 * A check or copy that reads a large block once, from its start to its
 * end, need not leave it all resident: what it has passed is given back to
 * the system (madvise MADV_DONTNEED) a few megabytes at a time.  What that
 * means depends on the block: pages of a read-only file mapping (a trace
 * stream, history.idx) are read again from the file (the page cache) when
 * they are next used; pages of anonymous memory (a malloc'ed array) come
 * back as zeros.  Never use it on a block whose bytes must stay (a
 * malloc'ed copy that is read later).
 */
#ifndef HWTR_PAGE_RELEASE_H
#define HWTR_PAGE_RELEASE_H

#include <stddef.h>
#include <stdint.h>

/* The system's page size: what is given back is whole pages. */
uintptr_t page_size(void);

/* A pass over a block: zeroed is at its start. */
struct page_release {
	uintptr_t done;		/* released below this address */
};

/* The pass has read everything before UPTO: the whole pages there that
 * are not given back yet, if there are a few megabytes of them.  BLOCK is
 * the block's start (pages before it are not its own). */
void page_release_before(struct page_release *pass, const void *block,
			 const void *upto);
/* The same, whatever their number: at the end of a pass. */
void page_release_all_before(struct page_release *pass, const void *block,
			     const void *upto);

/* CRC-32 (integrity_crc32) of the SIZE bytes at BYTES, a read-only file
 * mapping, continued from CRC: the pages are given back as it goes, so that
 * checking a file of gigabytes leaves none of it resident. */
uint32_t page_release_crc32(uint32_t crc, const void *bytes, size_t size);

#endif
