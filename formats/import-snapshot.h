/* import-snapshot.h: an OpenCSD snapshot directory into a recording. */
#ifndef HWTREC_IMPORT_SNAPSHOT_H
#define HWTREC_IMPORT_SNAPSHOT_H

#include <stdbool.h>
#include <stdio.h>

/* Import the snapshot in DIR into the new recording OUT; DSTREAM: its
 * buffers are DSTREAM captures (an 8-byte footer every 512 bytes, taken
 * out; without it a capture is recognised by its frames).  Warnings
 * (skipped sources, memory images shorter than their ini says, a buffer
 * that is not whole frames) go to LOG, one line each, naming the file and
 * line or offset.  PROGRESS: a terminal for the progress line (bytes of
 * the buffers and memory dumps read), or NULL.  0, or -1 with the reason
 * (file:line) in ERR. */
int import_opencsd_snapshot(const char *dir, const char *out, bool dstream,
			    FILE *log, FILE *progress, char *err, size_t errlen);

#endif /* HWTREC_IMPORT_SNAPSHOT_H */
