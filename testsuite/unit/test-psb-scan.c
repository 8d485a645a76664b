/* test-psb-scan.c: the packet scan that lists a stream's PSBs
 * (decode-pt.c, psb_scan_stream) reads each PSB+ and skips from its PSBEND
 * to the next PSB; what it finds must be what reading every packet finds.
 * The oracle is that reading: libipt's packet decoder over the whole
 * stream (reference_scan below), noting each PSB's offset and its PSB+'s
 * TSC, FUP and MODE.Exec, the stream's last TSC anywhere, and a packet
 * cut at the end.  Streams: crafted ones (TSCs outside PSB+, PSB+ without
 * a TSC after the last one with, bytes that are not packets, a loss, a cut
 * packet), random ones, and the streams of the recordings named on the
 * command line (`test-psb-scan REC.hwtrec...`, for real recordings). */
#include "check-main.h"
#include "pt-encode.h"

#include "decode-pt.h"
#include "decoder.h"
#include "recording-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct reference {
	struct psb_info *psbs;
	size_t count, cap;
	uint64_t first_sync, last_tsc, truncated_at;
	bool has_last_tsc, truncated;
};

/* The offset of the first PSB at FROM or after it, or SIZE. */
static uint64_t next_psb(const uint8_t *bytes, size_t size, uint64_t from)
{
	for (uint64_t i = from; i + 16 <= size; i++) {
		unsigned k;

		for (k = 0; k < 16 && bytes[i + k] == (k % 2 ? 0x82 : 0x02); k++)
			;
		if (k == 16)
			return i;
	}
	return size;
}

/* Every packet of BYTES read in order; at a loss (LOSSES, sorted) or at
 * bytes that are not packets, packets resume at the next PSB. */
