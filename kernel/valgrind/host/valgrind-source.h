/* valgrind-source.h: the software source of `hwtrec record`, and what
 * `hwtrec gdb` and hwtrec-server's live mode need of it. */
#ifndef HWTREC_VALGRIND_SOURCE_H
#define HWTREC_VALGRIND_SOURCE_H

#include "../../source.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct record_source record_source_valgrind;

/* `hwtrec gdb`: the valgrind executable and the VALGRIND_LIB directory
 * holding the hwtrec tool; false, with the reason in WHY, if unusable. */
bool record_valgrind_paths(char *valgrind, size_t size, const char **tool_dir,
			   char *why, size_t whysize);

/* In a child process, exec Valgrind with the hwtrec tool on PROGRAM,
 * sending its event log to FIFO, Valgrind's own log (and core) to LOGDIR.
 * Returns only on failure (with the message printed). */
void valgrind_exec(const char *fifo, const char *logdir,
		   const struct record_options *options, const char *from,
		   const char *program, char *const argv[]);

/* `hwtrec _live-recorder`: hwtrec-server's recorder of one live session
 * (see valgrind-source.c). */
int hwtrec_live_recorder_main(int argc, char **argv);

#endif
