/* live.h: live mode of hwtrec-server (DESIGN.md section 7).
 *
 * The server sits between GDB and a live stub (tracer.h): live execution
 * is forwarded untouched; `record hwt` (qHwtr:record-start) starts a
 * recording session; at every stop the history is brought up to the stop;
 * going backwards (bs, bc, qHwtr:goto) switches to replay; forward
 * execution that reaches the end of the history goes live again.
 */
#ifndef HWTREC_LIVE_H
#define HWTREC_LIVE_H

#include "rsp.h"
#include "tracer.h"

struct live_options {
	struct tracer_config tracer;
	/* -o: the recording of a session is kept there when the session ends
	 * with the program (exit, kill, GDB going away); NULL: discarded. */
	const char *output;
	/* --timing FILE: how long bringing the history up to each stop took (GDB shows a
	 * pipe server's stderr only when it happens to read it) */
	FILE *timing;
	/* --rebuild: build the history again at every stop instead of
	 * extending it (bench-live.sh compares the two) */
	bool rebuild;
};

/* Start the program and serve GDB on CONN until it detaches, kills or goes
 * away; every process started is gone on return.  1 if the program could
 * not be started (the message is on stderr), else 0. */
int live_run(const struct live_options *options, struct rsp_conn *conn);

#endif /* HWTREC_LIVE_H */
