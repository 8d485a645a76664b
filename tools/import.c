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
 *
 * An import writes NAME.hwtrec.importing-XXXXXX beside NAME.hwtrec and
 * renames it at the end, as recorders finish a recording: a refused import
 * leaves nothing behind, and never a half-written NAME.hwtrec.
 */
#include "commands.h"
#include "hwtrecord.h"
#include "import-perf.h"
#include "import-snapshot.h"

#include "etm-contexts.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec import perf.data [-o NAME.hwtrec] [--debug-dir DIR]...\n"
"       hwtrec import --opencsd-snapshot DIR [--dstream-format] [-o NAME.hwtrec]\n"
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
"with .hwtrec, in the current directory.  --dstream-format: the buffers are\n"
"DSTREAM captures (an 8-byte footer every 512 bytes, taken out, as\n"
"trc_pkt_lister -dstream_format does); without it a DSTREAM capture is\n"
"recognised by frames that carry trace IDs no source has.\n");
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

/* Whether OUT may become the recording: absent, or an empty directory (the
 * writer's rule). */
static int output_free(const char *out)
{
	DIR *d = opendir(out);
	struct dirent *e;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "hwtrec import: %s: %s\n", out, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			closedir(d);
			fprintf(stderr, "hwtrec import: %s: exists and is not an "
				"empty directory\n", out);
			return -1;
		}
	closedir(d);
	return 0;
}

/* A fresh directory beside OUT to write the recording into. */
static int output_temporary(const char *out, char *tmp, size_t size)
{
	if ((size_t)snprintf(tmp, size, "%s.importing-XXXXXX", out) >= size) {
		fprintf(stderr, "hwtrec import: %s: name too long\n", out);
		return -1;
	}
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "hwtrec import: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* The import in TMP done (OK) or refused: rename it to OUT, or remove it. */
static int output_finish(const char *tmp, const char *out, bool ok)
{
	if (ok && rename(tmp, out) == 0)
		return 0;
	if (ok)
		fprintf(stderr, "hwtrec import: %s: %s\n", out, strerror(errno));
	etm_remove_recording(tmp);
	return -1;
}

int hwtrec_import_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "opencsd-snapshot", required_argument, NULL, 's' },
		{ "dstream-format", no_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dirs[16], *const *defaults = import_default_debug_dirs();
	struct import_options opt = { .debug_dirs = dirs, .warn = stderr,
				      .progress = isatty(2) ? stderr : NULL };
	const char *snapshot = NULL, *out = NULL;
	bool dstream = false;
	char name[PATH_MAX], tmp[PATH_MAX + 32], err[2048];
	size_t ndirs = 0, i;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': snapshot = optarg; break;
		case 'D': dstream = true; break;
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
		if (output_free(out) < 0 ||
		    output_temporary(out, tmp, sizeof(tmp)) < 0)
			return 1;
		if (import_opencsd_snapshot(snapshot, tmp, dstream, stderr,
					    opt.progress, err,
					    sizeof(err)) < 0) {
			fprintf(stderr, "hwtrec import: %s\n", err);
			output_finish(tmp, out, false);
			return 1;
		}
		if (output_finish(tmp, out, true) < 0)
			return 1;
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
	if (output_free(out) < 0 || output_temporary(out, tmp, sizeof(tmp)) < 0)
		return 1;
	if (import_perf(argv[optind], tmp, &opt)) {
		fprintf(stderr, "hwtrec import: %s\n", hwtr_last_error());
		output_finish(tmp, out, false);
		return 1;
	}
	return output_finish(tmp, out, true) < 0 ? 1 : 0;
}
