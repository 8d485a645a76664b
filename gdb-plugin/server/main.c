/* hwtrec-server: a GDB remote-protocol server that replays a recording.
 *
 *   target remote | hwtrec-server REC.hwtrec       (GDB talks over a pipe)
 *   hwtrec-server --listen REC.hwtrec              (a Unix socket, one client)
 *   hwtrec-server --listen 1234 REC.hwtrec         (loopback TCP, one client)
 *   target remote | hwtrec-server --live ... -- PROGRAM ARGS   (live.c;
 *                                                  `hwtrec gdb` writes it)
 *
 * Opens the recording, builds its history, then serves one GDB connection
 * (server.c) and exits when GDB detaches, kills or goes away. */
#include "replay.h"
#include "rsp.h"
#include "server.h"
#include "live.h"
#include "listen.h"
#include "gdb-terminal.h"

#include <errno.h>
#include <getopt.h>
#include <hwtrecord.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwtrec-server [OPTIONS] RECORDING\n"
		"Serve RECORDING (a NAME.hwtrec directory) to GDB for reverse debugging.\n"
		"\n"
		"  (no option)         speak the protocol on stdin/stdout:\n"
		"                        (gdb) target remote | hwtrec-server RECORDING\n"
		"  --listen            accept one GDB on a Unix socket in a new directory\n"
		"                      of mode 0700 (its path is printed on stderr):\n"
		"                        (gdb) target remote PATH\n"
		"  --listen=PATH       the same at PATH, in a directory of yours of mode 0700\n"
		"  --listen PORT       accept one GDB on 127.0.0.1:PORT (0: any free port,\n"
		"                      printed on stderr)\n"
		"                      Either way only your own uid may connect: others'\n"
		"                      connections are closed unanswered.\n"
		"  --no-history        serve the core only, without decoding the trace\n"
		"  --debug             log every packet on stderr\n"
		"  --log FILE          log every packet in FILE\n"
		"  --progress=TERMINAL show how far building the history has come on\n"
		"                      TERMINAL (a path, e.g. /dev/pts/3): GDB runs a\n"
		"                      piped server without its terminal (hwtrec replay\n"
		"                      passes its own); without it, on stderr when that\n"
		"                      is a terminal, else on the terminal of the GDB\n"
		"                      that runs the server, if any\n"
		"\n"
		"Live mode (what `hwtrec gdb` runs): hwtrec-server --live --valgrind PATH\n"
		"  --valgrind-lib DIR --recorder HWTREC [--output NAME.hwtrec]\n"
		"  [--psb-period BYTES] [--no-ret-compression] [--no-data] [--timing FILE]\n"
		"  [--rebuild]\n"
		"  -- PROGRAM [ARGS...]\n"
		"  starts PROGRAM stopped under the hwtrec Valgrind tool and serves it to\n"
		"  GDB; `record hwt` records, reverse execution replays.  --no-data: no\n"
		"  data log (registers and memory at past positions unknown).\n"
		"  --help              this text\n");
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "listen", optional_argument, NULL, 'l' },
		{ "no-history", no_argument, NULL, 'n' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "live", no_argument, NULL, 'L' },
		{ "valgrind", required_argument, NULL, 'V' },
		{ "valgrind-lib", required_argument, NULL, 'B' },
		{ "recorder", required_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "psb-period", required_argument, NULL, 'P' },
		{ "no-ret-compression", no_argument, NULL, 'N' },
		{ "no-data", no_argument, NULL, 'D' },
		{ "timing", required_argument, NULL, 'T' },
		{ "rebuild", no_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'G' },
		{ "progress", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct live_options lopt = {
		.tracer = { .ops = &tracer_valgrind, .valgrind = "valgrind" },
	};
	bool live = false;
	FILE *log = NULL;
	struct replay_options ropt = { 0 };
	struct replay *replay;
	struct rsp_conn conn;
	struct listen_spec listen = { .kind = listen_unix };
	const char *port_text = NULL;
	bool listening = false;
	bool debug = false;
	const char *progress_path = NULL;
	FILE *tty = NULL;
	int c, in_fd = 0, out_fd = 1, rc;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'l':
			listening = true;
			/* --listen=PORT, --listen=PATH; "--listen PORT" below. */
			if (optarg && all_digits(optarg))
				port_text = optarg;
			else if (optarg)
				listen.path = optarg;
			break;
		case 'n':
			ropt.no_history = true;
			break;
		case 'd':
			debug = true;
			break;
		case 'p':
			progress_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'L': live = true; break;
		case 'V': lopt.tracer.valgrind = optarg; break;
		case 'B': lopt.tracer.valgrind_lib = optarg; break;
		case 'R': lopt.tracer.recorder = optarg; break;
		case 'o': lopt.output = optarg; break;
		case 'P': lopt.tracer.psb_period = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'N': lopt.tracer.no_ret_compression = true; break;
		case 'D': lopt.tracer.no_data = true; break;
		case 'r': lopt.rebuild = true; break;
		case 'T':
		case 'G': {
			FILE *f = fopen(optarg, "a");

			if (!f) {
				fprintf(stderr, "hwtrec-server: %s: %s\n", optarg, strerror(errno));
				return 2;
			}
			setvbuf(f, NULL, _IOLBF, 0);
			if (c == 'T') {
				lopt.timing = f;
			} else {
				log = f;
				debug = true;
			}
			break;
		}
		default:
			usage(stderr);
			return 2;
		}
	}
	/* A peer that goes away must end us with EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (live) {
		if (optind >= argc || !lopt.tracer.valgrind_lib || !lopt.tracer.recorder) {
			usage(stderr);
			return 2;
		}
		/* ^C at GDB's terminal is GDB's to send us as a packet. */
		signal(SIGINT, SIG_IGN);
		lopt.tracer.argv = argv + optind;
		if (debug)
			lopt.tracer.log = log ? log : stderr;
		rsp_conn_init(&conn, 0, 1);
		conn.log = lopt.tracer.log;
		rc = live_run(&lopt, &conn);
		rsp_conn_fini(&conn);
		return rc;
	}
	/* "--listen PORT REC": the port came as an argument of its own. */
	if (listening && !port_text && !listen.path && optind == argc - 2 &&
	    all_digits(argv[optind]))
		port_text = argv[optind++];
	if (port_text) {
		char *end;

		listen.kind = listen_tcp;
		errno = 0;
		listen.port = strtol(port_text, &end, 10);
		if (errno || *end || listen.port > 65535) {
			fprintf(stderr, "hwtrec-server: bad port '%s'\n", port_text);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	/* Under `target remote | hwtrec-server`, stderr is a pipe that GDB
	 * reads, and GDB runs us in a session of our own, without its
	 * terminal: --progress=TERMINAL names it (hwtrec replay does), else
	 * GDB's standard output is found when it is a terminal. */
	if (progress_path && !(tty = fopen(progress_path, "w")))
		fprintf(stderr, "hwtrec-server: --progress: %s: %s\n",
			progress_path, strerror(errno));
	if (!tty && !progress_path && !isatty(2))
		tty = gdb_terminal_open();
	if (tty)
		ropt.progress = tty;
	else
		ropt.progress = isatty(2) ? stderr : NULL;
	ropt.background = true;
	if (replay_open(argv[optind], &ropt, &replay) < 0) {
		fprintf(stderr, "hwtrec-server: %s\n", hwtr_last_error());
		return 1;
	}
	if (listening) {
		in_fd = out_fd = listen_accept_owner(&listen);
		if (in_fd < 0) {
			replay_close(replay);
			return 1;
		}
	}
	rsp_conn_init(&conn, in_fd, out_fd);
	if (debug)
		conn.log = log ? log : stderr;
	rc = server_run(replay, &conn);
	rsp_conn_fini(&conn);
	if (listening)
		close(in_fd);
	replay_close(replay);
	if (tty)
		fclose(tty);
	return rc < 0 ? 1 : 0;
}
