/* record.c: `hwtrec record`: the command line, handed to one trace source
 * (record-source.c; the software one is record-valgrind.c).
 *
 * Exit status: the program's (128 + signal when a signal killed it, as a
 * shell reports it); 127 when the program does not exist, 126 when it cannot
 * be executed, 125 when the recorder itself failed before the program ran.
 */
#define _GNU_SOURCE
#include "commands.h"
#include "record.h"
#include "record-source.h"
#include "record-driver.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
"usage: hwtrec record [-o NAME.hwtrec] [--source=SOURCE] [--from FUNCTION]\n"
"                     [--max-size MB] [--no-ret-compression] [--no-core]\n"
"                     [--no-data] [--psb-period BYTES] [--buffer-size SIZE]\n"
"                     [--hwt-backend NAME] [--pack] -- PROGRAM [ARGS...]\n"
"       hwtrec record [options] -p PID\n"
"\n"
"Run PROGRAM until it exits or dies of a signal (or record the running\n"
"process PID until it ends or ^C), and write a recording (Intel PT,\n"
"sideband, and a core of the end state: the valgrind source at any end,\n"
"other sources on a fatal signal).  The default name is\n"
"PROGRAM-PID.hwtrec in the current directory.\n"
"\n"
"  -o, --output NAME       the recording directory to create\n"
"  --source=SOURCE         where the trace comes from (default auto: the\n"
"                          first of these that works here):\n");
	for (i = 0; record_sources[i]; i++)
		fprintf(out, "                            %-9s %s\n",
			record_sources[i]->name, record_sources[i]->summary);
	fprintf(out,
"  -p, --pid PID           attach to a running process (sources that can)\n"
"  --from FUNCTION         start tracing at the first entry of FUNCTION\n"
"  --max-size MB           keep only the last MB megabytes of trace per thread\n"
"  --no-ret-compression    send every return as a TIP packet\n"
"  --no-core               no core of the end state (valgrind)\n"
"  --no-data               no data log: registers and memory at past\n"
"                          positions are not known (valgrind)\n"
"  --snapshot-every N      for tests: a full register snapshot in the data\n"
"                          log every N instructions (valgrind; default\n"
"                          32768; small N makes faults land on snapshots)\n"
"  --pack                  then copy the binaries into it (hwtrec pack)\n"
"  --psb-period BYTES      bytes between PSB packets (default %d)\n"
"  --buffer-size SIZE      the kernel's trace buffer per thread (hwt; bytes,\n"
"                          or with K, M, G; default 16M)\n"
"  --hwt-backend NAME      hwt(4) backend: pt (default on amd64), coresight\n"
"  -q, --quiet             no summary line\n"
"\n"
"Exit status: the program's (128+N if signal N killed it); 127 if PROGRAM does\n"
"not exist, 126 if it cannot be executed, 125 if recording could not start.\n",
		HWTREC_DEFAULT_PSB_PERIOD);
}

/* PROGRAM as execve would find it: a path, or searched in PATH. */
int record_resolve_program(const char *prog, char *out, size_t size,
			   const char *who)
{
	const char *path, *p;

	if (strchr(prog, '/')) {
		snprintf(out, size, "%s", prog);
		if (access(out, F_OK) < 0) {
			fprintf(stderr, "%s: %s: %s\n", who, prog,
				strerror(errno));
			return EXIT_NOTFOUND;
		}
		goto check_exec;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		snprintf(out, size, "%.*s/%s", (int)n, n ? p : ".", prog);
		if (access(out, X_OK) == 0)
			goto check_exec;
		p += n;
		if (*p == ':')
			p++;
	}
	fprintf(stderr, "%s: %s: command not found\n", who, prog);
	return EXIT_NOTFOUND;
check_exec: {
		struct stat st;

		if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
			fprintf(stderr, "%s: %s: is a directory\n",
				who, prog);
			return EXIT_NOEXEC;
		}
		if (access(out, X_OK) < 0) {
			fprintf(stderr, "%s: %s: not executable: %s\n",
				who, prog, strerror(errno));
			return EXIT_NOEXEC;
		}
	}
	return 0;
}

enum { OPT_FROM = 256, OPT_MAX_SIZE, OPT_NO_RETC, OPT_PSB_PERIOD, OPT_SOURCE,
       OPT_BUFFER_SIZE, OPT_HWT_BACKEND, OPT_NO_CORE, OPT_PACK,
       OPT_NO_DATA, OPT_SNAPSHOT_EVERY };

/* SIZE in bytes, with an optional K, M or G (powers of 1024); 0 if bad. */
static uint64_t parse_size(const char *text)
{
	char *e;
	unsigned long long v = strtoull(text, &e, 10);
	unsigned shift = 0;

	if (e == text || *text == '-')
		return 0;
	switch (*e) {
	case 'k': case 'K': shift = 10; e++; break;
	case 'm': case 'M': shift = 20; e++; break;
	case 'g': case 'G': shift = 30; e++; break;
	}
	if (*e || v == 0 || v > (~0ull >> (shift + 1)))
		return 0;
	return (uint64_t)v << shift;
}

