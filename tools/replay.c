/* replay.c: `hwtrec replay`: GDB at the end of a recording, with the plugin.
 *
 *   hwtrec replay                      the newest *.hwtrec here
 *   hwtrec replay NAME.hwtrec -- -batch -x script.gdb
 *
 * Starts GDB with the hwtrecord Python package loaded and connected to
 * hwtrec-server over a pipe (`target remote | hwtrec-server REC`); arguments
 * after `--` go to GDB unchanged, after ours, so a -x script runs once GDB
 * stands at the crash.  The server and the plugin are found in the build tree
 * when hwtrec runs from it, else beside the installed hwtrec (the server) and
 * in $(pkgdatadir)/python (the plugin); HWTREC_SERVER and HWTREC_PYTHONDIR
 * override both, HWTREC_GDB names the debugger.
 *
 * A recording of another architecture than the host's (AArch64 from an Arm
 * CoreSight trace) needs a GDB that knows it: gdb-multiarch (Debian's
 * package of that name), told the architecture before it connects, since
 * there is no executable to tell it.  A recording that names no executable
 * (an imported snapshot) has no dynamic linker state for GDB to find its
 * binaries by: GDB gets the ELF files saved in the recording as symbol
 * files at the addresses they were mapped at.
 */
#include "commands.h"
#include "gdb-launch.h"

#include <hwtrecord.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void usage(FILE *out)
{
	fprintf(out,
"usage: hwtrec replay [RECORDING] [-- GDB-ARGS...]\n"
"\n"
"Open GDB at the end of RECORDING (by default the newest *.hwtrec directory\n"
"here), where the program stopped, with the hwtrecord plugin: reverse-step,\n"
"reverse-next, reverse-finish, reverse-continue, record function-call-history,\n"
"record instruction-history, record goto.  GDB-ARGS are passed to GDB.\n");
}

/* Whether GDB may read the program's files from this machine's file system:
 * nothing is packed in the recording (a packed recording is meant to be
 * read from its objects/, debug files included) and every mapped file is
 * at its path with the build-id the recording names. */
static bool files_are_local(struct hwtr_recording *recording)
{
	struct hwtr_pack *pack;
	bool local = true;
	size_t i, n;

	if (hwtr_pack(recording, NULL, false, &pack) < 0)
		return false;
	n = hwtr_pack_count(pack);
	for (i = 0; i < n && local; i++) {
		const struct hwtr_pack_file *f = hwtr_pack_file(pack, i);
		char id[130];

		if (f->packed || f->has_debug)
			local = false;
		else if (f->build_id)
			local = hwtr_build_id_of_file(f->path, id, sizeof(id)) > 0 &&
				!strcmp(id, f->build_id);
		else
			local = access(f->path, R_OK) == 0;
	}
	hwtr_pack_free(pack);
	return local;
}

/* The newest NAME.hwtrec directory in the current directory (by the time
 * its manifest was last written). */
