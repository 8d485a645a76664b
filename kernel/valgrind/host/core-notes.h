/* core-notes.h: make Valgrind's core usable by GDB (add NT_AUXV and
 * NT_FILE from the sideband) and write it to OUT. */
#ifndef HWTREC_CORE_NOTES_H
#define HWTREC_CORE_NOTES_H

#include "../../sideband.h"

#include <stddef.h>

int core_add_notes(const char *vgcore, const char *out,
		   const struct sideband *sb, char *err, size_t errsize);

#endif
