/* core-notes.h: make Valgrind's core usable by GDB (add NT_AUXV and
 * NT_FILE from the sideband, NT_SIGINFO of a fault) and write it to OUT. */
#ifndef HWTREC_CORE_NOTES_H
#define HWTREC_CORE_NOTES_H

#include "../../sideband.h"

#include <stddef.h>
#include <stdint.h>

/* The fault that ended the program, as Valgrind reported it. */
struct core_fault {
	int signal;
	uint64_t address;
};

/* Also NT_SIGINFO for FAULT (or NULL) when the core's signal is that
 * fault's (core-notes.c). */
int core_add_notes(const char *vgcore, const char *out,
		   const struct sideband *sb, const struct core_fault *fault,
		   char *err, size_t errsize);

#endif
