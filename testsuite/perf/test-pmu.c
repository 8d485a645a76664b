/* test-pmu: PMU discovery over fake sysfs trees laid out like a Skylake's
 * /sys/bus/event_source/devices/intel_pt, the attr of a thread's event, and
 * the permission check over fake perf_event_paranoid files. */
#include "../unit/check-main.h"
#include "hwtrecord.h"
#include "../../kernel/linux/pmu.h"
#include "../../kernel/linux/pt-event.h"
#include "../../kernel/pt-cpu.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[256];

static void write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

/* What a Skylake publishes (format bits mirror IA32_RTIT_CTL). */
static void fake_intel_pt(void)
{
	static const char *const formats[][2] = {
		{ "pt", "config:0\n" }, { "cyc", "config:1\n" },
		{ "pwr_evt", "config:4\n" }, { "fup_on_ptw", "config:5\n" },
		{ "mtc", "config:9\n" }, { "tsc", "config:10\n" },
		{ "noretcomp", "config:11\n" }, { "ptw", "config:12\n" },
		{ "branch", "config:13\n" }, { "mtc_period", "config:14-17\n" },
		{ "cyc_thresh", "config:19-22\n" },
		{ "psb_period", "config:24-27\n" },
	};
	char rel[128];
	size_t i;

	snprintf(root, sizeof(root), "/tmp/hwtr-pmu-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkdirs("intel_pt");
	mkdirs("intel_pt/format");
	mkdirs("intel_pt/caps");
	write_file("intel_pt/type", "8\n");
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		snprintf(rel, sizeof(rel), "intel_pt/format/%s", formats[i][0]);
		write_file(rel, formats[i][1]);
	}
	write_file("intel_pt/caps/psb_cyc", "1\n");
	write_file("intel_pt/caps/psb_periods", "003f\n");
	write_file("intel_pt/caps/mtc", "1\n");
}

static void remove_root(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(type_formats_and_caps_come_from_sysfs)
{
	struct perf_pmu pmu;
	const struct perf_pmu_format *f;

	fake_intel_pt();
	ck_assert_int_eq(perf_pmu_read(root, "intel_pt", &pmu), 0);
	ck_assert_uint_eq(pmu.type, 8);
	ck_assert_uint_eq(pmu.nformats, 12);
	f = perf_pmu_format(&pmu, "mtc_period");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->word, 0);
	ck_assert_uint_eq(f->mask, 0xfull << 14);
	ck_assert_str_eq(perf_pmu_cap(&pmu, "psb_cyc"), "1");
	ck_assert_ptr_null(perf_pmu_cap(&pmu, "ptwrite"));
	remove_root();
}
END_TEST

START_TEST(a_missing_pmu_is_named)
{
	struct perf_pmu pmu;

	fake_intel_pt();
	ck_assert_int_eq(perf_pmu_read(root, "cs_etm", &pmu), -hwtr_err_notfound);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "no cs_etm PMU"));
	write_file("intel_pt/type", "eight\n");
	ck_assert_int_eq(perf_pmu_read(root, "intel_pt", &pmu), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "intel_pt/type"));
	write_file("intel_pt/type", "8\n");
	write_file("intel_pt/format/tsc", "config:70\n");
	ck_assert_int_eq(perf_pmu_read(root, "intel_pt", &pmu), -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "format/tsc"));
	remove_root();
}
END_TEST

START_TEST(format_strings_with_several_ranges)
{
	struct perf_pmu_format f;

	ck_assert_int_eq(perf_pmu_parse_format("config1:0-3,8,10-11", &f), 0);
	ck_assert_uint_eq(f.word, 1);
	ck_assert_uint_eq(f.mask, 0xfull | (1ull << 8) | (3ull << 10));
	ck_assert_int_eq(perf_pmu_parse_format("config2:63", &f), 0);
	ck_assert_uint_eq(f.mask, 1ull << 63);
	ck_assert_int_lt(perf_pmu_parse_format("config:5-2", &f), 0);
	ck_assert_int_lt(perf_pmu_parse_format("period:1", &f), 0);
	ck_assert_int_lt(perf_pmu_parse_format("config", &f), 0);
}
END_TEST

START_TEST(values_are_scattered_into_the_field_bits)
{
	struct perf_pmu pmu = { .name = "x" };
	struct perf_event_attr attr = { 0 };

	pmu.nformats = 2;
	snprintf(pmu.formats[0].name, 32, "split");
	perf_pmu_parse_format("config:0-1,8-9", &pmu.formats[0]);
	snprintf(pmu.formats[1].name, 32, "sink");
	perf_pmu_parse_format("config2:0-31", &pmu.formats[1]);
	ck_assert_int_eq(perf_pmu_set(&pmu, &attr, "split", 0xd), 0);
	ck_assert_uint_eq(attr.config, 0x1 | 0x300);	/* 1101 -> bits 0,8,9 */
	ck_assert_int_eq(perf_pmu_set(&pmu, &attr, "split", 0x10), -hwtr_err_invalid);
	ck_assert_int_eq(perf_pmu_set(&pmu, &attr, "sink", 0x1234), 0);
	ck_assert_uint_eq(attr.config2, 0x1234);
	ck_assert_int_eq(perf_pmu_set(&pmu, &attr, "nope", 1), -hwtr_err_notfound);
}
END_TEST

