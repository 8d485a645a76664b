/* tls.h: thread-local variables' addresses (GDB's qGetTLSAddr), as the
 * thread sees them at its position in the history.
 *
 * GDB asks the stub where a thread's copy of a TLS variable lies: the
 * module's link_map address and the variable's offset in its TLS block.
 * glibc's libthread_db answers that from the process's memory and the
 * thread's fs_base, as it does for gdbserver; here its memory and registers
 * are the replay's at the thread's position (the data log's, the core's at
 * the end), so a variable is found where the program had it, or not at all
 * when they are not known (a recording without data). */
#ifndef HWTREC_TLS_H
#define HWTREC_TLS_H

#include <stdint.h>

struct replay;

/* The address of the variable at OFFSET in the TLS block of the module
 * whose link_map is at LM, for thread TID at its position.  0 and *ADDR on
 * success; a negative code with hwtr_last_error() saying why (libthread_db
 * does not match the program's libc, memory or fs_base not known here, the
 * block not allocated yet). */
int tls_address(struct replay *replay, uint32_t tid, uint64_t lm,
		uint64_t offset, uint64_t *addr);

#endif /* HWTREC_TLS_H */
