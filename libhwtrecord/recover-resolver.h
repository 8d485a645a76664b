/* recover-resolver.h: glibc's lazy-binding resolver as one operation, for
 * value recovery (recover.c).
 *
 * The first call through a lazily bound PLT entry runs the entry's
 * `push $index; jmp PLT0`, PLT0's `push GOT[1]; jmp *GOT[2]`, and ld.so's
 * _dl_runtime_resolve_{xsavec,xsave,fxsave}, which saves the argument
 * registers, calls _dl_fixup, restores them and ends
 *
 *	mov %rbx,%rsp; mov (%rsp),%rbx; add $0x18,%rsp; jmp *%r11
 *
 * Instruction by instruction, nothing proves that _dl_fixup left the rbx
 * it saved alone, so rsp is lost there (doc/value-recovery.md).  glibc's
 * contract says what the round trip keeps, the way the system call ABI
 * says what `syscall` keeps: at the final `jmp *%r11` rsp is the
 * resolver's entry rsp + 16 (PLT0's and the entry's pushes popped); rax,
 * rcx, rdx, rsi, rdi, r8, r9 (saved and restored by the trampoline) and
 * rbx, rbp, r12-r15 (callee-saved in _dl_fixup) are what they were at the
 * entry; r10 and the flags are not known, r11 is the resolved function
 * (the jump's target).
 *
 * The resolver is only taken for one when the symbol says so and the code
 * has the shape: PLT0 just before the entry, the exit sequence above just
 * before the jump (recover.c checks that the entry and the exit are in one
 * function segment, so _dl_fixup's call returned in between).  Anything
 * else is left to the instruction-by-instruction model.
 */
#ifndef HWTR_RECOVER_RESOLVER_H
#define HWTR_RECOVER_RESOLVER_H

#include "recover-stack.h"

/* The registers the round trip keeps as they were (all but rsp, r10 and
 * r11); rsp moves by RECOVER_RESOLVER_RSP. */
#define RECOVER_RESOLVER_KEEPS 0xf37fu
#define RECOVER_RESOLVER_RSP 16
#define RECOVER_RESOLVER_RSP_REG 7

/* Whether NAME is one of glibc's x86-64 lazy-binding trampolines whose
 * exit the contract describes (not _dl_runtime_profile, which LD_AUDIT
 * uses and which returns through its own frame). */
bool recover_resolver_name(const char *name);

/* Whether PUSH (SIZE1 bytes at IP1) and JMP (SIZE2 bytes, right after it)
 * are PLT0's `push GOT[1](%rip); [bnd] jmp *GOT[2](%rip)`. */
bool recover_resolver_plt0(uint64_t ip1, const uint8_t *push, size_t size1,
			   uint64_t ip2, const uint8_t *jmp, size_t size2);

/* Whether the four instructions CODE[0..3] (SIZE[i] bytes each, one after
 * the other) are the resolver's exit: `mov %rbx,%rsp; mov (%rsp),%rbx;
 * add $0x18,%rsp; [bnd] jmp *%r11`. */
bool recover_resolver_exit(const uint8_t *const code[4], const size_t size[4]);

/* The round trip as equalities (recover-stack.h) between the slots of
 * each register at the resolver's entry (ENTRY[r]: the slot holding r
 * before its first instruction, UINT32_MAX for the value before the
 * window) and at its exit (EXIT[r]: the slot that starts at the final
 * jump): into OUT (RECOVER_NREGS of them at most), how many.  r10 and r11
 * get none (r11 is proven by the jump's target: recover-branch.c). */
size_t recover_resolver_facts(const uint32_t *entry, const uint32_t *exit,
			      struct recover_equality *out);

#endif /* HWTR_RECOVER_RESOLVER_H */
