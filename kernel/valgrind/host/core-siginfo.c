/* core-siginfo.c: the siginfo of the signal that ended a program under
 * Valgrind, as the kernel would have given it (GDB's `$_siginfo`, from a
 * core's NT_SIGINFO, which Valgrind's core lacks: core-notes.c adds it).
 *
 * What Valgrind's core does say is its own siginfo's signal, code and
 * errno (the signalled thread's NT_PRSTATUS pr_info) and the registers.
 * The rest of a siginfo is known in two cases only, and then every byte
 * is (the kernel clears a siginfo before filling it):
 *  - a fault the kernel raised at a data access (si_code > 0), for which
 *    Valgrind reported the address (fault-report.c): si_addr.  Not when
 *    that address is the thread's PC: a jump to where no code can run,
 *    whose code Valgrind makes up (SEGV_ACCERR for a call through NULL,
 *    where the kernel says SEGV_MAPERR).
 *  - a signal the thread sent itself with tgkill (si_code SI_TKILL, which
 *    only tkill and tgkill give; abort() and raise() send that way): the
 *    thread stopped right after a `syscall` whose arguments, left in rdi,
 *    rsi and rdx, name its own process, itself and this signal; then the
 *    sender is this process (si_pid) and its real user (si_uid: the
 *    recorder's, whose child it is; Valgrind cannot run a set-user-ID
 *    program as such).
 *  - a divide error (SIGFPE, FPE_INTDIV as Valgrind's core says too) at a
 *    div or idiv: the kernel's si_addr is the faulting instruction's
 *    address, the thread's PC (Valgrind's report names its own
 *    translation's address instead: not used).  Only a div or idiv raises
 *    #DE in 64-bit code, and the kernel gives every #DE FPE_INTDIV.
 * Anything else (another sender, a signal Valgrind raised for its own
 * reasons, an x87 or SSE exception) is not known: no siginfo, and GDB says
 * it cannot read one.
 */
#include "core-siginfo.h"

#include <signal.h>
#include <string.h>
#include <sys/user.h>

static void put32(uint8_t *out, size_t off, uint32_t v)
{
	memcpy(out + off, &v, 4);
}

bool core_siginfo(const struct elf_prstatus *st, const struct core_end *end,
		  uint8_t out[CORE_SIGINFO_SIZE])
{
	struct user_regs_struct regs;
	int32_t signo = st->pr_info.si_signo, code = st->pr_info.si_code;

	memcpy(&regs, &st->pr_reg, sizeof(regs));
	if (signo != end->signal || signo <= 0)
		return false;
	memset(out, 0, CORE_SIGINFO_SIZE);
	/* siginfo_t: si_signo, si_errno, si_code, then the union at 16. */
	put32(out, 0, (uint32_t)signo);
	put32(out, 4, (uint32_t)st->pr_info.si_errno);
	put32(out, 8, (uint32_t)code);
	if (signo == SIGFPE) {
		if (code != FPE_INTDIV || !end->pc_divides)
			return false;
		memcpy(out + 16, &regs.rip, 8);		/* si_addr */
		return true;
	}
	if (code > 0) {
		if (!end->has_fault_address || end->fault_address == regs.rip)
			return false;
		memcpy(out + 16, &end->fault_address, 8);	/* si_addr */
		return true;
	}
	if (code == SI_TKILL && end->has_process && end->has_bytes_before_pc &&
	    end->bytes_before_pc[0] == 0x0f && end->bytes_before_pc[1] == 0x05 &&
	    regs.rdi == (uint64_t)(uint32_t)end->pid &&
	    regs.rsi == (uint64_t)(uint32_t)st->pr_pid &&
	    regs.rdx == (uint64_t)signo) {
		put32(out, 16, (uint32_t)regs.rdi);	/* si_pid */
		put32(out, 20, end->uid);		/* si_uid */
		return true;
	}
	return false;
}
