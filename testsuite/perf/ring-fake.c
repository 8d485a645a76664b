/* ring-fake.c: the kernel's side of the rings, for the tests (ring-fake.h). */
#include "ring-fake.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

void fake_rings_init(struct fake_rings *f, uint64_t data_size, uint64_t aux_size)
{
	memset(f, 0, sizeof(*f));
	f->data = calloc(1, data_size);
	f->aux = calloc(1, aux_size);
	ck_assert(f->data && f->aux);
	f->data_size = data_size;
	f->aux_size = aux_size;
	f->page.data_size = data_size;
	f->page.aux_size = aux_size;
}

void fake_rings_release(struct fake_rings *f)
{
	free(f->data);
	free(f->aux);
}

static void ring_put(uint8_t *ring, uint64_t size, uint64_t pos,
		     const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ring[(pos + i) % size] = p[i];
}

bool fake_aux_write(struct fake_rings *f, const void *bytes, size_t n)
{
	uint64_t head = f->page.aux_head;

	if (head + n - f->page.aux_tail > f->aux_size)
		return false;
	ring_put(f->aux, f->aux_size, head, bytes, n);
	__atomic_store_n(&f->page.aux_head, head + n, __ATOMIC_RELEASE);
	return true;
}

void fake_data_write(struct fake_rings *f, const struct perf_rec *rec,
		     const struct perf_rec_layout *layout)
{
	uint8_t buf[1024];
	int n = perf_rec_encode(rec, layout, buf, sizeof(buf));

	ck_assert_int_gt(n, 0);
	ck_assert_uint_le(f->page.data_head + (uint64_t)n - f->page.data_tail,
			  f->data_size);
	ring_put(f->data, f->data_size, f->page.data_head, buf, (size_t)n);
	__atomic_store_n(&f->page.data_head, f->page.data_head + (uint64_t)n,
			 __ATOMIC_RELEASE);
}
