/* test-perf-record: perf_event records parsed from bytes laid out as
 * <linux/perf_event.h> documents them (offsets written out by hand here,
 * not by our encoder), encoded and parsed back, and refused when they lie
 * about their size. */
#include "../unit/check-main.h"
#include "hwtrecord.h"
#include "../../kernel/linux/perf-record.h"
#include "../../kernel/linux/perf-time.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

static const struct perf_rec_layout tid_time_cpu_ident = {
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		PERF_SAMPLE_IDENTIFIER,
	true,
};

/* MMAP2 with a build-id: header 8, pid/tid 8, addr/len/pgoff 24,
 * {u8 size, 3 reserved, 20 id} 24, prot/flags 8, name padded, trailer. */
static size_t hand_mmap2(uint8_t *b)
{
	static const char name[] = "/usr/lib/libfoo.so";	/* 19 -> 24 */
	size_t i, off = 72 + 24, size = off + 32;

	memset(b, 0, 256);
	put32(b, PERF_RECORD_MMAP2);
	put16(b + 4, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put16(b + 6, (uint16_t)size);
	put32(b + 8, 100);
	put32(b + 12, 101);
	put64(b + 16, 0x7f0000001000);
	put64(b + 24, 0x2000);
	put64(b + 32, 0x1000);
	b[40] = 20;
	for (i = 0; i < 20; i++)
		b[44 + i] = (uint8_t)(0xa0 + i);
	put32(b + 64, 5);	/* PROT_READ | PROT_EXEC */
	put32(b + 68, 2);	/* MAP_PRIVATE */
	memcpy(b + 72, name, sizeof(name));
	put32(b + off, 100);	/* pid */
	put32(b + off + 4, 101);	/* tid */
	put64(b + off + 8, 123456789);	/* time */
	put32(b + off + 16, 3);	/* cpu */
	put64(b + off + 24, 42);	/* identifier */
	return size;
}

START_TEST(mmap2_with_build_id_parses_field_by_field)
{
	uint8_t b[256];
	size_t size = hand_mmap2(b);
	struct perf_rec r;
	size_t i;

	ck_assert_int_eq(perf_rec_parse(b, size, &tid_time_cpu_ident, &r), 0);
	ck_assert(r.known);
	ck_assert_uint_eq(r.type, PERF_RECORD_MMAP2);
	ck_assert_uint_eq(r.u.mmap.pid, 100);
	ck_assert_uint_eq(r.u.mmap.tid, 101);
	ck_assert_uint_eq(r.u.mmap.addr, 0x7f0000001000);
	ck_assert_uint_eq(r.u.mmap.len, 0x2000);
	ck_assert_uint_eq(r.u.mmap.pgoff, 0x1000);
	ck_assert_uint_eq(r.u.mmap.build_id_size, 20);
	for (i = 0; i < 20; i++)
		ck_assert_uint_eq(r.u.mmap.build_id[i], 0xa0 + i);
	ck_assert_uint_eq(r.u.mmap.prot, 5);
	ck_assert_uint_eq(r.u.mmap.flags, 2);
	ck_assert_str_eq(r.u.mmap.filename, "/usr/lib/libfoo.so");
	ck_assert(r.has_sample_id);
	ck_assert_uint_eq(r.sample.pid, 100);
	ck_assert_uint_eq(r.sample.tid, 101);
	ck_assert_uint_eq(r.sample.time, 123456789);
	ck_assert_uint_eq(r.sample.cpu, 3);
	ck_assert_uint_eq(r.sample.id, 42);
}
END_TEST

START_TEST(encoding_gives_the_same_bytes_as_the_hand_layout)
{
	uint8_t hand[256], enc[256];
	size_t size = hand_mmap2(hand);
	struct perf_rec r;
	int n;

	ck_assert_int_eq(perf_rec_parse(hand, size, &tid_time_cpu_ident, &r), 0);
	n = perf_rec_encode(&r, &tid_time_cpu_ident, enc, sizeof(enc));
	ck_assert_int_eq(n, (int)size);
	ck_assert_int_eq(memcmp(hand, enc, size), 0);
}
END_TEST

START_TEST(every_written_type_parses_back)
{
	static const struct perf_rec_layout l = { PERF_SAMPLE_TID |
						  PERF_SAMPLE_TIME, true };
	struct perf_rec in[8], out;
	uint8_t buf[512];
	size_t i;

	memset(in, 0, sizeof(in));
	in[0].type = PERF_RECORD_COMM;
	in[0].misc = PERF_RECORD_MISC_COMM_EXEC;
	in[0].u.comm = (struct perf_rec_comm){ 7, 8, "exactly8" };
	in[1].type = PERF_RECORD_FORK;
	in[1].u.task = (struct perf_rec_task){ 7, 7, 9, 7, 555 };
	in[2].type = PERF_RECORD_EXIT;
	in[2].u.task = (struct perf_rec_task){ 7, 7, 9, 7, 556 };
	in[3].type = PERF_RECORD_AUX;
	in[3].u.aux = (struct perf_rec_aux){ 4096, 512, PERF_AUX_FLAG_TRUNCATED };
	in[4].type = PERF_RECORD_ITRACE_START;
	in[4].u.itrace_start.pid = 7;
	in[4].u.itrace_start.tid = 9;
	in[5].type = PERF_RECORD_LOST;
	in[5].u.lost = (struct perf_rec_lost){ 3, 17 };
	in[6].type = PERF_RECORD_SWITCH_CPU_WIDE;
	in[6].misc = PERF_RECORD_MISC_SWITCH_OUT;
	in[6].u.sw.next_prev_pid = 7;
	in[6].u.sw.next_prev_tid = 10;
	in[7].type = PERF_RECORD_MMAP;
	in[7].u.mmap.pid = 7;
	in[7].u.mmap.addr = 0x400000;
	in[7].u.mmap.len = 0x1000;
	in[7].u.mmap.filename = "/bin/x";
	for (i = 0; i < 8; i++) {
		int n;

		in[i].sample.pid = 7;
		in[i].sample.tid = 9;
		in[i].sample.time = 1000 + i;
		n = perf_rec_encode(&in[i], &l, buf, sizeof(buf));
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(n % 8, 0);
		ck_assert_int_eq(perf_rec_parse(buf, (size_t)n, &l, &out), 0);
		ck_assert(out.known);
		ck_assert_uint_eq(out.type, in[i].type);
		ck_assert_uint_eq(out.sample.time, 1000 + i);
		ck_assert_uint_eq(out.sample.tid, 9);
	}
	/* The fields, for a few of them. */
	perf_rec_encode(&in[0], &l, buf, sizeof(buf));
	perf_rec_parse(buf, sizeof(buf), &l, &out);
	ck_assert_str_eq(out.u.comm.comm, "exactly8");
	perf_rec_encode(&in[3], &l, buf, sizeof(buf));
	perf_rec_parse(buf, sizeof(buf), &l, &out);
	ck_assert_uint_eq(out.u.aux.aux_offset, 4096);
	ck_assert_uint_eq(out.u.aux.flags, PERF_AUX_FLAG_TRUNCATED);
	perf_rec_encode(&in[6], &l, buf, sizeof(buf));
	perf_rec_parse(buf, sizeof(buf), &l, &out);
	ck_assert(out.u.sw.out);
	ck_assert_uint_eq(out.u.sw.next_prev_tid, 10);
}
END_TEST

/* AUX_OUTPUT_HW_ID (CoreSight's trace ID of a CPU, perf 6.3): header 8,
 * u64 hw_id, trailer. */
START_TEST(aux_output_hw_id_parses_and_encodes_to_the_hand_layout)
{
	uint8_t b[64], out[64];
	struct perf_rec r;
	size_t size = 16 + 32;

	memset(b, 0, sizeof(b));
	put32(b, PERF_RECORD_AUX_OUTPUT_HW_ID);
	put16(b + 6, (uint16_t)size);
	put64(b + 8, 0x12);		/* version 0, trace ID 0x12 */
	put32(b + 16, 100);
	put32(b + 20, 101);
	put64(b + 24, 5000);
	put32(b + 32, 2);		/* cpu */
	put64(b + 40, 7);
	ck_assert_int_eq(perf_rec_parse(b, size, &tid_time_cpu_ident, &r), 0);
	ck_assert(r.known);
	ck_assert_uint_eq(r.u.hw_id, 0x12);
	ck_assert(r.sample.has_cpu);
	ck_assert_uint_eq(r.sample.cpu, 2);
	ck_assert_int_eq(perf_rec_encode(&r, &tid_time_cpu_ident, out,
					 sizeof(out)), (int)size);
	ck_assert_mem_eq(out, b, size);
}
END_TEST

START_TEST(records_that_lie_about_their_size_are_refused)
{
	uint8_t b[256];
	size_t size = hand_mmap2(b);
	struct perf_rec r;

	/* fewer bytes than the header says */
	ck_assert_int_eq(perf_rec_parse(b, size - 8, &tid_time_cpu_ident, &r),
			 -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "only"));
	/* a header shorter than itself */
	put16(b + 6, 4);
	ck_assert_int_eq(perf_rec_parse(b, size, &tid_time_cpu_ident, &r),
			 -hwtr_err_format);
	/* too short for the trailer the layout asks for */
	put16(b + 6, 16);
	ck_assert_int_eq(perf_rec_parse(b, size, &tid_time_cpu_ident, &r),
			 -hwtr_err_format);
	/* a name without its NUL inside the record */
	size = hand_mmap2(b);
	memset(b + 72, 'x', 24);
	ck_assert_int_eq(perf_rec_parse(b, size, &tid_time_cpu_ident, &r),
			 -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "not terminated"));
	/* a build-id longer than 20 bytes */
	size = hand_mmap2(b);
	b[40] = 21;
	ck_assert_int_eq(perf_rec_parse(b, size, &tid_time_cpu_ident, &r),
			 -hwtr_err_format);
	/* header cut off */
	ck_assert_int_eq(perf_rec_parse(b, 5, &tid_time_cpu_ident, &r),
			 -hwtr_err_format);
}
END_TEST

