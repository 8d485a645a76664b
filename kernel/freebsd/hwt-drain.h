/* hwt-drain.h: reading one thread's circular hwt(4) buffer into a stream.
 *
 * The kernel gives a write position inside the buffer (BUFFER records,
 * BUFPTR_GET) and nothing else: no lap counter, no overflow flag.  The drain
 * keeps absolute positions by assuming that the kernel reports a position at
 * least once per lap (the PT backend reports every filled page), copies what
 * is new, and checks after the copy that the writer cannot have reached what
 * it copied.  Bytes that were, or may have been, overwritten are not written
 * to the stream: an OVF packet stands in their place, the decoder resumes at
 * the next PSB, and the sink hears how many bytes are missing there.  See
 * doc/recording-freebsd.md for exactly what can and cannot be known.
 */
#ifndef HWT_DRAIN_H
#define HWT_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwt_drain_sink {
	void *ctx;
	/* The next bytes of the thread's stream. */
	int (*bytes)(void *ctx, const void *bytes, size_t size);
	/* LEN bytes of trace are missing where the stream has the OVF packet
	 * at OFFSET (frames: where the frames after the loss begin). */
	int (*loss)(void *ctx, uint64_t offset, uint64_t len,
		    const char *reason);
};

struct hwt_drain_stats {
	uint64_t written;	/* bytes the kernel wrote, as far as known */
	uint64_t kept;		/* trace bytes in the stream (without OVFs) */
	uint64_t lost;		/* bytes overwritten or undecodable after it */
	unsigned losses;	/* OVF packets written */
};

struct hwt_drain;

int hwt_drain_new(const void *buffer, uint64_t size,
		  const struct hwt_drain_sink *sink, struct hwt_drain **drain);
/* A buffer of CoreSight formatter frames of FRAME bytes (16: a TMC-ETR's),
 * SIZE a multiple of it: whole frames into the stream, no packets parsed;
 * a loss is only the sink's, at the stream offset where the frames after it
 * begin. */
int hwt_drain_new_frames(const void *buffer, uint64_t size, unsigned frame,
			 const struct hwt_drain_sink *sink,
			 struct hwt_drain **drain);
void hwt_drain_free(struct hwt_drain *drain);

/* The kernel says its write position is POSITION (an offset in the buffer). */
void hwt_drain_observe(struct hwt_drain *drain, uint64_t position);
/* The kernel has written WRITTEN bytes in all (counted by whoever followed
 * its positions, hwt-bufpoll.c): W moves there if that is ahead. */
void hwt_drain_observe_written(struct hwt_drain *drain, uint64_t written);
/* Unread bytes, as far as the reported positions tell. */
uint64_t hwt_drain_pending(const struct hwt_drain *drain);

/* Copy what was written since the last copy into the stream.  MARGIN: how
 * far the writer may be beyond the newest reported position (0 when the
 * thread is not running).  RECHECK, if not NULL, is called after the copy to
 * read newer positions (it calls hwt_drain_observe); bytes those show the
 * writer may have reached during the copy are treated as lost. */
int hwt_drain_copy(struct hwt_drain *drain, uint64_t margin,
		   void (*recheck)(void *ctx), void *ctx);

/* End of the stream: write what is held back, report an open loss. */
int hwt_drain_finish(struct hwt_drain *drain);

void hwt_drain_stats(const struct hwt_drain *drain,
		     struct hwt_drain_stats *stats);

#endif
