/* test-recording: the writer and the reader of formats v1 (Intel PT) and v2
 * (ETM) agree, and the reader rejects or reports bad and cut-off recordings
 * precisely. */
#include "hwtrecord.h"
#include "check-main.h"

#include <check.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hwtr-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *rec_path(const char *name)
{
	static char path[400];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static struct hwtr_writer *new_writer(const char *dir)
{
	static const char *const argv[] = { "./app", "--flag" };
	struct hwtr_writer_info info = {
		.source = "test", .pid = 42, .executable = "/bin/app",
		.argc = 2, .argv = argv,
	};
	struct hwtr_writer *w = NULL;

	strcpy(info.pt.vendor, "intel");
	info.pt.family = 6;
	info.pt.model = 0x55;
	info.pt.tsc = true;
	ck_assert_int_eq(hwtr_writer_create(dir, &info, &w), 0);
	return w;
}

START_TEST(writer_and_reader_round_trip)
{
	struct hwtr_sideband_event mm = {
		.kind = hwtr_ev_mmap, .tsc = 5, .addr = 0x400000, .len = 0x1000,
		.pgoff = 0x2000, .prot = HWTR_PROT_READ | HWTR_PROT_EXEC,
		.path = "/bin/app", .build_id = "abcd",
	};
	struct hwtr_end end = { hwtr_end_signaled, 11 };
	const struct hwtr_recording_info *info;
	const struct hwtr_sideband_event *ev;
	struct hwtr_recording *rec;
	struct hwtr_writer *w;
	const uint8_t *bytes;
	size_t size;

	make_tmpdir();
	w = new_writer(rec_path("a.hwtrec"));
	ck_assert_int_eq(hwtr_writer_add_thread(w, 101, 1), 0);
	ck_assert_int_eq(hwtr_writer_add_thread(w, 102, 2), 0);
	ck_assert_int_eq(hwtr_writer_event(w, &mm), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 101, "\x02\x82", 2), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 102, "xyz", 3), 0);
	ck_assert_int_eq(hwtr_writer_finish(w, &end), 0);
	hwtr_writer_free(w);

	ck_assert_int_eq(hwtr_recording_open(rec_path("a.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert_int_eq(info->version, 1);
	ck_assert_str_eq(info->source, "test");
	ck_assert_str_eq(info->pt.vendor, "intel");
	ck_assert_int_eq(info->pt.model, 0x55);
	ck_assert_int_eq(info->pid, 42);
	ck_assert_uint_eq(info->argc, 2);
	ck_assert_str_eq(info->argv[1], "--flag");
	ck_assert_uint_eq(info->nthreads, 2);
	ck_assert_uint_eq(info->threads[1].tid, 102);
	ck_assert_int_eq(info->end.state, hwtr_end_signaled);
	ck_assert_int_eq(info->end.code, 11);
	ck_assert(info->complete);
	ck_assert(!info->cut_off);
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 3);
	ev = hwtr_recording_event(rec, 2);
	ck_assert_int_eq(ev->kind, hwtr_ev_mmap);
	ck_assert_uint_eq(ev->addr, 0x400000);
	ck_assert_uint_eq(ev->pgoff, 0x2000);
	ck_assert_int_eq(ev->prot, HWTR_PROT_READ | HWTR_PROT_EXEC);
	ck_assert_str_eq(ev->build_id, "abcd");
	ck_assert_int_eq(hwtr_recording_trace(rec, 1, &bytes, &size), 0);
	ck_assert_uint_eq(size, 3);
	ck_assert_int_eq(memcmp(bytes, "xyz", 3), 0);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* The end state "aborted" (the recorder could not follow the program): the
 * reason and the signal come back as written; the writer keeps its own copy
 * of the reason. */
START_TEST(aborted_end_keeps_its_reason_and_signal)
{
	char reason[64] = "Valgrind cannot decode the instruction at 0x1000";
	const struct hwtr_recording_info *info;
	struct hwtr_recording *rec;
	struct hwtr_writer *w;

	make_tmpdir();
	w = new_writer(rec_path("c.hwtrec"));
	ck_assert_int_eq(hwtr_writer_add_thread(w, 7, 1), 0);
	ck_assert_int_eq(hwtr_writer_finish_aborted(w, reason, 4), 0);
	memset(reason, 'x', sizeof(reason) - 1);
	ck_assert_int_eq(hwtr_writer_flush(w), 0);
	hwtr_writer_free(w);
	ck_assert_int_eq(hwtr_recording_open(rec_path("c.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert_int_eq(info->end.state, hwtr_end_aborted);
	ck_assert_int_eq(info->end.code, 4);
	ck_assert_str_eq(info->end_reason,
			 "Valgrind cannot decode the instruction at 0x1000");
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(unfinished_recording_opens_and_says_cut_off)
{
	struct hwtr_recording *rec;
	struct hwtr_writer *w;
	char path[512];
	FILE *f;

	make_tmpdir();
	w = new_writer(rec_path("b.hwtrec"));
	ck_assert_int_eq(hwtr_writer_add_thread(w, 7, 1), 0);
	ck_assert_int_eq(hwtr_writer_flush(w), 0);
	hwtr_writer_free(w);	/* no finish: the recorder "died" */
	/* and the sideband's last line was half written */
	snprintf(path, sizeof(path), "%s/sideband.jsonl", rec_path("b.hwtrec"));
	f = fopen(path, "a");
	fputs("{\"event\":\"mm", f);
	fclose(f);

	ck_assert_int_eq(hwtr_recording_open(rec_path("b.hwtrec"), &rec), 0);
	ck_assert(!hwtr_recording_info(rec)->complete);
	ck_assert(hwtr_recording_info(rec)->cut_off);
	ck_assert_ptr_nonnull(strstr(hwtr_recording_info(rec)->cut_off_reason,
				     "complete"));
	ck_assert_uint_eq(hwtr_recording_nevents(rec), 1);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

static void expect_open_error(const char *manifest, int code,
			      const char *message_part)
{
	struct hwtr_recording *rec = NULL;
	char dir[400], path[512];

	snprintf(dir, sizeof(dir), "%s", rec_path("m.hwtrec"));
	mkdir(dir, 0777);
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	write_text(path, manifest);
	ck_assert_int_eq(hwtr_recording_open(dir, &rec), -code);
	ck_assert_ptr_null(rec);
	ck_assert_msg(strstr(hwtr_last_error(), message_part),
		      "message \"%s\" lacks \"%s\"", hwtr_last_error(),
		      message_part);
	ck_assert_msg(strstr(hwtr_last_error(), "manifest.json"),
		      "message \"%s\" does not name the file", hwtr_last_error());
}

START_TEST(bad_manifests_are_rejected_with_the_field_named)
{
	make_tmpdir();
	expect_open_error("{", hwtr_err_format, "manifest.json:");
	expect_open_error("{\"format\":\"other\",\"version\":1}", hwtr_err_format,
			  "\"other\"");
	expect_open_error("{\"format\":\"hwtrecord\"}", hwtr_err_format,
			  "\"version\" is missing");
	expect_open_error("{\"format\":\"hwtrecord\",\"version\":9}",
			  hwtr_err_version, "version 9");
	expect_open_error("{\"format\":\"hwtrecord\",\"version\":1,\"arch\":"
			  "\"x86_64\",\"trace_format\":\"intel-pt\",\"source\":"
			  "\"t\",\"pt\":{\"cpu\":{}},\"process\":{},\"threads\":"
			  "[{\"tid\":\"x\",\"stream\":\"trace/1.pt\"}]}",
			  hwtr_err_format, "\"tid\"");
	expect_open_error("{\"format\":\"hwtrecord\",\"version\":1,\"arch\":"
			  "\"x86_64\",\"trace_format\":\"intel-pt\",\"source\":"
			  "\"t\",\"pt\":{\"cpu\":{}},\"process\":{},\"threads\":"
			  "[{\"tid\":1,\"stream\":\"../../etc/passwd\"}]}",
			  hwtr_err_format, "leaves the recording");
	expect_open_error("{\"format\":\"hwtrecord\",\"version\":1,\"arch\":"
			  "\"x86_64\",\"trace_format\":\"intel-pt\",\"source\":"
			  "\"t\",\"process\":{},\"threads\":[]}",
			  hwtr_err_format, "\"pt\" is missing");
	remove_tmpdir();
}
END_TEST

START_TEST(bad_sideband_line_is_named)
{
	struct hwtr_recording *rec = NULL;
	struct hwtr_writer *w;
	char path[512];
	FILE *f;

	make_tmpdir();
	w = new_writer(rec_path("s.hwtrec"));
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	ck_assert_int_eq(hwtr_writer_finish(w, NULL), 0);
	hwtr_writer_free(w);
	snprintf(path, sizeof(path), "%s/sideband.jsonl", rec_path("s.hwtrec"));
	f = fopen(path, "w");
	fputs("{\"event\":\"exec\",\"tsc\":1,\"path\":\"/a\"}\n"
	      "{\"event\":\"mmap\",\"tsc\":2,\"addr\":\"0x1000\",\"len\":1,"
	      "\"prot\":\"rwz\"}\n", f);
	fclose(f);
	ck_assert_int_eq(hwtr_recording_open(rec_path("s.hwtrec"), &rec),
			 -hwtr_err_format);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "sideband.jsonl:2:"));
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "\"prot\""));
	remove_tmpdir();
}
END_TEST

/* A finished recording carries each file's length and CRC-32, a copy saved
 * from a live one too; the values are those of the bytes the test wrote
 * (zlib's crc32 of them is the oracle). */
START_TEST(finished_recordings_and_saved_copies_carry_lengths_and_crcs)
{
	static const uint8_t first[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
	static const uint8_t more[] = { 0x00, 0x00, 0x19, 0x01 };
	const struct hwtr_recording_info *info;
	struct hwtr_recording *rec;
	struct hwtr_writer *w;
	struct hwtr_end end = { hwtr_end_exited, 0 };
	uint32_t crc_first = (uint32_t)crc32(0, first, sizeof(first));
	uint32_t crc_all = (uint32_t)crc32(crc_first, more, sizeof(more));
	size_t i;

	make_tmpdir();
	w = new_writer(rec_path("live.hwtrec"));
	ck_assert_int_eq(hwtr_writer_add_thread(w, 9, 1), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 9, first, sizeof(first)), 0);
	ck_assert_int_eq(hwtr_writer_save_copy(w, rec_path("copy.hwtrec")), 0);
	ck_assert_int_eq(hwtr_writer_trace(w, 9, more, sizeof(more)), 0);

	/* The live recording says nothing of lengths until it is finished. */
	ck_assert_int_eq(hwtr_recording_open(rec_path("live.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert(!info->complete);
	ck_assert(!info->threads[0].has_stream_check);
	ck_assert_uint_eq(info->nfiles, 0);
	hwtr_recording_close(rec);

	ck_assert_int_eq(hwtr_recording_open(rec_path("copy.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert(info->complete);
	ck_assert(info->threads[0].has_stream_check);
	ck_assert_uint_eq(info->threads[0].stream_size, sizeof(first));
	ck_assert_uint_eq(info->threads[0].stream_crc32, crc_first);
	hwtr_recording_close(rec);

	ck_assert_int_eq(hwtr_writer_finish(w, &end), 0);
	hwtr_writer_free(w);
	ck_assert_int_eq(hwtr_recording_open(rec_path("live.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert_uint_eq(info->threads[0].stream_size, sizeof(first) + sizeof(more));
	ck_assert_uint_eq(info->threads[0].stream_crc32, crc_all);
	ck_assert_uint_eq(info->nfiles, 1);
	ck_assert_str_eq(info->files[0].name, "sideband.jsonl");
	for (i = 0; i < info->nfiles; i++) {
		char path[600];
		FILE *f;
		long size;

		snprintf(path, sizeof(path), "%s/%s", rec_path("live.hwtrec"),
			 info->files[i].name);
		f = fopen(path, "rb");
		ck_assert_ptr_nonnull(f);
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
		ck_assert_uint_eq(info->files[i].size, (uint64_t)size);
	}
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

START_TEST(writer_refuses_a_non_empty_directory)
{
	struct hwtr_writer_info info = { .source = "test" };
	struct hwtr_writer *w = NULL;

	make_tmpdir();
	write_text(rec_path("file"), "x");
	ck_assert_int_eq(hwtr_writer_create(tmpdir, &info, &w), -hwtr_err_io);
	ck_assert_ptr_nonnull(strstr(hwtr_last_error(), "not an empty directory"));
	remove_tmpdir();
}
END_TEST

/* A CoreSight trace buffer shared by two sources, as the importer writes
 * it: version 2, arch aarch64, each source's trace unit in the manifest. */
START_TEST(etm_recording_is_version_2_with_each_sources_trace_unit)
{
	struct hwtr_writer_info winfo = {
		.source = "opencsd-snapshot", .trace_format = "etm4",
		.arch = "aarch64",
	};
	struct hwtr_etm_config etm = {
		.trace_id = 0x10, .formatted = true,
		.frame_flags = HWTR_ETM_FRAME_MEM_ALIGN, .arch_version = 0x800,
		.profile = 'A', .trcconfigr = 0xc1, .trctraceidr = 0x10,
		.trcauthstatus = 0xcc, .source = "ETM_0", .core = "cpu_0",
		.core_type = "Cortex-A53", .cpu = 0,
	};
	const struct hwtr_recording_info *info;
	const char *stream = NULL;
	struct hwtr_recording *rec;
	struct hwtr_writer *w;
	const uint8_t *bytes;
	size_t size;

	etm.trcidr[0] = 0x28000ea1;
	etm.trcidr[1] = 0x4100f403;
	etm.trcidr[2] = 0x488;
	make_tmpdir();
	ck_assert_int_eq(hwtr_writer_create(rec_path("e.hwtrec"), &winfo, &w), 0);
	ck_assert_int_eq(hwtr_writer_save_trace(w, "ETB_0.bin", "\x01\x02\x03", 3,
						&stream), 0);
	ck_assert_str_eq(stream, "trace/ETB_0.bin");
	ck_assert_int_eq(hwtr_writer_add_source(w, 16, 0, stream, &etm), 0);
	etm.trace_id = 0x11;
	etm.trctraceidr = 0x11;
	etm.source = "ETM_1";
	etm.cpu = 1;
	ck_assert_int_eq(hwtr_writer_add_source(w, 17, 0, stream, &etm), 0);
	/* A source needs a saved stream; a shared stream is not appended to. */
	ck_assert_int_eq(hwtr_writer_add_source(w, 18, 0, "trace/other", &etm),
			 -hwtr_err_invalid);
	ck_assert_int_eq(hwtr_writer_trace(w, 16, "x", 1), -hwtr_err_notfound);
	ck_assert_int_eq(hwtr_writer_finish(w, NULL), 0);
	hwtr_writer_free(w);

	ck_assert_int_eq(hwtr_recording_open(rec_path("e.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert_int_eq(info->version, 2);
	ck_assert_str_eq(info->arch, "aarch64");
	ck_assert_str_eq(info->trace_format, "etm4");
	ck_assert_uint_eq(info->nthreads, 2);
	ck_assert_str_eq(info->threads[0].stream, "trace/ETB_0.bin");
	ck_assert_str_eq(info->threads[1].stream, "trace/ETB_0.bin");
	ck_assert_ptr_nonnull(info->threads[0].etm);
	ck_assert_uint_eq(info->threads[0].etm->trace_id, 0x10);
	ck_assert_uint_eq(info->threads[1].etm->trace_id, 0x11);
	ck_assert(info->threads[0].etm->formatted);
	ck_assert_uint_eq(info->threads[0].etm->frame_flags, HWTR_ETM_FRAME_MEM_ALIGN);
	ck_assert(!info->threads[0].etm->ete);
	ck_assert_uint_eq(info->threads[0].etm->trcconfigr, 0xc1);
	ck_assert_uint_eq(info->threads[0].etm->trcidr[0], 0x28000ea1);
	ck_assert_uint_eq(info->threads[0].etm->trcidr[1], 0x4100f403);
	ck_assert_uint_eq(info->threads[0].etm->trcidr[2], 0x488);
	ck_assert_uint_eq(info->threads[1].etm->trctraceidr, 0x11);
	ck_assert_uint_eq(info->threads[0].etm->arch_version, 0x800);
	ck_assert_int_eq(info->threads[0].etm->profile, 'A');
	ck_assert_str_eq(info->threads[1].etm->source, "ETM_1");
	ck_assert_str_eq(info->threads[0].etm->core_type, "Cortex-A53");
	ck_assert_int_eq(info->threads[1].etm->cpu, 1);
	ck_assert_int_eq(hwtr_recording_trace(rec, 1, &bytes, &size), 0);
	ck_assert_uint_eq(size, 3);
	ck_assert_int_eq(bytes[2], 3);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

/* Intel PT recordings stay version 1, so version 1 readers still read them. */
START_TEST(intel_pt_recordings_are_still_written_as_version_1)
{
	const struct hwtr_recording_info *info;
	struct hwtr_recording *rec;
	struct hwtr_writer *w;

	make_tmpdir();
	w = new_writer(rec_path("p.hwtrec"));
	ck_assert_int_eq(hwtr_writer_add_thread(w, 1, 0), 0);
	ck_assert_int_eq(hwtr_writer_finish(w, NULL), 0);
	hwtr_writer_free(w);
	ck_assert_int_eq(hwtr_recording_open(rec_path("p.hwtrec"), &rec), 0);
	info = hwtr_recording_info(rec);
	ck_assert_int_eq(info->version, 1);
	ck_assert_ptr_null(info->threads[0].etm);
	hwtr_recording_close(rec);
	remove_tmpdir();
}
END_TEST

#define ETM_HEAD(version) "{\"format\":\"hwtrecord\",\"version\":" version \
	",\"arch\":\"aarch64\",\"trace_format\":\"etm4\",\"source\":\"t\"," \
	"\"process\":{},\"threads\":[{\"tid\":16,\"stream\":\"trace/b\""
#define ETM_REGS "\"regs\":{\"TRCCONFIGR\":0,\"TRCTRACEIDR\":16," \
	"\"TRCIDR0\":\"0x28000ea1\",\"TRCIDR2\":\"0x488\"}"

START_TEST(bad_etm_manifests_are_rejected_with_the_field_named)
{
	make_tmpdir();
	expect_open_error(ETM_HEAD("1") "}]}", hwtr_err_format,
			  "not supported by this reader in version 1");
	expect_open_error(ETM_HEAD("2") "}]}", hwtr_err_format,
			  "threads[0].etm is missing");
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"ptm\","
			  "\"trace_id\":16}}]}", hwtr_err_format,
			  "only ETMv4 (\"etm4\") and ETE");
	/* Trace ID 0 is no source's in frames (a raw stream may have it). */
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"etm4\","
			  "\"trace_id\":0,\"formatted\":true}}]}", hwtr_err_format,
			  "not a CoreSight trace ID");
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"etm4\","
			  "\"trace_id\":112}}]}", hwtr_err_format,
			  "not a CoreSight trace ID");
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"etm4\","
			  "\"trace_id\":16,\"formatted\":true," ETM_REGS "}}]}",
			  hwtr_err_format, "threads[0].etm.frame is missing");
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"etm4\","
			  "\"trace_id\":16,\"regs\":{\"TRCCONFIGR\":1}}}]}",
			  hwtr_err_format, "needs TRCCONFIGR, TRCTRACEIDR");
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"etm4\","
			  "\"trace_id\":16,\"regs\":{\"TRCIDR1\":\"0x1ffffffff\"}}}]}",
			  hwtr_err_format, "regs.TRCIDR1 is not a 32-bit value");
	expect_open_error(ETM_HEAD("2") ",\"etm\":{\"protocol\":\"etm4\","
			  "\"trace_id\":16,\"profile\":\"X\"," ETM_REGS "}}]}",
			  hwtr_err_format, "etm.profile is \"X\"");
	expect_open_error("{\"format\":\"hwtrecord\",\"version\":2,\"arch\":"
			  "\"x86_64\",\"trace_format\":\"etm4\",\"source\":\"t\","
			  "\"process\":{},\"threads\":[]}", hwtr_err_format,
			  "of arch \"x86_64\"");
	remove_tmpdir();
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, etm_recording_is_version_2_with_each_sources_trace_unit);
	tcase_add_test(tc, intel_pt_recordings_are_still_written_as_version_1);
	tcase_add_test(tc, bad_etm_manifests_are_rejected_with_the_field_named);
	tcase_add_test(tc, writer_and_reader_round_trip);
	tcase_add_test(tc, aborted_end_keeps_its_reason_and_signal);
	tcase_add_test(tc, unfinished_recording_opens_and_says_cut_off);
	tcase_add_test(tc, bad_manifests_are_rejected_with_the_field_named);
	tcase_add_test(tc, bad_sideband_line_is_named);
	tcase_add_test(tc, writer_refuses_a_non_empty_directory);
	tcase_add_test(tc, finished_recordings_and_saved_copies_carry_lengths_and_crcs);
	return check_run_tcase("recording", tc);
}
