/* test-perf-cs-etm: CoreSight's AUXTRACE_INFO words (formats/perf-cs-etm.c)
 * read from word arrays laid out by hand as perf's tools/perf/util/cs-etm.h
 * defines them (header version 0, 1 and 2; ETMv4, ETE and ETMv3 blocks;
 * parameters a newer perf appends), written back, and refused when they
 * lie: unknown magic, counts past the end, words left over, a CPU twice. */
#include "../unit/check-main.h"
#include "hwtrecord.h"
#include "../../formats/perf-cs-etm.h"

#include <check.h>
#include <string.h>

#define V4 UINT64_C(0x4040404040404040)
#define ETE UINT64_C(0x5050505050505050)
#define V3 UINT64_C(0x3030303030303030)

/* Version 1: header, then CPU 2's ETMv4 block with 8 parameters (the 7 of
 * version 0 and TS_SOURCE), then CPU 5's ETE block with 9 and one more a
 * future perf added. */
static const uint64_t v1_words[] = {
	1, UINT64_C(9) << 32 | 2, 0,
	V4, 2, 8,
	0x40, 0x10, 0x28000ea1, 0x4100f403, 0x488, 0, 0xcc, 1,
	ETE, 5, 10,
	0x840, 0x12, 0x28000ea1, 0x4100f403, 0x488, 0x4, 0xcc, 0x47705a13, 1,
	0xdead,
};

START_TEST(version_1_blocks_read_field_by_field)
{
	struct cs_etm_info info;
	struct hwtr_etm_config e;

	ck_assert_msg(cs_etm_info_parse(v1_words, sizeof(v1_words) / 8, &info) == 0,
		      "%s", hwtr_last_error());
	ck_assert_uint_eq(info.version, 1);
	ck_assert_uint_eq(info.pmu_type, 9);
	ck_assert(!info.snapshot);
	ck_assert_uint_eq(info.ncpus, 2);
	ck_assert_int_eq(info.cpus[0].protocol, CS_ETM_V4);
	ck_assert_uint_eq(info.cpus[0].cpu, 2);
	ck_assert_uint_eq(info.cpus[0].trcconfigr, 0x40);
	ck_assert_uint_eq(info.cpus[0].trctraceidr, 0x10);
	ck_assert_uint_eq(info.cpus[0].trcidr0, 0x28000ea1);
	ck_assert_uint_eq(info.cpus[0].trcidr1, 0x4100f403);
	ck_assert_uint_eq(info.cpus[0].trcidr2, 0x488);
	ck_assert_uint_eq(info.cpus[0].trcauthstatus, 0xcc);
	ck_assert(info.cpus[0].has_ts_source);
	ck_assert_uint_eq(info.cpus[0].ts_source, 1);
	ck_assert_int_eq(info.cpus[1].protocol, CS_ETM_ETE);
	ck_assert_uint_eq(info.cpus[1].cpu, 5);
	ck_assert_uint_eq(info.cpus[1].trcidr8, 0x4);
	ck_assert_uint_eq(info.cpus[1].trcdevarch, 0x47705a13);
	ck_assert_uint_eq(info.cpus[1].ts_source, 1);
	cs_etm_cpu_to_config(&info.cpus[1], &e);
	ck_assert(e.ete);
	ck_assert_uint_eq(e.trace_id, 0x12);
	ck_assert_uint_eq(e.trcconfigr, 0x840);
	ck_assert_uint_eq(e.trcidr[8], 0x4);
	ck_assert_uint_eq(e.trcdevarch, 0x47705a13);
	ck_assert_int_eq(e.cpu, 5);
	ck_assert(e.formatted);
	ck_assert_uint_eq(e.arch_version, 0x864);
	cs_etm_info_release(&info);
}
END_TEST

/* Version 0 (perf before 5.10): no count; ETMv4 7 parameters, ETMv3 4. */
START_TEST(version_0_blocks_have_fixed_sizes)
{
	static const uint64_t w[] = {
		0, UINT64_C(7) << 32 | 2, 1,
		V3, 0, 0x1000, 0x10, 0, 0x410fc075,
		V4, 1, 0x1, 0x11, 0x28000ea1, 0x4100f403, 0x488, 0, 0xcc,
	};
	struct cs_etm_info info;

	ck_assert_msg(cs_etm_info_parse(w, sizeof(w) / 8, &info) == 0, "%s",
		      hwtr_last_error());
	ck_assert(info.snapshot);
	ck_assert_uint_eq(info.ncpus, 2);
	ck_assert_int_eq(info.cpus[0].protocol, CS_ETM_V3);
	ck_assert_int_eq(info.cpus[1].protocol, CS_ETM_V4);
	ck_assert_uint_eq(info.cpus[1].trctraceidr, 0x11);
	ck_assert(!info.cpus[1].has_ts_source);
	cs_etm_info_release(&info);
}
END_TEST

/* Written back as version 1 without TS_SOURCE: the words a hand layout of
 * the same units has. */
