/* test-rings: draining AUX areas (normal mode with wrap-around and
 * aux_tail, overwrite snapshots) and data rings (records that wrap, damaged
 * records) written in memory the way the kernel writes them. */
#include "../unit/check-main.h"
#include "hwtrecord.h"
#include "ring-fake.h"
#include "../../kernel/linux/aux-ring.h"
#include "../../kernel/linux/data-ring.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct collected {
	uint8_t bytes[1024];
	size_t n;
	unsigned pieces;
};

static int collect(void *ctx, const void *bytes, size_t size)
{
	struct collected *c = ctx;

	ck_assert_uint_le(c->n + size, sizeof(c->bytes));
	memcpy(c->bytes + c->n, bytes, size);
	c->n += size;
	c->pieces++;
	return 0;
}

static void pattern(uint8_t *p, size_t n, unsigned from)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(from + i);
}

START_TEST(aux_drain_follows_the_head_wraps_and_frees_the_tail)
{
	struct fake_rings f;
	struct perf_aux_ring r;
	struct collected c = { 0 };
	uint8_t w[64];
	size_t i;

	fake_rings_init(&f, 256, 64);
	r = (struct perf_aux_ring){ &f.page, f.aux, 64 };
	pattern(w, 40, 0);
	ck_assert(fake_aux_write(&f, w, 40));
	pattern(w, 50, 40);
	/* the kernel cannot write past the unread bytes: ring full */
	ck_assert(!fake_aux_write(&f, w, 50));
	ck_assert_int_eq(perf_aux_ring_drain(&r, collect, &c), 40);
	ck_assert_uint_eq(f.page.aux_tail, 40);
	ck_assert(fake_aux_write(&f, w, 50));	/* wraps at 64 */
	ck_assert_int_eq(perf_aux_ring_drain(&r, collect, &c), 50);
	ck_assert_uint_eq(f.page.aux_tail, 90);
	ck_assert_uint_eq(c.n, 90);
	ck_assert_uint_eq(c.pieces, 3);		/* 40, then 24 + 26 */
	for (i = 0; i < 90; i++)
		ck_assert_uint_eq(c.bytes[i], (uint8_t)i);
	/* nothing new: nothing handed over */
	ck_assert_int_eq(perf_aux_ring_drain(&r, collect, &c), 0);
	ck_assert_uint_eq(c.pieces, 3);
	fake_rings_release(&f);
}
END_TEST

START_TEST(aux_head_that_cannot_be_is_refused)
{
	struct fake_rings f;
	struct perf_aux_ring r;
	struct collected c = { 0 };

	fake_rings_init(&f, 256, 64);
	r = (struct perf_aux_ring){ &f.page, f.aux, 64 };
	f.page.aux_head = 200;		/* more than a ring ahead */
	f.page.aux_tail = 100;
	ck_assert_int_eq(perf_aux_ring_drain(&r, collect, &c), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "head 200"));
	ck_assert_uint_eq(f.page.aux_tail, 100);	/* untouched */
	ck_assert_uint_eq(c.n, 0);
	r.size = 48;
	ck_assert_int_eq(perf_aux_ring_drain(&r, collect, &c), -hwtr_err_invalid);
	fake_rings_release(&f);
}
END_TEST

START_TEST(aux_snapshot_keeps_the_newest_ring_full)
{
	struct fake_rings f;
	struct perf_aux_ring r;
	struct collected c = { 0 };
	size_t i;

	fake_rings_init(&f, 256, 64);
	r = (struct perf_aux_ring){ &f.page, f.aux, 64 };
	/* overwrite mode: the kernel wrote 150 bytes over and over */
	for (i = 0; i < 150; i++)
		f.aux[i % 64] = (uint8_t)i;
	f.page.aux_head = 150;
	ck_assert_int_eq(perf_aux_ring_snapshot(&r, collect, &c), 64);
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(c.bytes[i], (uint8_t)(86 + i));
	ck_assert_uint_eq(f.page.aux_tail, 0);
	/* less than a ring written: all of it */
	c.n = 0;
	f.page.aux_head = 10;
	ck_assert_int_eq(perf_aux_ring_snapshot(&r, collect, &c), 10);
	fake_rings_release(&f);
}
END_TEST

