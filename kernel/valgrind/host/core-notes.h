/* core-notes.h: make Valgrind's core usable by GDB (add NT_AUXV and
 * NT_FILE from the sideband, NT_SIGINFO of a fault) and write it to OUT. */
#ifndef HWTREC_CORE_NOTES_H
#define HWTREC_CORE_NOTES_H

#include "../../sideband.h"
#include "core-siginfo.h"

#include <stddef.h>
#include <stdint.h>

/* Also NT_SIGINFO of the signal END says ended the program (NULL: not
 * a signal), where the recording knows it (core-siginfo.c). */
int core_add_notes(const char *vgcore, const char *out,
		   const struct sideband *sb, const struct core_end *end,
		   char *err, size_t errsize);

#endif
