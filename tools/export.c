/* export.c: `hwtrec export --perf REC -o perf.data [--layout=per-thread|
 * per-cpu] [--cpus N] [--no-tsc] [--snapshot]` and `hwtrec export
 * --timeline REC -o trace.json [--min-insns N]`: a recording as a file other
 * tools read.  The formats are written in ../formats (export-perf.c,
 * timeline.c). */
#include "commands.h"
#include "export-perf.h"
#include "open-history.h"
#include "timeline.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec export --perf REC.hwtrec -o perf.data [--layout=per-thread|per-cpu]\n"
"                     [--cpus N] [--no-tsc] [--snapshot]\n"
"       hwtrec export --timeline REC.hwtrec -o trace.json [--min-insns N]\n"
"\n"
"Write the recording as a perf.data file of Intel PT (or of CoreSight ETM, as\n"
"perf record -e cs_etm//u --per-thread writes it) that Linux perf decodes\n"
"(perf script --itrace=i1i, perf report).  Binaries are named by path and\n"
"build-id, as perf record names them.\n"
"\n"
"  --layout=per-thread  one AUX queue per thread (perf record --per-thread;\n"
"                       the default)\n"
"  --layout=per-cpu     CPU queues with context-switch records (perf record's\n"
"                       default); the threads' time slices are spread over\n"
"                       --cpus CPUs (2)\n"
"  --no-tsc             without timestamps (TSC packets left out): perf decodes\n"
"                       each thread on its own\n"
"  --snapshot           as perf record -S (AUX overwrite mode) writes it\n"
"\n"
"--timeline writes the history as a Chrome/Perfetto trace-event file (JSON)\n"
"for ui.perfetto.dev or chrome://tracing: a track per thread, a slice per\n"
"function activation, gaps and trace losses as instant events.  Time is\n"
"the trace's TSC since the first (1 us shown = 1000 ticks, interpolated\n"
"between the TSCs at PSBs), or without TSC the thread's instruction number\n"
"(1 us shown = 1 instruction); the file's otherData says which.\n"
"\n"
"  --min-insns N        leave out activations of fewer than N instructions\n"
"                       (callees included); the file's otherData says N and\n"
"                       how many were left out\n");
}

/* --timeline: write to a temporary name beside PATH, renamed when complete,
 * so that a failed export leaves no half file under the name asked for. */
static int export_timeline(const char *recording, const char *path,
			   uint64_t min_insns)
{
	struct timeline_options opt = { .min_insns = min_insns,
					.progress = isatty(2) ? stderr : NULL };
	struct timeline_counts counts;
	struct opened_history o;
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	FILE *out = NULL;
	int err = 0;

	if (!tmp) {
		fprintf(stderr, "hwtrec export: out of memory\n");
		return 1;
	}
	snprintf(tmp, len + 16, "%s.tmp%ld", path, (long)getpid());
	if (open_history("export", recording, &o)) {
		free(tmp);
		return 1;
	}
	if (!(out = fopen(tmp, "w"))) {
		fprintf(stderr, "hwtrec export: %s: %s\n", tmp, strerror(errno));
		err = 1;
	} else if (timeline_write(o.history, o.recording, &opt, out, &counts)) {
		fprintf(stderr, "hwtrec export: %s: %s\n", path, hwtr_last_error());
		err = 1;
	}
	if (out && fclose(out) == EOF && !err) {
		fprintf(stderr, "hwtrec export: %s: %s\n", path, strerror(errno));
		err = 1;
	}
	if (!err && rename(tmp, path)) {
		fprintf(stderr, "hwtrec export: %s: %s\n", path, strerror(errno));
		err = 1;
	}
	if (err && out)
		unlink(tmp);
	close_history(&o);
	free(tmp);
	return err;
}

int hwtrec_export_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "perf", no_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "layout", required_argument, NULL, 'l' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "no-tsc", no_argument, NULL, 'T' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "timeline", no_argument, NULL, 'L' },
		{ "min-insns", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_options opt;
	struct hwtr_recording *rec = NULL;
	const char *out = NULL, *layout = NULL;
	bool perf = false, timeline = false, no_tsc = false, snapshot = false;
	bool perf_only = false;
	uint64_t min_insns = 0;
	long ncpus = 0;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': perf = true; break;
		case 'L': timeline = true; break;
		case 'm': {
			char *e;

			errno = 0;
			min_insns = strtoull(optarg, &e, 10);
			if (errno || e == optarg || *e || optarg[0] == '-') {
				fprintf(stderr, "hwtrec export: --min-insns: '%s' "
					"is not a number of instructions\n", optarg);
				return 2;
			}
			break;
		}
		case 'o': out = optarg; break;
		case 'l': layout = optarg; perf_only = true; break;
		case 'c': {
			char *e;

			perf_only = true;
			ncpus = strtol(optarg, &e, 10);
			if (*e || ncpus < 1 || ncpus > 256) {
				fprintf(stderr, "hwtrec export: --cpus: '%s' is "
					"not 1..256\n", optarg);
				return 2;
			}
			break;
		}
		case 'T': no_tsc = true; perf_only = true; break;
		case 'S': snapshot = true; perf_only = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (perf == timeline || !out || optind + 1 != argc) {
		if (perf == timeline && optind < argc)
			fprintf(stderr, "hwtrec export: say which format "
				"(--perf or --timeline)\n");
		usage(stderr);
		return 2;
	}
	if (timeline && perf_only) {
		fprintf(stderr, "hwtrec export: --layout, --cpus, --no-tsc and "
			"--snapshot are --perf's\n");
		return 2;
	}
	if (perf && min_insns) {
		fprintf(stderr, "hwtrec export: --min-insns is --timeline's\n");
		return 2;
	}
	if (timeline)
		return export_timeline(argv[optind], out, min_insns);
	if (hwtr_recording_open(argv[optind], &rec)) {
		fprintf(stderr, "hwtrec export: %s\n", hwtr_last_error());
		return 1;
	}
	export_options_default(rec, &opt);
	if (layout && !strcmp(layout, "per-cpu"))
		opt.layout = EXPORT_PER_CPU;
	else if (layout && strcmp(layout, "per-thread")) {
		fprintf(stderr, "hwtrec export: --layout=%s: per-thread or "
			"per-cpu\n", layout);
		hwtr_recording_close(rec);
		return 2;
	}
	if (ncpus)
		opt.ncpus = (unsigned)ncpus;
	if (no_tsc)
		opt.tsc = false;
	opt.snapshot = snapshot;
	err = export_perf(rec, out, &opt, stderr);
	if (err)
		fprintf(stderr, "hwtrec export: %s\n", hwtr_last_error());
	hwtr_recording_close(rec);
	return err ? 1 : 0;
}