START_TEST(unknown_types_keep_header_and_trailer)
{
	static const struct perf_rec_layout l = { PERF_SAMPLE_TID, true };
	uint8_t b[24] = { 0 };
	struct perf_rec r;

	put32(b, 30);		/* a type from a future kernel */
	put16(b + 6, 24);
	put32(b + 16, 5);
	put32(b + 20, 6);
	ck_assert_int_eq(perf_rec_parse(b, sizeof(b), &l, &r), 0);
	ck_assert(!r.known);
	ck_assert_uint_eq(r.size, 24);
	ck_assert_uint_eq(r.sample.tid, 6);
}
END_TEST

/* The kernel's conversion for a 2 GHz TSC, against arithmetic. */
START_TEST(tsc_and_perf_time_convert_both_ways)
{
	struct perf_tsc_conv tc;
	uint64_t cyc;

	perf_tsc_conv_for_freq(&tc, 2000000000);
	ck_assert_uint_eq(tc.time_shift, 31);
	ck_assert_uint_eq(tc.time_mult, 1u << 30);	/* 0.5 ns per cycle */
	ck_assert_uint_eq(perf_tsc_to_time(&tc, 2000000000), 1000000000);
	ck_assert_uint_eq(perf_tsc_to_time(&tc, 3), 1);
	for (cyc = 1000; cyc < 1000000000000ull; cyc = cyc * 7 + 3) {
		uint64_t back = perf_time_to_tsc(&tc, perf_tsc_to_time(&tc, cyc));

		ck_assert_uint_le(back, cyc);
		ck_assert_uint_ge(back + 2, cyc);
	}
	/* A conversion with a "negative" time zero, as kernels publish. */
	tc.time_zero = (uint64_t)-5000;
	ck_assert_uint_eq(perf_tsc_to_time(&tc, 20000), 5000);
	ck_assert_uint_eq(perf_time_to_tsc(&tc, 5000), 20000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perf-record");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, mmap2_with_build_id_parses_field_by_field);
	tcase_add_test(tc, encoding_gives_the_same_bytes_as_the_hand_layout);
	tcase_add_test(tc, every_written_type_parses_back);
	tcase_add_test(tc, aux_output_hw_id_parses_and_encodes_to_the_hand_layout);
	tcase_add_test(tc, records_that_lie_about_their_size_are_refused);
	tcase_add_test(tc, unknown_types_keep_header_and_trailer);
	tcase_add_test(tc, tsc_and_perf_time_convert_both_ways);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
