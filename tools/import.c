/* import.c: `hwtrec import`: recordings from other tools' captures.
 *
 *   hwtrec import perf.data [-o NAME.hwtrec] [--debug-dir DIR]...
 *   hwtrec import --opencsd-snapshot DIR [-o NAME.hwtrec]
 *
 * A perf.data of Intel PT or CoreSight ETM (perf record -e intel_pt//u,
 * -e cs_etm//u) becomes a recording (import-perf.c); the default name is the file's with .hwtrec instead of
 * .data.  An OpenCSD snapshot directory (Arm CoreSight ETMv4/ETE trace, the
 * trace units' registers, memory images) becomes a recording with one
 * history per trace source (import-snapshot.c); the default name is DIR's
 * last component with .hwtrec.  Both are written here.
 */
#include "commands.h"
#include "hwtrecord.h"
#include "import-perf.h"
#include "import-snapshot.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec import perf.data [-o NAME.hwtrec] [--debug-dir DIR]...\n"
"       hwtrec import --opencsd-snapshot DIR [-o NAME.hwtrec]\n"
"\n"
"Turn a perf.data recorded with perf record -e intel_pt//u (per-thread or\n"
"per-CPU, with or without timestamps, snapshot mode included) or with\n"
"perf record -e cs_etm//u (Arm CoreSight ETMv4/ETE: a thread per trace unit,\n"
"or per context ID) into a recording that hwtrec dump and hwtrec replay\n"
"open.  Binaries are looked for at their paths, then by build-id in perf's\n"
"build-id cache ($PERF_BUILDID_DIR or ~/.debug), /usr/lib/debug and each\n"
"--debug-dir; those found only in a cache are copied into the recording,\n"
"missing ones are named.  The default name is the file's name with .hwtrec\n"
"instead of .data.\n"
"\n"
"--opencsd-snapshot: turn an OpenCSD snapshot directory (CoreSight ETMv4/ETE\n"
"trace, the trace units' registers, memory images at their load addresses)\n"
"into a recording: one history per trace source.  Sources of other protocols\n"
"(STM, ITM, PTM) are skipped with a message.  The default name is DIR's name\n"
"with .hwtrec, in the current directory.\n");
}

/* DIR's last component + ".hwtrec". */
static void snapshot_name(const char *dir, char *out, size_t size)
{
	char copy[PATH_MAX];
	const char *base;
	size_t n;

	snprintf(copy, sizeof(copy), "%s", dir);
	n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = 0;
	base = strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy;
	snprintf(out, size, "%s.hwtrec", *base ? base : "snapshot");
}

/* perf.data's name with .hwtrec instead of .data, here. */
static void perf_name(const char *in, char *out, size_t size)
{
	const char *base = strrchr(in, '/');
	size_t n;

	base = base ? base + 1 : in;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".data"))
		n -= 5;
	snprintf(out, size, "%.*s.hwtrec", (int)n, base);
}

int hwtrec_import_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "opencsd-snapshot", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dirs[16], *const *defaults = import_default_debug_dirs();
	struct import_options opt = { .debug_dirs = dirs, .warn = stderr };
	const char *snapshot = NULL, *out = NULL;
	char name[PATH_MAX], err[2048];
	size_t ndirs = 0, i;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': snapshot = optarg; break;
		case 'o': out = optarg; break;
		case 'd':
			if (ndirs == 8) {	/* the rest is for the defaults */
				fprintf(stderr, "hwtrec import: at most 8 "
					"--debug-dir options\n");
				return 2;
			}
			dirs[ndirs++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (snapshot) {
		if (optind < argc) {
			fprintf(stderr, "hwtrec import: %s: give either a perf.data "
				"or --opencsd-snapshot DIR\n", argv[optind]);
			return 2;
		}
		if (!out) {
			snapshot_name(snapshot, name, sizeof(name));
			out = name;
		}
		if (import_opencsd_snapshot(snapshot, out, stderr, err,
					    sizeof(err)) < 0) {
			fprintf(stderr, "hwtrec import: %s\n", err);
			return 1;
		}
		printf("%s\n", out);
		return 0;
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; defaults[i] && ndirs < 15; i++)
		dirs[ndirs++] = defaults[i];
	dirs[ndirs] = NULL;
	if (!out) {
		perf_name(argv[optind], name, sizeof(name));
		out = name;
	}
	if (import_perf(argv[optind], out, &opt)) {
		fprintf(stderr, "hwtrec import: %s\n", hwtr_last_error());
		return 1;
	}
	return 0;
}