static void reference_scan(const uint8_t *bytes, size_t size,
			   const struct decoder_loss *losses, size_t nlosses,
			   struct reference *ref)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct psb_info *cur = NULL;
	size_t li = 0;
	int status;

	memset(ref, 0, sizeof(*ref));
	ref->first_sync = size;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)bytes;
	cfg.end = (uint8_t *)bytes + size;
	dec = pt_pkt_alloc_decoder(&cfg);
	ck_assert_ptr_nonnull(dec);
	status = pt_pkt_sync_set(dec, 0);
	while (status >= 0) {
		struct pt_packet pkt;
		uint64_t off = 0;

		pt_pkt_get_offset(dec, &off);
		if (li < nlosses && off >= losses[li].offset) {
			/* The next PSB at the loss or after it. */
			uint64_t psb = next_psb(bytes, size, losses[li].offset);

			while (li < nlosses && losses[li].offset <= psb)
				li++;
			cur = NULL;
			if (psb >= size)
				break;
			status = pt_pkt_sync_set(dec, psb);
			continue;
		}
		status = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (status >= 0 && li < nlosses && off + pkt.size > losses[li].offset) {
			pt_pkt_sync_set(dec, losses[li].offset);
			continue;
		}
		if (status == -pte_eos) {
			if (off < size) {
				ref->truncated = true;
				ref->truncated_at = off;
			}
			break;
		}
		if (status < 0) {
			cur = NULL;
			status = pt_pkt_sync_forward(dec);
			continue;
		}
		switch (pkt.type) {
		case ppt_psb:
			if (ref->count == ref->cap) {
				ref->cap = ref->cap ? 2 * ref->cap : 64;
				ref->psbs = realloc(ref->psbs,
						    ref->cap * sizeof(*ref->psbs));
				ck_assert_ptr_nonnull(ref->psbs);
			}
			cur = &ref->psbs[ref->count++];
			memset(cur, 0, sizeof(*cur));
			cur->offset = off;
			if (ref->count == 1)
				ref->first_sync = off;
			break;
		case ppt_psbend:
			cur = NULL;
			break;
		case ppt_tsc:
			ref->last_tsc = pkt.payload.tsc.tsc;
			ref->has_last_tsc = true;
			if (cur) {
				cur->tsc = pkt.payload.tsc.tsc;
				cur->has_tsc = true;
			}
			break;
		case ppt_fup:
			if (cur && pkt.payload.ip.ipc != pt_ipc_suppressed) {
				cur->has_fup = true;
				/* The address as the scan keeps it is
				 * decode-pt.c's; the reference checks that
				 * there is one. */
			}
			break;
		case ppt_mode:
			if (cur && pkt.payload.mode.leaf == pt_mol_exec)
				cur->has_mode_exec = true;
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(dec);
}

/* psb_scan_stream over BYTES is the reference's reading. */
static void scan_same(const uint8_t *bytes, size_t size,
		      const struct decoder_loss *losses, size_t nlosses,
		      const char *what)
{
	struct reference ref;
	struct pt_config cfg;
	struct psb_scan scan;
	size_t i;

	reference_scan(bytes, size, losses, nlosses, &ref);
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)bytes;
	cfg.end = (uint8_t *)bytes + size;
	ck_assert_msg(psb_scan_stream(&cfg, 0, losses, nlosses, false, &scan) == 0,
		      "%s: %s", what, hwtr_last_error());
	ck_assert_msg(scan.count == ref.count, "%s: %zu PSBs, the reading finds %zu",
		      what, scan.count, ref.count);
	for (i = 0; i < ref.count; i++) {
		const struct psb_info *a = &scan.psbs[i], *b = &ref.psbs[i];

		ck_assert_msg(a->offset == b->offset && a->has_tsc == b->has_tsc &&
			      (!b->has_tsc || a->tsc == b->tsc) &&
			      a->has_fup == b->has_fup &&
			      a->has_mode_exec == b->has_mode_exec,
			      "%s: PSB %zu at 0x%llx (tsc %d 0x%llx fup %d mode %d), "
			      "the reading: 0x%llx (tsc %d 0x%llx fup %d mode %d)",
			      what, i, (unsigned long long)a->offset, a->has_tsc,
			      (unsigned long long)a->tsc, a->has_fup, a->has_mode_exec,
			      (unsigned long long)b->offset, b->has_tsc,
			      (unsigned long long)b->tsc, b->has_fup, b->has_mode_exec);
	}
	ck_assert_msg(scan.first_sync == ref.first_sync, "%s: first sync", what);
	ck_assert_msg(scan.has_last_tsc == ref.has_last_tsc &&
		      (!ref.has_last_tsc || scan.last_tsc == ref.last_tsc),
		      "%s: last TSC %d 0x%llx, the reading: %d 0x%llx", what,
		      scan.has_last_tsc, (unsigned long long)scan.last_tsc,
		      ref.has_last_tsc, (unsigned long long)ref.last_tsc);
	ck_assert_msg(scan.truncated == ref.truncated &&
		      (!ref.truncated || scan.truncated_at == ref.truncated_at),
		      "%s: cut packet", what);
	psb_scan_release(&scan);
	free(ref.psbs);
}

static void enc_tsc(struct trace *t, uint64_t tsc)
{
	struct pt_packet p = { .type = ppt_tsc };

	p.payload.tsc.tsc = tsc;
	ck_assert_int_ge(pt_enc_next(t->encoder, &p), 0);
}

/* Between PSBs: branches, and sometimes a TSC (KIND 1) or bytes that are
 * not packets (KIND 2). */
static void stretch(struct trace *t, unsigned kind, uint64_t tsc)
{
	static const uint8_t junk[] = { 0x99, 0xc8, 0x77, 0x02, 0x03 };

	enc_tnt(t, "101");
	enc_tip(t, 0x401000);
	if (kind == 1)
		enc_tsc(t, tsc);
	if (kind == 2)
		enc_raw(t, junk, sizeof(junk));
	enc_tnt(t, "1");
	enc_simple(t, ppt_pad);
}