static int newest_recording(char *out, size_t size)
{
	struct timespec best = { 0, 0 };
	struct dirent *e;
	DIR *d = opendir(".");
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char manifest[PATH_MAX];
		struct stat st;

		if (n <= 7 || strcmp(e->d_name + n - 7, ".hwtrec"))
			continue;
		snprintf(manifest, sizeof(manifest), "%s/manifest.json", e->d_name);
		if (stat(manifest, &st) < 0)
			continue;
		if (!found || st.st_mtim.tv_sec > best.tv_sec ||
		    (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec)) {
			best = st.st_mtim;
			snprintf(out, size, "%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/* GDB commands that load the ELF objects saved in the recording, each at
 * the address it was mapped at; a NULL-terminated array of malloc'd
 * strings (NULL when there are none). */
static char **symbol_file_commands(const struct hwtr_recording *rec)
{
	size_t n = hwtr_recording_nevents(rec), i, k = 0;
	char **cmds = calloc(n + 1, sizeof(*cmds));

	for (i = 0; cmds && i < n; i++) {
		const struct hwtr_sideband_event *ev = hwtr_recording_event(rec, i);
		char path[PATH_MAX], *cmd;
		uint64_t bias = 0;
		size_t j;
		bool seen = false;

		if (ev->kind != hwtr_ev_mmap || !ev->saved || !(ev->prot & HWTR_PROT_EXEC))
			continue;
		snprintf(path, sizeof(path), "%s/%s", hwtr_recording_path(rec), ev->saved);
		if (strpbrk(path, "\"\\") ||
		    hwtr_load_bias_of_file(path, ev->addr, ev->pgoff, &bias) <= 0)
			continue;	/* not an ELF file: nothing for GDB */
		for (j = 0; j < k && !seen; j++)
			seen = strstr(cmds[j], path) != NULL;
		if (seen || !(cmd = malloc(strlen(path) + 64)))
			continue;
		sprintf(cmd, "add-symbol-file \"%s\" -o 0x%llx", path,
			(unsigned long long)bias);
		cmds[k++] = cmd;
	}
	return cmds;
}

int hwtrec_replay_main(int argc, char **argv)
{
	char rec[PATH_MAX], server[PATH_MAX], plugin[PATH_MAX];
	char qserver[2 * PATH_MAX], qrec[2 * PATH_MAX], qplugin[2 * PATH_MAX];
	char progress[2 * PATH_MAX + 16];
	char target[7 * PATH_MAX], python[3 * PATH_MAX];
	const char *gdb = getenv("HWTREC_GDB");
	struct hwtr_recording *recording;
	char arch[64], set_arch[96];
	char **symbol_files = NULL;
	bool foreign, local_files;
	char **gargv;
	int i, n = 0, first_gdb_arg = argc;
	const char *name = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			first_gdb_arg = i + 1;
			break;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (argv[i][0] == '-' || name) {
			usage(stderr);
			return 2;
		}
		name = argv[i];
	}
	if (name) {
		snprintf(rec, sizeof(rec), "%s", name);
	} else if (!newest_recording(rec, sizeof(rec))) {
		fprintf(stderr, "hwtrec replay: no *.hwtrec recording in this directory; "
			"name one (hwtrec replay NAME.hwtrec)\n");
		return 1;
	}
	/* Refuse a bad recording here, with the library's message, rather
	 * than inside GDB's "Remote connection closed". */
	if (hwtr_recording_open(rec, &recording) < 0) {
		fprintf(stderr, "hwtrec replay: %s\n", hwtr_last_error());
		return 1;
	}
	snprintf(arch, sizeof(arch), "%s", hwtr_recording_info(recording)->arch);
	local_files = files_are_local(recording);
	if (!hwtr_recording_info(recording)->executable)
		symbol_files = symbol_file_commands(recording);
	hwtr_recording_close(recording);
	foreign = strcmp(arch, "x86_64") != 0;
	if (!find_server(server, sizeof(server))) {
		fprintf(stderr, "hwtrec replay: hwtrec-server not found at %s\n", server);
		return 1;
	}
	if (!gdb || !*gdb)
		gdb = foreign ? "gdb-multiarch" : "gdb";
	for (i = 0; symbol_files && symbol_files[i]; i++)
		;
	gargv = calloc((size_t)(argc - first_gdb_arg) + 18 + 2 * (size_t)i,
		       sizeof(*gargv));
	if (!gargv)
		return 1;
	gargv[n++] = (char *)gdb;
	gargv[n++] = "-q";
	if (find_plugin(plugin, sizeof(plugin))) {
		/* GDB's system gdbinit file (hwtrecord.py) runs before -ex and
		 * loads this plugin too, not an installed one. */
		setenv("HWTREC_PYTHONDIR", plugin, 1);
		python_quote(qplugin, sizeof(qplugin), plugin);
		snprintf(python, sizeof(python),
			 "python import sys; sys.path.insert(0, %s); import hwtrecord", qplugin);
		gargv[n++] = "-ex";
		gargv[n++] = python;
	} else {
		fprintf(stderr, "hwtrec replay: the hwtrecord GDB plugin was not found "
			"(set HWTREC_PYTHONDIR); GDB runs without it\n");
		/* The plugin leaves GDB's hardware watchpoints on where the
		 * server has them (a data log), and turns them off where not
		 * (watchpoints.py).  Without it, off: `watch` then makes GDB's
		 * software ones, which read the values at each position and
		 * so fire in reverse too. */
		gargv[n++] = "-ex";
		gargv[n++] = "set remote hardware-watchpoint-limit 0";
	}
	/* Requests about the history wait while the server builds it
	 * (seconds on a long recording): GDB must not give up on them. */
	gargv[n++] = "-ex";
	gargv[n++] = "set remotetimeout 600";
	if (foreign) {
		snprintf(set_arch, sizeof(set_arch), "set architecture %s", arch);
		gargv[n++] = "-ex";
		gargv[n++] = set_arch;
	}
	if (local_files) {
		/* GDB reads the files here rather than through the pipe
		 * (vFile), which GDB 13 reads a byte at a time: seconds per
		 * MiB.  The same bytes: every build-id was checked. */
		gargv[n++] = "-ex";
		gargv[n++] = "set sysroot";
	}
	shell_quote(qserver, sizeof(qserver), server);
	shell_quote(qrec, sizeof(qrec), rec);
	/* The server's stderr is a pipe GDB reads, and GDB runs it without a
	 * terminal: it shows how far the history is built on ours, if any. */
	progress[0] = 0;
	if (isatty(2) && ttyname(2)) {
		char qtty[2 * PATH_MAX];

		shell_quote(qtty, sizeof(qtty), ttyname(2));
		snprintf(progress, sizeof(progress), "--progress=%s ", qtty);
	}
	snprintf(target, sizeof(target), "target remote | %s %s%s", qserver,
		 progress, qrec);
	gargv[n++] = "-ex";
	gargv[n++] = target;
	for (i = 0; symbol_files && symbol_files[i]; i++) {
		gargv[n++] = "-ex";
		gargv[n++] = symbol_files[i];
	}
	for (i = first_gdb_arg; i < argc; i++)
		gargv[n++] = argv[i];
	gargv[n] = NULL;
	fflush(stdout);
	execvp(gdb, gargv);
	fprintf(stderr, "hwtrec replay: cannot run %s: %s%s\n", gdb, strerror(errno),
		foreign && errno == ENOENT
			? " (an AArch64 recording needs gdb-multiarch: apt-get "
			  "install gdb-multiarch)" : "");
	free(gargv);
	return 127;
}
