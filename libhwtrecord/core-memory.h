/* core-memory.h: the memory an ELF core holds (include/hwtrecord.h,
 * hwtr_core_memory_*), and the read the data log's end state wants: which
 * bytes of a range the core holds, each marked. */
#ifndef HWTR_CORE_MEMORY_H
#define HWTR_CORE_MEMORY_H

#include <hwtrecord.h>

/* Copy [ADDR, ADDR+SIZE) into BUF where the core holds it, setting KNOWN[i]
 * to 1 for each byte it holds (and leaving the others alone).  0, or a
 * negative error naming the core when a segment the range needs is cut
 * short in the file: the end state is then not known, rather than partly
 * known as a plain hwtr_core_memory_read would show it. */
int core_memory_read_known(const struct hwtr_core_memory *memory,
			   uint64_t addr, uint8_t *buf, uint8_t *known,
			   size_t size);

#endif
