/* test-server-history: hwtrec-server's replay over a recording whose path is
 * known instruction by instruction: the unit tests' fixture (real code in
 * testsuite/unit/fixture-code.S, a trace written with libipt's encoder).
 * The assembler's labels are the oracle for every expected PC: after each
 * bs / bc / s / c / qHwtr:goto the stop reply's PC must be the label the
 * fixture's path (main_path_labels) has at that position. */
#include "../unit/check-main.h"
#include "fixture.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NPATH 29

static int fd = -1;
static pid_t server;
static char reply[1 << 20];
static uint8_t trace_bytes[1 << 16];
static size_t trace_len;

/* Send PAYLOAD (no-ack mode after the first exchange) and read the reply
 * into `reply`, unescaped. */
static const char *ask(const char *payload)
{
	char frame[4096];
	unsigned sum = 0;
	size_t n = 0, i;
	int state = 0;

	for (i = 0; payload[i]; i++)
		sum += (unsigned char)payload[i];
	snprintf(frame, sizeof(frame), "$%s#%02x", payload, sum & 0xff);
	ck_assert_int_eq(write(fd, frame, strlen(frame)), (ssize_t)strlen(frame));
	for (;;) {
		char c;

		ck_assert_int_eq(read(fd, &c, 1), 1);
		if (state == 0) {
			if (c == '$')
				state = 1;
			continue;
		}
		if (state == 1) {
			if (c == '#') {
				state = 2;
				continue;
			}
			if (c == '}') {
				ck_assert_int_eq(read(fd, &c, 1), 1);
				c ^= 0x20;
			}
			ck_assert_uint_lt(n, sizeof(reply) - 1);
			reply[n++] = c;
			continue;
		}
		if (++state == 4)
			break;	/* two checksum digits */
	}
	reply[n] = '\0';
	return reply;
}

static void start_server(void)
{
	const char *exe = getenv("HWTREC_SERVER");
	const char *dir = fixture_tmpdir();
	char rec[512];
	struct trace t;
	int sv[2];

	ck_assert_ptr_nonnull(exe);
	trace_begin(&t);
	trace_main_path(&t);
	trace_len = trace_size(&t);
	memcpy(trace_bytes, t.buf, trace_len);
	trace_end(&t);
	snprintf(rec, sizeof(rec), "%s/main.hwtrec", dir);
	fixture_recording(rec, trace_bytes, trace_len, NULL, NULL);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	server = fork();
	ck_assert_int_ge(server, 0);
	if (server == 0) {
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		close(sv[0]);
		execl(exe, exe, rec, (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	fd = sv[0];
	/* The first packet is acknowledged; then no acks. */
	ck_assert_int_eq(write(fd, "$QStartNoAckMode#b0", 19), 19);
	{
		char c;

		ck_assert_int_eq(read(fd, &c, 1), 1);
		ck_assert_int_eq(c, '+');
	}
	{
		/* Read the OK reply by hand (it is "$OK#9a"). */
		char buf[6];
		size_t got = 0;

		while (got < 6) {
			ssize_t r = read(fd, buf + got, 6 - got);

			ck_assert_int_gt(r, 0);
			got += (size_t)r;
		}
		ck_assert_mem_eq(buf, "$OK#9a", 6);
		/* The OK itself is still acknowledged, as GDB does. */
		ck_assert_int_eq(write(fd, "+", 1), 1);
	}
}

static void stop_server(void)
{
	int status;

	ck_assert_str_eq(ask("vKill;1"), "OK");
	close(fd);
	ck_assert_int_eq(waitpid(server, &status, 0), server);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fixture_cleanup();
}

/* The rip a stop reply carries ("10:" then 16 hex digits, little-endian). */
static uint64_t stop_pc(const char *stop)
{
	const char *p = strstr(stop, ";10:");
	uint64_t pc = 0;
	int i;

	ck_assert_msg(p != NULL, "no rip in stop reply '%s'", stop);
	p += 4;
	for (i = 7; i >= 0; i--) {
		unsigned b;

		ck_assert_int_eq(sscanf(p + 2 * i, "%2x", &b), 1);
		pc = pc << 8 | b;
	}
	return pc;
}

static uint64_t at(int index)
{
	return fixture_symbol(main_path_labels[index]);
}

/* A hex-encoded text reply, decoded (malloc'd). */
static char *unhex(const char *hex)
{
	size_t n = strlen(hex) / 2, i;
	char *text = malloc(n + 1);

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < n; i++) {
		unsigned b;

		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &b), 1);
		text[i] = (char)b;
	}
	text[n] = '\0';
	return text;
}