START_TEST(encoding_gives_the_hand_layout)
{
	static const uint64_t want[] = {
		1, UINT64_C(9) << 32 | 2, 0,
		V4, 2, 7, 0x40, 0x10, 0x28000ea1, 0x4100f403, 0x488, 0, 0xcc,
		ETE, 5, 8, 0x840, 0x12, 0x28000ea1, 0x4100f403, 0x488, 0x4, 0xcc,
		0x47705a13,
	};
	struct cs_etm_info info, back;
	struct hwtr_etm_config e;
	uint64_t got[64];
	size_t n, i;

	ck_assert_int_eq(cs_etm_info_parse(v1_words, sizeof(v1_words) / 8, &info), 0);
	n = cs_etm_info_encode(&info, NULL);
	ck_assert_uint_eq(n, sizeof(want) / 8);
	ck_assert_uint_eq(cs_etm_info_encode(&info, got), n);
	ck_assert_mem_eq(got, want, sizeof(want));
	/* And through the recording's configuration. */
	for (i = 0; i < info.ncpus; i++) {
		cs_etm_cpu_to_config(&info.cpus[i], &e);
		cs_etm_cpu_from_config(&e, info.cpus[i].cpu, &info.cpus[i]);
	}
	ck_assert_uint_eq(cs_etm_info_encode(&info, got), n);
	ck_assert_mem_eq(got, want, sizeof(want));
	ck_assert_int_eq(cs_etm_info_parse(got, n, &back), 0);
	ck_assert_uint_eq(back.ncpus, 2);
	cs_etm_info_release(&back);
	cs_etm_info_release(&info);
}
END_TEST

/* Version 2: TRCTRACEIDR with bit 31 says the ID comes elsewhere. */
START_TEST(version_2_reads_and_keeps_the_unused_flag)
{
	uint64_t w[sizeof(v1_words) / 8];
	struct cs_etm_info info;

	memcpy(w, v1_words, sizeof(w));
	w[0] = 2;
	w[7] = CS_ETM_TRACE_ID_UNUSED | 0x10;
	ck_assert_int_eq(cs_etm_info_parse(w, sizeof(w) / 8, &info), 0);
	ck_assert(info.cpus[0].trctraceidr & CS_ETM_TRACE_ID_UNUSED);
	cs_etm_info_release(&info);
}
END_TEST

static void refused(const uint64_t *w, size_t n, const char *want)
{
	struct cs_etm_info info;

	ck_assert_int_lt(cs_etm_info_parse(w, n, &info), 0);
	ck_assert_msg(strstr(hwtr_last_error(), want), "'%s' lacks '%s'",
		      hwtr_last_error(), want);
	ck_assert_ptr_null(info.cpus);
}

START_TEST(words_that_lie_are_refused_naming_the_word)
{
	uint64_t w[sizeof(v1_words) / 8];
	size_t n = sizeof(w) / 8;

	refused(v1_words, 2, "the header alone is 3");
	memcpy(w, v1_words, sizeof(w));
	w[0] = 3;
	refused(w, n, "version 3: written by a newer perf");
	memcpy(w, v1_words, sizeof(w));
	w[1] = UINT64_C(9) << 32 | 40;
	refused(w, n, "says 40 CPUs");
	memcpy(w, v1_words, sizeof(w));
	w[14] = 0x6060606060606060;
	refused(w, n, "word 14: CPU block 1 has magic 0x6060606060606060");
	memcpy(w, v1_words, sizeof(w));
	w[16] = 1000;
	refused(w, n, "CPU block 1 (word 14) runs past the 27 private words");
	memcpy(w, v1_words, sizeof(w));
	w[5] = 3;
	refused(w, n, "the ETMv4 block of CPU 2 has 3 parameters");
	memcpy(w, v1_words, sizeof(w));
	w[15] = 2;
	refused(w, n, "CPU 2 has a block already (word 3)");
	refused(v1_words, n - 1, "runs past");
	/* Two CPUs said, the words end after the first block. */
	refused(v1_words, 14, "CPU block 1 (word 14) runs past the 14 private words");
	memcpy(w, v1_words, sizeof(w));
	w[16] = 9;
	refused(w, n, "1 word after the last CPU's block (word 26)");
	{
		static const uint64_t ete_v0[] = {
			0, UINT64_C(9) << 32 | 1, 0, ETE, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		};

		refused(ete_v0, sizeof(ete_v0) / 8,
			"word 3: an ETE block in a version 0 header");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perf-cs-etm");
	TCase *tc = tcase_create("words");

	tcase_add_test(tc, version_1_blocks_read_field_by_field);
	tcase_add_test(tc, version_0_blocks_have_fixed_sizes);
	tcase_add_test(tc, encoding_gives_the_hand_layout);
	tcase_add_test(tc, version_2_reads_and_keeps_the_unused_flag);
	tcase_add_test(tc, words_that_lie_are_refused_naming_the_word);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
