/* test-rsp: the server's wire layer (gdb-plugin/server/rsp.c) frames,
 * acknowledges, escapes and parses packets as the GDB manual's "Remote
 * Protocol" appendix says.  Expected frames are written out by hand from the
 * manual's rules (checksum = sum of the payload bytes mod 256, escape = '}'
 * then the byte xor 0x20). */
#include "../unit/check-main.h"
#include "gdb-end.h"
#include "rsp.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void parse(const char *payload, struct rsp_request *r)
{
	rsp_parse(payload, strlen(payload), r);
}

START_TEST(receive_acks_good_packet)
{
	/* "g" is 0x67. */
	gdb_send("+$g#67");
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_packet);
	ck_assert_str_eq(conn.payload, "g");
	ck_assert_str_eq(gdb_read(), "+");
}
END_TEST

START_TEST(receive_bad_checksum_asks_again)
{
	/* m0,4 sums to 0x6d+0x30+0x2c+0x34 = 0xfd; 0x00 is wrong. */
	gdb_send("$m0,4#00$m0,4#fd");
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_packet);
	ck_assert_str_eq(conn.payload, "m0,4");
	ck_assert_str_eq(gdb_read(), "-+");
}
END_TEST

START_TEST(receive_non_hex_checksum_asks_again)
{
	gdb_send("$g#zz$g#67");
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_packet);
	ck_assert_str_eq(gdb_read(), "-+");
}
END_TEST

START_TEST(receive_unescapes)
{
	/* X payload with '}' escaping '#' (0x23 -> 0x03): "X0,1:" '}' 0x03.
	 * Checksum covers the escape as sent: 0x58+0x30+0x2c+0x31+0x3a+0x7d+0x03. */
	unsigned sum = (0x58 + 0x30 + 0x2c + 0x31 + 0x3a + 0x7d + 0x03) & 0xff;
	char frame[32];

	snprintf(frame, sizeof(frame), "$X0,1:}\x03#%02x", sum);
	gdb_send(frame);
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_packet);
	ck_assert_uint_eq(conn.payload_len, 6);
	ck_assert_mem_eq(conn.payload, "X0,1:#", 6);
}
END_TEST

START_TEST(receive_noack_mode_sends_no_ack)
{
	conn.ack_mode = false;
	gdb_send("$g#00");	/* checksums are not checked without acks */
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_packet);
	ck_assert_str_eq(gdb_read(), "");
}
END_TEST

START_TEST(receive_interrupt_and_eof)
{
	gdb_send("\x03");
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_interrupt);
	gdb_send("$g#6");	/* truncated, then the peer goes away */
	shutdown(gdb_end, SHUT_WR);
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_eof);
	ck_assert(conn.closed);
}
END_TEST

START_TEST(receive_restart_inside_packet)
{
	gdb_send("$qSup$g#67");
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_packet);
	ck_assert_str_eq(conn.payload, "g");
}
END_TEST

START_TEST(receive_oversized_is_dropped)
{
	size_t n = RSP_MAX_PAYLOAD + 100, i;
	char *big = malloc(n + 5);
	unsigned sum = 0;
	pid_t pid;

	big[0] = '$';
	for (i = 1; i <= n; i++) {
		big[i] = 'a';
		sum += 'a';
	}
	sprintf(big + n + 1, "#%02x", sum & 0xff);
	/* The socket buffer is smaller than the packet: write from a child. */
	pid = fork();
	if (pid == 0) {
		ssize_t w = write(gdb_end, big, n + 4);

		_exit(w == (ssize_t)(n + 4) ? 0 : 1);
	}
	ck_assert_int_eq(rsp_receive(&conn), rsp_recv_oversized);
	ck_assert_uint_eq(conn.payload_len, RSP_MAX_PAYLOAD);
	free(big);
}
END_TEST

