/* test-pt-session: the perf source below perf_event_open and mmap.  Each
 * thread's event is a pair of rings in memory (ring-fake.c) that the test
 * writes as the kernel would; the session drains them into a recording,
 * which is then read back with the library's reader: trace bytes in order
 * across wrap-arounds, sideband in time order across threads, new threads
 * followed from FORK records, AUX TRUNCATED and LOST turned into loss
 * events at the right stream offsets, exited threads closed. */
#include "../unit/check-main.h"
#include "hwtrecord.h"
#include "ring-fake.h"
#include "../../kernel/linux/pt-session.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PID 100

static const struct perf_rec_layout layout = {
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU, true };

struct fake_kernel {
	struct fake_rings rings[4];
	uint32_t tids[4];
	bool enabled[4];
	size_t nopen, nclosed;
};

static struct fake_rings *rings_of(struct fake_kernel *k, uint32_t tid)
{
	size_t i;

	for (i = 0; i < k->nopen; i++)
		if (k->tids[i] == tid)
			return &k->rings[i];
	ck_abort_msg("no event for thread %u", tid);
	return NULL;
}

static int fake_open(void *ctx, struct pt_session_thread *t, bool enable)
{
	struct fake_kernel *k = ctx;
	struct fake_rings *f;

	ck_assert_uint_lt(k->nopen, 4);
	f = &k->rings[k->nopen];
	fake_rings_init(f, 256, 64);
	/* time == TSC: shift 0, mult 1, zero 0 */
	f->page.time_mult = 1;
	f->page.cap_user_time_zero = 1;
	k->tids[k->nopen] = t->tid;
	k->enabled[k->nopen] = enable;
	k->nopen++;
	t->fd = 1000 + (int)t->tid;
	t->aux = (struct perf_aux_ring){ &f->page, f->aux, 64 };
	t->data = (struct perf_data_ring){ &f->page, f->data, 256, layout };
	t->tc.time_mult = f->page.time_mult;
	t->tc.cap_user_time_zero = true;
	return 0;
}

static void fake_close(void *ctx, struct pt_session_thread *t)
{
	struct fake_kernel *k = ctx;

	k->nclosed++;
	t->fd = -1;
}

static const struct pt_session_ops ops = { fake_open, fake_close, NULL };

static void rec_write(struct fake_kernel *k, uint32_t tid, struct perf_rec *r,
		      uint64_t time)
{
	r->sample.pid = PID;
	r->sample.tid = tid;
	r->sample.time = time;
	fake_data_write(rings_of(k, tid), r, &layout);
}

static void aux_write(struct fake_kernel *k, uint32_t tid, unsigned from,
		      size_t n)
{
	uint8_t b[64];
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(from + i);
	ck_assert(fake_aux_write(rings_of(k, tid), b, n));
}

static char tmpdir[256];

