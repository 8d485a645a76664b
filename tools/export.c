/* export.c: `hwtrec export --perf REC -o perf.data [--layout=per-thread|
 * per-cpu] [--cpus N] [--no-tsc] [--snapshot]`: a recording as a file other
 * tools read.  perf.data is the one format so far (export-perf.c). */
#include "commands.h"
#include "export-perf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec export --perf REC.hwtrec -o perf.data [--layout=per-thread|per-cpu]\n"
"                     [--cpus N] [--no-tsc] [--snapshot]\n"
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
"  --snapshot           as perf record -S (AUX overwrite mode) writes it\n");
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_options opt;
	struct hwtr_recording *rec = NULL;
	const char *out = NULL, *layout = NULL;
	bool perf = false, no_tsc = false, snapshot = false;
	long ncpus = 0;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': perf = true; break;
		case 'o': out = optarg; break;
		case 'l': layout = optarg; break;
		case 'c': {
			char *e;

			ncpus = strtol(optarg, &e, 10);
			if (*e || ncpus < 1 || ncpus > 256) {
				fprintf(stderr, "hwtrec export: --cpus: '%s' is "
					"not 1..256\n", optarg);
				return 2;
			}
			break;
		}
		case 'T': no_tsc = true; break;
		case 'S': snapshot = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!perf || !out || optind + 1 != argc) {
		if (!perf && optind < argc)
			fprintf(stderr, "hwtrec export: say which format "
				"(--perf)\n");
		usage(stderr);
		return 2;
	}
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
