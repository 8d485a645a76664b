/* test-plugin-packets: the plugin's packets (gdb-plugin/server/
 * plugin-packets.c) read and written as doc/gdb-packets.md says: qHwtr
 * requests become typed requests (argument errors included), and the
 * typed replies are the hex-encoded compact JSON documents and texts of
 * that page.  Expected packets are written out by hand from the page. */
#include "../unit/check-main.h"
#include "gdb-end.h"
#include "plugin-packets.h"
#include "rsp.h"

#include <check.h>
#include <hwtrecord.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The payload of the one packet the server wrote, hex-decoded when HEX. */
static char *reply(bool hex)
{
	static char text[1 << 15];
	size_t got, len;
	char *buf = gdb_read_packet(&got), *end = memchr(buf, '#', got);

	ck_assert_int_eq(buf[0], '$');
	*end = 0;
	if (!hex)
		return buf + 1;
	len = strlen(buf + 1);
	ck_assert_uint_eq(len % 2, 0);
	ck_assert(rsp_unhex(buf + 1, len / 2, (uint8_t *)text));
	text[len / 2] = 0;
	return text;
}

static void parse(const char *packet, struct plugin_request *p)
{
	struct rsp_request r;

	rsp_parse(packet, strlen(packet), &r);
	ck_assert_int_eq(r.kind, rsp_hwtr);
	plugin_parse(&r, p);
}

START_TEST(requests_are_typed)
{
	struct plugin_request p;

	parse("qHwtr:info", &p);
	ck_assert_int_eq(p.kind, plugin_info);
	ck_assert_ptr_null(p.error);
	ck_assert(!p.wait);
	parse("qHwtr:info:1", &p);
	ck_assert(p.wait);
	parse("qHwtr:call-history:2a:1,10:3", &p);
	ck_assert_int_eq(p.kind, plugin_call_history);
	ck_assert_uint_eq(p.tid, 0x2a);
	ck_assert_uint_eq(p.first, 1);
	ck_assert_uint_eq(p.last, 0x10);
	ck_assert_uint_eq(p.flags, 3);
	parse("qHwtr:insn-history:1:5,6:0", &p);
	ck_assert_int_eq(p.kind, plugin_insn_history);
	parse("qHwtr:goto:7:ff", &p);
	ck_assert_int_eq(p.kind, plugin_goto);
	ck_assert_uint_eq(p.tid, 7);
	ck_assert_uint_eq(p.number, 0xff);
	parse("qHwtr:frames:7", &p);
	ck_assert_int_eq(p.kind, plugin_frames);
	ck_assert(!p.has_at);
	parse("qHwtr:frames:7:a", &p);
	ck_assert(p.has_at);
	ck_assert_uint_eq(p.at, 10);
	parse("qHwtr:end-frames:1f", &p);
	ck_assert_int_eq(p.kind, plugin_end_frames);
	ck_assert_ptr_null(p.error);
	ck_assert_uint_eq(p.tid, 0x1f);
	parse("qHwtr:record-start", &p);
	ck_assert_int_eq(p.kind, plugin_record_start);
	parse("qHwtr:record-stop", &p);
	ck_assert_int_eq(p.kind, plugin_record_stop);
	parse("qHwtr:nonesuch:1", &p);
	ck_assert_int_eq(p.kind, plugin_unknown);
	ck_assert_ptr_null(p.error);
}
END_TEST

