/* coresight-frames.c: see coresight-frames.h. */
#include "coresight-frames.h"

#include <stdbool.h>
#include <string.h>

#define FRAME 16u

static bool fsync_at(const uint8_t *bytes, size_t size, size_t pos)
{
	return pos + 4 <= size && !memcmp(bytes + pos, "\xff\xff\xff\x7f", 4);
}

uint64_t cs_frames_unknown_bytes(const uint8_t *bytes, size_t size, bool fsyncs,
				 const uint8_t known[128], size_t *first_unknown)
{
	uint64_t unknown = 0;
	int id = 0, prev = 0;	/* 0: the null ID, or none yet */
	size_t f = 0, k;

	*first_unknown = size;
	/* A TPIU's frames start after its first frame sync. */
	while (fsyncs && f < size && !fsync_at(bytes, size, f))
		f++;
	for (;;) {
		const uint8_t *fr;
		uint64_t before = unknown;
		size_t changed_at = FRAME;

		while (fsyncs && fsync_at(bytes, size, f))
			f += 4;
		if (f + FRAME > size)
			break;
		fr = bytes + f;
		for (k = 0; k < FRAME - 1; k++) {
			int owner = id;

			if (!(k & 1) && (fr[k] & 1)) {
				prev = id;
				id = fr[k] >> 1;
				changed_at = k;
				continue;
			}
			/* The byte after an ID is the previous ID's when that
			 * ID byte's flag (byte 15) is set. */
			if (k == changed_at + 1 && (fr[FRAME - 1] >> (changed_at / 2) & 1))
				owner = prev;
			if (owner && !known[owner])
				unknown++;
		}
		if (unknown > before && *first_unknown == size)
			*first_unknown = f;
		f += FRAME;
	}
	return unknown;
}

size_t dstream_strip_footers(uint8_t *bytes, size_t size)
{
	size_t in, out = 0;

	for (in = 0; in < size; in += DSTREAM_BLOCK) {
		size_t n = size - in < DSTREAM_BLOCK - DSTREAM_FOOTER
				   ? size - in : DSTREAM_BLOCK - DSTREAM_FOOTER;

		memmove(bytes + out, bytes + in, n);
		out += n;
	}
	return out;
}
