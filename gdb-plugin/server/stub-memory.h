/* stub-memory.h: the stopped live process's memory, read through the stub
 * ('m' packets) and kept by page while the process stays stopped.
 *
 * Live mode reads it as the end state of the data log at every past
 * position GDB looks at (replay_options.read_end_memory): a round trip to
 * Valgrind's gdbserver through vgdb takes milliseconds, and GDB reads the
 * same stack words at every reverse step.  The pages are forgotten whenever
 * the process may have changed (stub_memory_forget: it ran, or memory was
 * written).
 */
#ifndef HWTREC_STUB_MEMORY_H
#define HWTREC_STUB_MEMORY_H

#include "rsp.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STUB_MEMORY_PAGE 4096u
#define STUB_MEMORY_PAGES 64u

struct stub_memory {
	struct rsp_conn *stub;
	struct {
		uint64_t addr;		/* page-aligned */
		size_t len;		/* bytes read from ADDR (< a page:
					 * the rest is not readable) */
		bool valid;
		uint8_t bytes[STUB_MEMORY_PAGE];
	} pages[STUB_MEMORY_PAGES];
};

void stub_memory_init(struct stub_memory *m, struct rsp_conn *stub);
/* Up to LEN bytes at ADDR into BUF: how many could be read (fewer where
 * the process has no readable memory). */
size_t stub_memory_read(struct stub_memory *m, uint64_t addr, void *buf,
			size_t len);
/* The process ran or its memory was written: every page is read again. */
void stub_memory_forget(struct stub_memory *m);

#endif /* HWTREC_STUB_MEMORY_H */
