/* test-recording: the writer and the reader of format v1 agree, and the
 * reader rejects or reports bad and cut-off recordings precisely. */
#include "hwtrecord.h"

#include <check.h>
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

int main(void)
{
	Suite *s = suite_create("recording");
	TCase *tc = tcase_create("format-v1");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, writer_and_reader_round_trip);
	tcase_add_test(tc, unfinished_recording_opens_and_says_cut_off);
	tcase_add_test(tc, bad_manifests_are_rejected_with_the_field_named);
	tcase_add_test(tc, bad_sideband_line_is_named);
	tcase_add_test(tc, writer_refuses_a_non_empty_directory);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