/* The thread event's attr, bit for bit against the format files. */
START_TEST(the_thread_event_attr_follows_the_format_files)
{
	struct pt_event_config cfg = { .ret_compression = false,
				       .psb_period = 4096, .data_pages = 64,
				       .aux_bytes = 1 << 22 };
	struct perf_event_attr a;

	fake_intel_pt();
	ck_assert_int_eq(perf_pmu_read(root, "intel_pt", &cfg.pmu), 0);
	ck_assert_int_eq(pt_event_attr(&cfg, false, &a), 0);
	ck_assert_uint_eq(a.type, 8);
	/* pt (0), tsc (10), noretcomp (11), branch (13), psb_period 1 (24) */
	ck_assert_uint_eq(a.config, 1ull | 1ull << 10 | 1ull << 11 | 1ull << 13 |
				    1ull << 24);
	ck_assert(a.exclude_kernel && a.exclude_hv);
	ck_assert(a.disabled && a.enable_on_exec);
	ck_assert(a.mmap && a.mmap2 && a.comm && a.comm_exec && a.task);
	ck_assert(a.sample_id_all);
	ck_assert(a.sample_type & PERF_SAMPLE_TIME);
	ck_assert_uint_eq(a.aux_watermark, 1 << 20);
	cfg.ret_compression = true;
	cfg.psb_period = 0;
	ck_assert_int_eq(pt_event_attr(&cfg, true, &a), 0);
	ck_assert_uint_eq(a.config, 1ull | 1ull << 10 | 1ull << 13);
	ck_assert(!a.disabled && !a.enable_on_exec);
	remove_root();
}
END_TEST

/* CPUID leaf 1 EAX, composed by hand from the SDM's fields: extended
 * family 3 and model 0xA over base family 0xF (family 18, model 0xA5), a
 * family 6 part (Ice Lake, model 0x7E), and a base family below 6 that
 * takes neither extension. */
START_TEST(the_cpu_identity_follows_the_sdm)
{
	struct hwtr_pt_config pt;

	pt_cpu_identity(3u << 20 | 0xAu << 16 | 0xFu << 8 | 0x5u << 4 | 1, &pt);
	ck_assert_uint_eq(pt.family, 18);
	ck_assert_uint_eq(pt.model, 0xA5);
	ck_assert_uint_eq(pt.stepping, 1);
	pt_cpu_identity(0x7u << 16 | 0x6u << 8 | 0xEu << 4 | 5, &pt);
	ck_assert_uint_eq(pt.family, 6);
	ck_assert_uint_eq(pt.model, 0x7E);
	ck_assert_uint_eq(pt.stepping, 5);
	pt_cpu_identity(3u << 20 | 0xAu << 16 | 0x5u << 8 | 0x2u << 4, &pt);
	ck_assert_uint_eq(pt.family, 5);
	ck_assert_uint_eq(pt.model, 2);
}
END_TEST

START_TEST(permission_says_what_to_change)
{
	char why[512], path[512];

	fake_intel_pt();
	snprintf(path, sizeof(path), "%s/paranoid", root);
	write_file("paranoid", "2\n");
	ck_assert(perf_may_trace(path, 0, why, sizeof(why)));
	write_file("paranoid", "3\n");
	ck_assert(!perf_may_trace(path, 0, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "perf_event_paranoid is 3"));
	ck_assert_ptr_nonnull(strstr(why, "CAP_PERFMON"));
	/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) pass whatever the sysctl */
	ck_assert(perf_may_trace(path, 1ull << 38, why, sizeof(why)));
	ck_assert(perf_may_trace(path, 1ull << 21, why, sizeof(why)));
	snprintf(path, sizeof(path), "%s/none", root);
	ck_assert(!perf_may_trace(path, 0, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "no perf_event support"));
	remove_root();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pmu");
	TCase *tc = tcase_create("sysfs");

	tcase_add_test(tc, type_formats_and_caps_come_from_sysfs);
	tcase_add_test(tc, a_missing_pmu_is_named);
	tcase_add_test(tc, format_strings_with_several_ranges);
	tcase_add_test(tc, values_are_scattered_into_the_field_bits);
	tcase_add_test(tc, the_thread_event_attr_follows_the_format_files);
	tcase_add_test(tc, permission_says_what_to_change);
	tcase_add_test(tc, the_cpu_identity_follows_the_sdm);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
