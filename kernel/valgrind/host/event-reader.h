/* event-reader.h: the Valgrind tool's event log (../event-log.h), read
 * from a FIFO and decoded record by record. */
#ifndef HWTREC_EVENT_READER_H
#define HWTREC_EVENT_READER_H

#include "pt-encoder.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vg_event {
	uint8_t type;			/* HWTREC_EV_* */
	uint32_t version, pid, tid;	/* HELLO and CHILD; SWITCH and
					 * THREAD_EXIT */
	uint64_t tsc;
	unsigned nbits;			/* TNT */
	uint64_t bits;
	uint64_t ip;			/* TIP, PSB, PGD_ASYNC, PGE,
					 * UNDECODABLE */
	uint64_t addr, len, pgoff;	/* MMAP, MUNMAP, OBJECT (addr) */
	int prot;			/* MMAP: HWTR_PROT_* */
	const char *path;		/* HELLO, MMAP: not NUL-terminated */
	size_t path_len;
	size_t count;			/* AUXV pairs, OBJECT and UNDECODABLE
					 * bytes */
	const uint8_t *bytes;
	int32_t code;			/* EXIT */
};
/* Return 0, or a positive number when the log is malformed (the reader
 * drops the rest of it). */
typedef int vg_event_fn(void *ctx, const struct vg_event *ev);
struct event_reader;

int event_reader_new(struct event_reader **reader);
void event_reader_free(struct event_reader *reader);
/* Read what FD holds and hand each complete record to CB: bytes read, 0 if
 * none, -1 on a read error. */
ssize_t event_reader_read(struct event_reader *reader, int fd, vg_event_fn *cb,
			  void *ctx);
bool event_reader_malformed(const struct event_reader *reader);
uint64_t vg_event_auxv(const struct vg_event *ev, size_t i);
/* TNT, TIP, PSB, PGD_*, PGE: the records that are packets. */
bool vg_event_is_trace(const struct vg_event *ev);
int vg_event_encode(struct encoder_stream *stream, const struct vg_event *ev);

#endif