START_TEST(crafted_streams_scan_as_read)
{
	struct trace t;
	struct decoder_loss loss;
	size_t size, cut;

	/* TSCs outside PSB+ in the middle: the last one is in the last
	 * stretch's PSB+. */
	trace_begin(&t);
	enc_psb(&t, 0x401000, 100);
	stretch(&t, 1, 150);
	enc_psb(&t, 0x401010, 200);
	stretch(&t, 0, 0);
	enc_psb(&t, 0, 300);
	stretch(&t, 2, 0);
	size = trace_size(&t);
	scan_same(t.buf, size, NULL, 0, "TSCs in and out of PSB+");
	/* The last TSC in a stretch not read, after PSB+ without one. */
	enc_psb_disabled(&t, 400);
	stretch(&t, 1, 450);
	enc_simple(&t, ppt_psb);
	enc_simple(&t, ppt_psbend);
	stretch(&t, 0, 0);
	enc_simple(&t, ppt_psb);
	enc_simple(&t, ppt_psbend);
	stretch(&t, 2, 0);
	size = trace_size(&t);
	scan_same(t.buf, size, NULL, 0, "the last TSC between PSBs");
	/* Cut inside the last packet. */
	enc_tip(&t, 0x402000);
	cut = trace_size(&t) - 2;
	scan_same(t.buf, cut, NULL, 0, "a cut packet");
	/* A loss in the middle of a stretch with a TSC after it: packets
	 * resume at the next PSB, so that TSC is not the reading's. */
	loss = (struct decoder_loss){ .offset = 40 };
	scan_same(t.buf, size, &loss, 1, "a loss");
	trace_end(&t);
	/* No PSB at all. */
	trace_begin(&t);
	stretch(&t, 1, 10);
	scan_same(t.buf, trace_size(&t), NULL, 0, "no PSB");
	trace_end(&t);
}
END_TEST

static uint64_t next_random(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

START_TEST(random_streams_scan_as_read)
{
	for (unsigned n = 0; n < 300; n++) {
		struct trace t;
		struct decoder_loss losses[2];
		size_t k, size, nlosses = 0;
		char what[64];
		uint64_t tsc = 1000;

		trace_begin(&t);
		for (k = next_random() % 12; k > 0; k--) {
			switch (next_random() % 4) {
			case 0:
				enc_psb(&t, next_random() % 2 ? 0x401000 : 0,
					tsc += 10);
				break;
			case 1:
				enc_psb_disabled(&t, tsc += 10);
				break;
			case 2:
				enc_simple(&t, ppt_psb);
				enc_simple(&t, ppt_psbend);
				break;
			default:
				break;
			}
			stretch(&t, (unsigned)(next_random() % 3), tsc += 5);
		}
		size = trace_size(&t);
		if (size && next_random() % 4 == 0)
			size -= next_random() % 3;
		if (size > 8 && next_random() % 3 == 0) {
			losses[nlosses++].offset = next_random() % size;
			if (next_random() % 2)
				losses[nlosses++].offset = losses[0].offset +
					next_random() % (size - losses[0].offset);
		}
		snprintf(what, sizeof(what), "random stream %u", n);
		scan_same(t.buf, size, losses, nlosses, what);
		trace_end(&t);
	}
}
END_TEST

static char **recordings;
static int nrecordings;

START_TEST(recorded_streams_scan_as_read)
{
	for (int i = 0; i < nrecordings; i++) {
		struct hwtr_recording *rec;
		const struct hwtr_recording_info *info;

		ck_assert_msg(hwtr_recording_open(recordings[i], &rec) == 0, "%s",
			      hwtr_last_error());
		info = hwtr_recording_info(rec);
		for (size_t k = 0; k < info->nthreads; k++) {
			const uint8_t *bytes;
			size_t size;

			struct stat st;
			void *map;
			int fd;

			if (!info->threads[k].stream)
				continue;
			ck_assert_msg(recording_file_open(recordings[i],
							  info->threads[k].stream,
							  &fd, &st) == 0,
				      "%s", hwtr_last_error());
			size = (size_t)st.st_size;
			map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0)
				   : NULL;
			ck_assert(!size || map != MAP_FAILED);
			close(fd);
			bytes = map;
			scan_same(bytes, size, NULL, 0, info->threads[k].stream);
			if (size)
				munmap(map, size);
		}
		hwtr_recording_close(rec);
	}
}
END_TEST

int main(int argc, char **argv)
{
	TCase *tc = tcase_create("scan");

	recordings = argv + 1;
	nrecordings = argc - 1;
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, crafted_streams_scan_as_read);
	tcase_add_test(tc, random_streams_scan_as_read);
	tcase_add_test(tc, recorded_streams_scan_as_read);
	return check_run_tcase("psb-scan", tc);
}
