/* rsp.h: the GDB remote serial protocol, as wire and requests.
 *
 * This layer knows packets (framing, checksums, acks, escaping, hex) and turns
 * each incoming packet into a plain struct rsp_request; it formats replies
 * from plain values.  It knows nothing of recordings (server.c and replay.c
 * do), as rr's GdbServerConnection keeps the wire apart from GdbServer.
 */
#ifndef HWTREC_RSP_H
#define HWTREC_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Largest packet payload we accept and send (advertised as PacketSize). */
#define RSP_MAX_PAYLOAD 0x20000

struct rsp_conn {
	int in_fd, out_fd;
	bool ack_mode;		/* until QStartNoAckMode */
	bool closed;		/* the peer went away */
	uint8_t in[4096];	/* read buffer */
	size_t in_pos, in_len;
	char *payload;		/* last packet received (NUL-terminated) */
	size_t payload_len;
	char *out;		/* reply being built */
	size_t out_len, out_cap;
	bool out_oom;
	FILE *log;		/* packet log (--debug), or NULL */
	bool decode_rle;	/* the peer is a stub: '*' is run-length */
	const char *log_prefix;	/* in the packet log, or NULL */
	/* A reply being streamed (rsp_reply_hex_begin). */
	bool stream_started;	/* its '$' went out */
	uint8_t stream_sum;
	uint64_t stream_bytes;
};

/* Bytes already read from the peer and not yet parsed (poll() on in_fd
 * says nothing about them). */
static inline size_t rsp_buffered(const struct rsp_conn *conn)
{
	return conn->in_len - conn->in_pos;
}

void rsp_conn_init(struct rsp_conn *conn, int in_fd, int out_fd);
void rsp_conn_fini(struct rsp_conn *conn);

enum rsp_recv {
	rsp_recv_packet = 1,	/* conn->payload holds one packet */
	rsp_recv_interrupt,	/* ^C (0x03) outside a packet */
	rsp_recv_oversized,	/* a packet longer than RSP_MAX_PAYLOAD, dropped */
	rsp_recv_eof = 0,	/* the connection is gone */
};

/* Read the next packet, acknowledging it (or asking for a resend on a bad
 * checksum, in ack mode).  Returns an rsp_recv value. */
enum rsp_recv rsp_receive(struct rsp_conn *conn);

/* ---------------------------------------------------------------- requests */

enum rsp_kind {
	rsp_unknown = 0,	/* reply empty: not supported */
	rsp_malformed,		/* reply an error */
	rsp_supported,		/* qSupported */
	rsp_no_ack,		/* QStartNoAckMode */
	rsp_halt_reason,	/* ? */
	rsp_read_registers,	/* g */
	rsp_write_registers,	/* G */
	rsp_read_register,	/* p n */
	rsp_write_register,	/* P n=v */
	rsp_read_memory,	/* m addr,len */
	rsp_read_memory_binary,	/* x addr,len */
	rsp_write_memory,	/* M, X */
	rsp_insert_point,	/* Z type,addr,kind */
	rsp_remove_point,	/* z type,addr,kind */
	rsp_set_thread,		/* Hg / Hc */
	rsp_thread_alive,	/* T tid */
	rsp_thread_list_first,	/* qfThreadInfo */
	rsp_thread_list_next,	/* qsThreadInfo */
	rsp_current_thread,	/* qC */
	rsp_attached,		/* qAttached */
	rsp_symbol,		/* qSymbol:: */
	rsp_tls_address,	/* qGetTLSAddr:thread,offset,lm */
	rsp_xfer_read,		/* qXfer:OBJECT:read:ANNEX:OFF,LEN */
	rsp_resume,		/* s, c, S, C, bs, bc, vCont;... */
	rsp_vcont_query,	/* vCont? */
	rsp_kill,		/* k, vKill */
	rsp_detach,		/* D */
	rsp_btrace_enable,	/* Qbtrace:pt (bts is refused) */
	rsp_btrace_disable,	/* Qbtrace:off */
	rsp_hwtr,		/* qHwtr:... (doc/gdb-packets.md) */
	rsp_vfile,		/* vFile:...: host I/O, parsed by vfile.c */
};

/* A thread id: -1 means all, 0 means any. */
struct rsp_thread {
	int64_t pid;		/* 0 when the packet had no p<pid>. part */
	int64_t tid;
};

enum rsp_action {
	rsp_action_step,
	rsp_action_continue,
};

struct rsp_request {
	enum rsp_kind kind;
	const char *error;	/* rsp_malformed: what was wrong */
	/* rsp_set_thread: 'g' or 'c'; rsp_resume: the vCont action's target */
	char thread_op;
	struct rsp_thread thread;
	/* memory and points */
	uint64_t addr;
	uint64_t length;
	int point_type;		/* Z0..Z4 */
	unsigned regnum;
	/* rsp_resume */
	enum rsp_action action;
	bool reverse;
	/* rsp_xfer_read */
	char object[32];
	char annex[256];
	uint64_t offset;
	/* rsp_supported: what GDB said it supports */
	bool gdb_swbreak, gdb_hwbreak, gdb_multiprocess;
	/* rsp_tls_address: the thread in `thread`, the variable's offset in
	 * `offset`, the module's link_map in `addr` */
	/* rsp_hwtr */
	char hwtr_command[32];
	uint64_t hwtr_args[4];
	size_t hwtr_nargs;
};

