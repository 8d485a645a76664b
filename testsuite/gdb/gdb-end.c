/* gdb-end.c: GDB's end of the wire tests' connection (gdb-end.h). */
#include "gdb-end.h"

#include <check.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int gdb_end;
struct rsp_conn conn;

void gdb_end_setup(void)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	gdb_end = sv[0];
	rsp_conn_init(&conn, sv[1], sv[1]);
}

void gdb_end_setup_no_ack(void)
{
	gdb_end_setup();
	conn.ack_mode = false;
}

void gdb_end_teardown(void)
{
	close(conn.in_fd);
	close(gdb_end);
	rsp_conn_fini(&conn);
}

void gdb_send(const char *bytes)
{
	ck_assert_int_eq(write(gdb_end, bytes, strlen(bytes)),
			 (ssize_t)strlen(bytes));
}

const char *gdb_read(void)
{
	static char buf[8192];
	ssize_t n;
	int flags = fcntl(gdb_end, F_GETFL);

	fcntl(gdb_end, F_SETFL, flags | O_NONBLOCK);
	n = read(gdb_end, buf, sizeof(buf) - 1);
	fcntl(gdb_end, F_SETFL, flags);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

char *gdb_read_packet(size_t *len)
{
	static char buf[1 << 16];
	size_t got = 0;
	char *end;

	for (;;) {
		ssize_t n = read(gdb_end, buf + got, sizeof(buf) - 1 - got);

		ck_assert_int_gt(n, 0);
		got += (size_t)n;
		buf[got] = 0;
		end = memchr(buf + 1, '#', got - 1);
		if (end && (size_t)(end - buf) + 3 <= got)
			break;
	}
	*len = got;
	return buf;
}
