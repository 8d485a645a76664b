/* fuzz-hwt-drain: the hwt source's drain (kernel/freebsd/hwt-drain.c) on
 * any bytes and any reading pattern.
 *
 * Input: byte 0 picks the buffer size (8 to 23 pages), byte 1 the size of
 * the hardware's writes (1 to 256 times 61 bytes, so that they straddle
 * pages; never more than a buffer), byte 2 how many writes pass between two
 * copies (1 to 16; a reader that falls behind loses bytes), byte 3 whether
 * the reader re-checks after copying (bit 0) and whether the buffer holds
 * CoreSight frames (bit 1: hwt_drain_new_frames, 16-byte frames, no margin,
 * as the recorder reads a TMC-ETR); the rest is what the "hardware"
 * writes.  The position is reported after every write, so at least once per
 * lap, which the drain relies on (doc/recording-freebsd.md).  After the run the
 * output must be what check-stream.py checks in the test suite: the kept
 * bytes exactly the written ones at their places, each loss marked by an
 * OVF (and maybe a FUP) except at offset 0 (frames: nothing marks a loss,
 * and the stream is whole frames, resuming after each loss at a frame of
 * the written bytes), the losses accounting for every byte not kept.  A
 * difference aborts.
 */
#include "hwt-drain.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u
#define FRAME 16u

struct loss {
	uint64_t offset, len;
};

struct out {
	uint8_t *bytes;
	size_t n, cap;
	struct loss *losses;
	size_t nlosses;
};

static int on_bytes(void *ctx, const void *bytes, size_t size)
{
	struct out *o = ctx;

	if (o->n + size > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;

		while (cap < o->n + size)
			cap *= 2;
		o->bytes = realloc(o->bytes, cap);
		if (!o->bytes)
			abort();
		o->cap = cap;
	}
	memcpy(o->bytes + o->n, bytes, size);
	o->n += size;
	return 0;
}

static int on_loss(void *ctx, uint64_t offset, uint64_t len, const char *why)
{
	struct out *o = ctx;

	(void)why;
	o->losses = realloc(o->losses, (o->nlosses + 1) * sizeof(*o->losses));
	if (!o->losses)
		abort();
	o->losses[o->nlosses++] = (struct loss){ offset, len };
	return 0;
}

static void recheck(void *ctx)
{
	(void)ctx;	/* no newer position: the writer waits for the reader */
}

/* The output against what was written (check-stream.py's walk). */
static void check(const struct out *o, const uint8_t *written, size_t n,
		  int frames)
{
	static const unsigned fup_len[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	size_t at = 0, pos = 0, i;

	for (i = 0; i <= o->nlosses; i++) {
		size_t end = i < o->nlosses ? (size_t)o->losses[i].offset : o->n;

		if (end < at || end > o->n || end - at > n - pos ||
		    (end > at && memcmp(o->bytes + at, written + pos, end - at)))
			abort();
		pos += end - at;
		at = end;
		if (i == o->nlosses)
			break;
		if (frames) {
			/* Whole frames before it, whole frames after it. */
			if (at % FRAME || (pos + o->losses[i].len) % FRAME)
				abort();
		} else if (at > 0) {
			if (at + 2 > o->n || o->bytes[at] != 0x02 ||
			    o->bytes[at + 1] != 0xf3)
				abort();
			at += 2;
			if (at < o->n && (o->bytes[at] & 0x1f) == 0x1d)
				at += 1 + fup_len[o->bytes[at] >> 5];
		}
		pos += o->losses[i].len;
	}
	if (pos != n || at != o->n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct out o = { 0 };
	struct hwt_drain_sink sink = { &o, on_bytes, on_loss };
	struct hwt_drain *d;
	size_t bufsize, chunk, every, n, pos = 0;
	uint8_t *ring;
	unsigned writes = 0;
	int check_after, frames;

	if (size < 4)
		return 0;
	bufsize = (8 + (data[0] & 15)) * PAGE;
	chunk = 61 * (1 + (size_t)data[1]);
	every = 1 + (data[2] & 15);
	check_after = data[3] & 1;
	frames = (data[3] >> 1) & 1;
	data += 4;
	n = size - 4;
	ring = calloc(1, bufsize);
	if (!ring || (frames ? hwt_drain_new_frames(ring, bufsize, FRAME, &sink, &d)
			     : hwt_drain_new(ring, bufsize, &sink, &d)) < 0)
		abort();
	while (pos < n) {
		size_t k = n - pos < chunk ? n - pos : chunk, j;

		for (j = 0; j < k; j++)		/* the hardware writes */
			ring[(pos + j) % bufsize] = data[pos + j];
		pos += k;
		hwt_drain_observe(d, pos % bufsize);	/* a BUFFER record */
		if (++writes % every && pos < n)
			continue;
		if (hwt_drain_copy(d, frames ? 0 : 2 * PAGE,
				   check_after ? recheck : NULL, NULL) < 0)
			abort();
		/* Frames go out whole while the writer goes on. */
		if (frames && o.n % FRAME)
			abort();
	}
	if (hwt_drain_finish(d) < 0)
		abort();
	check(&o, data, n, frames);
	hwt_drain_free(d);
	free(ring);
	free(o.bytes);
	free(o.losses);
	return 0;
}
