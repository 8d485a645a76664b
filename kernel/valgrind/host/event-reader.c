/* event-reader.c: reading the Valgrind tool's event log
 * (kernel/valgrind/event-log.h) and turning its trace records into Intel PT.
 *
 * The reader buffers what a FIFO gives, cuts it into records, decodes each
 * into a struct vg_event and hands it to a callback.  Two consumers use it:
 * the Valgrind source (valgrind-source.c), which encodes into the recording,
 * and the hwt(4) stand-in of the test suite, which encodes into the circular
 * buffers of its pretend kernel.  vg_event_encode() is the part they share
 * exactly: the five records that are packets.
 *
 * A record of an unknown type ends the log: nothing after it can be framed.
 */
#include "event-reader.h"
#include "../event-log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK (1u << 20)

struct event_reader {
	uint8_t *in;
	size_t len, cap;
	bool malformed;
};

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* Size of the record at P (N bytes available), 0 if incomplete, -1 if bad. */
static long record_size(const uint8_t *p, size_t n)
{
	static const long fixed[] = {
		[HWTREC_EV_SWITCH] = 12, [HWTREC_EV_TNT] = 9,
		[HWTREC_EV_TIP] = 8, [HWTREC_EV_PSB] = 16,
		[HWTREC_EV_PGD_SYSCALL] = 0, [HWTREC_EV_PGD_ASYNC] = 8,
		[HWTREC_EV_PGE] = 16, [HWTREC_EV_MUNMAP] = 24,
		[HWTREC_EV_THREAD_EXIT] = 12, [HWTREC_EV_EXIT] = 4,
		[HWTREC_EV_FROM_REACHED] = 16, [HWTREC_EV_STOPPED] = 8,
		[HWTREC_EV_CHILD] = 12, [HWTREC_EV_OVERFLOW] = 8,
	};

	switch (p[0]) {
	case HWTREC_EV_HELLO:
		return n < 19 ? 0 : 19 + (long)rd16(p + 17);
	case HWTREC_EV_MMAP:
		return n < 39 ? 0 : 39 + (long)rd16(p + 37);
	case HWTREC_EV_AUXV:
		return n < 3 ? 0 : 3 + 16 * (long)rd16(p + 1);
	case HWTREC_EV_OBJECT:
		return n < 13 ? 0 : 13 + (long)rd32(p + 9);
	case HWTREC_EV_UNDECODABLE:
		return n < 10 ? 0 : 10 + (long)p[9];
	case HWTREC_EV_SWITCH: case HWTREC_EV_TNT: case HWTREC_EV_TIP:
	case HWTREC_EV_PSB: case HWTREC_EV_PGD_SYSCALL:
	case HWTREC_EV_PGD_ASYNC: case HWTREC_EV_PGE: case HWTREC_EV_MUNMAP:
	case HWTREC_EV_THREAD_EXIT: case HWTREC_EV_EXIT:
	case HWTREC_EV_FROM_REACHED: case HWTREC_EV_STOPPED:
	case HWTREC_EV_CHILD: case HWTREC_EV_OVERFLOW:
		return 1 + fixed[p[0]];
	default:
		return -1;
	}
}

/* The fields of the record at P (complete, of a known type). */
static void decode(const uint8_t *p, struct vg_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = p[0];
	switch (p[0]) {
	case HWTREC_EV_HELLO:
		ev->version = rd32(p + 1);
		ev->pid = rd32(p + 5);
		ev->tsc = rd64(p + 9);
		ev->path_len = rd16(p + 17);
		ev->path = (const char *)p + 19;
		break;
	case HWTREC_EV_SWITCH:
	case HWTREC_EV_THREAD_EXIT:
		ev->tid = rd32(p + 1);
		ev->tsc = rd64(p + 5);
		break;
	case HWTREC_EV_TNT:
		ev->nbits = p[1];
		ev->bits = rd64(p + 2);
		break;
	case HWTREC_EV_TIP:
	case HWTREC_EV_PGD_ASYNC:
	case HWTREC_EV_OVERFLOW:
		ev->ip = rd64(p + 1);
		break;
	case HWTREC_EV_PSB:
	case HWTREC_EV_PGE:
	case HWTREC_EV_FROM_REACHED:
		ev->ip = rd64(p + 1);
		ev->tsc = rd64(p + 9);
		break;
	case HWTREC_EV_MMAP:
		ev->addr = rd64(p + 1);
		ev->len = rd64(p + 9);
		ev->pgoff = rd64(p + 17);
		ev->tsc = rd64(p + 25);
		ev->prot = (int)rd32(p + 33);
		ev->path_len = rd16(p + 37);
		ev->path = (const char *)p + 39;
		break;
	case HWTREC_EV_MUNMAP:
		ev->addr = rd64(p + 1);
		ev->len = rd64(p + 9);
		ev->tsc = rd64(p + 17);
		break;
	case HWTREC_EV_AUXV:
		ev->count = rd16(p + 1);
		ev->bytes = p + 3;
		break;
	case HWTREC_EV_OBJECT:
		ev->addr = rd64(p + 1);
		ev->count = rd32(p + 9);
		ev->bytes = p + 13;
		break;
	case HWTREC_EV_EXIT:
		ev->code = (int32_t)rd32(p + 1);
		break;
	case HWTREC_EV_UNDECODABLE:
		ev->ip = rd64(p + 1);
		ev->count = p[9];
		ev->bytes = p + 10;
		break;
	case HWTREC_EV_STOPPED:
		ev->tsc = rd64(p + 1);
		break;
	case HWTREC_EV_CHILD:
		ev->pid = rd32(p + 1);
		ev->tsc = rd64(p + 5);
		break;
	}
}

