/* test-vfile: GDB's host I/O packets (gdb-plugin/server/vfile.c) read and
 * written as GDB's manual ("Host I/O Packets", "struct stat") says: vFile
 * requests become typed requests, malformed ones errors, and the replies
 * are F results with GDB's File-I/O errno values, binary pread data escaped
 * by the framing, and the 64-byte big-endian struct stat.  Expected packets
 * are written out by hand from the manual. */
#include "../unit/check-main.h"
#include "gdb-end.h"
#include "rsp.h"
#include "vfile.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The payload of FRAME (LEN bytes) with the framing's escapes undone. */
static size_t unescape(const char *frame, size_t len, uint8_t *out)
{
	size_t i, n = 0;

	for (i = 1; i < len && frame[i] != '#'; i++)
		out[n++] = frame[i] == '}' ? (uint8_t)(frame[++i] ^ 0x20)
					   : (uint8_t)frame[i];
	return n;
}

static void parse(const char *text, struct vfile_request *r)
{
	vfile_parse(text, strlen(text), r);
}

START_TEST(requests_are_typed)
{
	struct vfile_request r;

	/* "/bin/x" in hex, O_RDONLY, mode 0 */
	parse("vFile:open:2f62696e2f78,0,0", &r);
	ck_assert_int_eq(r.kind, vfile_open);
	ck_assert_str_eq(r.path, "/bin/x");
	ck_assert_uint_eq(r.flags, 0);
	/* GDB's probe: "just probing", flags 0, mode 0700 */
	parse("vFile:open:6a7573742070726f62696e67,0,1c0", &r);
	ck_assert_int_eq(r.kind, vfile_open);
	ck_assert_str_eq(r.path, "just probing");
	ck_assert_uint_eq(r.mode, 0700);
	parse("vFile:pread:3,3fff,1a000", &r);
	ck_assert_int_eq(r.kind, vfile_pread);
	ck_assert_int_eq(r.fd, 3);
	ck_assert_uint_eq(r.count, 0x3fff);
	ck_assert_uint_eq(r.offset, 0x1a000);
	parse("vFile:setfs:0", &r);
	ck_assert_int_eq(r.kind, vfile_setfs);
	ck_assert_int_eq(r.pid, 0);
	parse("vFile:fstat:a", &r);
	ck_assert_int_eq(r.kind, vfile_fstat);
	ck_assert_int_eq(r.fd, 10);
	parse("vFile:close:0", &r);
	ck_assert_int_eq(r.kind, vfile_close);
	parse("vFile:readlink:2f78", &r);
	ck_assert_int_eq(r.kind, vfile_readlink);
	ck_assert_str_eq(r.path, "/x");
	parse("vFile:unlink:2f78", &r);
	ck_assert_int_eq(r.kind, vfile_unlink);
	parse("vFile:pwrite:3,0,abc", &r);
	ck_assert_int_eq(r.kind, vfile_pwrite);
	parse("vFile:stat:2f78", &r);	/* newer GDB's: not ours, empty reply */
	ck_assert_int_eq(r.kind, vfile_unknown);
}
END_TEST

START_TEST(malformed_requests_are_errors)
{
	static const char *const bad[] = {
		"vFile:open:2f7,0,0",		/* odd hex digits */
		"vFile:open:2fzz,0,0",		/* not hex */
		"vFile:open:2f0078,0,0",	/* a NUL inside the path */
		"vFile:open:2f78",		/* no flags, no mode */
		"vFile:open:2f78,0",		/* no mode */
		"vFile:open:2f78,0,0,",		/* a trailing comma */
		"vFile:pread:3,10",		/* no offset */
		"vFile:pread:3,-10,0",		/* a negative count */
		"vFile:pread:3,10,ffffffffffffffffff",	/* offset overflows */
		"vFile:close:",			/* no fd */
		"vFile:setfs:x",
		"vFile:readlink:2",
	};
	struct vfile_request r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i], &r);
		ck_assert_msg(r.kind == vfile_malformed && r.error, "%s", bad[i]);
	}
}
END_TEST

START_TEST(results_and_errors_are_hex)
{
	size_t len;

	ck_assert_int_eq(vfile_reply_result(&conn, 26), 0);
	ck_assert(!memcmp(gdb_read_packet(&len), "$F1a#", 5));
	/* ENOENT is 2, ENAMETOOLONG GDB's 91 (0x5b), not Linux's 36. */
	ck_assert_int_eq(vfile_reply_errno(&conn, ENOENT), 0);
	ck_assert(!memcmp(gdb_read_packet(&len), "$F-1,2#", 7));
	ck_assert_int_eq(vfile_reply_errno(&conn, ENAMETOOLONG), 0);
	ck_assert(!memcmp(gdb_read_packet(&len), "$F-1,5b#", 8));
	ck_assert_int_eq(vfile_reply_errno(&conn, EROFS), 0);
	ck_assert(!memcmp(gdb_read_packet(&len), "$F-1,1e#", 8));
}
END_TEST

START_TEST(pread_data_is_binary_and_escaped)
{
	/* '$', '#', '}' and '*' go out as '}' then the byte XOR 0x20. */
	static const uint8_t data[] = { 'a', '$', 0, '#', '}', '*', 0xff };
	static const char want[] = "$F7;a}\x04\0}\x03}]}\x0a\xff#";
	size_t len;
	const char *got;

	ck_assert_int_eq(vfile_reply_data(&conn, data, sizeof(data)), 0);
	got = gdb_read_packet(&len);
	ck_assert_uint_eq(len, sizeof(want) - 1 + 2);
	ck_assert(!memcmp(got, want, sizeof(want) - 1));
}
END_TEST

START_TEST(stat_is_gdbs_struct_big_endian)
{
	struct stat st = { 0 };
	uint8_t got[128];
	const char *raw;
	size_t len;

	st.st_mode = S_IFREG | 0444;
	st.st_size = 0x123456789;
	st.st_mtime = 0x01020304;
	ck_assert_int_eq(vfile_reply_stat(&conn, &st), 0);
	/* "F40;" then 64 bytes ('$' 0x24 and '#' 0x23 among them, escaped) */
	raw = gdb_read_packet(&len);
	len = unescape(raw, len, got);
	ck_assert_uint_eq(len, 4 + 64);
	ck_assert(!memcmp(got, "F40;", 4));
	/* st_mode at 8: 0100444 */
	ck_assert(!memcmp(got + 4 + 8, "\x00\x00\x81\x24", 4));
	/* st_size at 28, 8 bytes */
	ck_assert(!memcmp(got + 4 + 28, "\x00\x00\x00\x01\x23\x45\x67\x89", 8));
	/* st_mtime at 56 */
	ck_assert(!memcmp(got + 4 + 56, "\x01\x02\x03\x04", 4));
}
END_TEST

static Suite *vfile_suite(void)
{
	Suite *s = suite_create("vfile");
	TCase *requests = tcase_create("requests"), *replies = tcase_create("replies");

	tcase_add_test(requests, requests_are_typed);
	tcase_add_test(requests, malformed_requests_are_errors);
	suite_add_tcase(s, requests);
	tcase_add_checked_fixture(replies, gdb_end_setup_no_ack, gdb_end_teardown);
	tcase_add_test(replies, results_and_errors_are_hex);
	tcase_add_test(replies, pread_data_is_binary_and_escaped);
	tcase_add_test(replies, stat_is_gdbs_struct_big_endian);
	suite_add_tcase(s, replies);
	return s;
}

int main(void)
{
	return check_run_suite(vfile_suite());
}
