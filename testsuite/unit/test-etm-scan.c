/* test-etm-scan.c: the packet scan of one ETMv4 source (etm-scan.c), on
 * trace written by etm-encode.c (packets by the ETMv4 specification,
 * IHI0064, checked against OpenCSD's trc_pkt_lister).
 *
 * The expected offsets are where the encoder put each packet (the trace's
 * length before it).  The rules checked are the chunk starts' (decode-etm.c):
 * the first A-sync, one followed by a context and a long address before
 * any atom, and the first after a loss start a chunk; a periodic A-sync
 * with atoms right after it does not.
 */
#include "etm-encode.h"
#include "etm-scan.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct scanned {
	struct hwtr_etm_config cfg;
	struct etm_stream s;
	struct etm_trace t;
	size_t periodic, restart, cut;	/* packet offsets */
};

/* A Cortex-A53's trace unit (as etm-encode.c's recordings). */
static void unit(struct hwtr_etm_config *e)
{
	memset(e, 0, sizeof(*e));
	e->trace_id = 0x10;
	e->arch_version = 0x800;
	e->profile = 'A';
	e->trctraceidr = 0x10;
	e->cpu = -1;
	e->trcidr[0] = 0x28000ea1;
	e->trcidr[1] = 0x4100f400;
	e->trcidr[2] = 0x488;
}

/* A start at 0x1000, bl taken; a periodic A-sync and Trace Info, b.ne not
 * taken; a self-contained start at 0x1008, b.ne taken; a long address cut
 * after 5 of its 9 bytes. */
static void write_trace(struct scanned *x)
{
	memset(x, 0, sizeof(*x));
	unit(&x->cfg);
	etm_start(&x->t, 0x1000);
	etm_atom(&x->t, true);
	x->periodic = x->t.len;
	etm_async(&x->t);
	etm_trace_info(&x->t);
	etm_atom(&x->t, false);
	x->restart = x->t.len;
	etm_start(&x->t, 0x1008);
	etm_atom(&x->t, true);
	x->cut = x->t.len;
	etm_addr(&x->t, 0x1020);
	x->s.cfg = &x->cfg;
	x->s.bytes = x->t.buf;
	x->s.size = x->cut + 5;
}

static void free_scan(struct scanned *x)
{
	free(x->s.asyncs);
	free(x->s.starts);
	free(x->s.stamps);
	free(x->s.unusable);
	free(x->s.bad_exceptions);
	free(x->s.sync_losses);
}

START_TEST(asyncs_chunk_starts_and_the_cut_packet)
{
	static struct scanned x;

	write_trace(&x);
	/* An A-sync is 11 zero bytes and 0x80 (IHI0064). */
	ck_assert_uint_eq(x.t.buf[x.periodic + 11], 0x80);
	ck_assert_msg(etm_scan_packets(&x.s) == 0, "%s", hwtr_last_error());
	ck_assert_uint_eq(x.s.nasyncs, 3);
	ck_assert_uint_eq(x.s.asyncs[0], 0);
	ck_assert_uint_eq(x.s.asyncs[1], x.periodic);
	ck_assert_uint_eq(x.s.asyncs[2], x.restart);
	ck_assert_uint_eq(x.s.nstarts, 2);
	ck_assert_uint_eq(x.s.starts[0], 0);
	ck_assert_uint_eq(x.s.starts[1], x.restart);
	ck_assert(x.s.truncated);
	ck_assert_uint_eq(x.s.truncated_at, x.cut);
	ck_assert_uint_eq(x.s.nsync_losses, 0);
	ck_assert_uint_eq(x.s.nunusable, 0);
	free_scan(&x);
}
END_TEST

START_TEST(the_first_async_after_a_loss_starts_a_chunk)
{
	static struct scanned x;
	struct etm_loss loss = { 0 };

	write_trace(&x);
	x.s.size = x.cut;	/* whole packets */
	loss.raw = x.periodic;
	x.s.losses = &loss;
	x.s.nlosses = 1;
	ck_assert_msg(etm_scan_packets(&x.s) == 0, "%s", hwtr_last_error());
	ck_assert_uint_eq(x.s.nstarts, 3);
	ck_assert_uint_eq(x.s.starts[0], 0);
	ck_assert_uint_eq(x.s.starts[1], x.periodic);
	ck_assert_uint_eq(x.s.starts[2], x.restart);
	ck_assert(!x.s.truncated);
	free_scan(&x);
}
END_TEST

START_TEST(the_scan_starts_at_the_kept_start)
{
	static struct scanned x;

	write_trace(&x);
	x.s.start = x.restart;
	ck_assert_int_eq(etm_scan_packets(&x.s), 0);
	ck_assert_uint_eq(x.s.nasyncs, 1);
	ck_assert_uint_eq(x.s.asyncs[0], x.restart);
	ck_assert_uint_eq(x.s.nstarts, 1);
	ck_assert_uint_eq(x.s.starts[0], x.restart);
	free_scan(&x);
}
END_TEST

START_TEST(opencsd_takes_the_unit)
{
	struct hwtr_etm_config e;

	unit(&e);
	ck_assert_int_eq(hwtr_etm_decodable(&e), 0);
	ck_assert_int_eq(hwtr_etm_decodable(NULL), -hwtr_err_invalid);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("packets");

	tcase_add_test(tc, asyncs_chunk_starts_and_the_cut_packet);
	tcase_add_test(tc, the_first_async_after_a_loss_starts_a_chunk);
	tcase_add_test(tc, the_scan_starts_at_the_kept_start);
	tcase_add_test(tc, opencsd_takes_the_unit);
	return check_run_tcase("etm-scan", tc);
}
