/* test-sideband.c: sideband.jsonl lines <-> events (sideband.c).
 *
 * Oracle: hand-written lines in the format DESIGN.md section 4 and
 * sideband.c's top comment give, with the fields a reader must get from
 * them; malformed lines must be refused with the exact message, which names
 * the file, the line and the field or value that is wrong.
 */
#include "sideband.h"
#include "check-main.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static json_t *doc;

static void drop_doc(void)
{
	json_decref(doc);
	doc = NULL;
}

/* Decode TEXT as line LINE of "rec/sideband.jsonl". */
static int decode(const char *text, long line, struct hwtr_sideband_event *e)
{
	struct jfield_where w = { "rec/sideband.jsonl", line };
	json_error_t jerr;

	json_decref(doc);
	doc = json_loads(text, 0, &jerr);
	ck_assert_msg(doc != NULL, "test line does not parse: %s", text);
	return sideband_decode(doc, &w, e);
}

static void refused(const char *text, long line, const char *message)
{
	struct hwtr_sideband_event e;

	ck_assert_int_eq(decode(text, line, &e), -hwtr_err_format);
	ck_assert_str_eq(hwtr_last_error(), message);
}

START_TEST(mmap_line_gives_every_field)
{
	struct hwtr_sideband_event e;

	ck_assert_int_eq(decode("{\"event\":\"mmap\",\"tsc\":1234,"
				"\"addr\":\"0x7f0000401000\",\"len\":8192,"
				"\"pgoff\":4096,\"prot\":\"r-x\",\"path\":\"/bin/true\","
				"\"build_id\":\"a1b2c3d4\",\"saved\":\"objects/a1b2c3d4\"}",
				3, &e), 0);
	ck_assert_int_eq(e.kind, hwtr_ev_mmap);
	ck_assert_uint_eq(e.tsc, 1234);
	ck_assert_uint_eq(e.addr, 0x7f0000401000ull);
	ck_assert_uint_eq(e.len, 8192);
	ck_assert_uint_eq(e.pgoff, 4096);
	ck_assert_int_eq(e.prot, HWTR_PROT_READ | HWTR_PROT_EXEC);
	ck_assert_str_eq(e.path, "/bin/true");
	ck_assert_str_eq(e.build_id, "a1b2c3d4");
	ck_assert_str_eq(e.saved, "objects/a1b2c3d4");

	/* Addresses as plain numbers, prot defaulting to r-x, no names. */
	ck_assert_int_eq(decode("{\"event\":\"mmap\",\"addr\":4198400,\"len\":1,"
				"\"prot\":\"rw-\"}", 4, &e), 0);
	ck_assert_uint_eq(e.addr, 0x401000);
	ck_assert_uint_eq(e.len, 1);
	ck_assert_uint_eq(e.tsc, 0);
	ck_assert_uint_eq(e.pgoff, 0);
	ck_assert_int_eq(e.prot, HWTR_PROT_READ | HWTR_PROT_WRITE);
	ck_assert_ptr_null(e.path);
	ck_assert_ptr_null(e.build_id);
	ck_assert_ptr_null(e.saved);

	/* A mapping that ends exactly at the top of the address space. */
	ck_assert_int_eq(decode("{\"event\":\"mmap\",\"addr\":\"0xfffffffffffff000\","
				"\"len\":4096}", 5, &e), 0);
	ck_assert_uint_eq(e.addr, 0xfffffffffffff000ull);
	ck_assert_int_eq(e.prot, HWTR_PROT_READ | HWTR_PROT_EXEC);
}
END_TEST

