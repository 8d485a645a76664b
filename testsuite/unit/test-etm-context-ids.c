/* test-etm-context-ids.c: the context IDs an ETM source's trace names,
 * from its packets alone (hwtr_etm_context_ids, etm-context-ids.c), which
 * the importers split a trace unit by before writing a recording.
 *
 * Oracle: the context packets etm-encode.c wrote (by the ETMv4
 * specification, checked against OpenCSD's trc_pkt_lister), in the order
 * written, with the rules of the walks that decode them: none from trace
 * before the kept start, after a loss until the next A-sync, or from a unit
 * that does not trace context IDs.  The history's index pass must find the
 * same (hwtr_thread_context_ids on a recording of the same trace).
 */
#include "etm-encode.h"
#include "fixture.h"
#include "check-main.h"

#include <hwtrecord.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define TRCCONFIGR_CID 0x40u

/* A Cortex-A53's trace unit (as etm-encode.c's recordings). */
static void unit(struct hwtr_etm_config *e, uint8_t trace_id, uint32_t trcconfigr,
		 bool formatted)
{
	memset(e, 0, sizeof(*e));
	e->trace_id = trace_id;
	e->formatted = formatted;
	e->frame_flags = formatted ? HWTR_ETM_FRAME_MEM_ALIGN : 0;
	e->arch_version = 0x800;
	e->profile = 'A';
	e->trcconfigr = trcconfigr;
	e->trctraceidr = trace_id;
	e->cpu = -1;
	e->trcidr[0] = 0x28000ea1;
	e->trcidr[1] = 0x4100f400;
	e->trcidr[2] = 0x488;
}

/* Contexts 100, 200, 100 again, the idle 0, then 300, taking turns over
 * the fixture code. */
static void turns(struct etm_trace *t)
{
	etm_async(t);
	etm_trace_info(t);
	etm_trace_on(t);
	etm_addr_ctxt_id(t, 0x1000, 0, 100);
	etm_atom(t, true);
	etm_atom(t, true);
	etm_addr_ctxt_id(t, 0x1010, 0, 200);
	etm_atom(t, true);
	etm_addr_ctxt_id(t, 0x1008, 0, 100);
	etm_atom(t, true);
	etm_addr_ctxt_id(t, 0x1010, 0, 0);
	etm_atom(t, true);
	etm_addr_ctxt_id(t, 0x1020, 0, 300);
	etm_atom(t, true);
}

static void assert_ids(const struct hwtr_etm_config *e, const uint8_t *bytes,
		       size_t size, uint64_t start, const uint64_t *losses,
		       size_t nlosses, const uint32_t *want, size_t nwant)
{
	uint32_t *ids = NULL;
	size_t count = 99, i;

	ck_assert_msg(hwtr_etm_context_ids(e, bytes, size, start, losses, nlosses,
					   &ids, &count) == 0, "%s",
		      hwtr_last_error());
	ck_assert_uint_eq(count, nwant);
	for (i = 0; i < nwant; i++)
		ck_assert_uint_eq(ids[i], want[i]);
	if (!nwant)
		ck_assert_ptr_null(ids);
	free(ids);
}

/* The history's index pass over a recording of T (one raw source 0x10,
 * CID traced) finds the context IDs WANT, in order. */
static void assert_history_ids(const struct etm_trace *t, const uint32_t *want,
			       size_t nwant)
{
	struct etm_source src = { .id = 0x10, .tid = 0x10,
				  .trcconfigr = TRCCONFIGR_CID };
	struct hwtr_recording *rec;
	struct hwtr_history *h;
	const uint32_t *ids;
	size_t count, i;
	char dir[300];

	src.bytes = t->buf;
	src.len = t->len;
	snprintf(dir, sizeof(dir), "%s/h.hwtrec", fixture_tmpdir());
	ck_assert_int_eq(etm_fixture_recording(dir, &src, 1, false), 0);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), 0);
	ck_assert_int_eq(hwtr_history_build(rec, NULL, &h), 0);
	ck_assert_int_eq(hwtr_thread_context_ids(hwtr_history_find_thread(h, 0x10),
						 &ids, &count), 0);
	ck_assert_uint_eq(count, nwant);
	for (i = 0; i < count; i++)
		ck_assert_uint_eq(ids[i], want[i]);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	fixture_cleanup();
}

START_TEST(raw_trace_names_its_contexts_in_order)
{
	static const uint32_t want[] = { 100, 200, 0, 300 };
	struct hwtr_etm_config e;
	struct etm_trace t = { .len = 0 };

	unit(&e, 0x10, TRCCONFIGR_CID, false);
	turns(&t);
	assert_ids(&e, t.buf, t.len, 0, NULL, 0, want, 4);
}
END_TEST

START_TEST(each_source_of_a_formatted_buffer_names_its_own)
{
	static const uint32_t want_a[] = { 100, 200, 0, 300 }, want_b[] = { 7, 8 };
	static uint8_t frames[1 << 15];
	struct etm_trace a = { .len = 0 }, b = { .len = 0 };
	struct etm_source sources[2];
	struct hwtr_etm_config e;
	size_t len;

	turns(&a);
	etm_async(&b);
	etm_trace_info(&b);
	etm_trace_on(&b);
	etm_addr_ctxt_id(&b, 0x1000, 0, 7);
	etm_atom(&b, true);
	etm_addr_ctxt_id(&b, 0x1004, 0, 8);
	etm_addr_ctxt_id(&b, 0x1008, 0, 7);
	memset(sources, 0, sizeof(sources));
	sources[0] = (struct etm_source){ .id = 0x10, .bytes = a.buf, .len = a.len };
	sources[1] = (struct etm_source){ .id = 0x11, .bytes = b.buf, .len = b.len };
	len = etm_frames(sources, 2, 5, frames, sizeof(frames));
	unit(&e, 0x10, TRCCONFIGR_CID, true);
	assert_ids(&e, frames, len, 0, NULL, 0, want_a, 4);
	unit(&e, 0x11, TRCCONFIGR_CID, true);
	assert_ids(&e, frames, len, 0, NULL, 0, want_b, 2);
	unit(&e, 0x12, TRCCONFIGR_CID, true);	/* no trace of its own */
	assert_ids(&e, frames, len, 0, NULL, 0, NULL, 0);
}
END_TEST

