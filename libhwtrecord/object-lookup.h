/* object-lookup.h: where the bytes of a mapped file, and its separate debug
 * file, are found (doc/recording-format.md, "Finding code").
 *
 * One policy for every reader (the image, the symbols, hwtrec pack, the
 * server's memory and its vFile packets): the recording first, then the
 * system, and a file found outside the recording's own saved copy must carry
 * the build-id the sideband names, or it is not the file that ran.
 *
 *   code:  the mapping's saved copy, objects/BUILD_ID, its path,
 *          DEBUG_DIR/.build-id/xx/rest for each debug directory, the
 *          debuginfod cache's BUILD_ID/executable
 *   debug: objects/BUILD_ID.debug, DEBUG_DIR/.build-id/xx/rest.debug for each
 *          debug directory and /usr/lib/debug, the debuginfod cache's
 *          BUILD_ID/debuginfo ($DEBUGINFOD_CACHE_PATH, else
 *          $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client)
 *
 * A copy in objects/ whose build-id is not the sideband's is refused, named
 * with both ids, and the search goes on: the recording was damaged, the code
 * that ran may still be found elsewhere.
 */
#ifndef HWTR_OBJECT_LOOKUP_H
#define HWTR_OBJECT_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>

/* The name of build-id ID's copy in a recording: "objects/ID" or, DEBUG,
 * "objects/ID.debug" (into BUF of SIZE bytes); false if ID is not 2 to 128
 * hex digits. */
bool object_name(const char *id, bool debug, char *buf, size_t size);

/* The file holding the code of a mapping of PATH (may be NULL) with
 * BUILD_ID (may be NULL: no check) and SAVED (its copy's name in the
 * recording, or NULL), in recording directory RECDIR.  0 and a malloc'd
 * *FILE, or 0 with *FILE NULL and a malloc'd *PROBLEM saying why there is
 * none (missing, a build-id mismatch naming both ids, not a regular file);
 * -hwtr_err_nomem. */
int object_lookup_code(const char *recdir, const char *path,
		       const char *build_id, const char *saved,
		       const char *const *debug_dirs, char **file,
		       char **problem);

/* The separate debug file of BUILD_ID, the same way. */
int object_lookup_debug(const char *recdir, const char *build_id,
			const char *const *debug_dirs, char **file,
			char **problem);

#endif
