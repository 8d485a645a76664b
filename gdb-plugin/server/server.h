/* server.h: what each GDB request does in replay mode.
 *
 * The loop reads requests from rsp.c and answers them from replay.c; it is
 * the only place that knows both, and it holds the session's state (which
 * thread GDB selected, which threads have btrace on). */
#ifndef HWTREC_SERVER_H
#define HWTREC_SERVER_H

#include "replay.h"
#include "rsp.h"

/* Serve one GDB connection until it detaches, kills or goes away.
 * Returns 0 then, or -1 if the connection failed. */
int server_run(struct replay *replay, struct rsp_conn *conn);

/* Answer one qHwtr request (doc/gdb-packets.md) from REPLAY; a goto sets
 * *current to the thread it moved.  Shared with live mode (live.c). */
int server_hwtr(struct replay *replay, struct rsp_conn *conn,
		const struct rsp_request *r, uint32_t *current);

#endif /* HWTREC_SERVER_H */