START_TEST(other_events_give_their_fields)
{
	struct hwtr_sideband_event e;

	ck_assert_int_eq(decode("{\"event\":\"munmap\",\"tsc\":9,\"addr\":\"0x1000\","
				"\"len\":\"0x2000\"}", 1, &e), 0);
	ck_assert_int_eq(e.kind, hwtr_ev_munmap);
	ck_assert_uint_eq(e.tsc, 9);
	ck_assert_uint_eq(e.addr, 0x1000);
	ck_assert_uint_eq(e.len, 0x2000);

	ck_assert_int_eq(decode("{\"event\":\"exec\",\"tsc\":10,\"path\":\"./next\"}",
				2, &e), 0);
	ck_assert_int_eq(e.kind, hwtr_ev_exec);
	ck_assert_str_eq(e.path, "./next");

	ck_assert_int_eq(decode("{\"event\":\"thread-start\",\"tsc\":11,"
				"\"tid\":4242}", 3, &e), 0);
	ck_assert_int_eq(e.kind, hwtr_ev_thread_start);
	ck_assert_uint_eq(e.tid, 4242);

	ck_assert_int_eq(decode("{\"event\":\"thread-exit\",\"tid\":4294967295}",
				4, &e), 0);
	ck_assert_int_eq(e.kind, hwtr_ev_thread_exit);
	ck_assert_uint_eq(e.tid, 4294967295u);

	ck_assert_int_eq(decode("{\"event\":\"loss\",\"tsc\":12,\"tid\":7,"
				"\"offset\":65536,\"len\":512,\"reason\":\"aux "
				"overflow\"}", 5, &e), 0);
	ck_assert_int_eq(e.kind, hwtr_ev_loss);
	ck_assert_uint_eq(e.tid, 7);
	ck_assert_uint_eq(e.offset, 65536);
	ck_assert_uint_eq(e.len, 512);
	ck_assert_str_eq(e.reason, "aux overflow");
}
END_TEST

START_TEST(malformed_lines_are_refused_naming_file_line_and_field)
{
	refused("[1,2]", 2, "rec/sideband.jsonl:2: not a JSON object");
	refused("{\"tsc\":1}", 3,
		"rec/sideband.jsonl:3: field \"event\" is missing");
	refused("{\"event\":\"fork\"}", 4,
		"rec/sideband.jsonl:4: unknown event \"fork\"");
	refused("{\"event\":\"mmap\",\"len\":4096}", 5,
		"rec/sideband.jsonl:5: field \"addr\" is missing");
	refused("{\"event\":\"mmap\",\"addr\":\"0x1000\",\"len\":-1}", 6,
		"rec/sideband.jsonl:6: field \"len\" is not an unsigned integer "
		"(or \"0x...\")");
	refused("{\"event\":\"mmap\",\"addr\":\"0x10zz\",\"len\":1}", 7,
		"rec/sideband.jsonl:7: field \"addr\" is not an unsigned integer "
		"(or \"0x...\")");
	refused("{\"event\":\"mmap\",\"addr\":1,\"len\":1,\"prot\":\"rx\"}", 8,
		"rec/sideband.jsonl:8: field \"prot\" is \"rx\", expected three "
		"of r/w/x or -");
	refused("{\"event\":\"mmap\",\"addr\":1,\"len\":1,\"prot\":\"xr-\"}", 9,
		"rec/sideband.jsonl:9: field \"prot\" is \"xr-\", expected three "
		"of r/w/x or -");
	refused("{\"event\":\"mmap\",\"addr\":1,\"len\":1,\"saved\":\"../x\"}", 10,
		"rec/sideband.jsonl:10: field \"saved\" (\"../x\") leaves the "
		"recording directory");
	refused("{\"event\":\"mmap\",\"addr\":1,\"len\":1,\"build_id\":\"abc\"}", 11,
		"rec/sideband.jsonl:11: field \"build_id\" (\"abc\") is not a "
		"build-id (2 to 128 hex digits)");
	refused("{\"event\":\"mmap\",\"addr\":1,\"len\":1,\"build_id\":\"../xy\"}",
		12, "rec/sideband.jsonl:12: field \"build_id\" (\"../xy\") is not "
		"a build-id (2 to 128 hex digits)");
	refused("{\"event\":\"mmap\",\"addr\":\"0x4000\",\"len\":0}", 13,
		"rec/sideband.jsonl:13: mmap at 0x4000 has length 0");
	refused("{\"event\":\"munmap\",\"addr\":\"0xfffffffffffff000\","
		"\"len\":8192}", 14,
		"rec/sideband.jsonl:14: munmap at 0xfffffffffffff000 of length "
		"0x2000 wraps past the end of the address space");
	refused("{\"event\":\"exec\"}", 15,
		"rec/sideband.jsonl:15: field \"path\" is missing");
	refused("{\"event\":\"exec\",\"path\":3}", 16,
		"rec/sideband.jsonl:16: field \"path\" is not a string");
	refused("{\"event\":\"thread-start\",\"tid\":4294967296}", 17,
		"rec/sideband.jsonl:17: tid 4294967296 is out of range");
	refused("{\"event\":\"loss\",\"offset\":1}", 18,
		"rec/sideband.jsonl:18: field \"tid\" is missing");
	refused("{\"event\":\"loss\",\"tid\":1,\"reason\":false}", 19,
		"rec/sideband.jsonl:19: field \"reason\" is not a string");
}
END_TEST

