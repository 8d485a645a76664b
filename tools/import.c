/* import.c: `hwtrec import`: recordings from other tools' captures.
 *
 *   hwtrec import --opencsd-snapshot DIR [-o NAME.hwtrec]
 *
 * An OpenCSD snapshot directory (Arm CoreSight ETMv4/ETE trace, the trace
 * units' registers, memory images) becomes a recording with one history per
 * trace source (import-snapshot.c).  The recording is written to
 * NAME.hwtrec, by default DIR's last component with .hwtrec, here.
 */
#include "commands.h"
#include "import-snapshot.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec import --opencsd-snapshot DIR [-o NAME.hwtrec]\n"
"\n"
"Turn an OpenCSD snapshot directory (CoreSight ETMv4/ETE trace, the trace\n"
"units' registers, memory images at their load addresses) into a recording:\n"
"one history per trace source.  Sources of other protocols (STM, ITM, PTM)\n"
"are skipped with a message.  -o names the recording (default: DIR's name\n"
"with .hwtrec, in the current directory).\n");
}

/* DIR's last component + ".hwtrec". */
static void default_name(const char *dir, char *out, size_t size)
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

int hwtrec_import_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "opencsd-snapshot", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *snapshot = NULL, *output = NULL;
	char name[PATH_MAX], err[2048];
	int c;

	while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (c) {
		case 's':
			snapshot = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwtrec import: importing %s: only OpenCSD snapshots "
			"(--opencsd-snapshot DIR) are imported by this version\n",
			argv[optind]);
		return 2;
	}
	if (!snapshot) {
		usage(stderr);
		return 2;
	}
	if (!output) {
		default_name(snapshot, name, sizeof(name));
		output = name;
	}
	if (import_opencsd_snapshot(snapshot, output, stderr, err, sizeof(err)) < 0) {
		fprintf(stderr, "hwtrec import: %s\n", err);
		return 1;
	}
	printf("%s\n", output);
	return 0;
}
