/* import-perf.h: a perf.data of Intel PT or CoreSight ETM as a recording. */
#ifndef HWTREC_IMPORT_PERF_H
#define HWTREC_IMPORT_PERF_H

#include <stdbool.h>
#include <stdio.h>

struct import_options {
	/* Build-id caches searched for binaries that are not at their path:
	 * directories holding .build-id/xx/rest (perf's cache, where rest is a
	 * directory with "elf", or a debug tree, where it is the file);
	 * NULL-terminated, may be NULL. */
	const char *const *debug_dirs;
	FILE *warn;		/* warnings (skipped records, missing binaries) */
	/* A terminal for the progress line (progress.h) of reading and
	 * writing the trace, or NULL for none. */
	FILE *progress;
};

/* The caches perf itself uses, in its order: $PERF_BUILDID_DIR or
 * ~/.debug, then /usr/lib/debug.  Static storage. */
const char *const *import_default_debug_dirs(void);

/* Import PERF_PATH into the new recording OUT_DIR.  0 or a negative
 * hwtr_error with hwtr_last_error() naming the file and offset. */
int import_perf(const char *perf_path, const char *out_dir,
		const struct import_options *opt);

#endif
