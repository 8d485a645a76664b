/* corefile.h: the end state of a recorded process, from its ELF core file.
 *
 * Reads (with libelf) the threads' registers (NT_PRSTATUS, NT_FPREGSET), the
 * signal's details (NT_SIGINFO), the memory the core holds (PT_LOAD, only
 * the p_filesz part), the auxiliary vector (NT_AUXV) and the file mappings
 * (NT_FILE).  Works for Linux kernel cores, GDB's gcore and Valgrind's
 * vgcore (which has no NT_AUXV/NT_FILE, nor NT_SIGINFO).
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

struct core_thread {
	uint32_t tid;
	int signal;			/* pr_cursig */
	uint8_t regs[TDESC_G_SIZE];	/* in the 'g' layout */
	uint8_t valid[TDESC_G_SIZE];	/* 1 where regs is known */
	bool has_siginfo;		/* the signal's NT_SIGINFO was there */
	uint8_t siginfo[CORE_SIGINFO_SIZE];
};

struct core_load {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t flags;			/* PF_R, PF_W, PF_X */
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
	size_t nloads;
	struct core_load *loads;
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

/* Copy up to LEN bytes at ADDR that the core holds contiguously from ADDR;
 * returns how many (0 if ADDR is not in the core). */
size_t core_read_memory(const struct core *core, uint64_t addr, void *buf,
			size_t len);

#endif /* HWTREC_COREFILE_H */
