/* scratch.h: the recorder's private directory hwtrec-XXXXXX in $TMPDIR (or
 * /tmp), made into DIR and held (*LOCK_FD) while the recorder lives; those
 * of recorders that died are removed first. */
#ifndef HWTREC_SCRATCH_H
#define HWTREC_SCRATCH_H

#include <stddef.h>

/* 0, or -1 with a message on stderr if it cannot be made. */
int scratch_create(char *dir, size_t size, int *lock_fd);
/* Remove DIR and the files in it. */
void scratch_remove(const char *dir);

#endif