/* The line the writer puts down, key by key, as the format says. */
static void encodes_as(const struct hwtr_sideband_event *e, const char *expected)
{
	json_t *o = sideband_encode(e);
	char *text;

	ck_assert_ptr_nonnull(o);
	text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	ck_assert_str_eq(text, expected);
	free(text);
	json_decref(o);
}

START_TEST(events_encode_as_the_format_says)
{
	struct hwtr_sideband_event mmap = {
		.kind = hwtr_ev_mmap, .tsc = 5, .addr = 0x7f0000401000ull,
		.len = 8192, .pgoff = 4096, .prot = HWTR_PROT_READ | HWTR_PROT_EXEC,
		.path = "/bin/true", .build_id = "a1b2", .saved = "objects/a1b2",
	};
	struct hwtr_sideband_event munmap = {
		.kind = hwtr_ev_munmap, .tsc = 6, .addr = 0x1000, .len = 4096,
	};
	struct hwtr_sideband_event exec = { .kind = hwtr_ev_exec, .tsc = 7,
					    .path = "./next" };
	struct hwtr_sideband_event exit = { .kind = hwtr_ev_thread_exit,
					    .tsc = 8, .tid = 99 };
	struct hwtr_sideband_event loss = {
		.kind = hwtr_ev_loss, .tsc = 9, .tid = 3, .offset = 100,
		.len = 20, .reason = "overflow",
	};
	struct hwtr_sideband_event bad = { .kind = (enum hwtr_event_kind)77 };

	encodes_as(&mmap, "{\"addr\":\"0x7f0000401000\",\"build_id\":\"a1b2\","
		   "\"event\":\"mmap\",\"len\":8192,\"path\":\"/bin/true\","
		   "\"pgoff\":4096,\"prot\":\"r-x\",\"saved\":\"objects/a1b2\","
		   "\"tsc\":5}");
	encodes_as(&munmap, "{\"addr\":\"0x1000\",\"event\":\"munmap\",\"len\":4096,"
		   "\"tsc\":6}");
	encodes_as(&exec, "{\"event\":\"exec\",\"path\":\"./next\",\"tsc\":7}");
	encodes_as(&exit, "{\"event\":\"thread-exit\",\"tid\":99,\"tsc\":8}");
	encodes_as(&loss, "{\"event\":\"loss\",\"len\":20,\"offset\":100,"
		   "\"reason\":\"overflow\",\"tid\":3,\"tsc\":9}");
	ck_assert_ptr_null(sideband_encode(&bad));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("lines");

	tcase_add_checked_fixture(tc, NULL, drop_doc);
	tcase_add_test(tc, mmap_line_gives_every_field);
	tcase_add_test(tc, other_events_give_their_fields);
	tcase_add_test(tc, malformed_lines_are_refused_naming_file_line_and_field);
	tcase_add_test(tc, events_encode_as_the_format_says);
	return check_run_tcase("sideband", tc);
}