struct seen {
	struct perf_rec recs[16];
	char names[16][64];
	size_t n;
};

static int see(void *ctx, const struct perf_rec *r)
{
	struct seen *s = ctx;

	ck_assert_uint_lt(s->n, 16);
	s->recs[s->n] = *r;
	if (r->type == PERF_RECORD_MMAP2 || r->type == PERF_RECORD_COMM)
		snprintf(s->names[s->n], 64, "%s", r->type == PERF_RECORD_COMM
			 ? r->u.comm.comm : r->u.mmap.filename);
	s->n++;
	return 0;
}

static const struct perf_rec_layout layout = {
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME, true };

START_TEST(data_ring_records_wrap_and_parse)
{
	struct fake_rings f;
	struct perf_data_ring r;
	struct seen s = { 0 };
	struct perf_rec rec;
	int i;

	fake_rings_init(&f, 128, 64);
	r = (struct perf_data_ring){ &f.page, f.data, 128, layout };
	/* 48-byte records: the third one wraps the 128-byte ring */
	for (i = 0; i < 4; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.type = i == 1 ? PERF_RECORD_COMM : PERF_RECORD_AUX;
		rec.u.aux = (struct perf_rec_aux){ 64u * i, 64, 0 };
		if (i == 1) {
			rec.misc = PERF_RECORD_MISC_COMM_EXEC;
			rec.u.comm = (struct perf_rec_comm){ 5, 5, "wrapped-name" };
		}
		rec.sample.pid = 5;
		rec.sample.tid = 5;
		rec.sample.time = 100 + (uint64_t)i;
		fake_data_write(&f, &rec, &layout);
		if (i == 1)	/* read some, so that the ring can wrap */
			ck_assert_int_eq(perf_data_ring_drain(&r, see, &s), 2);
	}
	ck_assert_uint_gt(f.page.data_head, 128);
	ck_assert_int_eq(perf_data_ring_drain(&r, see, &s), 2);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_uint_eq(f.page.data_tail, f.page.data_head);
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(s.recs[i].sample.time, 100 + (uint64_t)i);
	ck_assert_str_eq(s.names[1], "wrapped-name");
	ck_assert_uint_eq(s.recs[3].u.aux.aux_offset, 192);
	fake_rings_release(&f);
}
END_TEST

START_TEST(a_damaged_record_stops_the_drain_and_frees_the_ring)
{
	struct fake_rings f;
	struct perf_data_ring r;
	struct seen s = { 0 };
	struct perf_rec rec = { .type = PERF_RECORD_ITRACE_START };

	fake_rings_init(&f, 128, 64);
	r = (struct perf_data_ring){ &f.page, f.data, 128, layout };
	rec.u.itrace_start.pid = rec.u.itrace_start.tid = 9;
	fake_data_write(&f, &rec, &layout);
	/* a record header with size 0 after it */
	memset(f.data + f.page.data_head, 0, 8);
	f.page.data_head += 8;
	ck_assert_int_eq(perf_data_ring_drain(&r, see, &s), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "data ring position 32"));
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(f.page.data_tail, f.page.data_head);
	fake_rings_release(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rings");
	TCase *tc = tcase_create("rings");

	tcase_add_test(tc, aux_drain_follows_the_head_wraps_and_frees_the_tail);
	tcase_add_test(tc, aux_head_that_cannot_be_is_refused);
	tcase_add_test(tc, aux_snapshot_keeps_the_newest_ring_full);
	tcase_add_test(tc, data_ring_records_wrap_and_parse);
	tcase_add_test(tc, a_damaged_record_stops_the_drain_and_frees_the_ring);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