START_TEST(frame_escapes_and_sums)
{
	char out[64];
	size_t n = rsp_frame("a$b#c}d*", 8, out, sizeof(out));
	unsigned sum = 'a' + '}' + ('$' ^ 0x20) + 'b' + '}' + ('#' ^ 0x20) + 'c' +
		       '}' + ('}' ^ 0x20) + 'd' + '}' + ('*' ^ 0x20);
	char expected[64];

	snprintf(expected, sizeof(expected), "$a}\x04" "b}\x03" "c}]d}\x0a#%02x", sum & 0xff);
	out[n] = '\0';
	ck_assert_str_eq(out, expected);
	ck_assert_uint_eq(rsp_frame("abc", 3, out, 6), 0);	/* does not fit */
}
END_TEST

START_TEST(reply_waits_for_ack_and_resends)
{
	pid_t pid;

	gdb_send("-+");	/* GDB asks once more, then accepts */
	ck_assert_int_eq(rsp_reply_ok(&conn), 0);
	ck_assert_str_eq(gdb_read(), "$OK#9a$OK#9a");
	(void)pid;
}
END_TEST

START_TEST(reply_unavailable_registers_are_xx)
{
	const uint8_t bytes[4] = { 0x12, 0xab, 0, 0 };
	const uint8_t valid[4] = { 1, 1, 0, 0 };

	conn.ack_mode = false;
	ck_assert_int_eq(rsp_reply_hex(&conn, bytes, valid, 4), 0);
	/* 0x31+0x32+0x61+0x62+4*0x78 = 0x306 -> 06 */
	ck_assert_str_eq(gdb_read(), "$12abxxxx#06");
}
END_TEST

/* A streamed reply is the packet rsp_reply_hex would send for the same
 * bytes, however they were written; a failure before any byte is an E.
 * reply, after one it ends the text. */
START_TEST(reply_streamed_hex_is_the_same_packet)
{
	static const char text[] = "1\t0x401000:\txor    %eax,%eax\n";
	char expected[256];
	FILE *out;
	size_t i;

	conn.ack_mode = false;
	ck_assert_int_eq(rsp_reply_hex(&conn, (const uint8_t *)text, NULL,
				       strlen(text)), 0);
	snprintf(expected, sizeof(expected), "%s", gdb_read());
	out = rsp_reply_hex_begin(&conn);
	ck_assert_ptr_nonnull(out);
	for (i = 0; text[i]; i++)	/* byte by byte, and a flush between */
		fputc(text[i], out);
	fflush(out);
	ck_assert_int_eq(rsp_reply_hex_end(&conn, out, NULL), 0);
	ck_assert_str_eq(gdb_read(), expected);

	out = rsp_reply_hex_begin(&conn);
	ck_assert_int_eq(rsp_reply_hex_end(&conn, out, "no thread 7"), 0);
	ck_assert_str_eq(gdb_read(), "$E.no thread 7#3f");

	out = rsp_reply_hex_begin(&conn);
	fputs("ab", out);
	ck_assert_int_eq(rsp_reply_hex_end(&conn, out, "!"), 0);
	/* "ab!" in hex: 616221; 0x36+0x31+0x36+0x32+0x32+0x31 = 0x132 */
	ck_assert_str_eq(gdb_read(), "$616221#32");

	out = rsp_reply_hex_begin(&conn);	/* nothing at all: empty */
	ck_assert_int_eq(rsp_reply_hex_end(&conn, out, NULL), 0);
	ck_assert_str_eq(gdb_read(), "$#00");
}
END_TEST

START_TEST(reply_xfer_slices_with_m_and_l)
{
	conn.ack_mode = false;
	ck_assert_int_eq(rsp_reply_xfer(&conn, "abcdef", 6, 0, 4), 0);
	ck_assert_str_eq(gdb_read(), "$mabcd#f7");
	ck_assert_int_eq(rsp_reply_xfer(&conn, "abcdef", 6, 4, 4), 0);
	ck_assert_str_eq(gdb_read(), "$lef#37");
	ck_assert_int_eq(rsp_reply_xfer(&conn, "abcdef", 6, 6, 4), 0);
	ck_assert_str_eq(gdb_read(), "$l#6c");
}
END_TEST