START_TEST(bad_arguments_are_errors)
{
	struct plugin_request p;

	parse("qHwtr:goto:1", &p);
	ck_assert_int_eq(p.kind, plugin_goto);
	ck_assert_str_eq(p.error, "wrong number of arguments");
	parse("qHwtr:frames:1:2:3", &p);
	ck_assert_str_eq(p.error, "wrong number of arguments");
	parse("qHwtr:info:1:2", &p);
	ck_assert_str_eq(p.error, "wrong number of arguments");
	parse("qHwtr:insn-history:100000000:1,2:0", &p);
	ck_assert_str_eq(p.error, "thread or flags out of range");
	parse("qHwtr:call-history:1:1,2:100000000", &p);
	ck_assert_str_eq(p.error, "thread or flags out of range");
	parse("qHwtr:frames:100000000", &p);
	ck_assert_str_eq(p.error, "thread out of range");
	parse("qHwtr:end-frames:1:2", &p);
	ck_assert_str_eq(p.error, "wrong number of arguments");
	parse("qHwtr:end-frames", &p);
	ck_assert_str_eq(p.error, "wrong number of arguments");
	parse("qHwtr:end-frames:100000000", &p);
	ck_assert_str_eq(p.error, "thread out of range");
	parse("qHwtr:goto:100000000:1", &p);
	ck_assert_str_eq(p.error, "bad thread");
}
END_TEST

START_TEST(save_takes_a_hex_path)
{
	struct plugin_request p;
	const char *good = "qHwtr:save:2f746d702f78";	/* "/tmp/x" */

	ck_assert(!plugin_parse_save("qHwtr:info", 10, &p));
	ck_assert(plugin_parse_save(good, strlen(good), &p));
	ck_assert_int_eq(p.kind, plugin_save);
	ck_assert_ptr_null(p.error);
	ck_assert_str_eq(p.path, "/tmp/x");
	ck_assert(plugin_parse_save("qHwtr:save:2f7", 14, &p));
	ck_assert_str_eq(p.error, "qHwtr:save: bad file name");
	ck_assert(plugin_parse_save("qHwtr:save:zz", 13, &p));
	ck_assert_str_eq(p.error, "qHwtr:save: bad file name");
}
END_TEST

START_TEST(info_is_the_documented_json)
{
	struct plugin_thread_info threads[2] = {
		{ .tid = 0x10, .at_end = false, .registers_at_end = true,
		  .registers_logged = true,
		  .counted = true, .instructions = 29, .segments = 4, .gaps = 1,
		  .position = 5, .end = 29 },
		{ .tid = 0x11, .at_end = true },
	};
	struct plugin_info info = {
		.has_history = true, .recording = "/r.hwtrec", .source = "valgrind",
		.format = "intel-pt", .replaying = true, .threads = threads,
		.nthreads = 2,
	};

	ck_assert_int_eq(plugin_reply_info(&conn, &info), 0);
	ck_assert_str_eq(reply(true),
		"{\"recording\":\"/r.hwtrec\",\"source\":\"valgrind\","
		"\"format\":\"intel-pt\",\"replaying\":true,\"building\":false,"
		"\"threads\":[{\"tid\":16,\"at_end\":false,\"registers_at_end\":true,"
		"\"instructions\":29,\"segments\":4,\"gaps\":1,\"position\":5,"
		"\"end\":29,\"registers_logged\":true},"
		"{\"tid\":17,\"at_end\":true,\"registers_at_end\":false}]}");
	/* Watchpoints served (a data log): said after the threads. */
	info.watchpoints = true;
	info.nthreads = 0;
	ck_assert_int_eq(plugin_reply_info(&conn, &info), 0);
	ck_assert_str_eq(reply(true),
		"{\"recording\":\"/r.hwtrec\",\"source\":\"valgrind\","
		"\"format\":\"intel-pt\",\"replaying\":true,\"building\":false,"
		"\"threads\":[],\"watchpoints\":true}");
	/* Live, before a history: no "building", the live fields after. */
	memset(&info, 0, sizeof(info));
	info.source = "valgrind";
	info.format = "intel-pt";
	info.live = true;
	info.history_pending = true;
	info.history_error = "no history yet";
	ck_assert_int_eq(plugin_reply_info(&conn, &info), 0);
	ck_assert_str_eq(reply(true),
		"{\"source\":\"valgrind\",\"format\":\"intel-pt\",\"threads\":[],"
		"\"live\":true,\"tracing\":false,\"replaying\":false,"
		"\"history_pending\":true,\"recording\":null,"
		"\"history_error\":\"no history yet\"}");
}
END_TEST

