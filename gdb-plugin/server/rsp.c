/* rsp.c: GDB remote serial protocol framing, parsing and replies.
 *
 * Incoming: bytes outside a packet are acks ('+', '-'), an interrupt (0x03)
 * or noise; a packet is "$payload#cs".  In ack mode a packet with a bad
 * checksum gets '-' and is dropped (GDB resends it); a good one gets '+'.
 * '}' escapes the next byte (xor 0x20) in any packet.  GDB never sends
 * run-length encoded packets, so '*' is taken literally.  A packet longer
 * than RSP_MAX_PAYLOAD is read to its end without being stored, so a peer
 * cannot make us allocate without bound.
 *
 * Outgoing: '$', '#', '}' and '*' are escaped in every packet (GDB unescapes
 * every packet it reads); no run-length encoding.
 */
#include "rsp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rsp_conn_init(struct rsp_conn *conn, int in_fd, int out_fd)
{
	memset(conn, 0, sizeof(*conn));
	conn->in_fd = in_fd;
	conn->out_fd = out_fd;
	conn->ack_mode = true;
}

void rsp_conn_fini(struct rsp_conn *conn)
{
	free(conn->payload);
	free(conn->out);
	conn->payload = NULL;
	conn->out = NULL;
}

/* ------------------------------------------------------------------ the wire */

static int read_byte(struct rsp_conn *conn)
{
	if (conn->in_pos == conn->in_len) {
		ssize_t n;

		do
			n = read(conn->in_fd, conn->in, sizeof(conn->in));
		while (n < 0 && errno == EINTR);
		if (n <= 0) {
			conn->closed = true;
			return -1;
		}
		conn->in_pos = 0;
		conn->in_len = (size_t)n;
	}
	return conn->in[conn->in_pos++];
}