START_TEST(reply_stop_formats_reasons)
{
	struct rsp_stop stop = { .signal = 5, .tid = 0x1a2b,
				 .reason = rsp_stop_history_begin, .nregs = 1 };
	const char *text;

	stop.regs[0].regnum = 16;
	stop.regs[0].size = 8;
	memcpy(stop.regs[0].bytes, "\x10\x32\x54\x76\x00\x00\x00\x00", 8);
	conn.ack_mode = false;
	ck_assert_int_eq(rsp_reply_stop(&conn, &stop), 0);
	text = gdb_read();
	ck_assert_msg(!strncmp(text, "$T05thread:1a2b;10:1032547600000000;replaylog:begin;#", 52),
		      "got %s", text);
	stop.reason = rsp_stop_swbreak;
	stop.nregs = 0;
	ck_assert_int_eq(rsp_reply_stop(&conn, &stop), 0);
	ck_assert(!strncmp(gdb_read(), "$T05thread:1a2b;swbreak:;#", 26));
	/* Across an exec: the program's path, hex, as gdbserver sends it. */
	stop.reason = rsp_stop_none;
	stop.exec_path = "/bin/a";
	ck_assert_int_eq(rsp_reply_stop(&conn, &stop), 0);
	text = gdb_read();
	ck_assert_msg(!strncmp(text, "$T05thread:1a2b;exec:2f62696e2f61;#", 35), "got %s", text);
	/* Watchpoints: the data address, hex (the manual's "watch:addr"). */
	stop.exec_path = NULL;
	stop.reason = rsp_stop_watch;
	stop.watch_addr = 0x4a62f0;
	ck_assert_int_eq(rsp_reply_stop(&conn, &stop), 0);
	text = gdb_read();
	ck_assert_msg(!strncmp(text, "$T05thread:1a2b;watch:4a62f0;#", 30), "got %s", text);
	stop.reason = rsp_stop_rwatch;
	ck_assert_int_eq(rsp_reply_stop(&conn, &stop), 0);
	text = gdb_read();
	ck_assert_msg(!strncmp(text, "$T05thread:1a2b;rwatch:4a62f0;#", 31), "got %s", text);
	stop.reason = rsp_stop_awatch;
	ck_assert_int_eq(rsp_reply_stop(&conn, &stop), 0);
	text = gdb_read();
	ck_assert_msg(!strncmp(text, "$T05thread:1a2b;awatch:4a62f0;#", 31), "got %s", text);
}
END_TEST