START_TEST(frames_are_the_documented_json)
{
	struct plugin_frame frames[2] = {
		{ .segment = 3, .function = "leaf", .function_start = 0x401000,
		  .has_pc = true, .pc = 0x401004, .level = 1 },
		{ .segment = 0, .function = NULL, .function_start = 0, .level = 0 },
	};

	ck_assert_int_eq(plugin_reply_frames(&conn, frames, 2), 0);
	ck_assert_str_eq(reply(true),
		"[{\"segment\":3,\"function\":\"leaf\",\"function_start\":\"0x401000\","
		"\"pc\":\"0x401004\",\"level\":1},{\"segment\":0,\"function\":null,"
		"\"function_start\":\"0x0\",\"pc\":null,\"level\":0}]");
}
END_TEST

static int list_ok(void *context, FILE *out)
{
	fputs("1\tmain\n", out);
	return 0;
}

static int list_fails_late(void *context, FILE *out)
{
	fputs("1\tmain\n", out);
	return hwtr_fail(hwtr_err_decode, "decode error at 0x10");
}

static int list_fails_early(void *context, FILE *out)
{
	return hwtr_fail(hwtr_err_range, "no instruction 99");
}

START_TEST(listings_stream_and_say_where_they_were_cut)
{
	ck_assert_int_eq(plugin_reply_listing(&conn, list_ok, NULL), 0);
	ck_assert_str_eq(reply(true), "1\tmain\n");
	ck_assert_int_eq(plugin_reply_listing(&conn, list_fails_late, NULL), 0);
	ck_assert_str_eq(reply(true),
			 "1\tmain\n[listing cut short: decode error at 0x10]\n");
	ck_assert_int_eq(plugin_reply_listing(&conn, list_fails_early, NULL), 0);
	ck_assert_str_eq(reply(false), "E.no instruction 99");
}
END_TEST

START_TEST(thread_extra_says_where_the_thread_is)
{
	/* "Thread 12" from the stub, as hex */
	const char *stub = "5468726561642031 32";
	char hex[64];
	size_t i, n = 0;

	for (i = 0; stub[i]; i++)
		if (stub[i] != ' ')
			hex[n++] = stub[i];
	hex[n] = 0;
	ck_assert_int_eq(plugin_reply_thread_extra(&conn, hex, n, 5, 29), 0);
	ck_assert_str_eq(reply(true), "Thread 12, replaying: instruction 5 of 29");
	ck_assert_int_eq(plugin_reply_thread_extra(&conn, hex, n, 29, 29), 0);
	ck_assert_str_eq(reply(true),
			 "Thread 12, at the end of its history (live), instruction 29");
	ck_assert_int_eq(plugin_reply_thread_extra(&conn, "E01", 3, 0, 0), 0);
	ck_assert_str_eq(reply(true), "no history");
}
END_TEST

static Suite *plugin_packets_suite(void)
{
	Suite *s = suite_create("plugin-packets");
	TCase *requests = tcase_create("requests"), *replies = tcase_create("replies");

	tcase_add_test(requests, requests_are_typed);
	tcase_add_test(requests, bad_arguments_are_errors);
	tcase_add_test(requests, save_takes_a_hex_path);
	suite_add_tcase(s, requests);
	tcase_add_checked_fixture(replies, gdb_end_setup_no_ack, gdb_end_teardown);
	tcase_add_test(replies, info_is_the_documented_json);
	tcase_add_test(replies, frames_are_the_documented_json);
	tcase_add_test(replies, listings_stream_and_say_where_they_were_cut);
	tcase_add_test(replies, thread_extra_says_where_the_thread_is);
	suite_add_tcase(s, replies);
	return s;
}

int main(void)
{
	return check_run_suite(plugin_packets_suite());
}
