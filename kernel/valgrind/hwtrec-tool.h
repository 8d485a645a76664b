/* hwtrec-tool.h: what the parts of the hwtrec Valgrind tool share. */
#ifndef HWTREC_TOOL_H
#define HWTREC_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

/* Options (tool.c). */
extern Bool hwtrec_clo_ret_compression;
extern const HChar *hwtrec_clo_from;	/* function name, or NULL */
extern UInt hwtrec_psb_period_bits;	/* --psb-period, in bits */

/* Run-time switches read by the instrumentation (event-writer.c).  The IR
 * loads hwtrec_pge_pending at every block entry, so it is one byte. */
extern UChar hwtrec_pge_pending;	/* running thread must emit TIP.PGE */
extern Bool hwtrec_active;		/* running thread is being traced */
extern Bool hwtrec_from_pending;	/* --from given and not reached yet */
extern Bool hwtrec_paused;		/* live mode: no session (hwtrec start) */

/* event-writer.c: the log to the recorder and per-thread trace state. */
Bool hwtrec_log_open(const HChar *path);
void hwtrec_threads_init(void);
void hwtrec_log_hello(void);
void hwtrec_log_flush(void);
void hwtrec_log_detach(void);	/* stop tracing for good (fork child) */
void hwtrec_thread_running(ThreadId tid);	/* tid holds the CPU now */
void hwtrec_thread_exit(ThreadId tid);
void hwtrec_disable_syscall(ThreadId tid);
void hwtrec_disable_async(ThreadId tid, Addr ip);
void hwtrec_log_mmap(Addr a, SizeT len, ULong offset, UInt prot,
		  const HChar *path);
void hwtrec_log_munmap(Addr a, SizeT len);
void hwtrec_log_auxv(const UWord *auxv);
void hwtrec_log_object(Addr a, UInt size);
void hwtrec_log_exit(Int code);
void hwtrec_log_child(Int pid);

/* Live mode, the monitor commands (event-writer.c). */
Bool hwtrec_live_start(const HChar *fifo);
void hwtrec_live_flush(void);
void hwtrec_live_stop(void);
Bool hwtrec_live_tracing(void);
/* A thread stopped by the debugger mid-block runs again: its trace
 * restarts at the stop PC (see event-writer.c). */
void hwtrec_resume_stopped_thread(void);
/* tool.c: the auxv, the vDSO and the executable mappings as they are now. */
void hwtrec_send_initial_state(void);

/* Helpers called from instrumented code (event-writer.c). */
void hwtrec_on_cond(UWord guard, Addr target, Addr fall, UWord inverted);
void hwtrec_on_cond_end(Addr next, Addr target, Addr fall);
void hwtrec_on_call(Addr call, Addr ret, Addr target);
void hwtrec_on_jump_back(Addr jump, Addr target);
void hwtrec_on_call_indirect(Addr next, Addr ret);
void hwtrec_on_jump_indirect(Addr next);
void hwtrec_on_return(Addr next);
void hwtrec_on_block_entry(Addr ip);
void hwtrec_on_redirect(Addr from, Addr to);
void hwtrec_on_from_entry(Addr ip);
void hwtrec_on_trap(void);
void hwtrec_on_undecodable(Addr ip);

/* instrument.c */
IRSB *hwtrec_instrument(VgCallbackClosure *closure, IRSB *sb,
		     const VexGuestLayout *layout, const VexGuestExtents *vge,
		     const VexArchInfo *archinfo_host, IRType gWordTy,
		     IRType hWordTy);
/* Report the mapping holding ADDR if it was never reported (code that
 * Valgrind itself provides, such as the signal-return trampoline). */
void hwtrec_note_code_address(Addr addr);
void hwtrec_forget_mappings(Addr a, SizeT len);
void hwtrec_forget_all_mappings(void);
void hwtrec_report_range(Addr a, SizeT len);
UInt hwtrec_readable_bytes(Addr addr, UInt max);

/* data-log.c: the data log (registers and memory at every position). */
extern Bool hwtrec_data_on;		/* the data log is being written */
/* Live mode with the data log (--hwtrec-live-data=yes): every block is
 * instrumented for it, written or not. */
extern Bool hwtrec_data_live;
/* Instructions between full register snapshots (--hwtrec-snapshot-every). */
extern ULong hwtrec_data_snapshot_every;
/* The data log's wide registers, costly to compare (HWTR_VREG_* bits):
 * the 16 ymm, and the FPU state (x87, SSE rounding). */
#define HWTREC_DATA_YMM_BITS (0xffffull << HWTR_VREG_YMM0)
#define HWTREC_DATA_FPU_BIT (1ull << HWTR_VREG_FPU)
/* Nonzero: the ymm registers, or the FPU state, may have changed since the
 * data log's last instruction although the IR between says nothing (a
 * block's last instruction wrote them, or the scheduler ran: see
 * data-log.c).  Apart, so that SSE code does not make the FPU state be
 * compared, nor x87 code the ymm. */
extern UChar hwtrec_data_ymm_pending, hwtrec_data_fpu_pending;
/* The narrow registers (the 8-byte ones: GPRs, rflags, fs/gs base)
 * the instruction before a block's first may have written: the previous
 * block stores its leaving instruction's (instrument.c), the scheduler
 * running, a signal or an untraced stretch makes it all of them. */
#define HWTREC_DATA_NARROW_BITS ((1ull << HWTR_VREG_YMM0) - 1)
extern ULong hwtrec_data_narrow_pending;
#define HWTREC_DATA_INSN_REP 1u		/* a REP-prefixed string instruction */
#define HWTREC_DATA_INSN_SYSCALL 2u	/* the syscall instruction */
#define HWTREC_DATA_INSN_FIRST 4u	/* a block's first instruction */
Bool hwtrec_data_open(const HChar *path);
void hwtrec_data_flush(Bool end);
void hwtrec_data_flush_stopped(void);	/* live mode: at a debugger's stop */
void hwtrec_data_detach(void);		/* fork child: not logged */
void hwtrec_data_thread_running(ThreadId tid);
void hwtrec_data_thread_exit(ThreadId tid);
ULong hwtrec_data_regs_written(Int offset, Int size);
void hwtrec_data_insn(VexGuestAMD64State *gs, ULong check, Addr ip,
		      UWord flags);
void hwtrec_data_uncount_fault(ThreadId tid, Addr ip);
void hwtrec_data_store(Addr a, UWord size);
void hwtrec_data_kernel_write(ThreadId tid, Addr a, SizeT size);
void hwtrec_data_memory_unknown(Addr a, SizeT len);
void hwtrec_data_forget_readable(void);

#endif
