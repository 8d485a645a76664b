/* hwtrec: the command line of hwtrecord; dispatches to one file per command. */
#include "config.h"
#include "commands.h"
#include "../kernel/valgrind/host/valgrind-source.h"	/* _live-recorder */

#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", hwtrec_record_main,
	  "run a program and record its execution (Intel PT through Linux "
	  "perf, FreeBSD's hwt(4) with Intel PT or CoreSight, or software "
	  "through Valgrind)" },
	{ "replay", hwtrec_replay_main,
	  "GDB at the end of a recording, going backwards with the plugin" },
	{ "gdb", hwtrec_gdb_main,
	  "GDB on a live program: record while debugging, go back, come back" },
	{ "info", hwtrec_info_main,
	  "summary of a recording: threads, instructions, segments, gaps" },
	{ "dump", hwtrec_dump_main,
	  "instruction or function-call history, GDB formats or JSON" },
	{ "import", hwtrec_import_main,
	  "a recording from a perf.data (Intel PT) or an OpenCSD snapshot (CoreSight)" },
	{ "export", hwtrec_export_main,
	  "a recording as perf.data (perf script, perf report)" },
	{ "pack", hwtrec_pack_main,
	  "copy the binaries and debug files into a recording, so that it travels" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: hwtrec COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'hwtrec COMMAND --help' describes each; "
		"'hwtrec --version' says which hwtrecord this is.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hwtrec (hwtrecord) %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	/* Not listed: hwtrec-server runs it. */
	if (!strcmp(argv[1], "_live-recorder"))
		return hwtrec_live_recorder_main(argc - 1, argv + 1);
	fprintf(stderr, "hwtrec: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
