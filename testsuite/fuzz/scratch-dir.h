/* scratch-dir.h: one temporary recording directory per fuzzer process,
 * rewritten for every input and removed at exit. */
#ifndef SCRATCH_DIR_H
#define SCRATCH_DIR_H

#include <stddef.h>
#include <stdint.h>

/* Create the directory (with trace/ and objects/) once; its path. */
const char *scratch_dir(void);
/* Write NAME (relative, e.g. "trace/1.pt") with SIZE bytes; aborts on I/O
 * errors, which are the harness's problem, not the input's. */
void scratch_write(const char *name, const void *bytes, size_t size);
/* Split DATA at the line "----" into up to N pieces and write them as
 * NAMES[0], NAMES[1], ...; names without a piece are removed, as pieces a
 * writer that died never wrote. */
void scratch_write_pieces(const uint8_t *data, size_t size,
			  const char *const *names, size_t n);
/* Remove NAME if it exists. */
void scratch_remove(const char *name);
/* Recording NAME's manifest without the lengths and checksums of a
 * finished recording (doc/recording-format.md): the harnesses replace its
 * trace with each input, which those checks would refuse before any decoder
 * saw it.  Aborts if the manifest cannot be rewritten. */
void scratch_drop_checks(const char *name);
/* The path of NAME inside the directory (static buffer). */
const char *scratch_path(const char *name);

#endif
