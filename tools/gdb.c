/* gdb.c: `hwtrec gdb`: GDB on a live program through hwtrec-server.
 *
 *   hwtrec gdb [-o NAME.hwtrec] [GDB-OPTIONS...] -- PROGRAM [ARGS...]
 *   hwtrec gdb -p PID                    (hardware trace sources only)
 *
 * Starts GDB with the plugin and `target extended-remote | hwtrec-server
 * --live ... -- PROGRAM ARGS`: the server starts PROGRAM under the software
 * trace source, stopped before its first instruction (Valgrind's gdbserver
 * stops there), so the user sets breakpoints and says `continue`; or says
 * `run` or `start`, which in extended-remote mode kill that process and
 * start PROGRAM again (vRun, with GDB's `set args`, which we set to ARGS as
 * `gdb --args` would).  Options before `--` that are not ours go to GDB,
 * after ours, so a -x script runs once GDB stands at the first
 * instruction.
 *
 * -p: the software source cannot take over a process that already runs
 * (Valgrind must start it); attaching needs a source that can (Linux perf
 * with Intel PT), and there is none in this build.
 */
#include "commands.h"
#include "gdb-launch.h"
#include "record.h"
#include "record-source.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec gdb [-o NAME.hwtrec] [--psb-period BYTES] [--no-ret-compression]\n"
"                  [--no-data] [GDB-OPTIONS...] -- PROGRAM [ARGS...]\n"
"       hwtrec gdb -p PID\n"
"\n"
"Debug PROGRAM live in GDB through hwtrec-server.  The program starts stopped\n"
"at its first instruction: set breakpoints and `continue`, or `run`/`start`,\n"
"which start it again from the beginning (with GDB's `set args`, `set\n"
"environment`, `set cwd`); `record hwt` starts the history; then\n"
"reverse-step, reverse-next, reverse-continue, reverse-finish and the record\n"
"history commands work at every stop, and\n"
"`continue` replays to the end of the history, then runs live again.\n"
"`record stop` discards the history, `record save FILE` writes it as a\n"
"recording for `hwtrec replay FILE`.\n"
"\n"
"  -o, --output NAME   keep the recording there when the session ends with\n"
"                      the program (exit, kill, GDB quitting or dying)\n"
"  --psb-period BYTES  bytes between PSB packets\n"
"  --no-ret-compression  send every return as a TIP packet\n"
"  --no-data           no data log: registers and memory at past positions\n"
"                      are then only what the trace and the live process\n"
"                      prove (the PC, files mapped read-only)\n"
"  -p, --pid PID       attach to a running process (needs a hardware trace\n"
"                      source; the software one needs the program started\n"
"                      under it)\n"
"Other options before -- are passed to GDB (-batch, -x FILE, -ex CMD, -nx).\n");
}

/* -p PID: only a source that can attach will do. */
static int attach(const char *pid)
{
	size_t i;

	for (i = 0; record_sources[i]; i++) {
		char why[512];

		if (record_sources[i]->can_attach &&
		    record_sources[i]->available(why, sizeof(why)))
			break;
	}
	if (!record_sources[i]) {
		fprintf(stderr,
			"hwtrec gdb: -p %s: attaching to a running process needs a "
			"hardware trace source (Intel PT through Linux perf), and "
			"none is usable here; the software source (valgrind) needs "
			"the program started under it: hwtrec gdb -- PROGRAM ARGS\n",
			pid);
		return 2;
	}
	fprintf(stderr, "hwtrec gdb: -p: the %s source has no live mode yet\n",
		record_sources[i]->name);
	return 2;
}

