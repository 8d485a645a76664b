/* vgdb-oracle.h: the oracle values-oracle.py writes (GDB single-stepping a
 * program under Valgrind's gdbserver), read for the checkers that compare
 * the library's values with it (values-check.c, recover-check.c).
 *
 * The file, a line each: "I POS PC" before each instruction, then that
 * step's "R NAME 0xVALUE" registers (rax..r15, eflags, xmm0..15) and
 * "M NAME 0xADDR HEX" bytes of each global, and "E COUNT" at the end. */
#ifndef HWTR_VGDB_ORACLE_H
#define HWTR_VGDB_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#define ORACLE_MAX_GLOBALS 8
#define ORACLE_NREGS 17		/* the 16 GPRs in hwtr_amd64 order, eflags */
#define ORACLE_EFLAGS 16

struct oracle_step {
	uint64_t pos, pc;
	uint64_t reg[ORACLE_NREGS];
	uint64_t xmm[16][2];		/* low, high */
	uint8_t *mem[ORACLE_MAX_GLOBALS];	/* NULL: no M line this step */
};

struct oracle_global {
	char name[64];
	uint64_t addr;
	size_t size;			/* of its first M line */
};

struct oracle {
	struct oracle_step *steps;
	size_t nsteps;
	struct oracle_global globals[ORACLE_MAX_GLOBALS];
	size_t nglobals;
	uint64_t end;			/* the E line's count, 0 without one */
};

extern const char *const oracle_reg_names[ORACLE_NREGS];

/* Read PATH into *O: 0, or -1 with a message on stderr (no file, out of
 * memory).  Globals past the eighth and M lines shorter than their
 * global's first are left out. */
int oracle_read(const char *path, struct oracle *o);
void oracle_free(struct oracle *o);

#endif
