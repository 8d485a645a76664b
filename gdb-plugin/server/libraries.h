/* libraries.h: the shared-library list GDB asks for with
 * qXfer:libraries-svr4:read, read from the dynamic linker's link_map in the
 * recorded process's memory (as gdbserver does), so that GDB finds every
 * library's symbols at the crash without help; without a link_map in memory
 * (no core), from the objects the recording's mappings show loaded at the
 * end (loaded-objects.h). */
#ifndef HWTREC_LIBRARIES_H
#define HWTREC_LIBRARIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay;

/* <library-list-svr4 version="1.0" main-lm="..."><library name= lm= l_addr=
 * l_ld=/>...</library-list-svr4>, malloc'd; NULL with hwtr_last_error() saying why when
 * neither the memory nor the mappings give the list. */
char *libraries_svr4_xml(struct replay *replay);

/* The load bias (l_addr) of the library the dynamic linker's list in memory
 * names NAME (as the list above names it, which may be another name than
 * the recording's mapping gives the same file: a symbolic link); false if
 * no entry has that name or memory holds no list. */
bool libraries_load_bias(struct replay *replay, const char *name,
			 uint64_t *l_addr);

#endif /* HWTREC_LIBRARIES_H */
