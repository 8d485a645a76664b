/* test-etm-demux.c: one source's bytes out of a CoreSight formatted buffer
 * (etm-demux.c), on frames written here by hand.
 *
 * The frames follow the CoreSight Trace Formatter (Arm CoreSight
 * Architecture Specification, ARM IHI 0029, "Trace Formatter"): 16 bytes;
 * byte 15 holds the auxiliary bits, bit N for byte 2N; an even byte with
 * bit 0 set is an ID (ID = byte >> 1), taking effect at once when its
 * auxiliary bit is 0; an even byte with bit 0 clear is data whose bit 0 is
 * its auxiliary bit; odd bytes are data.  The expected bytes, frame
 * positions, cut and loss placements below follow from that layout alone.
 */
#include "etm-demux.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define OURS 0x10	/* ID byte 0x21 */
#define OTHER 0x20	/* ID byte 0x41 */

/* Frame 0: ours 0x11..0x17 in bytes 1..7, then the other source's six
 * bytes; frame 1: ours throughout, byte 2 (0x42) with auxiliary bit 1 set
 * so that it carries 0x43. */
static const uint8_t frames[32] = {
	0x21, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x41, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0x00,
	0x21, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x02,
};

static const uint8_t ours[21] = {
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x41, 0x43, 0x43, 0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e,
};

static const uint8_t others[6] = { 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae };

struct fixture {
	struct hwtr_etm_config cfg;
	struct etm_stream s;
};

static void open_source(struct fixture *f, uint8_t id)
{
	memset(f, 0, sizeof(*f));
	f->cfg.trace_id = id;
	f->cfg.frame_flags = HWTR_ETM_FRAME_MEM_ALIGN;
	f->s.cfg = &f->cfg;
}

static void close_source(struct fixture *f)
{
	free(f->s.demuxed);
	free(f->s.runs);
	free(f->s.losses);
}

START_TEST(a_source_gets_its_own_bytes_with_auxiliary_bits)
{
	struct fixture f;

	open_source(&f, OURS);
	ck_assert_int_eq(etm_demultiplex(&f.s, frames, sizeof(frames), 0), 0);
	ck_assert_uint_eq(f.s.size, sizeof(ours));
	ck_assert_mem_eq(f.s.bytes, ours, sizeof(ours));
	ck_assert(!f.s.deformat_failed);
	ck_assert(!f.s.cut_frame);
	close_source(&f);

	open_source(&f, OTHER);
	ck_assert_int_eq(etm_demultiplex(&f.s, frames, sizeof(frames), 0), 0);
	ck_assert_uint_eq(f.s.size, sizeof(others));
	ck_assert_mem_eq(f.s.bytes, others, sizeof(others));
	close_source(&f);
}
END_TEST

/* OpenCSD's deformatter (the oracle here, as its lister's Idx) hands over a
 * source's bytes out of a frame with the buffer position of the ID byte
 * that selected the source there: ours at 0 (frame 0) and 16 (frame 1),
 * the other source's at 8. */
START_TEST(raw_offsets_map_to_their_frames)
{
	struct fixture f;

	open_source(&f, OURS);
	ck_assert_int_eq(etm_demultiplex(&f.s, frames, sizeof(frames), 0), 0);
	ck_assert_uint_eq(f.s.nruns, 2);
	ck_assert_uint_eq(etm_stream_offset(&f.s, 0), 0);	/* frame 0 */
	ck_assert_uint_eq(etm_stream_offset(&f.s, 7), 16);	/* frame 1 */
	close_source(&f);

	open_source(&f, OTHER);
	ck_assert_int_eq(etm_demultiplex(&f.s, frames, sizeof(frames), 0), 0);
	ck_assert_uint_eq(f.s.nruns, 1);
	ck_assert_uint_eq(etm_stream_offset(&f.s, 0), 8);
	close_source(&f);
}
END_TEST

START_TEST(a_buffer_cut_inside_a_frame_ends_before_it)
{
	uint8_t cut[40];
	struct fixture f;

	memcpy(cut, frames, sizeof(frames));
	memset(cut + 32, 0x21, 8);	/* half a frame */
	open_source(&f, OURS);
	ck_assert_int_eq(etm_demultiplex(&f.s, cut, sizeof(cut), 0), 0);
	ck_assert(f.s.cut_frame);
	ck_assert_uint_eq(f.s.cut_frame_at, 32);
	ck_assert_uint_eq(f.s.size, sizeof(ours));
	ck_assert_mem_eq(f.s.bytes, ours, sizeof(ours));
	close_source(&f);
}
END_TEST

START_TEST(a_loss_is_placed_where_the_sources_bytes_after_it_begin)
{
	struct fixture f;

	open_source(&f, OURS);
	f.s.losses = calloc(1, sizeof(*f.s.losses));
	ck_assert_ptr_nonnull(f.s.losses);
	f.s.nlosses = 1;
	f.s.losses[0].offset = 16;	/* between the frames */
	ck_assert_int_eq(etm_demultiplex(&f.s, frames, sizeof(frames), 0), 0);
	ck_assert_uint_eq(f.s.size, sizeof(ours));
	/* Frame 1 starts afresh with its own ID byte: ours after the loss
	 * begin at raw offset 7. */
	ck_assert_uint_eq(f.s.losses[0].raw, 7);
	ck_assert_mem_eq(f.s.bytes, ours, sizeof(ours));
	close_source(&f);
}
END_TEST

START_TEST(frames_from_start_on_only)
{
	struct fixture f;

	/* The kept trace starts at frame 1. */
	open_source(&f, OURS);
	ck_assert_int_eq(etm_demultiplex(&f.s, frames, sizeof(frames), 16), 0);
	ck_assert_uint_eq(f.s.size, 14);
	ck_assert_mem_eq(f.s.bytes, ours + 7, 14);
	ck_assert_uint_eq(etm_stream_offset(&f.s, 0), 16);
	close_source(&f);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("frames");

	tcase_add_test(tc, a_source_gets_its_own_bytes_with_auxiliary_bits);
	tcase_add_test(tc, raw_offsets_map_to_their_frames);
	tcase_add_test(tc, a_buffer_cut_inside_a_frame_ends_before_it);
	tcase_add_test(tc, a_loss_is_placed_where_the_sources_bytes_after_it_begin);
	tcase_add_test(tc, frames_from_start_on_only);
	return check_run_tcase("etm-demux", tc);
}