static void expect_stop(const char *packet, int index, const char *reason)
{
	const char *stop = ask(packet);

	ck_assert_msg(!strncmp(stop, "T05thread:1;", 12), "%s: '%s'", packet, stop);
	ck_assert_msg(stop_pc(stop) == at(index), "%s: pc %#llx, expected %s",
		      packet, (unsigned long long)stop_pc(stop), main_path_labels[index]);
	if (reason)
		ck_assert_msg(strstr(stop, reason) != NULL, "%s: '%s' lacks %s",
			      packet, stop, reason);
	else
		ck_assert_msg(!strstr(stop, "replaylog") && !strstr(stop, "swbreak"),
			      "%s: unexpected reason in '%s'", packet, stop);
}

START_TEST(starts_at_end_of_history)
{
	const char *g;

	start_server();
	expect_stop("?", NPATH - 1, NULL);
	g = ask("g");
	ck_assert_uint_eq(strlen(g), 1120);
	/* Only rip (bytes 128..135) is known without a core. */
	ck_assert_int_eq(strspn(g, "x"), 256);
	ck_assert_int_eq(g[256 + 16], 'x');
	stop_server();
}
END_TEST

START_TEST(reverse_stepi_walks_the_path_back_to_the_beginning)
{
	int i;

	start_server();
	for (i = NPATH - 2; i >= 1; i--)
		expect_stop("bs", i, NULL);
	/* Arriving at the first instruction is the history's start, as
	 * record full says it ("No more reverse-execution history."), and
	 * so is every step back from there. */
	expect_stop("bs", 0, "replaylog:begin;");
	expect_stop("bs", 0, "replaylog:begin;");
	for (i = 1; i < NPATH; i++)
		expect_stop("vCont;s:1", i, NULL);
	expect_stop("vCont;s:1", NPATH - 1, "replaylog:end;");
	stop_server();
}
END_TEST

START_TEST(reverse_continue_stops_at_latest_hit)
{
	char z[64];
	int i3[4] = { 2, 8, 14, 21 }, k;

	start_server();
	snprintf(z, sizeof(z), "Z0,%llx,1", (unsigned long long)fixture_symbol("i3"));
	ck_assert_str_eq(ask(z), "OK");
	for (k = 3; k >= 0; k--)
		expect_stop("bc", i3[k], "swbreak:;");
	expect_stop("bc", 0, "replaylog:begin;");
	for (k = 0; k < 4; k++)
		expect_stop("vCont;c", i3[k], "swbreak:;");
	expect_stop("vCont;c", NPATH - 1, "replaylog:end;");
	z[0] = 'z';
	ck_assert_str_eq(ask(z), "OK");
	expect_stop("bc", 0, "replaylog:begin;");
	stop_server();
}
END_TEST

START_TEST(breakpoints_on_consecutive_instructions)
{
	char z[64];

	start_server();
	snprintf(z, sizeof(z), "Z0,%llx,1", (unsigned long long)fixture_symbol("i4"));
	ck_assert_str_eq(ask(z), "OK");
	snprintf(z, sizeof(z), "Z1,%llx,1", (unsigned long long)fixture_symbol("i5"));
	ck_assert_str_eq(ask(z), "OK");
	expect_stop("bc", 22, "swbreak:;");	/* i4 of the last pass */
	expect_stop("bc", 16, "swbreak:;");	/* i5 of the third loop */
	expect_stop("bc", 15, "swbreak:;");	/* i4 just before it */
	expect_stop("vCont;c", 16, "swbreak:;");
	stop_server();
}
END_TEST

START_TEST(plugin_packets)
{
	char packet[64], *text;

	start_server();
	ck_assert_str_eq(ask("qHwtr:goto:1:5"), "OK");
	expect_stop("?", 4, NULL);	/* instruction 5 is path index 4 */
	text = unhex(ask("qHwtr:info:1"));
	ck_assert_msg(strstr(text, "\"instructions\":29") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\"position\":5") != NULL, "%s", text);
	free(text);
	ck_assert(!strncmp(ask("qHwtr:goto:1:999"), "E.", 2));
	ck_assert(!strncmp(ask("qHwtr:goto:7:1"), "E.", 2));
	ck_assert_uint_gt(strlen(ask("qHwtr:call-history:1:1,100:0")), 10);
	ck_assert_uint_gt(strlen(ask("qHwtr:frames:1")), 10);
	/* The stack at another position: frame 0's pc is that position's
	 * label, and the thread does not move. */
	text = unhex(ask("qHwtr:frames:1:a"));
	snprintf(packet, sizeof(packet), "\"pc\":\"%#llx\"",
		 (unsigned long long)at(9));
	ck_assert_msg(strstr(text, packet) == strstr(text, "\"pc\""), "%s", text);
	free(text);
	expect_stop("?", 4, NULL);
	text = unhex(ask("qHwtr:info:1"));
	ck_assert_msg(strstr(text, "\"position\":5,\"end\":29") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\"at_end\":false") != NULL, "%s", text);
	free(text);
	snprintf(packet, sizeof(packet), "qHwtr:insn-history:1:1,3:0");
	ck_assert_uint_gt(strlen(ask(packet)), 10);
	stop_server();
}
END_TEST

