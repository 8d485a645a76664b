/* hwtrec-tool.h: what the parts of the hwtrec Valgrind tool share. */
#ifndef HWTREC_TOOL_H
#define HWTREC_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* Options (tool.c). */
extern Bool hwt_clo_ret_compression;
extern const HChar *hwt_clo_from;	/* function name, or NULL */
extern UInt hwt_psb_period_bits;	/* --psb-period, in bits */

/* Run-time switches read by the instrumentation (event-writer.c).  The IR
 * loads hwt_pge_pending at every block entry, so it is one byte. */
extern UChar hwt_pge_pending;	/* running thread must emit TIP.PGE */
extern Bool hwt_active;		/* running thread is being traced */
extern Bool hwt_from_pending;	/* --from given and not reached yet */
extern Bool hwt_paused;		/* live mode: no session (hwtrec start) */

/* event-writer.c: the log to the recorder and per-thread trace state. */
Bool hwt_log_open(const HChar *path);
void hwt_threads_init(void);
void hwt_log_hello(void);
void hwt_log_flush(void);
void hwt_log_detach(void);	/* stop tracing for good (fork child) */
void hwt_thread_running(ThreadId tid);	/* tid holds the CPU now */
void hwt_thread_exit(ThreadId tid);
void hwt_disable_syscall(ThreadId tid);
void hwt_disable_async(ThreadId tid, Addr ip);
void hwt_log_mmap(Addr a, SizeT len, ULong offset, UInt prot,
		  const HChar *path);
void hwt_log_munmap(Addr a, SizeT len);
void hwt_log_auxv(const UWord *auxv);
void hwt_log_object(Addr a, UInt size);
void hwt_log_exit(Int code);
void hwt_log_child(Int pid);

/* Live mode, the monitor commands (event-writer.c). */
Bool hwt_live_start(const HChar *fifo);
void hwt_live_flush(void);
void hwt_live_stop(void);
Bool hwt_live_tracing(void);
/* tool.c: the auxv, the vDSO and the executable mappings as they are now. */
void hwt_send_initial_state(void);

/* Helpers called from instrumented code (event-writer.c). */
void hwt_on_cond(UWord guard, Addr target, Addr fall, UWord inverted);
void hwt_on_cond_end(Addr next, Addr target, Addr fall);
void hwt_on_call(Addr ret);
void hwt_on_call_indirect(Addr next, Addr ret);
void hwt_on_jump_indirect(Addr next);
void hwt_on_return(Addr next);
void hwt_on_block_entry(Addr ip);
void hwt_on_redirect(Addr from, Addr to);
void hwt_on_from_entry(Addr ip);
void hwt_on_trap(void);
void hwt_on_undecodable(Addr ip);

/* instrument.c */
IRSB *hwt_instrument(VgCallbackClosure *closure, IRSB *sb,
		     const VexGuestLayout *layout, const VexGuestExtents *vge,
		     const VexArchInfo *archinfo_host, IRType gWordTy,
		     IRType hWordTy);
/* Report the mapping holding ADDR if it was never reported (code that
 * Valgrind itself provides, such as the signal-return trampoline). */
void hwt_note_code_address(Addr addr);
void hwt_forget_mappings(Addr a, SizeT len);
void hwt_forget_all_mappings(void);
void hwt_report_range(Addr a, SizeT len);
UInt hwt_readable_bytes(Addr addr, UInt max);

#endif
