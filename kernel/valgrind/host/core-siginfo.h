/* core-siginfo.h: the siginfo of the signal that ended a program under
 * Valgrind, as the kernel would have given it (core-siginfo.c). */
#ifndef HWTREC_CORE_SIGINFO_H
#define HWTREC_CORE_SIGINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/procfs.h>

#define CORE_SIGINFO_SIZE 128	/* x86-64 siginfo_t */

/* How the program ended, as the recorder knows it. */
struct core_end {
	int signal;			/* the fatal signal (wait status) */
	bool has_fault_address;		/* Valgrind reported the fault's */
	uint64_t fault_address;		/* address (fault-report.c) */
	bool has_process;		/* the recorded process (thread group) */
	int32_t pid;			/* and its real user (the recorder's: */
	uint32_t uid;			/* Valgrind's NT_PRPSINFO says 0) */
	/* The two bytes before the signalled thread's PC, when the core
	 * holds them (read from its memory). */
	bool has_bytes_before_pc;
	uint8_t bytes_before_pc[2];
	/* The instruction at that PC is an integer division (div, idiv),
	 * decoded from the core's memory. */
	bool pc_divides;
};

/* The siginfo for ST, the signalled thread's NT_PRSTATUS in Valgrind's
 * core, into OUT: false when the recording cannot know it. */
bool core_siginfo(const struct elf_prstatus *st, const struct core_end *end,
		  uint8_t out[CORE_SIGINFO_SIZE]);

#endif
