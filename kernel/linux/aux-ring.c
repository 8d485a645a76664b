/* aux-ring.c: AUX area draining (aux-ring.h).
 *
 * The head is read with acquire semantics (the kernel's data is visible
 * once we see the head that covers it) and the tail published with release
 * semantics (we are done reading before the kernel may overwrite), the
 * pairing <linux/perf_event.h> asks for.
 */
#include "aux-ring.h"
#include "hwtrecord.h"


/* Copy [from, to) of the ring (positions, to - from <= size) to SINK. */
static int copy_range(const struct perf_aux_ring *r, uint64_t from, uint64_t to,
		      perf_ring_sink sink, void *ctx)
{
	uint64_t mask = r->size - 1;
	uint64_t first = from & mask, n = to - from;
	int err;

	if (!n)
		return 0;
	if (first + n <= r->size)
		return sink(ctx, r->base + first, (size_t)n);
	if ((err = sink(ctx, r->base + first, (size_t)(r->size - first))))
		return err;
	return sink(ctx, r->base, (size_t)(n - (r->size - first)));
}

int64_t perf_aux_ring_drain(struct perf_aux_ring *r, perf_ring_sink sink,
			    void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->aux_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->aux_tail;
	int err;

	if (!r->size || (r->size & (r->size - 1)))
		return hwtr_fail(hwtr_err_invalid, "AUX area of %llu bytes is not "
				 "a power of two", (unsigned long long)r->size);
	if (head < tail || head - tail > r->size)
		return hwtr_fail(hwtr_err_format, "AUX area: head %llu and tail "
				 "%llu are not %llu bytes apart or less",
				 (unsigned long long)head, (unsigned long long)tail,
				 (unsigned long long)r->size);
	if ((err = copy_range(r, tail, head, sink, ctx)))
		return err;
	__atomic_store_n(&r->page->aux_tail, head, __ATOMIC_RELEASE);
	return (int64_t)(head - tail);
}

int64_t perf_aux_ring_snapshot(const struct perf_aux_ring *r,
			       perf_ring_sink sink, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->aux_head, __ATOMIC_ACQUIRE);
	uint64_t n = head < r->size ? head : r->size;
	int err;

	if (!r->size || (r->size & (r->size - 1)))
		return hwtr_fail(hwtr_err_invalid, "AUX area of %llu bytes is not "
				 "a power of two", (unsigned long long)r->size);
	if ((err = copy_range(r, head - n, head, sink, ctx)))
		return err;
	return (int64_t)n;
}
