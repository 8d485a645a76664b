/* history-idx-layout.h: history.idx's layout as doc/recording-format.md
 * gives it, for the tests that damage a saved index on purpose
 * (test-history-file.c) and the fuzzer that mutates one (fuzz-index.c):
 * where the header's fields are, and its checksums made to match after a
 * change.  Written from the document, not from history-file.c, so that a
 * change of the layout that the document does not follow fails them. */
#ifndef HWTR_TEST_HISTORY_IDX_LAYOUT_H
#define HWTR_TEST_HISTORY_IDX_LAYOUT_H

#include <stdint.h>
#include <string.h>
#include <zlib.h>

#define HEADER_SIZE 64
#define HEADER_FORMAT 8
#define HEADER_INDEX_VERSION 12
#define HEADER_CHUNK_SIZE 16
#define HEADER_NSECTIONS 36
#define HEADER_FILE_SIZE 40
#define HEADER_TABLE_CRC 48
#define HEADER_CRC 52
#define SECTION_ENTRY 32	/* kind, thread, offset, size, CRC-32 */
#define SECTION_THREAD 2
#define SECTION_CHUNKS 3
#define SECTION_SEGMENTS 4

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* The header's CRC-32 again after a change. */
static inline void reseal_header(uint8_t *file)
{
	put32(file + HEADER_CRC, 0);
	put32(file + HEADER_CRC, (uint32_t)crc32(0, file, HEADER_SIZE));
}

/* FILE's (SIZE bytes) size field and checksums made to match what it
 * holds: each section's that lies in it, the table's, the header's. */
static inline void reseal(uint8_t *file, size_t size)
{
	uint64_t file_size = size, n, k;

	if (size < HEADER_SIZE)
		return;
	memcpy(file + HEADER_FILE_SIZE, &file_size, 8);
	n = get32(file + HEADER_NSECTIONS);
	if (n > (size - HEADER_SIZE) / SECTION_ENTRY)
		n = (size - HEADER_SIZE) / SECTION_ENTRY;
	for (k = 0; k < n; k++) {
		uint8_t *e = file + HEADER_SIZE + k * SECTION_ENTRY;
		uint64_t off, len;

		memcpy(&off, e + 8, 8);
		memcpy(&len, e + 16, 8);
		if (off <= size && len <= size - off)
			put32(e + 24, (uint32_t)crc32(0, file + off, (uInt)len));
	}
	put32(file + HEADER_TABLE_CRC,
	      (uint32_t)crc32(0, file + HEADER_SIZE, (uInt)(n * SECTION_ENTRY)));
	reseal_header(file);
}

#endif
