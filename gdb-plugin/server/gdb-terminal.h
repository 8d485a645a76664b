/* gdb-terminal.h: the terminal of the GDB that runs us over a pipe.
 *
 * Under `target remote | hwtrec-server REC` GDB gives the server a pipe for
 * stdin, stdout and stderr and a session of its own, so the server has no
 * terminal to show the history's progress on while GDB waits for the first
 * reverse command.  GDB's own standard output is that terminal: found
 * through /proc (the parent, or the shell's parent, named gdb*), opened for
 * writing when it is a terminal.  Elsewhere (no /proc, GDB's output a file
 * or a pipe, no GDB above us) there is none, and nothing is shown. */
#ifndef HWTREC_GDB_TERMINAL_H
#define HWTREC_GDB_TERMINAL_H

#include <stdio.h>

/* GDB's terminal opened for writing, or NULL. */
FILE *gdb_terminal_open(void);

#endif