uint64_t vg_event_auxv(const struct vg_event *ev, size_t i)
{
	return rd64(ev->bytes + 8 * i);
}

int event_reader_new(struct event_reader **out)
{
	struct event_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -hwtr_err_nomem;
	r->cap = READ_CHUNK;
	r->in = malloc(r->cap);
	if (!r->in) {
		free(r);
		return -hwtr_err_nomem;
	}
	*out = r;
	return 0;
}

void event_reader_free(struct event_reader *r)
{
	if (!r)
		return;
	free(r->in);
	free(r);
}

bool event_reader_malformed(const struct event_reader *r)
{
	return r->malformed;
}

/* Hand every complete record in the buffer to CB; keep a partial one. */
static int consume(struct event_reader *r, vg_event_fn *cb, void *ctx)
{
	size_t pos = 0;

	while (pos < r->len && !r->malformed) {
		long size = record_size(r->in + pos, r->len - pos);
		struct vg_event ev;

		if (size < 0) {
			fprintf(stderr, "hwtrec record: event log: unknown "
				"record type %u; the rest of the trace is "
				"dropped\n", r->in[pos]);
			r->malformed = true;
			break;
		}
		if (!size || (size_t)size > r->len - pos) {
			if ((size_t)size > r->cap) {
				uint8_t *b = realloc(r->in, (size_t)size);

				if (!b)
					return -hwtr_err_nomem;
				r->in = b;
				r->cap = (size_t)size;
			}
			break;
		}
		decode(r->in + pos, &ev);
		if (cb(ctx, &ev) > 0)
			r->malformed = true;
		pos += (size_t)size;
	}
	if (r->malformed)
		pos = r->len;
	memmove(r->in, r->in + pos, r->len - pos);
	r->len -= pos;
	return 0;
}

ssize_t event_reader_read(struct event_reader *r, int fd, vg_event_fn *cb,
			  void *ctx)
{
	ssize_t n;

	if (r->len == r->cap) {
		/* consume() grew the buffer for a long record; read more */
		uint8_t *b = realloc(r->in, 2 * r->cap);

		if (!b)
			return -1;
		r->in = b;
		r->cap *= 2;
	}
	n = read(fd, r->in + r->len, r->cap - r->len);
	if (n <= 0)
		return n < 0 && errno != EAGAIN && errno != EINTR ? -1 : 0;
	r->len += (size_t)n;
	if (consume(r, cb, ctx) < 0)
		return -1;
	return n;
}

int vg_event_encode(struct encoder_stream *s, const struct vg_event *ev)
{
	switch (ev->type) {
	case HWTREC_EV_TNT:
		if (ev->nbits < 1 || ev->nbits > 64)
			return -hwtr_err_format;
		return encoder_stream_tnt(s, ev->nbits, ev->bits);
	case HWTREC_EV_TIP:
		return encoder_stream_tip(s, ev->ip);
	case HWTREC_EV_PSB:
		return encoder_stream_psb(s, ev->ip, ev->tsc);
	case HWTREC_EV_PGD_SYSCALL:
		return encoder_stream_disable_syscall(s);
	case HWTREC_EV_PGD_ASYNC:
		return encoder_stream_disable_async(s, ev->ip);
	case HWTREC_EV_PGE:
		return encoder_stream_enable(s, ev->ip, ev->tsc);
	case HWTREC_EV_OVERFLOW:
		return encoder_stream_overflow(s, ev->ip);
	}
	return -hwtr_err_invalid;
}

bool vg_event_is_trace(const struct vg_event *ev)
{
	switch (ev->type) {
	case HWTREC_EV_TNT: case HWTREC_EV_TIP: case HWTREC_EV_PSB:
	case HWTREC_EV_PGD_SYSCALL: case HWTREC_EV_PGD_ASYNC:
	case HWTREC_EV_PGE: case HWTREC_EV_OVERFLOW:
		return true;
	}
	return false;
}
