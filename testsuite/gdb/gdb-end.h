/* gdb-end.h: GDB's end of a connection to the server's wire layer (rsp.c),
 * for the Check tests of the packets (test-rsp.c, test-plugin-packets.c,
 * test-vfile.c): a socket pair, CONN the server's end, gdb_end GDB's. */
#ifndef HWTR_TEST_GDB_END_H
#define HWTR_TEST_GDB_END_H

#include "rsp.h"

#include <stddef.h>

extern int gdb_end;
extern struct rsp_conn conn;

/* Check fixtures: a new pair, CONN in ack mode as rsp_conn_init leaves it
 * (gdb_end_setup), or with acks off as after QStartNoAckMode
 * (gdb_end_setup_no_ack); and closing both ends. */
void gdb_end_setup(void);
void gdb_end_setup_no_ack(void);
void gdb_end_teardown(void);

/* Write BYTES as GDB would. */
void gdb_send(const char *bytes);

/* Everything the server wrote so far (without waiting), NUL-terminated. */
const char *gdb_read(void);

/* The one framed packet the server wrote, "$...#xx", read up to its
 * checksum (a streamed reply comes in several writes; binary data may hold
 * NULs), NUL-terminated; *LEN its length. */
char *gdb_read_packet(size_t *len);

#endif