static int write_all(struct rsp_conn *conn, const void *data, size_t size)
{
	const char *p = data;

	while (size) {
		ssize_t n = write(conn->out_fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			conn->closed = true;
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

int rsp_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool rsp_unhex(const char *text, size_t n, uint8_t *bytes)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int hi = rsp_hex_value((unsigned char)text[2 * i]);
		int lo = rsp_hex_value((unsigned char)text[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

enum rsp_recv rsp_receive(struct rsp_conn *conn)
{
	if (!conn->payload) {
		conn->payload = malloc(RSP_MAX_PAYLOAD + 1);
		if (!conn->payload)
			return rsp_recv_eof;
	}
	for (;;) {
		size_t len = 0;
		bool oversized = false, escaped = false;
		uint8_t sum = 0;
		int c, hi, lo;

		c = read_byte(conn);
		if (c < 0)
			return rsp_recv_eof;
		if (c == 0x03)
			return rsp_recv_interrupt;
		if (c != '$')
			continue;	/* acks and noise between packets */
		for (;;) {
			c = read_byte(conn);
			if (c < 0)
				return rsp_recv_eof;
			if (c == '#')
				break;
			if (c == '$') {
				/* A new start inside a packet: the first was
				 * truncated; start over, as GDB's stubs do. */
				len = 0;
				sum = 0;
				oversized = false;
				escaped = false;
				continue;
			}
			sum += (uint8_t)c;
			if (escaped) {
				c ^= 0x20;
				escaped = false;
			} else if (c == '}') {
				escaped = true;
				continue;
			} else if (c == '*' && conn->decode_rle && len) {
				/* Run-length: the previous byte N - 29 more
				 * times (stubs such as gdbserver send it). */
				int n = read_byte(conn), k;

				if (n < 0)
					return rsp_recv_eof;
				sum += (uint8_t)n;
				for (k = 0; k < n - 29; k++) {
					if (len < RSP_MAX_PAYLOAD)
						conn->payload[len] = conn->payload[len - 1], len++;
					else
						oversized = true;
				}
				continue;
			}
			if (len < RSP_MAX_PAYLOAD)
				conn->payload[len++] = (char)c;
			else
				oversized = true;
		}
		hi = read_byte(conn);
		lo = hi < 0 ? -1 : read_byte(conn);
		if (lo < 0 && conn->closed)
			return rsp_recv_eof;
		if (conn->ack_mode &&
		    (rsp_hex_value(hi) < 0 || rsp_hex_value(lo) < 0 ||
		     (uint8_t)(rsp_hex_value(hi) << 4 | rsp_hex_value(lo)) != sum)) {
			if (conn->log)
				fprintf(conn->log, "<- bad checksum, asking again\n");
			if (write_all(conn, "-", 1) < 0)
				return rsp_recv_eof;
			continue;
		}
		if (conn->ack_mode && write_all(conn, "+", 1) < 0)
			return rsp_recv_eof;
		conn->payload[len] = '\0';
		conn->payload_len = len;
		if (conn->log)
			fprintf(conn->log, "%s<- %.*s%s\n",
				conn->log_prefix ? conn->log_prefix : "", (int)(len > 200 ? 200 : len),
				conn->payload, len > 200 ? "..." : "");
		return oversized ? rsp_recv_oversized : rsp_recv_packet;
	}
}

size_t rsp_frame(const void *payload, size_t len, char *out, size_t out_size)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = payload;
	uint8_t sum = 0;
	size_t n = 0, i;

	if (out_size < 4)
		return 0;
	out[n++] = '$';
	for (i = 0; i < len; i++) {
		uint8_t c = p[i];

		if (c == '$' || c == '#' || c == '}' || c == '*') {
			if (n + 2 > out_size - 3)
				return 0;
			out[n++] = '}';
			sum += '}';
			c ^= 0x20;
		} else if (n + 1 > out_size - 3) {
			return 0;
		}
		out[n++] = (char)c;
		sum += c;
	}
	out[n++] = '#';
	out[n++] = hex[sum >> 4];
	out[n++] = hex[sum & 15];
	return n;
}

/* Send the reply built in conn->out; in ack mode wait for '+', resending on
 * '-' a few times. */
static int send_out(struct rsp_conn *conn)
{
	size_t cap, n;
	char *frame;
	int tries;

	if (conn->out_oom) {
		conn->out_oom = false;
		conn->out_len = 0;
		return rsp_reply_error(conn, 12);	/* ENOMEM */
	}
	cap = 2 * conn->out_len + 4;
	frame = malloc(cap);
	if (!frame)
		return -1;
	n = rsp_frame(conn->out, conn->out_len, frame, cap);
	if (conn->log)
		fprintf(conn->log, "%s-> %.*s%s\n",
			conn->log_prefix ? conn->log_prefix : "",
			(int)(conn->out_len > 200 ? 200 : conn->out_len),
			conn->out ? conn->out : "", conn->out_len > 200 ? "..." : "");
	conn->out_len = 0;
	for (tries = 0; tries < 10; tries++) {
		int c;

		if (write_all(conn, frame, n) < 0)
			break;
		if (!conn->ack_mode) {
			free(frame);
			return 0;
		}
		do
			c = read_byte(conn);
		while (c >= 0 && c != '+' && c != '-');
		if (c == '+') {
			free(frame);
			return 0;
		}
		if (c < 0)
			break;
	}
	free(frame);
	conn->closed = true;
	return -1;
}

static void out_append(struct rsp_conn *conn, const void *data, size_t size)
{
	/* size 0 may come with data NULL (an empty x reply): memcpy must not
	 * see it. */
	if (conn->out_oom || size == 0)
		return;
	if (conn->out_len + size + 1 > conn->out_cap) {
		size_t cap = conn->out_cap ? conn->out_cap : 256;
		char *p;

		while (cap < conn->out_len + size + 1)
			cap *= 2;
		p = realloc(conn->out, cap);
		if (!p) {
			conn->out_oom = true;
			return;
		}
		conn->out = p;
		conn->out_cap = cap;
	}
	memcpy(conn->out + conn->out_len, data, size);
	conn->out_len += size;
	conn->out[conn->out_len] = '\0';
}

static void out_printf(struct rsp_conn *conn, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		out_append(conn, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void out_hex(struct rsp_conn *conn, const uint8_t *bytes,
		    const uint8_t *valid, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < size; i++) {
		char pair[2] = { 'x', 'x' };

		if (!valid || valid[i]) {
			pair[0] = hex[bytes[i] >> 4];
			pair[1] = hex[bytes[i] & 15];
		}
		out_append(conn, pair, 2);
	}
}

/* ------------------------------------------------------------------ replies */

int rsp_send(struct rsp_conn *conn, const void *payload, size_t len)
{
	conn->out_len = 0;
	out_append(conn, payload, len);
	return send_out(conn);
}

int rsp_reply_empty(struct rsp_conn *conn)
{
	conn->out_len = 0;
	return send_out(conn);
}

int rsp_reply_ok(struct rsp_conn *conn)
{
	return rsp_reply_text(conn, "OK");
}

int rsp_reply_error(struct rsp_conn *conn, unsigned code)
{
	conn->out_len = 0;
	out_printf(conn, "E%02x", code & 0xff);
	return send_out(conn);
}

int rsp_reply_error_text(struct rsp_conn *conn, const char *message)
{
	conn->out_len = 0;
	out_append(conn, "E.", 2);
	out_append(conn, message, strlen(message));
	return send_out(conn);
}

int rsp_reply_text(struct rsp_conn *conn, const char *text)
{
	conn->out_len = 0;
	out_append(conn, text, strlen(text));
	return send_out(conn);
}

int rsp_reply_hex(struct rsp_conn *conn, const uint8_t *bytes,
		  const uint8_t *valid, size_t size)
{
	conn->out_len = 0;
	out_hex(conn, bytes, valid, size);
	return send_out(conn);
}

/* The stream's writes: hex digits need no escaping, so they go out as
 * they are, a buffer at a time. */
static ssize_t hex_stream_write(void *cookie, const char *data, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	struct rsp_conn *conn = cookie;
	char buf[8192];
	size_t i = 0;

	if (!conn->stream_started) {
		if (write_all(conn, "$", 1) < 0)
			return -1;
		conn->stream_started = true;
	}
	while (i < size) {
		size_t n = 0, k;

		for (; i < size && n + 2 <= sizeof(buf); i++) {
			buf[n++] = hex[(uint8_t)data[i] >> 4];
			buf[n++] = hex[(uint8_t)data[i] & 15];
		}
		for (k = 0; k < n; k++)
			conn->stream_sum += (uint8_t)buf[k];
		if (write_all(conn, buf, n) < 0)
			return -1;
	}
	conn->stream_bytes += size;
	return (ssize_t)size;
}

FILE *rsp_reply_hex_begin(struct rsp_conn *conn)
{
	static const cookie_io_functions_t io = { .write = hex_stream_write };
	FILE *f;

	conn->stream_started = false;
	conn->stream_sum = 0;
	conn->stream_bytes = 0;
	f = fopencookie(conn, "w", io);
	if (f)
		setvbuf(f, NULL, _IOFBF, 64 << 10);
	return f;
}

int rsp_reply_hex_end(struct rsp_conn *conn, FILE *stream, const char *error)
{
	static const char hex[] = "0123456789abcdef";
	char tail[3];
	int c;

	if (fflush(stream) != 0) {
		fclose(stream);
		conn->closed = true;
		return -1;
	}
	if (error && !conn->stream_started) {
		fclose(stream);
		return rsp_reply_error_text(conn, error);
	}
	if (error)
		fputs(error, stream);
	/* An empty payload starts here. */
	if (fclose(stream) != 0 ||
	    (!conn->stream_started && write_all(conn, "$", 1) < 0))
		return -1;
	tail[0] = '#';
	tail[1] = hex[conn->stream_sum >> 4];
	tail[2] = hex[conn->stream_sum & 15];
	if (write_all(conn, tail, 3) < 0)
		return -1;
	if (conn->log)
		fprintf(conn->log, "%s-> (%llu bytes in hex, streamed)\n",
			conn->log_prefix ? conn->log_prefix : "",
			(unsigned long long)conn->stream_bytes);
	if (!conn->ack_mode)
		return 0;
	do
		c = read_byte(conn);
	while (c >= 0 && c != '+' && c != '-');
	if (c == '+')
		return 0;
	conn->closed = true;
	return -1;
}

int rsp_reply_binary(struct rsp_conn *conn, const uint8_t *bytes, size_t size)
{
	conn->out_len = 0;
	out_append(conn, "b", 1);
	out_append(conn, bytes, size);
	return send_out(conn);
}

int rsp_reply_xfer(struct rsp_conn *conn, const void *data, size_t size,
		   uint64_t offset, uint64_t length)
{
	size_t n;

	conn->out_len = 0;
	if (offset >= size) {
		out_append(conn, "l", 1);
		return send_out(conn);
	}
	n = size - (size_t)offset;
	/* Escaping may double every byte: keep the frame within PacketSize. */
	if (length > RSP_MAX_PAYLOAD / 2 - 1)
		length = RSP_MAX_PAYLOAD / 2 - 1;
	if (n > length)
		n = (size_t)length;
	out_append(conn, offset + n < size ? "m" : "l", 1);
	out_append(conn, (const char *)data + offset, n);
	return send_out(conn);
}

int rsp_reply_thread_list(struct rsp_conn *conn, const uint32_t *tids,
			  size_t n)
{
	size_t i;

	conn->out_len = 0;
	if (n == 0) {
		out_append(conn, "l", 1);
		return send_out(conn);
	}
	out_append(conn, "m", 1);
	for (i = 0; i < n; i++)
		out_printf(conn, i ? ",%x" : "%x", tids[i]);
	return send_out(conn);
}

int rsp_reply_current_thread(struct rsp_conn *conn, uint32_t tid)
{
	conn->out_len = 0;
	out_printf(conn, "QC%x", tid);
	return send_out(conn);
}

int rsp_reply_stop(struct rsp_conn *conn, const struct rsp_stop *stop)
{
	size_t i;

	conn->out_len = 0;
	out_printf(conn, "T%02xthread:%x;", stop->signal & 0xff, stop->tid);
	for (i = 0; i < stop->nregs && i < 4; i++) {
		out_printf(conn, "%02x:", stop->regs[i].regnum);
		out_hex(conn, stop->regs[i].bytes, NULL, stop->regs[i].size);
		out_append(conn, ";", 1);
	}
	if (stop->exec_path) {
		out_printf(conn, "exec:");
		out_hex(conn, (const uint8_t *)stop->exec_path, NULL,
			strlen(stop->exec_path));
		out_append(conn, ";", 1);
	}
	switch (stop->reason) {
	case rsp_stop_none:
		break;
	case rsp_stop_swbreak:
		out_printf(conn, "swbreak:;");
		break;
	case rsp_stop_hwbreak:
		out_printf(conn, "hwbreak:;");
		break;
	case rsp_stop_history_begin:
		out_printf(conn, "replaylog:begin;");
		break;
	case rsp_stop_history_end:
		out_printf(conn, "replaylog:end;");
		break;
	case rsp_stop_watch:
	case rsp_stop_rwatch:
	case rsp_stop_awatch:
		out_printf(conn, "%s:%llx;",
			   stop->reason == rsp_stop_watch ? "watch"
			   : stop->reason == rsp_stop_rwatch ? "rwatch" : "awatch",
			   (unsigned long long)stop->watch_addr);
		break;
	}
	return send_out(conn);
}

int rsp_reply_exited(struct rsp_conn *conn, int code)
{
	conn->out_len = 0;
	out_printf(conn, "W%02x", code & 0xff);
	return send_out(conn);
}

/* ------------------------------------------------------------------ parsing */

/* Parse a hex number of at least one digit at *p (up to end); advance. */
static bool parse_hex(const char **p, const char *end, uint64_t *value)
{
	uint64_t v = 0;
	const char *s = *p;

	if (s == end || rsp_hex_value((unsigned char)*s) < 0)
		return false;
	while (s < end && rsp_hex_value((unsigned char)*s) >= 0) {
		if (v >> 60)
			return false;	/* overflows 64 bits */
		v = v << 4 | (uint64_t)rsp_hex_value((unsigned char)*s);
		s++;
	}
	*p = s;
	*value = v;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p == end || **p != c)
		return false;
	(*p)++;
	return true;
}

static bool starts(const char *payload, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(payload, prefix, n);
}

static bool equals(const char *payload, size_t len, const char *text)
{
	return len == strlen(text) && !memcmp(payload, text, len);
}

/* One id: "-1", or hex. */
static bool parse_id(const char **p, const char *end, int64_t *id)
{
	uint64_t v;

	if (*p + 2 <= end && (*p)[0] == '-' && (*p)[1] == '1') {
		*p += 2;
		*id = -1;
		return true;
	}
	if (!parse_hex(p, end, &v) || v > INT64_MAX)
		return false;
	*id = (int64_t)v;
	return true;
}

bool rsp_parse_thread(const char *text, size_t len, struct rsp_thread *thread)
{
	const char *p = text, *end = text + len;

	thread->pid = 0;
	thread->tid = -1;
	if (p < end && *p == 'p') {
		p++;
		if (!parse_id(&p, end, &thread->pid))
			return false;
		if (p == end) {
			thread->tid = -1;
			return true;
		}
		if (!expect(&p, end, '.'))
			return false;
	}
	if (!parse_id(&p, end, &thread->tid))
		return false;
	return p == end;
}

static void malformed(struct rsp_request *r, const char *why)
{
	r->kind = rsp_malformed;
	r->error = why;
}

/* "addr,length" to the end of the payload (or up to a ':' for M/X). */
static bool parse_addr_len(const char **p, const char *end,
			   struct rsp_request *r)
{
	return parse_hex(p, end, &r->addr) && expect(p, end, ',') &&
	       parse_hex(p, end, &r->length);
}

/* qGetTLSAddr:THREAD,OFFSET,LM */
static void parse_tls_address(const char *payload, size_t len,
			      struct rsp_request *r)
{
	const char *p = payload + strlen("qGetTLSAddr:"), *end = payload + len;
	const char *comma = memchr(p, ',', (size_t)(end - p));

	if (!comma || !rsp_parse_thread(p, (size_t)(comma - p), &r->thread))
		return malformed(r, "qGetTLSAddr: bad thread");
	p = comma + 1;
	if (!parse_hex(&p, end, &r->offset) || !expect(&p, end, ',') ||
	    !parse_hex(&p, end, &r->addr) || p != end)
		return malformed(r, "qGetTLSAddr: bad offset,lm");
	r->kind = rsp_tls_address;
}

static void parse_supported(const char *payload, size_t len,
			    struct rsp_request *r)
{
	const char *p = payload + strlen("qSupported"), *end = payload + len;

	r->kind = rsp_supported;
	if (p < end && *p == ':')
		p++;
	while (p < end) {
		const char *q = memchr(p, ';', (size_t)(end - p));
		size_t n;

		if (!q)
			q = end;
		n = (size_t)(q - p);
		if (n == 8 && !memcmp(p, "swbreak+", 8))
			r->gdb_swbreak = true;
		else if (n == 8 && !memcmp(p, "hwbreak+", 8))
			r->gdb_hwbreak = true;
		else if (n == 13 && !memcmp(p, "multiprocess+", 13))
			r->gdb_multiprocess = true;
		p = q < end ? q + 1 : end;
	}
}

/* qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH */
static void parse_xfer(const char *payload, size_t len, struct rsp_request *r)
{
	const char *p = payload + strlen("qXfer:"), *end = payload + len;
	const char *colon = memchr(p, ':', (size_t)(end - p));
	const char *annex, *annex_end;

	if (!colon || (size_t)(colon - p) >= sizeof(r->object))
		return malformed(r, "qXfer: bad object");
	memcpy(r->object, p, (size_t)(colon - p));
	r->object[colon - p] = '\0';
	p = colon + 1;
	if (!starts(p, (size_t)(end - p), "read:")) {
		/* qXfer writes: not supported. */
		r->kind = rsp_unknown;
		return;
	}
	annex = p + 5;
	annex_end = memchr(annex, ':', (size_t)(end - annex));
	if (!annex_end || (size_t)(annex_end - annex) >= sizeof(r->annex))
		return malformed(r, "qXfer: bad annex");
	memcpy(r->annex, annex, (size_t)(annex_end - annex));
	r->annex[annex_end - annex] = '\0';
	p = annex_end + 1;
	if (!parse_hex(&p, end, &r->offset) || !expect(&p, end, ',') ||
	    !parse_hex(&p, end, &r->length) || p != end)
		return malformed(r, "qXfer: bad offset,length");
	r->kind = rsp_xfer_read;
}

/* vCont;ACTION[:TID];...  We take the first action: GDB lists the thread it
 * wants stepped first and the rest (continue) after it. */
static void parse_vcont(const char *payload, size_t len, struct rsp_request *r)
{
	const char *p = payload + strlen("vCont"), *end = payload + len;
	bool have = false;

	while (p < end) {
		const char *q;
		char a;
		struct rsp_thread thread = { 0, -1 };

		if (!expect(&p, end, ';') || p == end)
			return malformed(r, "vCont: bad action list");
		a = *p++;
		switch (a) {
		case 's': case 'c': case 't':
			break;
		case 'S': case 'C': {
			uint64_t sig;

			if (!parse_hex(&p, end, &sig) || sig > 255)
				return malformed(r, "vCont: bad signal");
			break;
		}
		default:
			return malformed(r, "vCont: unsupported action");
		}
		q = p;
		while (q < end && *q != ';')
			q++;
		if (p < q) {
			if (*p != ':' || !rsp_parse_thread(p + 1, (size_t)(q - p - 1), &thread))
				return malformed(r, "vCont: bad thread id");
		}
		p = q;
		if (a == 't' || have)
			continue;
		have = true;
		r->action = (a == 's' || a == 'S') ? rsp_action_step : rsp_action_continue;
		r->thread = thread;
	}
	if (!have)
		return malformed(r, "vCont: no action");
	r->kind = rsp_resume;
	r->reverse = false;
}

/* qHwtr:COMMAND[:ARG...]; arguments are hex numbers separated by ':' or ','. */
static void parse_hwtr(const char *payload, size_t len, struct rsp_request *r)
{
	const char *p = payload + strlen("qHwtr:"), *end = payload + len;
	const char *q = p;

	while (q < end && *q != ':')
		q++;
	if (q == p || (size_t)(q - p) >= sizeof(r->hwtr_command))
		return malformed(r, "qHwtr: bad command");
	memcpy(r->hwtr_command, p, (size_t)(q - p));
	r->hwtr_command[q - p] = '\0';
	p = q;
	r->hwtr_nargs = 0;
	while (p < end) {
		if (*p != ':' && *p != ',')
			return malformed(r, "qHwtr: bad separator");
		p++;
		if (r->hwtr_nargs == 4 ||
		    !parse_hex(&p, end, &r->hwtr_args[r->hwtr_nargs]))
			return malformed(r, "qHwtr: bad argument");
		r->hwtr_nargs++;
	}
	r->kind = rsp_hwtr;
}

static void parse_point(const char *payload, size_t len, struct rsp_request *r)
{
	const char *p = payload + 1, *end = payload + len;
	uint64_t type;

	if (!parse_hex(&p, end, &type) || type > 4 || !expect(&p, end, ',') ||
	    !parse_hex(&p, end, &r->addr) || !expect(&p, end, ',') ||
	    !parse_hex(&p, end, &r->length) || (p != end && *p != ';'))
		return malformed(r, "Z/z: bad type,addr,kind");
	r->point_type = (int)type;
	r->kind = payload[0] == 'Z' ? rsp_insert_point : rsp_remove_point;
}

/* s [addr], c [addr], S sig [;addr], C sig [;addr]: the address, which GDB
 * never sends, is refused rather than silently ignored. */
static void parse_old_resume(const char *payload, size_t len,
			     struct rsp_request *r)
{
	const char *p = payload + 1, *end = payload + len;

	r->action = (payload[0] == 's' || payload[0] == 'S') ? rsp_action_step
							      : rsp_action_continue;
	r->reverse = false;
	r->thread.pid = 0;
	r->thread.tid = 0;	/* the Hc thread */
	if (payload[0] == 'S' || payload[0] == 'C') {
		uint64_t sig;

		if (!parse_hex(&p, end, &sig) || sig > 255)
			return malformed(r, "S/C: bad signal");
	}
	if (p != end)
		return malformed(r, "s/c: resuming at an address is not supported");
	r->kind = rsp_resume;
}

void rsp_parse(const char *payload, size_t len, struct rsp_request *r)
{
	const char *p, *end = payload + len;

	memset(r, 0, sizeof(*r));
	r->kind = rsp_unknown;
	if (len == 0)
		return;
	switch (payload[0]) {
	case '?':
		if (len == 1)
			r->kind = rsp_halt_reason;
		else
			malformed(r, "?: trailing bytes");
		return;
	case 'g':
		if (len == 1)
			r->kind = rsp_read_registers;
		else
			malformed(r, "g: trailing bytes");
		return;
	case 'G':
		r->kind = rsp_write_registers;
		return;
	case 'p': {
		uint64_t n;

		p = payload + 1;
		if (!parse_hex(&p, end, &n) || p != end || n > 0xffff)
			return malformed(r, "p: bad register number");
		r->regnum = (unsigned)n;
		r->kind = rsp_read_register;
		return;
	}
	case 'P':
		r->kind = rsp_write_register;
		return;
	case 'm':
	case 'x':
		p = payload + 1;
		if (!parse_addr_len(&p, end, r) || p != end)
			return malformed(r, "m/x: bad addr,length");
		r->kind = payload[0] == 'm' ? rsp_read_memory
					    : rsp_read_memory_binary;
		return;
	case 'M':
	case 'X':
		p = payload + 1;
		if (!parse_addr_len(&p, end, r) || !expect(&p, end, ':'))
			return malformed(r, "M/X: bad addr,length");
		r->kind = rsp_write_memory;
		return;
	case 'Z':
	case 'z':
		parse_point(payload, len, r);
		return;
	case 'H':
		if (len < 3 || (payload[1] != 'g' && payload[1] != 'c') ||
		    !rsp_parse_thread(payload + 2, len - 2, &r->thread))
			return malformed(r, "H: bad thread id");
		r->thread_op = payload[1];
		r->kind = rsp_set_thread;
		return;
	case 'T':
		if (!rsp_parse_thread(payload + 1, len - 1, &r->thread))
			return malformed(r, "T: bad thread id");
		r->kind = rsp_thread_alive;
		return;
	case 's':
	case 'c':
	case 'S':
	case 'C':
		parse_old_resume(payload, len, r);
		return;
	case 'b':
		if (len == 2 && (payload[1] == 's' || payload[1] == 'c')) {
			r->kind = rsp_resume;
			r->reverse = true;
			r->action = payload[1] == 's' ? rsp_action_step
						      : rsp_action_continue;
			r->thread.tid = 0;
		} else {
			malformed(r, "b: expected bs or bc");
		}
		return;
	case 'k':
		r->kind = rsp_kill;
		return;
	case 'D':
		r->kind = rsp_detach;
		return;
	}
	if (starts(payload, len, "qSupported"))
		return parse_supported(payload, len, r);
	if (equals(payload, len, "QStartNoAckMode")) {
		r->kind = rsp_no_ack;
		return;
	}
	if (equals(payload, len, "qfThreadInfo")) {
		r->kind = rsp_thread_list_first;
		return;
	}
	if (equals(payload, len, "qsThreadInfo")) {
		r->kind = rsp_thread_list_next;
		return;
	}
	if (equals(payload, len, "qC")) {
		r->kind = rsp_current_thread;
		return;
	}
	if (equals(payload, len, "qAttached") || starts(payload, len, "qAttached:")) {
		r->kind = rsp_attached;
		return;
	}
	if (starts(payload, len, "qSymbol:")) {
		r->kind = rsp_symbol;
		return;
	}
	if (starts(payload, len, "qXfer:"))
		return parse_xfer(payload, len, r);
	if (starts(payload, len, "qGetTLSAddr:"))
		return parse_tls_address(payload, len, r);
	if (equals(payload, len, "vCont?")) {
		r->kind = rsp_vcont_query;
		return;
	}
	if (starts(payload, len, "vCont;"))
		return parse_vcont(payload, len, r);
	if (equals(payload, len, "vKill") || starts(payload, len, "vKill;")) {
		r->kind = rsp_kill;
		return;
	}
	if (equals(payload, len, "Qbtrace:pt")) {
		r->kind = rsp_btrace_enable;
		strcpy(r->object, "pt");
		return;
	}
	if (equals(payload, len, "Qbtrace:bts")) {
		r->kind = rsp_btrace_enable;
		strcpy(r->object, "bts");
		return;
	}
	if (equals(payload, len, "Qbtrace:off")) {
		r->kind = rsp_btrace_disable;
		return;
	}
	if (starts(payload, len, "qHwtr:"))
		return parse_hwtr(payload, len, r);
	if (starts(payload, len, "vFile:"))
		r->kind = rsp_vfile;	/* vfile.c parses the rest */
}