START_TEST(no_context_before_the_kept_start_or_between_a_loss_and_an_async)
{
	static const uint32_t every[] = { 100, 200, 0, 300, 500, 400 };
	static const uint32_t lost_500[] = { 100, 200, 0, 300, 400 };
	static const uint32_t kept_from_second[] = { 400 };
	static const uint32_t cut_at_loss[] = { 100, 200, 0, 300 };
	struct hwtr_etm_config e;
	struct etm_trace t = { .len = 0 };
	uint64_t second, loss;

	unit(&e, 0x10, TRCCONFIGR_CID, false);
	turns(&t);
	loss = t.len;
	etm_addr_ctxt_id(&t, 0x1000, 0, 500);
	etm_atom(&t, true);
	second = t.len;
	etm_async(&t);
	etm_trace_info(&t);
	etm_trace_on(&t);
	etm_addr_ctxt_id(&t, 0x1000, 0, 400);
	etm_atom(&t, true);

	/* Nothing lost: 500 is a context packet like any. */
	assert_ids(&e, t.buf, t.len, 0, NULL, 0, every, 6);
	/* Lost before 500: the bytes until the next A-sync are no packets
	 * the decoder reads. */
	assert_ids(&e, t.buf, t.len, 0, &loss, 1, lost_500, 5);
	/* Lost right before the second A-sync: nothing after it is missed. */
	assert_ids(&e, t.buf, t.len, 0, &second, 1, every, 6);
	/* Kept trace from the second A-sync (a ring that wrapped). */
	assert_ids(&e, t.buf, t.len, second, NULL, 0, kept_from_second, 1);
	/* Trace cut at the loss: nothing after it. */
	assert_ids(&e, t.buf, loss, 0, NULL, 0, cut_at_loss, 4);
}
END_TEST

/* A unit that does not speculate (TRCIDR8 0) never commits: a Commit
 * packet is bad data, never fed to the decoder, and the walk starts afresh
 * at the next A-sync: the context between them is no walk's. */
START_TEST(no_context_between_an_unusable_packet_and_an_async)
{
	static const uint32_t want[] = { 100, 200, 0, 300, 400 };
	static const uint8_t commit[] = { 0x2d, 0x01 };
	struct etm_trace t = { .len = 0 };
	struct hwtr_etm_config e;

	unit(&e, 0x10, TRCCONFIGR_CID, false);
	turns(&t);
	etm_bytes(&t, commit, sizeof(commit));
	etm_addr_ctxt_id(&t, 0x1000, 0, 600);
	etm_atom(&t, true);
	etm_async(&t);
	etm_trace_info(&t);
	etm_trace_on(&t);
	etm_addr_ctxt_id(&t, 0x1000, 0, 400);
	etm_atom(&t, true);
	assert_ids(&e, t.buf, t.len, 0, NULL, 0, want, 5);
	assert_history_ids(&t, want, 5);
}
END_TEST

START_TEST(a_unit_without_context_id_tracing_names_none)
{
	struct hwtr_etm_config e;
	struct etm_trace t = { .len = 0 };

	unit(&e, 0x10, 0, false);
	etm_main_path(&t);	/* contexts without an ID */
	assert_ids(&e, t.buf, t.len, 0, NULL, 0, NULL, 0);
}
END_TEST

START_TEST(the_history_finds_the_same)
{
	static const uint32_t want[] = { 100, 200, 0, 300 };
	struct etm_trace t = { .len = 0 };

	turns(&t);
	assert_history_ids(&t, want, 4);
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
	struct hwtr_etm_config e;
	uint32_t *ids;
	size_t count;
	uint64_t losses[2] = { 20, 10 };
	uint8_t byte = 0;

	unit(&e, 0x10, TRCCONFIGR_CID, false);
	ck_assert_int_eq(hwtr_etm_context_ids(NULL, &byte, 1, 0, NULL, 0, &ids,
					      &count), -hwtr_err_invalid);
	ck_assert_str_eq(hwtr_last_error(), "hwtr_etm_context_ids: bad argument");
	ck_assert_int_eq(hwtr_etm_context_ids(&e, &byte, 1, 0, losses, 2, &ids,
					      &count), -hwtr_err_invalid);
	ck_assert_str_eq(hwtr_last_error(),
			 "hwtr_etm_context_ids: loss offsets out of order");
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("context IDs");

	tcase_add_test(tc, raw_trace_names_its_contexts_in_order);
	tcase_add_test(tc, each_source_of_a_formatted_buffer_names_its_own);
	tcase_add_test(tc, no_context_before_the_kept_start_or_between_a_loss_and_an_async);
	tcase_add_test(tc, no_context_between_an_unusable_packet_and_an_async);
	tcase_add_test(tc, a_unit_without_context_id_tracing_names_none);
	tcase_add_test(tc, the_history_finds_the_same);
	tcase_add_test(tc, bad_arguments_are_refused);
	return check_run_tcase("etm-context-ids", tc);
}
