/* gdb-launch.h: starting GDB on hwtrec-server (gdb-launch.c). */
#ifndef HWTREC_GDB_LAUNCH_H
#define HWTREC_GDB_LAUNCH_H

#include <stddef.h>

/* hwtrec runs from the build tree (not installed). */
int running_from_build_tree(void);
/* hwtrec-server's path into OUT; 0 if it is not there. */
int find_server(char *out, size_t size);
/* The directory holding the hwtrecord Python package; 0 if none. */
int find_plugin(char *out, size_t size);
/* S in single quotes for /bin/sh (GDB runs `target remote | ...` with it). */
void shell_quote(char *out, size_t size, const char *s);
/* S as one word of GDB's argument syntax (libiberty's buildargv, which
 * splits `set args` for a remote `run`): every character that is not
 * plainly safe behind a backslash, "" as ''. */
void gdb_arg_quote(char *out, size_t size, const char *s);
/* S as a Python string literal. */
void python_quote(char *out, size_t size, const char *s);

#endif
