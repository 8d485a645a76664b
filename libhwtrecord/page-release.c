/* page-release.c: giving back the pages a pass has read (page-release.h). */
#include "page-release.h"

#include "integrity.h"

#include <sys/mman.h>
#include <unistd.h>

#define RELEASE_STEP ((uintptr_t)4 << 20)	/* bytes given back at a time */

uintptr_t page_size(void)
{
	static uintptr_t size;

	if (!size)
		size = (uintptr_t)sysconf(_SC_PAGESIZE);
	return size;
}

static void release(struct page_release *pass, const void *block,
		    const void *upto, uintptr_t least)
{
	uintptr_t page = page_size();
	/* Whole pages only: the ones at the edges may hold other bytes. */
	uintptr_t from = ((uintptr_t)block + page - 1) & ~(page - 1);
	uintptr_t to = (uintptr_t)upto & ~(page - 1);

	if (pass->done > from)
		from = pass->done;
	if (to > from && to - from >= least) {
		/* Advice only: when it fails the pages just stay. */
		madvise((void *)from, to - from, MADV_DONTNEED);
		pass->done = to;
	}
}

void page_release_before(struct page_release *pass, const void *block,
			 const void *upto)
{
	release(pass, block, upto, RELEASE_STEP);
}

void page_release_all_before(struct page_release *pass, const void *block,
			     const void *upto)
{
	release(pass, block, upto, 1);
}

uint32_t page_release_crc32(uint32_t crc, const void *bytes, size_t size)
{
	struct page_release pass = { 0 };
	const uint8_t *p = bytes, *end = p + size;

	while (p < end) {
		size_t n = (size_t)(end - p) < RELEASE_STEP ? (size_t)(end - p)
							    : RELEASE_STEP;

		crc = integrity_crc32(crc, p, n);
		p += n;
		page_release_before(&pass, bytes, p);
	}
	page_release_all_before(&pass, bytes, end);
	return crc;
}