START_TEST(threads_sideband_trace_and_losses_reach_the_recording)
{
	struct hwtr_writer_info wi = { .source = "linux-perf", .pid = PID,
				       .executable = "/bin/true" };
	const struct hwtr_recording_info *info;
	struct fake_kernel k = { 0 };
	struct hwtr_recording *rec;
	struct hwtr_writer *w;
	struct pt_session *s;
	struct perf_rec r;
	char dir[300], cmd[300];
	const uint8_t *bytes;
	size_t size, i;
	struct {
		enum hwtr_event_kind kind;
		uint64_t tsc;
		uint32_t tid;
		uint64_t offset;
	} expect[] = {
		{ hwtr_ev_thread_start, 0, PID, 0 },
		{ hwtr_ev_exec, 10, 0, 0 },
		{ hwtr_ev_mmap, 11, 0, 0 },
		{ hwtr_ev_thread_start, 20, 101, 0 },
		{ hwtr_ev_loss, 30, 101, 20 },	/* TRUNCATED after 20 bytes */
		{ hwtr_ev_loss, 31, 101, 28 },	/* LOST: where the stream is */
		{ hwtr_ev_mmap, 35, 0, 0 },	/* the other ring's, between */
		{ hwtr_ev_thread_exit, 40, 101, 0 },
	};

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hwtr-session-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(dir, sizeof(dir), "%s/r.hwtrec", tmpdir);
	snprintf(wi.pt.vendor, sizeof(wi.pt.vendor), "intel");
	ck_assert_int_eq(hwtr_writer_create(dir, &wi, &w), 0);
	ck_assert_int_eq(pt_session_new(w, PID, &ops, &k, &s), 0);
	ck_assert_int_eq(pt_session_follow(s, PID, 0, false), 0);
	ck_assert_uint_eq(k.nopen, 1);
	ck_assert(!k.enabled[0]);	/* until exec */

	/* The main thread: exec, its mapping, a new thread, 40 trace bytes. */
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_COMM;
	r.misc = PERF_RECORD_MISC_COMM_EXEC;
	r.u.comm = (struct perf_rec_comm){ PID, PID, "true" };
	rec_write(&k, PID, &r, 10);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_MMAP2;
	r.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	r.u.mmap = (struct perf_rec_mmap){ .pid = PID, .tid = PID,
		.addr = 0x400000, .len = 0x3000, .pgoff = 0x1000,
		.build_id_size = 4, .build_id = { 0xde, 0xad, 0xbe, 0xef },
		.prot = 5, .flags = 2, .filename = "/bin/true" };
	rec_write(&k, PID, &r, 11);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_FORK;
	r.u.task = (struct perf_rec_task){ PID, PID, 101, PID, 20 };
	rec_write(&k, PID, &r, 20);
	aux_write(&k, PID, 0, 40);
	ck_assert_msg(pt_session_drain(s) == 0, "%s", hwtr_last_error());
	ck_assert_uint_eq(k.nopen, 2);	/* followed from its FORK record */
	ck_assert_uint_eq(k.tids[1], 101);
	ck_assert(k.enabled[1]);

	/* The new thread: 20 bytes, then its buffer filled up (TRUNCATED),
	 * 8 more bytes, records were lost, it exited.  The main thread maps
	 * a library meanwhile (its record must come between, in time
	 * order, though its ring is drained first) and wraps its ring. */
	aux_write(&k, 101, 100, 20);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_AUX;
	r.u.aux = (struct perf_rec_aux){ 0, 20, PERF_AUX_FLAG_TRUNCATED };
	rec_write(&k, 101, &r, 30);
	aux_write(&k, 101, 120, 8);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_MMAP2;
	r.misc = PERF_RECORD_MISC_USER;
	r.u.mmap = (struct perf_rec_mmap){ .pid = PID, .tid = PID,
		.addr = 0x7f0000000000, .len = 0x1000, .prot = 5, .flags = 2,
		.filename = "/lib/libc.so.6" };
	rec_write(&k, PID, &r, 35);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_LOST;
	r.u.lost = (struct perf_rec_lost){ 0, 3 };
	rec_write(&k, 101, &r, 31);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_EXIT;
	r.u.task = (struct perf_rec_task){ PID, PID, 101, PID, 40 };
	rec_write(&k, 101, &r, 40);
	aux_write(&k, PID, 40, 50);	/* wraps at 64 */
	ck_assert_msg(pt_session_drain(s) == 0, "%s", hwtr_last_error());
	ck_assert_uint_eq(k.nclosed, 1);	/* 101: drained, then closed */
	ck_assert_uint_eq(rings_of(&k, PID)->page.aux_tail, 90);
	ck_assert_uint_eq(pt_session_losses(s), 2);
	ck_assert_int_eq(pt_session_finish(s), 0);
	ck_assert_uint_eq(k.nclosed, 2);
	pt_session_free(s);
	ck_assert_int_eq(hwtr_writer_finish(w, &(struct hwtr_end){
				 hwtr_end_exited, 0 }), 0);
	hwtr_writer_free(w);

	ck_assert_msg(hwtr_recording_open(dir, &rec) == 0, "%s", hwtr_last_error());
	info = hwtr_recording_info(rec);
	ck_assert_uint_eq(info->nthreads, 2);
	ck_assert_uint_eq(info->threads[0].tid, PID);
	ck_assert_uint_eq(info->threads[1].tid, 101);
	ck_assert_int_eq(hwtr_recording_trace(rec, 0, &bytes, &size), 0);
	ck_assert_uint_eq(size, 90);
	for (i = 0; i < 90; i++)
		ck_assert_uint_eq(bytes[i], (uint8_t)i);
	ck_assert_int_eq(hwtr_recording_trace(rec, 1, &bytes, &size), 0);
	ck_assert_uint_eq(size, 28);
	for (i = 0; i < 28; i++)
		ck_assert_uint_eq(bytes[i], (uint8_t)(100 + i));
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 8);
	for (i = 0; i < 8; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);

		ck_assert_int_eq(ev->kind, expect[i].kind);
		ck_assert_uint_eq(ev->tsc, expect[i].tsc);
		if (expect[i].tid)
			ck_assert_uint_eq(ev->tid, expect[i].tid);
		if (ev->kind == hwtr_ev_loss)
			ck_assert_uint_eq(ev->offset, expect[i].offset);
	}
	ck_assert_str_eq(hwtr_recording_event(rec, 2)->path, "/bin/true");
	ck_assert_str_eq(hwtr_recording_event(rec, 2)->build_id, "deadbeef");
	ck_assert_uint_eq(hwtr_recording_event(rec, 2)->addr, 0x400000);
	ck_assert_int_eq(hwtr_recording_event(rec, 2)->prot,
			 HWTR_PROT_READ | HWTR_PROT_EXEC);
	ck_assert_ptr_nonnull(strstr(hwtr_recording_event(rec, 4)->reason,
				     "AUX buffer was full"));
	ck_assert_ptr_nonnull(strstr(hwtr_recording_event(rec, 5)->reason,
				     "sideband records"));
	ck_assert_str_eq(hwtr_recording_event(rec, 6)->path, "/lib/libc.so.6");
	hwtr_recording_close(rec);
	for (i = 0; i < k.nopen; i++)
		fake_rings_release(&k.rings[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Records of other processes (a child the program forked) stay out. */
START_TEST(other_processes_are_not_recorded)
{
	struct hwtr_writer_info wi = { .source = "linux-perf", .pid = PID };
	struct fake_kernel k = { 0 };
	struct hwtr_recording *rec;
	struct hwtr_writer *w;
	struct pt_session *s;
	struct perf_rec r;
	char dir[300], cmd[300];
	size_t i;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hwtr-session-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(dir, sizeof(dir), "%s/r.hwtrec", tmpdir);
	ck_assert_int_eq(hwtr_writer_create(dir, &wi, &w), 0);
	ck_assert_int_eq(pt_session_new(w, PID, &ops, &k, &s), 0);
	ck_assert_int_eq(pt_session_follow(s, PID, 0, true), 0);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_FORK;	/* a new process: pid == tid */
	r.u.task = (struct perf_rec_task){ 200, PID, 200, PID, 5 };
	rec_write(&k, PID, &r, 5);
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_MMAP2;
	r.u.mmap = (struct perf_rec_mmap){ .pid = 200, .tid = 200,
		.addr = 0x1000, .len = 0x1000, .prot = 5, .filename = "/x" };
	rec_write(&k, PID, &r, 6);
	ck_assert_int_eq(pt_session_finish(s), 0);
	ck_assert_uint_eq(k.nopen, 1);
	pt_session_free(s);
	ck_assert_int_eq(hwtr_writer_finish(w, &(struct hwtr_end){ 0, 0 }), 0);
	hwtr_writer_free(w);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 1);	/* thread-start */
	hwtr_recording_close(rec);
	for (i = 0; i < k.nopen; i++)
		fake_rings_release(&k.rings[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt-session");
	TCase *tc = tcase_create("session");

	tcase_add_test(tc, threads_sideband_trace_and_losses_reach_the_recording);
	tcase_add_test(tc, other_processes_are_not_recorded);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
