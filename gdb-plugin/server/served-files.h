/* served-files.h: the files GDB reads from a recording (its vFile
 * packets, vfile.h), by the names GDB asks for.
 *
 * GDB asks for the executable by the name qXfer:exec-file gives, for the
 * libraries by the names of the library list (the dynamic linker's in the
 * core, or the recording's mappings), and for separate debug files by
 * build-id (DEBUG_DIR/.build-id/xx/rest.debug).  Each name is answered
 * with a file the recording holds or vouches for, never with whatever
 * sits at that path here:
 *
 *  - a path the recording mapped: the file the library finds for that
 *    mapping (hwtr_recording_find_code: objects/BUILD_ID first; a file at
 *    the path only if it carries the recorded build-id);
 *  - a name in the dynamic linker's list that no mapping has (a symbolic
 *    link's: /lib64/ld-linux-x86-64.so.2 for the mapped
 *    /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2): the object loaded at
 *    that entry's l_addr; with no mapping there (a recording of a core
 *    alone), the file at that name;
 *  - the manifest's executable or a file of the core's NT_FILE note that no
 *    mapping names: the file at that path (the recording names it, with no
 *    build-id to check it by, as the library reads such mappings);
 *  - DIR/.build-id/xx/rest.debug for the build-id of a mapped file: its
 *    debug file (hwtr_recording_find_debug: objects/BUILD_ID.debug first);
 *    DIR/.build-id/xx/rest: that mapped file.
 *
 * Any other name is not found (ENOENT).  Open files are this table's
 * descriptors, not the host's.
 */
#ifndef HWTREC_SERVED_FILES_H
#define HWTREC_SERVED_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct replay;
struct served_files;

int served_files_create(struct replay *replay, struct served_files **files);
/* Closes every file still open. */
void served_files_free(struct served_files *files);

/* Open NAME for reading: a descriptor, or a negative errno (-ENOENT:
 * nothing in the recording answers to NAME). */
int served_files_open(struct served_files *files, const char *name);
/* Up to COUNT bytes at OFFSET: how many, or a negative errno. */
ssize_t served_files_pread(struct served_files *files, int fd, void *buf,
			   size_t count, uint64_t offset);
int served_files_fstat(struct served_files *files, int fd, struct stat *st);
int served_files_close(struct served_files *files, int fd);

#endif /* HWTREC_SERVED_FILES_H */