START_TEST(parse_memory_and_registers)
{
	struct rsp_request r;

	parse("m7fff0000,40", &r);
	ck_assert_int_eq(r.kind, rsp_read_memory);
	ck_assert_uint_eq(r.addr, 0x7fff0000);
	ck_assert_uint_eq(r.length, 0x40);
	parse("x10,0", &r);
	ck_assert_int_eq(r.kind, rsp_read_memory_binary);
	parse("m10", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("m10,", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("m10000000000000000,1", &r);	/* 65 bits */
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("p10", &r);
	ck_assert_int_eq(r.kind, rsp_read_register);
	ck_assert_uint_eq(r.regnum, 16);
	parse("pzz", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("g", &r);
	ck_assert_int_eq(r.kind, rsp_read_registers);
	parse("M10,2:abcd", &r);
	ck_assert_int_eq(r.kind, rsp_write_memory);
}
END_TEST

START_TEST(parse_breakpoints)
{
	struct rsp_request r;

	parse("Z0,401000,1", &r);
	ck_assert_int_eq(r.kind, rsp_insert_point);
	ck_assert_int_eq(r.point_type, 0);
	ck_assert_uint_eq(r.addr, 0x401000);
	parse("z1,401000,1", &r);
	ck_assert_int_eq(r.kind, rsp_remove_point);
	ck_assert_int_eq(r.point_type, 1);
	parse("Z0,401000,1;X2,0a", &r);	/* conditions: ignored */
	ck_assert_int_eq(r.kind, rsp_insert_point);
	parse("Z9,1,1", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("Z0,1", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
}
END_TEST

START_TEST(parse_threads)
{
	struct rsp_thread t;
	struct rsp_request r;

	ck_assert(rsp_parse_thread("p1f.2a", 6, &t));
	ck_assert_int_eq(t.pid, 0x1f);
	ck_assert_int_eq(t.tid, 0x2a);
	ck_assert(rsp_parse_thread("-1", 2, &t));
	ck_assert_int_eq(t.tid, -1);
	ck_assert(rsp_parse_thread("0", 1, &t));
	ck_assert_int_eq(t.tid, 0);
	ck_assert(rsp_parse_thread("p5", 2, &t));
	ck_assert_int_eq(t.pid, 5);
	ck_assert_int_eq(t.tid, -1);
	ck_assert(!rsp_parse_thread("p5.", 3, &t));
	ck_assert(!rsp_parse_thread("", 0, &t));
	ck_assert(!rsp_parse_thread("12q", 3, &t));
	parse("Hg1b", &r);
	ck_assert_int_eq(r.kind, rsp_set_thread);
	ck_assert_int_eq(r.thread_op, 'g');
	ck_assert_int_eq(r.thread.tid, 0x1b);
	parse("Hc-1", &r);
	ck_assert_int_eq(r.thread_op, 'c');
	ck_assert_int_eq(r.thread.tid, -1);
	parse("Hx1", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("T2a", &r);
	ck_assert_int_eq(r.kind, rsp_thread_alive);
	parse("qfThreadInfo", &r);
	ck_assert_int_eq(r.kind, rsp_thread_list_first);
}
END_TEST

START_TEST(parse_resume)
{
	struct rsp_request r;

	parse("bs", &r);
	ck_assert_int_eq(r.kind, rsp_resume);
	ck_assert(r.reverse);
	ck_assert_int_eq(r.action, rsp_action_step);
	parse("bc", &r);
	ck_assert(r.reverse);
	ck_assert_int_eq(r.action, rsp_action_continue);
	parse("bx", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("s", &r);
	ck_assert_int_eq(r.kind, rsp_resume);
	ck_assert(!r.reverse);
	parse("C0b", &r);
	ck_assert_int_eq(r.action, rsp_action_continue);
	parse("c401000", &r);	/* resuming elsewhere: refused */
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("vCont;s:p1.2b;c:p1.-1", &r);
	ck_assert_int_eq(r.kind, rsp_resume);
	ck_assert_int_eq(r.action, rsp_action_step);
	ck_assert_int_eq(r.thread.tid, 0x2b);
	parse("vCont;c", &r);
	ck_assert_int_eq(r.action, rsp_action_continue);
	ck_assert_int_eq(r.thread.tid, -1);
	parse("vCont;C0b:2a", &r);
	ck_assert_int_eq(r.action, rsp_action_continue);
	ck_assert_int_eq(r.thread.tid, 0x2a);
	parse("vCont;r1000,2000:2a", &r);	/* range stepping: not offered */
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("vCont;", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("vCont;s:zz", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("vCont?", &r);
	ck_assert_int_eq(r.kind, rsp_vcont_query);
}
END_TEST

START_TEST(parse_queries)
{
	struct rsp_request r;

	parse("qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+", &r);
	ck_assert_int_eq(r.kind, rsp_supported);
	ck_assert(r.gdb_swbreak && r.gdb_hwbreak && r.gdb_multiprocess);
	parse("qXfer:features:read:target.xml:0,ffb", &r);
	ck_assert_int_eq(r.kind, rsp_xfer_read);
	ck_assert_str_eq(r.object, "features");
	ck_assert_str_eq(r.annex, "target.xml");
	ck_assert_uint_eq(r.offset, 0);
	ck_assert_uint_eq(r.length, 0xffb);
	parse("qXfer:exec-file:read::10,20", &r);
	ck_assert_int_eq(r.kind, rsp_xfer_read);
	ck_assert_str_eq(r.annex, "");
	ck_assert_uint_eq(r.offset, 0x10);
	parse("qXfer:features:read:target.xml:0", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("qXfer:siginfo:write::0:abcd", &r);
	ck_assert_int_eq(r.kind, rsp_unknown);
	parse("qHwtr:insn-history:2a:1,10:3", &r);
	ck_assert_int_eq(r.kind, rsp_hwtr);
	ck_assert_str_eq(r.hwtr_command, "insn-history");
	ck_assert_uint_eq(r.hwtr_nargs, 4);
	ck_assert_uint_eq(r.hwtr_args[0], 0x2a);
	ck_assert_uint_eq(r.hwtr_args[1], 1);
	ck_assert_uint_eq(r.hwtr_args[2], 0x10);
	ck_assert_uint_eq(r.hwtr_args[3], 3);
	parse("qHwtr:info", &r);
	ck_assert_int_eq(r.kind, rsp_hwtr);
	ck_assert_uint_eq(r.hwtr_nargs, 0);
	parse("qHwtr:goto:2a:", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	/* GDB's form: thread, the variable's offset, the module's link_map. */
	parse("qGetTLSAddr:59c7,4,4034390", &r);
	ck_assert_int_eq(r.kind, rsp_tls_address);
	ck_assert_int_eq(r.thread.tid, 0x59c7);
	ck_assert_uint_eq(r.offset, 4);
	ck_assert_uint_eq(r.addr, 0x4034390);
	parse("qGetTLSAddr:p59c7.59c8,0,7ffff7ffe2e0", &r);
	ck_assert_int_eq(r.kind, rsp_tls_address);
	ck_assert_int_eq(r.thread.pid, 0x59c7);
	ck_assert_int_eq(r.thread.tid, 0x59c8);
	ck_assert_uint_eq(r.addr, 0x7ffff7ffe2e0);
	parse("qGetTLSAddr:59c7,4", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("qGetTLSAddr:59c7,4,zz", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("qGetTLSAddr:,4,10", &r);
	ck_assert_int_eq(r.kind, rsp_malformed);
	parse("qTStatus", &r);
	ck_assert_int_eq(r.kind, rsp_unknown);
	parse("vMustReplyEmpty", &r);
	ck_assert_int_eq(r.kind, rsp_unknown);
	parse("Qbtrace:pt", &r);
	ck_assert_int_eq(r.kind, rsp_btrace_enable);
	parse("Qbtrace:off", &r);
	ck_assert_int_eq(r.kind, rsp_btrace_disable);
	parse("", &r);
	ck_assert_int_eq(r.kind, rsp_unknown);
}
END_TEST

static Suite *rsp_suite(void)
{
	Suite *s = suite_create("rsp");
	TCase *wire = tcase_create("wire");
	TCase *parsing = tcase_create("parse");

	tcase_add_checked_fixture(wire, gdb_end_setup, gdb_end_teardown);
	tcase_add_test(wire, receive_acks_good_packet);
	tcase_add_test(wire, receive_bad_checksum_asks_again);
	tcase_add_test(wire, receive_non_hex_checksum_asks_again);
	tcase_add_test(wire, receive_unescapes);
	tcase_add_test(wire, receive_noack_mode_sends_no_ack);
	tcase_add_test(wire, receive_interrupt_and_eof);
	tcase_add_test(wire, receive_restart_inside_packet);
	tcase_add_test(wire, receive_oversized_is_dropped);
	tcase_add_test(wire, frame_escapes_and_sums);
	tcase_add_test(wire, reply_waits_for_ack_and_resends);
	tcase_add_test(wire, reply_unavailable_registers_are_xx);
	tcase_add_test(wire, reply_xfer_slices_with_m_and_l);
	tcase_add_test(wire, reply_streamed_hex_is_the_same_packet);
	tcase_add_test(wire, reply_stop_formats_reasons);
	suite_add_tcase(s, wire);
	tcase_add_test(parsing, parse_memory_and_registers);
	tcase_add_test(parsing, parse_breakpoints);
	tcase_add_test(parsing, parse_threads);
	tcase_add_test(parsing, parse_resume);
	tcase_add_test(parsing, parse_queries);
	suite_add_tcase(s, parsing);
	return s;
}

int main(void)
{
	return check_run_suite(rsp_suite());
}
