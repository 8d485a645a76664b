/* pack.c: `hwtrec pack REC`: copy every file the program mapped, and its
 * separate debug file, into the recording's objects/ by build-id (as rr
 * pack does), so that the recording replays where those files are not.
 * The library does the copying (hwtr_pack); this prints what it did.
 */
#include "commands.h"

#include <hwtrecord.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec pack [--debug-dir DIR]... REC.hwtrec\n"
"\n"
"Copy into REC/objects/ every file the recorded program mapped (the\n"
"executable, its dynamic linker, its libraries) as objects/BUILD_ID, and\n"
"its separate debug file as objects/BUILD_ID.debug: each looked for at its\n"
"path, in DIR/.build-id/ for each --debug-dir and /usr/lib/debug, and in\n"
"the debuginfod cache, and used only if it carries the build-id the\n"
"recording names.  Each file is copied once; packing again copies nothing.\n"
"A finished recording's manifest gets the copies' lengths and CRC-32s.\n"
"hwtrec replay, dump and info, and hwtrec-server, then read the binaries\n"
"from the recording.  Files without a build-id cannot be packed: they are\n"
"named.  Exit status 0 when every file with a build-id is packed.\n");
}

/* Pack REC with DEBUG_DIRS; print what happened; 0 when every file with
 * a build-id is in objects/. */
int hwtrec_pack_recording(const char *cmd, const char *rec,
			  const char *const *debug_dirs)
{
	struct hwtr_recording *recording;
	struct hwtr_pack *pack;
	size_t i, copied = 0, debug = 0, there = 0, missing = 0;

	if (hwtr_recording_open(rec, &recording) < 0) {
		fprintf(stderr, "hwtrec %s: %s\n", cmd, hwtr_last_error());
		return 1;
	}
	if (hwtr_pack(recording, debug_dirs, true, &pack) < 0) {
		fprintf(stderr, "hwtrec %s: %s\n", cmd, hwtr_last_error());
		hwtr_recording_close(recording);
		return 1;
	}
	for (i = 0; i < hwtr_pack_count(pack); i++) {
		const struct hwtr_pack_file *f = hwtr_pack_file(pack, i);

		if (f->copied)
			printf("packed     %s (build-id %s)%s\n", f->path, f->build_id,
			       f->debug_copied ? " with its debug file" : "");
		else if (f->debug_copied)
			printf("packed     the debug file of %s (build-id %s)\n",
			       f->path, f->build_id);
		if (f->packed)
			there++;
		copied += f->copied;
		debug += f->debug_copied;
		if (f->problem) {
			printf("not packed %s%s%s%s: %s\n", f->path,
			       f->build_id ? " (build-id " : "",
			       f->build_id ? f->build_id : "",
			       f->build_id ? ")" : "", f->problem);
			missing += f->build_id != NULL;
		}
	}
	printf("%s: %zu files copied, %zu debug files copied; %zu of %zu mapped "
	       "files in objects/\n", rec, copied, debug, there,
	       hwtr_pack_count(pack));
	hwtr_pack_free(pack);
	hwtr_recording_close(recording);
	return missing ? 1 : 0;
}

int hwtrec_pack_main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dirs[17];
	size_t ndirs = 0;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'd' && ndirs < 16) {
			dirs[ndirs++] = optarg;
		} else if (c == 'd') {
			fprintf(stderr, "hwtrec pack: at most 16 --debug-dir options\n");
			return 2;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	dirs[ndirs] = NULL;
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	return hwtrec_pack_recording("pack", argv[optind], dirs);
}
