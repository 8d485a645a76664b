/* recover-calls.h: the x86-64 calling convention's contract across a call,
 * for value recovery (recover.c).
 *
 * A function returns with the stack pointer it was called with (its
 * return address popped) and with rbx, rbp and r12-r15 as they were: the
 * System V ABI's callee-saved registers.  So where a call returns to the
 * instruction after it, the caller's rsp and callee-saved registers after
 * the return are those before the call, whatever the callee did in
 * between.  Instruction by instruction, nothing proves it: a callee that
 * stores through a pointer (a global, a heap object) ends every stack slot
 * (recover-stack.h), so the rbp it pushed and popped, and with it the
 * caller's frame, were lost.  The contract is assumed the way the system
 * call ABI is for `syscall` and glibc's for its lazy-binding resolver
 * (recover-resolver.h).
 *
 * Where the contract does not hold the call is left to the instructions:
 *
 * - the return goes elsewhere than the innermost open call's return
 *   address (longjmp, an exception's landing pad, a retpoline, a context
 *   switch to another call site): every open call is forgotten;
 * - rsp is replaced in between by anything but the moves of an ordinary
 *   frame (push/pop, call/ret, leave, add/sub/and of a constant, a
 *   register or memory, lea from rsp, rbp or a realigned frame's r10/r13,
 *   mov from rbp, the resolver's `mov %rbx,%rsp`, and a load of the
 *   stack pointer the same activation saved, below): a stack switch
 *   (swapcontext, a coroutine's yield, the end of longjmp), so no open
 *   call keeps the contract even when the return address matches (two
 *   coroutines yielding from one call site);
 * - a gap, a step the code does not explain (recover.c starts over or
 *   forgets every open call);
 * - `ret $n` and 16-bit calls and returns, which move rsp otherwise.
 *
 * A variable-length array's scope ends with GCC's `mov d(%rbp),%rsp`, which
 * loads back the rsp that `mov %rsp,d(%rbp)` saved when the scope began
 * (glibc's _dl_fini and _dl_sort_maps at every exit).  That load is a frame
 * move when the same activation stored rsp to d(%rbp), with rbp unchanged
 * and no store relative to rbp over the slot since: assumed, like the saved
 * registers a callee pops back, is that no callee wrote into its caller's
 * frame there.
 *
 * Code that does not follow the ABI at all (hand-written assembly that
 * clobbers rbx, a JIT's functions) would break it: the callee must be a
 * function an ELF symbol names (recover.c asks the history), or where no
 * symbol names its code (a stripped program), one whose binary's call frame
 * information starts a function there; a JIT's code has neither.
 */
#ifndef HWTR_RECOVER_CALLS_H
#define HWTR_RECOVER_CALLS_H

#include "recover-stack.h"

/* The registers a call keeps (rbx, rbp, r12-r15) and rsp, by enum
 * hwtr_amd64_regno (rax, rbx, rcx, rdx, ...). */
#define RECOVER_CALL_KEEPS 0xf0c2u
#define RECOVER_CALL_RSP_REG 7
#define RECOVER_CALL_RSP_SAVES 4

/* Calls entered and not yet returned from, innermost last. */
struct recover_call {
	uint32_t slot[RECOVER_NREGS];	/* each register's slot before the
					 * call (UINT32_MAX: the value before
					 * the window) */
	uint64_t ret;			/* its return address */
	bool kept;			/* no stack switch since */
	/* Where the callee's activation saved rsp: d of `mov %rsp,d(%rbp)`
	 * (the latest RECOVER_CALL_RSP_SAVES), with rbp unchanged since. */
	uint8_t nsaves;
	int32_t rsp_saves[RECOVER_CALL_RSP_SAVES];
};

struct recover_calls {
	struct recover_call *open;
	size_t n, cap;
};

void recover_calls_free(struct recover_calls *calls);

/* Forget every open call. */
void recover_calls_reset(struct recover_calls *calls);

/* Whether the instruction RAW (SIZE bytes) is a near call or return that
 * moves rsp by one 8-byte word: not `ret $n`, not 16-bit. */
bool recover_calls_plain(const uint8_t *raw, size_t size);

/* A call whose return address is RET, before its operation is added,
 * with each register's slot SLOT[r] at that point; ABI: whether its callee
 * is taken to keep the contract (else its return is only matched): 0 or
 * -hwtr_err_nomem (deeper than a bound: the outermost open ones are
 * dropped). */
int recover_calls_enter(struct recover_calls *calls, const uint32_t *slot,
			uint64_t ret, bool abi);

/* OP is about to run inside the open calls: a stack switch (above) ends
 * the contract for each of them; a save of rsp relative to rbp is noted
 * for the innermost.  IN_RESOLVER: OP is inside glibc's
 * lazy-binding resolver, whose `mov %rbx,%rsp` gives back its own rsp. */
void recover_calls_note(struct recover_calls *calls,
			const struct recover_op *op, bool in_resolver);

/* A plain return to NEXT, after its operation was added, with each
 * register's slot EXIT[r] after it: the contract's equalities into OUT
 * (RECOVER_NREGS of them at most) when the innermost open call returns
 * there and kept the contract; how many.  A return elsewhere forgets every
 * open call. */
size_t recover_calls_leave(struct recover_calls *calls, uint64_t next,
			   const uint32_t *exit, struct recover_equality *out);

#endif /* HWTR_RECOVER_CALLS_H */
