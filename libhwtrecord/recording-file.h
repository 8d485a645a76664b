/* recording-file.h: opening the files a recording names (DESIGN.md section 4).
 *
 * A recording may come from anyone, so what it names is opened under one
 * policy: a name in the manifest or the sideband (a stream, the core, a saved
 * object, objects/BUILD_ID) resolves inside the recording directory: relative,
 * no "." or ".." component, no symbolic link on the way (O_NOFOLLOW on every
 * component).  Every file, inside or not (a mapping's own path, a debug
 * directory's copy), must be a regular file, opened with O_NONBLOCK and
 * checked with fstat, so that a FIFO or a device never blocks a reader.
 */
#ifndef HWTR_RECORDING_FILE_H
#define HWTR_RECORDING_FILE_H

#include <stdbool.h>
#include <sys/stat.h>

/* NAME is relative and stays inside the directory it is relative to. */
bool recording_name_inside(const char *name);

/* Open NAME inside recording directory DIR read-only: *FD and its *ST.
 * Errors name DIR/NAME: -hwtr_err_notfound if it does not exist,
 * -hwtr_err_format if the name leaves the recording, goes through a symbolic
 * link or is not a regular file, -hwtr_err_io otherwise. */
int recording_file_open(const char *dir, const char *name, int *fd,
			struct stat *st);

/* Open PATH (anywhere; symbolic links are followed) read-only if it is a
 * regular file, with the same errors. */
int regular_file_open(const char *path, int *fd, struct stat *st);

#endif