int hwtrec_gdb_main(int argc, char **argv)
{
	char prog[PATH_MAX], server[PATH_MAX], plugin[PATH_MAX], self[PATH_MAX];
	char valgrind[PATH_MAX], why[512], python[3 * PATH_MAX], file[2 * PATH_MAX];
	char *target, *q, *set_args;
	const char *tool_dir, *output = NULL, *psb = NULL, *gdb = getenv("HWTREC_GDB");
	const char **gargv;
	bool no_retc = false, no_data = false;
	size_t tlen, tcap;
	int i, n = 0, dashdash = -1, rc;
	ssize_t len;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	for (i = 1; i < (dashdash < 0 ? argc : dashdash); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pid")) &&
		    i + 1 < argc)
			return attach(argv[i + 1]);
	}
	if (dashdash < 0 || dashdash + 1 >= argc) {
		usage(stderr);
		return 2;
	}
	gargv = calloc((size_t)argc + 16, sizeof(*gargv));
	if (!gargv)
		return 1;
	if (!gdb || !*gdb)
		gdb = "gdb";
	gargv[n++] = gdb;
	gargv[n++] = "-q";
	if (find_plugin(plugin, sizeof(plugin))) {
		/* GDB's system gdbinit file (hwtrecord.py) runs before -ex and
		 * loads this plugin too, not an installed one. */
		setenv("HWTREC_PYTHONDIR", plugin, 1);
		python_quote(file, sizeof(file), plugin);
		snprintf(python, sizeof(python),
			 "python import sys; sys.path.insert(0, %s); import hwtrecord",
			 file);
		gargv[n++] = "-ex";
		gargv[n++] = python;
	} else {
		fprintf(stderr, "hwtrec gdb: the hwtrecord GDB plugin was not "
			"found (set HWTREC_PYTHONDIR); GDB runs without it\n");
	}
	/* A stop while recording waits for the history (seconds on a long
	 * run): GDB must not give up on the stop reply. */
	gargv[n++] = "-ex";
	gargv[n++] = "set remotetimeout 600";
	/* The hwtrec tool under Valgrind's gdbserver has no hardware
	 * watchpoints, and the replay none: GDB makes software ones, which
	 * read the values at each position (the data log's in the past) and
	 * so fire in reverse too, as in hwtrec replay. */
	gargv[n++] = "-ex";
	gargv[n++] = "set remote hardware-watchpoint-limit 0";
	for (i = 1; i < dashdash; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) &&
		    i + 1 < dashdash)
			output = argv[++i];
		else if (!strcmp(argv[i], "--psb-period") && i + 1 < dashdash)
			psb = argv[++i];
		else if (!strcmp(argv[i], "--no-ret-compression"))
			no_retc = true;
		else if (!strcmp(argv[i], "--no-data"))
			no_data = true;
		else
			continue;
	}
	if ((rc = record_resolve_program(argv[dashdash + 1], prog, sizeof(prog),
					 "hwtrec gdb")))
		return rc;
	if (!record_valgrind_paths(valgrind, sizeof(valgrind), &tool_dir, why,
				   sizeof(why))) {
		fprintf(stderr, "hwtrec gdb: %s\n", why);
		return EXIT_RECORDER;
	}
	if (!find_server(server, sizeof(server))) {
		fprintf(stderr, "hwtrec gdb: hwtrec-server not found at %s\n", server);
		return 1;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		perror("hwtrec gdb: /proc/self/exe");
		return 1;
	}
	self[len] = 0;

	/* target remote | SERVER --live ... -- PROGRAM ARGS, every word quoted */
	tcap = 64 * PATH_MAX;
	for (i = dashdash + 2; i < argc; i++)
		tcap += 4 * strlen(argv[i]) + 4;
	target = malloc(tcap);
	q = malloc(tcap);
	if (!target || !q)
		return 1;
	/* extended-remote: `run` and `start` (vRun), `kill` leaves GDB
	 * connected for the next `run`. */
	tlen = (size_t)snprintf(target, tcap, "target extended-remote |");
#define WORD(s) do { shell_quote(q, tcap, (s)); \
		tlen += (size_t)snprintf(target + tlen, tcap - tlen, " %s", q); } while (0)
	WORD(server);
	WORD("--live");
	WORD("--valgrind");
	WORD(valgrind);
	WORD("--valgrind-lib");
	WORD(tool_dir);
	WORD("--recorder");
	WORD(self);
	if (output) {
		char abs[PATH_MAX];

		if (output[0] != '/' && getcwd(abs, sizeof(abs)))
			snprintf(file, sizeof(file), "%s/%s", abs, output);
		else
			snprintf(file, sizeof(file), "%s", output);
		WORD("--output");
		WORD(file);
	}
	if (psb) {
		WORD("--psb-period");
		WORD(psb);
	}
	if (no_retc)
		WORD("--no-ret-compression");
	if (no_data)
		WORD("--no-data");
	/* For debugging and bench-live.sh: the server's packet log, and the
	 * time each history rebuild takes, into files. */
	if (getenv("HWTREC_SERVER_LOG")) {
		WORD("--log");
		WORD(getenv("HWTREC_SERVER_LOG"));
	}
	if (getenv("HWTREC_LIVE_TIMING")) {
		WORD("--timing");
		WORD(getenv("HWTREC_LIVE_TIMING"));
	}
	/* bench-live.sh: the history built again at every stop, as before it
	 * was extended, for the comparison. */
	if (getenv("HWTREC_LIVE_REBUILD"))
		WORD("--rebuild");
	WORD("--");
	WORD(prog);
	for (i = dashdash + 2; i < argc; i++)
		WORD(argv[i]);
#undef WORD
	snprintf(file, sizeof(file), "file %s", prog);
	gargv[n++] = "-ex";
	gargv[n++] = file;
	/* GDB's `run` sends its own arguments: the program's, as with
	 * `gdb --args`. */
	set_args = malloc(tcap);
	if (!set_args)
		return 1;
	tlen = (size_t)snprintf(set_args, tcap, "set args");
	for (i = dashdash + 2; i < argc; i++) {
		gdb_arg_quote(q, tcap, argv[i]);
		tlen += (size_t)snprintf(set_args + tlen, tcap - tlen, " %s", q);
	}
	gargv[n++] = "-ex";
	gargv[n++] = set_args;
	gargv[n++] = "-ex";
	gargv[n++] = target;
	for (i = 1; i < dashdash; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output") ||
		     !strcmp(argv[i], "--psb-period")) && i + 1 < dashdash) {
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--no-ret-compression") ||
		    !strcmp(argv[i], "--no-data"))
			continue;
		gargv[n++] = argv[i];
	}
	gargv[n] = NULL;
	fflush(stdout);
	execvp(gdb, (char *const *)gargv);
	fprintf(stderr, "hwtrec gdb: cannot run %s: %s\n", gdb, strerror(errno));
	return 127;
}
