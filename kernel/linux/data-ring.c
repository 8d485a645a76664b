/* data-ring.c: reading an event's data ring (data-ring.h). */
#include "data-ring.h"
#include "hwtrecord.h"


#include <string.h>

/* Copy N bytes at ring position POS into OUT. */
static void copy_out(const struct perf_data_ring *r, uint64_t pos, void *out,
		     size_t n)
{
	uint64_t first = pos & (r->size - 1);

	if (first + n <= r->size) {
		memcpy(out, r->base + first, n);
	} else {
		size_t k = (size_t)(r->size - first);

		memcpy(out, r->base + first, k);
		memcpy((uint8_t *)out + k, r->base, n - k);
	}
}

int64_t perf_data_ring_drain(struct perf_data_ring *r, perf_record_fn fn,
			     void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail, pos = tail;
	uint8_t buf[UINT16_MAX + 1];
	int64_t count = 0;
	int err = 0;

	if (!r->size || (r->size & (r->size - 1)))
		return hwtr_fail(hwtr_err_invalid, "data ring of %llu bytes is not "
				 "a power of two", (unsigned long long)r->size);
	if (head < tail || head - tail > r->size) {
		err = hwtr_fail(hwtr_err_format, "data ring: head %llu and tail "
				"%llu are not %llu bytes apart or less",
				(unsigned long long)head, (unsigned long long)tail,
				(unsigned long long)r->size);
		goto out;
	}
	while (head - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		struct perf_rec rec;

		copy_out(r, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - pos) {
			err = hwtr_fail(hwtr_err_format, "data ring position %llu: "
					"a %s record of size %u %s",
					(unsigned long long)pos,
					perf_rec_type_name(h.type), h.size,
					h.size < sizeof(h) ? "is shorter than its header"
							   : "runs past the head");
			break;
		}
		copy_out(r, pos, buf, h.size);
		if ((err = perf_rec_parse(buf, h.size, &r->layout, &rec))) {
			err = hwtr_fail_context(err, "data ring position %llu: ",
						(unsigned long long)pos);
			break;
		}
		if ((err = fn(ctx, &rec)))
			break;
		count++;
		pos += h.size;
	}
out:
	/* On a record we cannot read, drop the rest rather than block the
	 * kernel forever. */
	__atomic_store_n(&r->page->data_tail, err ? head : pos, __ATOMIC_RELEASE);
	return err ? err : count;
}
