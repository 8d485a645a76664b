/* corefile.h: the end state of a recorded process, from its ELF core file.
 *
 * Reads (with libelf) the threads' registers (NT_PRSTATUS, NT_FPREGSET), the
 * signal's details (NT_SIGINFO), the auxiliary vector (NT_AUXV) and the
 * file mappings (NT_FILE); the memory the core holds is the library's reader
 * (hwtr_core_memory_*), as the data log's end state is.  Works for Linux
 * kernel cores, GDB's gcore and Valgrind's vgcore (which has no
 * NT_AUXV/NT_FILE, nor NT_SIGINFO).
 */
#ifndef HWTREC_COREFILE_H
#define HWTREC_COREFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdesc.h"

/* The kernel's siginfo_t, as NT_SIGINFO holds it and GDB reads it
 * (qXfer:siginfo:read) for $_siginfo. */
#define CORE_SIGINFO_SIZE 128

struct hwtr_core_memory;

struct core_thread {
	uint32_t tid;
	int signal;			/* pr_cursig */
	uint8_t regs[TDESC_G_SIZE];	/* in the 'g' layout */
	uint8_t valid[TDESC_G_SIZE];	/* 1 where regs is known */
	bool has_siginfo;		/* the signal's NT_SIGINFO was there */
	uint8_t siginfo[CORE_SIGINFO_SIZE];
};

struct core_file_map {
	uint64_t start, end, pgoff;	/* pgoff in bytes */
	const char *path;		/* inside the core's NT_FILE note */
};

struct core {
	int fd;
	const uint8_t *map;		/* the whole core, read-only */
	size_t size;
	size_t nthreads;
	struct core_thread *threads;
	struct hwtr_core_memory *memory;	/* PT_LOAD: what the core holds */
	const uint8_t *auxv;		/* NULL if the core has none */
	size_t auxv_size;
	size_t nfiles;
	struct core_file_map *files;
	int signal;			/* the first thread's signal */
};

/* Open PATH; on failure returns a negative errno-style code and writes a
 * message naming the file and what was wrong for hwtr_last_error(). */
int core_open(const char *path, struct core **core);
void core_close(struct core *core);

/* The thread with TID, or NULL. */
const struct core_thread *core_find_thread(const struct core *core,
					   uint32_t tid);

#endif /* HWTREC_COREFILE_H */
