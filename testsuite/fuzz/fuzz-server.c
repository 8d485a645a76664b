/* fuzz-server.c: libFuzzer target for hwtrec-server: the protocol layer
 * (rsp.c) and every request handler behind it (server.c, replay.c,
 * memory.c, btrace.c, the qHwtr packets), over the fixed fixture recording
 * (fixture-recording.h) with a real trace of the fixture's main path.
 *
 * The input is what GDB would send.  Normally it is a list of packet
 * payloads, one per line; the harness frames each ($...#checksum) so that
 * the fuzzer reaches the handlers instead of failing checksums.  An input
 * GDB acknowledges every reply ('+'), so the harness does too, after each
 * packet.  An input whose first byte is 0 is sent as it is after that
 * byte: the framing,
 * acks, escapes and checksums themselves.  Each input gets a freshly opened
 * replay, so breakpoints and positions do not leak between inputs. */
#include "fixture-recording.h"
#include "scratch-dir.h"

#include "replay.h"
#include "rsp.h"
#include "server.h"

#include <fcntl.h>
#include <hwtrecord.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_CODE
#error "FIXTURE_CODE must name the assembled fixture"
#endif
#ifndef FIXTURE_TRACE
#error "FIXTURE_TRACE must name a trace of the fixture (seeds-decoder/main-path)"
#endif

static int reply_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fixture_recording_write(FIXTURE_CODE);
	fixture_recording_use_trace(FIXTURE_TRACE);
	/* FUZZ_SERVER_SHOW=1: the replies on stdout, to see what an input reaches. */
	reply_fd = getenv("FUZZ_SERVER_SHOW") ? 1 : open("/dev/null", O_WRONLY);
	if (reply_fd < 0)
		abort();
	return 0;
}

/* Frame each line of DATA as a packet into F, each followed by the ack of
 * its reply. */
static void write_packets(FILE *f, const uint8_t *data, size_t size)
{
	size_t start = 0, i;

	for (i = 0; i <= size; i++) {
		uint8_t sum = 0;
		size_t k;

		if (i < size && data[i] != '\n')
			continue;
		for (k = start; k < i; k++)
			sum += data[k];
		fputc('$', f);
		fwrite(data + start, 1, i - start, f);
		fprintf(f, "#%02x+", sum);
		start = i + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_options options = { 0 };
	struct replay *replay;
	struct rsp_conn conn;
	FILE *wire = tmpfile();

	if (!wire)
		abort();
	if (size && data[0] == 0)
		fwrite(data + 1, 1, size - 1, wire);
	else
		write_packets(wire, data, size);
	fflush(wire);
	rewind(wire);
	if (replay_open(scratch_path("rec"), &options, &replay) < 0) {
		fprintf(stderr, "fuzz-server: the fixed recording does not open: %s\n",
			hwtr_last_error());
		abort();
	}
	rsp_conn_init(&conn, fileno(wire), reply_fd);
	server_run(replay, &conn);
	rsp_conn_fini(&conn);
	replay_close(replay);
	fclose(wire);
	return 0;
}