/* Parse one packet payload (not NUL-terminated data may contain binary). */
void rsp_parse(const char *payload, size_t len, struct rsp_request *request);

/* Parse a thread id ("p1.2", "-1", "1a"); false if malformed. */
bool rsp_parse_thread(const char *text, size_t len, struct rsp_thread *thread);

/* ------------------------------------------------------------------ replies */

/* Each reply function sends one packet and returns 0, or -1 if the
 * connection failed (then conn->closed is set). */
/* Send PAYLOAD as one packet (a request to a stub, or a reply relayed
 * unchanged). */
int rsp_send(struct rsp_conn *conn, const void *payload, size_t len);
int rsp_reply_empty(struct rsp_conn *conn);
int rsp_reply_ok(struct rsp_conn *conn);
/* "E NN" with a two-digit code. */
int rsp_reply_error(struct rsp_conn *conn, unsigned code);
/* "E.message" (GDB's errtext form). */
int rsp_reply_error_text(struct rsp_conn *conn, const char *message);
/* A text reply, sent as is (escaped where needed). */
int rsp_reply_text(struct rsp_conn *conn, const char *text);
/* Bytes as hex; a byte whose valid[i] is 0 goes out as "xx" (unavailable).
 * valid may be NULL (all known). */
int rsp_reply_hex(struct rsp_conn *conn, const uint8_t *bytes,
		  const uint8_t *valid, size_t size);
/* A reply of any length in hex, sent as it comes: whatever is written to
 * the returned stream (a 64 KiB buffer) is hex-encoded and written out
 * with the checksum summed on the way, so memory does not grow with the
 * reply (a listing of a whole history).  rsp_reply_hex_end ends it.  A
 * streamed reply cannot be sent again: a NAK in ack mode ends the
 * connection (GDB turns acks off first thing).  NULL when out of memory. */
FILE *rsp_reply_hex_begin(struct rsp_conn *conn);
/* End the reply begun on STREAM (and close STREAM).  With ERROR (the
 * payload failed part-way): before any byte went out the reply is
 * "E.ERROR" instead; after, ERROR's text ends the payload, since a packet
 * once begun cannot be taken back (the reader sees where it was cut). */
int rsp_reply_hex_end(struct rsp_conn *conn, FILE *stream, const char *error);
/* Binary memory for 'x': "b" then the bytes, escaped. */
int rsp_reply_binary(struct rsp_conn *conn, const uint8_t *bytes, size_t size);
/* A qXfer read: the part of DATA at OFFSET, at most LENGTH bytes, with 'm'
 * (more follows) or 'l' (last). */
int rsp_reply_xfer(struct rsp_conn *conn, const void *data, size_t size,
		   uint64_t offset, uint64_t length);
/* qfThreadInfo: "m" and comma-separated ids, or "l" when n is 0. */
int rsp_reply_thread_list(struct rsp_conn *conn, const uint32_t *tids,
			  size_t n);
/* qC */
int rsp_reply_current_thread(struct rsp_conn *conn, uint32_t tid);

enum rsp_stop_reason {
	rsp_stop_none,
	rsp_stop_swbreak,
	rsp_stop_hwbreak,
	rsp_stop_history_begin,	/* replaylog:begin */
	rsp_stop_history_end,	/* replaylog:end */
	rsp_stop_watch,		/* watch:ADDR (a write watchpoint) */
	rsp_stop_rwatch,	/* rwatch:ADDR (read) */
	rsp_stop_awatch,	/* awatch:ADDR (access) */
};

struct rsp_expedite {
	unsigned regnum;
	uint8_t bytes[8];
	size_t size;
};

struct rsp_stop {
	int signal;
	uint32_t tid;
	enum rsp_stop_reason reason;
	uint64_t watch_addr;	/* the data address of rsp_stop_*watch */
	struct rsp_expedite regs[4];	/* registers worth sending along */
	size_t nregs;
	const char *exec_path;	/* the thread came into another program: the
				 * stop is an exec event (GDB then loads it) */
};
int rsp_reply_stop(struct rsp_conn *conn, const struct rsp_stop *stop);
/* W code: the process is gone. */
int rsp_reply_exited(struct rsp_conn *conn, int code);

/* ------------------------------------------------------------------- helpers */

/* Hex digit value or -1. */
int rsp_hex_value(int c);
/* Decode 2*n hex digits into bytes; false if any is not hex. */
bool rsp_unhex(const char *text, size_t n, uint8_t *bytes);
/* Encode a frame for PAYLOAD (escaping '$', '#', '}', '*') into OUT; returns
 * the frame length or 0 if it does not fit.  For tests and the sender. */
size_t rsp_frame(const void *payload, size_t len, char *out, size_t out_size);

#endif /* HWTREC_RSP_H */