START_TEST(btrace_hands_over_the_raw_trace)
{
	static char expected[1 << 17];
	const char *xml;
	size_t i;

	start_server();
	ck_assert(!strncmp(ask("qXfer:btrace:read:all:0,1000"), "E.", 2));
	ck_assert_str_eq(ask("Hg1"), "OK");
	ck_assert_str_eq(ask("Qbtrace:pt"), "OK");
	xml = ask("qXfer:btrace-conf:read::0,1000");
	ck_assert_msg(strstr(xml, "<pt size=") != NULL, "%s", xml);
	xml = ask("qXfer:btrace:read:all:0,1fff0");
	ck_assert_int_eq(xml[0], 'l');
	ck_assert(strstr(xml, "<cpu vendor=\"GenuineIntel\" family=\"6\" model=\"85\" stepping=\"4\"/>"));
	for (i = 0; i < trace_len; i++)
		sprintf(expected + 2 * i, "%02x", trace_bytes[i]);
	ck_assert_msg(strstr(xml, expected) != NULL, "raw trace differs");
	ck_assert(!strncmp(ask("qXfer:btrace:read:delta:0,1000"), "E.", 2));
	xml = ask("qXfer:btrace:read:new:0,1000");
	ck_assert_msg(!strstr(xml, "<raw>"), "nothing new: %s", xml);
	ck_assert_str_eq(ask("Qbtrace:off"), "OK");
	stop_server();
}
END_TEST

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Z or z (by PACKET's first letter) for 3999 addresses never executed: the
 * second half of the code's own page (the fixture's code is 109 bytes), so
 * no chunk can be skipped by its page, and a far region; then i3. */
static void many_breakpoints(char kind)
{
	char z[64];
	int k;

	for (k = 0; k < 3999; k++) {
		uint64_t a = k < 2000 ? 0x401800 + (uint64_t)(1999 - k)
				      : 0x500000 + 4 * (uint64_t)k;

		snprintf(z, sizeof(z), "%c0,%llx,1", kind, (unsigned long long)a);
		ck_assert_str_eq(ask(z), "OK");
	}
	snprintf(z, sizeof(z), "%c0,%llx,1", kind, (unsigned long long)fixture_symbol("i3"));
	ck_assert_str_eq(ask(z), "OK");
}

/* Issue 16: 4000 breakpoints took 8-10 s to insert (every insertion
 * rebuilt the address list with a quadratic scan), again at every resume,
 * since GDB removes and inserts them all around each one. */
START_TEST(four_thousand_breakpoints_insert_and_hit_in_time)
{
	double t0, elapsed;
	int round;

	start_server();
	/* As GDB around each resume: all in, resume, all out. */
	for (round = 0; round < 3; round++) {
		static const int stops[3] = { 21, 14, 8 };

		t0 = seconds();
		many_breakpoints('Z');
		expect_stop("bc", stops[round], "swbreak:;");
		elapsed = seconds() - t0;
		fprintf(stderr, "round %d: 4000 Z0 and bc: %.3f s\n", round, elapsed);
		ck_assert_msg(elapsed < 2.0, "4000 Z0 packets and a reverse-continue "
			      "took %.2f s", elapsed);
		many_breakpoints('z');
	}
	expect_stop("vCont;c", NPATH - 1, "replaylog:end;");
	stop_server();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("server-history");
	TCase *tc = tcase_create("replay");

	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, starts_at_end_of_history);
	tcase_add_test(tc, reverse_stepi_walks_the_path_back_to_the_beginning);
	tcase_add_test(tc, reverse_continue_stops_at_latest_hit);
	tcase_add_test(tc, breakpoints_on_consecutive_instructions);
	tcase_add_test(tc, plugin_packets);
	tcase_add_test(tc, btrace_hands_over_the_raw_trace);
	tcase_add_test(tc, four_thousand_breakpoints_insert_and_hit_in_time);
	suite_add_tcase(s, tc);
	return check_run_suite(s);
}
