/* fault-store.h: does an instruction store where there is no memory?
 *
 * GDB's `record full` saves the bytes an instruction will overwrite before
 * it runs it.  When they cannot be read (a store through a bad pointer
 * other than NULL, a push or call into a stack's guard page) it stops before
 * the instruction ("Process record: failed to record execution log.") and
 * its log does not hold it; the replay of a crash there must not either.
 */
#ifndef HWTREC_SERVER_FAULT_STORE_H
#define HWTREC_SERVER_FAULT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The x86-64 registers an address can be made of, in GDB's order (rax,
 * rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8-r15), and the segment bases. */
struct fault_store_regs {
	uint64_t gpr[16];
	uint64_t fs_base, gs_base;
	bool fs_base_known, gs_base_known;
};

/* Can LEN bytes at ADDR be read? */
typedef bool (*fault_store_readable)(void *ctx, uint64_t addr, size_t len);

/* True if the x86-64 instruction in CODE (LEN bytes, at PC) stores to a
 * non-zero address whose bytes cannot be read, given the registers before
 * it.  False when it does not, when the address is 0 (record full does not
 * save bytes there), and when it cannot tell (an instruction it cannot
 * decode, an address made of registers it does not have). */
bool fault_store_to_missing(const uint8_t *code, size_t len, uint64_t pc,
			    const struct fault_store_regs *regs,
			    fault_store_readable readable, void *ctx);

#endif