/* The options into req; 0, or the exit status (-1: --help, exit 0). */
static int parse_options(int argc, char **argv, struct record_request *req,
			 const char **source)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "pid", required_argument, NULL, 'p' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "no-ret-compression", no_argument, NULL, OPT_NO_RETC },
		{ "psb-period", required_argument, NULL, OPT_PSB_PERIOD },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "hwt-backend", required_argument, NULL, OPT_HWT_BACKEND },
		{ "no-core", no_argument, NULL, OPT_NO_CORE },
		{ "pack", no_argument, NULL, OPT_PACK },
		{ "no-data", no_argument, NULL, OPT_NO_DATA },
		{ "snapshot-every", required_argument, NULL, OPT_SNAPSHOT_EVERY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *e;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': req->output = optarg; break;
		case 'q': req->quiet = true; break;
		case OPT_SOURCE: *source = optarg; break;
		case OPT_FROM: req->from = optarg; break;
		case OPT_NO_RETC: req->options.ret_compression = false; break;
		case OPT_HWT_BACKEND: req->hwt_backend = optarg; break;
		case OPT_NO_CORE: req->options.no_core = true; break;
		case OPT_PACK: req->pack = true; break;
		case OPT_NO_DATA: req->options.no_data = true; break;
		case OPT_BUFFER_SIZE:
			req->options.buffer_size = parse_size(optarg);
			if (!req->options.buffer_size) {
				fprintf(stderr, "hwtrec record: --buffer-size: "
					"'%s' is not a size (bytes, or with K, "
					"M, G)\n", optarg);
				return 2;
			}
			break;
		case 'p': {
			long v = strtol(optarg, &e, 10);

			if (*e || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "hwtrec record: -p: '%s' is "
					"not a process id\n", optarg);
				return 2;
			}
			req->pid = (pid_t)v;
			break;
		}
		case OPT_MAX_SIZE: {
			double mb = strtod(optarg, &e);

			if (*e || mb <= 0 || mb > 1 << 20) {
				fprintf(stderr, "hwtrec record: --max-size: "
					"'%s' is not a size in MB\n", optarg);
				return 2;
			}
			req->options.max_size = (uint64_t)(mb * 1024 * 1024);
			if (req->options.max_size < 4096)
				req->options.max_size = 4096;
			break;
		}
		case OPT_PSB_PERIOD: {
			long v = strtol(optarg, &e, 0);

			if (*e || v < 256 || v > 1 << 24) {
				fprintf(stderr, "hwtrec record: --psb-period: "
					"'%s' is not 256..16M bytes\n", optarg);
				return 2;
			}
			req->options.psb_period = (uint32_t)v;
			break;
		}
		case OPT_SNAPSHOT_EVERY: {
			unsigned long long v = strtoull(optarg, &e, 10);

			if (*e || *optarg < '0' || *optarg > '9' || v < 1 ||
			    v > HWTREC_MAX_SNAPSHOT_EVERY) {
				fprintf(stderr, "hwtrec record: "
					"--snapshot-every: '%s' is not "
					"1..%llu instructions\n", optarg,
					(unsigned long long)
					HWTREC_MAX_SNAPSHOT_EVERY);
				return 2;
			}
			req->options.snapshot_every = v;
			break;
		}
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if ((optind >= argc) == !req->pid) {
		if (req->pid)
			fprintf(stderr, "hwtrec record: -p PID and a PROGRAM: "
				"give one or the other\n");
		else
			usage(stderr);
		return 2;
	}
	return 0;
}

int hwtrec_record_main(int argc, char **argv)
{
	struct record_request req = {
		.options = {
			.psb_period = HWTREC_DEFAULT_PSB_PERIOD,
			.ret_compression = true,
		},
	};
	const struct record_source *source;
	const char *source_name = "auto";
	char prog[PATH_MAX];
	int rc;

	rc = parse_options(argc, argv, &req, &source_name);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!req.pid) {
		if ((rc = record_resolve_program(argv[optind], prog, sizeof(prog),
						  "hwtrec record")))
			return rc;
		req.program = prog;
		req.argv = argv + optind;
	}
	source = record_source_choose(source_name, req.pid != 0, req.quiet);
	if (!source)
		return source_name && strcmp(source_name, "auto") &&
		       !record_source_find(source_name) ? 2 : EXIT_RECORDER;
	if (req.pid && !source->can_attach) {
		fprintf(stderr, "hwtrec record: the %s source cannot attach to "
			"a running process (-p); start the program under it: "
			"hwtrec record -- PROGRAM ARGS\n", source->name);
		return 2;
	}
	return record_drive(source, &req);
}
