/* server.h: what each GDB request does in replay mode.
 *
 * The loop reads requests from rsp.c and answers them from replay.c; it is
 * the only place that knows both, and it holds the session's state (which
 * thread GDB selected, which threads have btrace on). */
#ifndef HWTREC_SERVER_H
#define HWTREC_SERVER_H

#include "plugin-packets.h"
#include "replay.h"
#include "rsp.h"

/* Serve one GDB connection until it detaches, kills or goes away.
 * Returns 0 then, or -1 if the connection failed. */
int server_run(struct replay *replay, struct rsp_conn *conn);

/* Answer one of the plugin's history requests (plugin-packets.h) from
 * REPLAY; a goto sets *current to the thread it moved.  Shared with live
 * mode (live.c); others (live mode's own) get the empty reply. */
int server_hwtr(struct replay *replay, struct rsp_conn *conn,
		const struct plugin_request *request, uint32_t *current);

/* Answer a memory read (m or x) as thread TID sees memory at its position
 * (replay_read_memory_at); unknown bytes are an error.  Shared with live
 * mode, for a thread that is replaying. */
int server_read_memory(struct replay *replay, struct rsp_conn *conn,
		       const struct rsp_request *request, uint32_t tid);

#endif /* HWTREC_SERVER_H */
