/* event-writer.c: the tool's side of event-log.h, and per-thread trace state.
 *
 * Valgrind runs one guest thread at a time, so one buffer serves all threads:
 * when another thread gets the CPU we write a SWITCH record.  The pending TNT
 * bits and the return-compression stack belong to the running thread; TNT bits
 * are flushed before any other record, so they never cross a switch.
 *
 * A thread is "disabled" after a system call, a signal, or being descheduled
 * (the points where a user-mode-only PT trace shows TIP.PGD).  The next block
 * it runs emits TIP.PGE at its first address (hwtrec_on_block_entry), which is
 * right for every way back: the instruction after the syscall, a signal
 * handler, the interrupted instruction after sigreturn, a new thread's first
 * instruction.  The return-compression stack is emptied at every disable, so
 * a return after PGE never relies on a call the decoder may have dropped.
 *
 * Writes block: when the recorder is slow the program waits; nothing is lost.
 * When the recorder is gone (killed), the program runs on untraced.
 *
 * Live mode (--hwtrec-live=yes, hwtrec-server): tracing is off until the
 * monitor command "hwtrec start" opens the FIFO; "hwtrec flush" ends the
 * running thread's trace where the debugger stopped it (FUP + TIP.PGD at its
 * PC, as a deschedule would) and sends everything; "hwtrec stop" ends the
 * session.  A thread stopped by the debugger in the middle of a superblock
 * resumes there, without a block entry: it keeps a "resume" PC, and the
 * first helper it runs afterwards (or the next block entry, or the next
 * flush) first emits TIP.PGE at that PC.  Between the stop and that helper
 * only straight-line code and direct branches ran, which a decoder follows
 * from the PC alone.  A PC changed by the debugger (jump, inferior calls) is
 * not seen and would be traced as if the code had run on from the stop.
 */
#include "hwtrec-tool.h"
#include "event-log.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_clientstate.h"

/* Valgrind core functions outside the tool API: move an fd to Valgrind's
 * reserved range (the client cannot see or close it) and the client's auxv. */
extern Int VG_(safe_fd)(Int oldfd);
extern UWord *VG_(client_auxv);
/* Also outside the tool API: a signal set, and taking a pending signal
 * without waiting. */
extern Int VG_(sigemptyset)(vki_sigset_t *set);
extern Int VG_(sigaddset)(vki_sigset_t *set, Int signum);
extern Int VG_(sigtimedwait_zero)(const vki_sigset_t *set,
				  vki_siginfo_t *info);
extern Int VG_(fcntl)(Int fd, Int cmd, Addr arg);

/* Direct calls and backward jumps the tool remembers between two packets,
 * and the marks it writes for them at most (walk_note): a 2^20 marks, some
 * 20 MB of trace, count a stack overflow of 500,000 levels, and bound what
 * a spinning `jmp .` writes. */
#define HWTREC_WALK_MAX 32
#define HWTREC_WALK_BUDGET (1u << 20)

struct hwtrec_thread {
	Bool known;
	Bool disabled;
	Int lwpid;
	Bool resume_pending;	/* live mode: PGE at resume_ip first */
	Addr resume_ip;
	Addr retstack[HWTREC_RETSTACK_DEPTH];
	UInt ret_top;		/* next free slot */
	UInt ret_count;
	/* The direct calls since the thread's last packet, which a decoder
	 * follows from the code alone (walk_note): where each was, where it
	 * went. */
	Addr walk_call[HWTREC_WALK_MAX + 1];
	Addr walk_target[HWTREC_WALK_MAX + 1];
	UInt walk_n;
	/* Marks written since the last packet, and whether the budget for
	 * them ran out (the passes since are lost: an OVF says so). */
	UInt walk_marks;
	Bool walk_lost;
};

UChar hwtrec_pge_pending;
Bool hwtrec_active;
Bool hwtrec_from_pending;
Bool hwtrec_paused;

static Int log_fd = -1;
static Bool log_failed;
static struct hwtrec_thread *threads;
static struct hwtrec_thread *cur;
static ThreadId cur_tid;
static ULong last_tsc;

static ULong tnt_bits;
static UInt tnt_n;
static UInt psb_bits;	/* trace bits since the last PSB (estimate) */
UInt hwtrec_psb_period_bits = 4096 * 8;

#define BUF_SIZE (1u << 18)
static UChar buf[BUF_SIZE];
static UInt buf_pos;

static ULong tsc_now(void)
{
	UInt lo, hi;
	ULong t;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	t = ((ULong)hi << 32) | lo;
	/* Threads are ordered by TSC: never let it go backwards. */
	if (t <= last_tsc)
		t = last_tsc + 1;
	last_tsc = t;
	return t;
}

/* A write into the pipe after the recorder died fails with EPIPE, and the
 * kernel also sends this thread a SIGPIPE.  Valgrind holds it pending (its
 * own code runs with signals blocked) and would deliver it to the program,
 * which would die of a signal it never caused: take it here. */
static void swallow_our_sigpipe(void)
{
	vki_sigset_t pipe_only;
	vki_siginfo_t info;

	VG_(sigemptyset)(&pipe_only);
	VG_(sigaddset)(&pipe_only, VKI_SIGPIPE);
	VG_(sigtimedwait_zero)(&pipe_only, &info);
}

void hwtrec_log_flush(void)
{
	UInt done = 0;

	while (done < buf_pos && log_fd >= 0) {
		Int n = VG_(write)(log_fd, buf + done, buf_pos - done);

		if (n <= 0) {
			if (n == -VKI_EINTR)
				continue;
			if (n == -VKI_EPIPE)
				swallow_our_sigpipe();
			if (!log_failed)
				VG_(umsg)("hwtrec: the recorder went away (write "
					  "error %d); the program continues "
					  "untraced\n", n);
			log_failed = True;
			hwtrec_log_detach();
			break;
		}
		done += (UInt)n;
	}
	buf_pos = 0;
}

static inline void need(UInt n)
{
	if (buf_pos + n > BUF_SIZE)
		hwtrec_log_flush();
}

static inline void put8(UChar v) { buf[buf_pos++] = v; }
static inline void put16(UShort v) { VG_(memcpy)(buf + buf_pos, &v, 2); buf_pos += 2; }
static inline void put32(UInt v) { VG_(memcpy)(buf + buf_pos, &v, 4); buf_pos += 4; }
static inline void put64(ULong v) { VG_(memcpy)(buf + buf_pos, &v, 8); buf_pos += 8; }

static void put_bytes(const void *p, UInt n)
{
	const UChar *b = p;

	while (n) {
		UInt room, k;

		need(1);
		room = BUF_SIZE - buf_pos;
		k = n < room ? n : room;
		VG_(memcpy)(buf + buf_pos, b, k);
		buf_pos += k;
		b += k;
		n -= k;
	}
}

static void flush_tnt(void)
{
	if (!tnt_n)
		return;
	need(10);
	put8(HWTREC_EV_TNT);
	put8((UChar)tnt_n);
	put64(tnt_bits);
	tnt_n = 0;
	tnt_bits = 0;
}

/* No trace is wanted now (--from not reached, or live mode between
 * sessions); threads are still followed. */
static inline Bool tracing_off(void)
{
	return hwtrec_from_pending || hwtrec_paused || log_fd < 0;
}

static void update_switches(void)
{
	Bool on = !tracing_off() && cur;

	hwtrec_active = on && !cur->disabled;
	hwtrec_pge_pending = on && cur->disabled;
}

Bool hwtrec_log_open(const HChar *path)
{
	/* Without waiting: a FIFO with no reader (the recorder died before
	 * the program started) would block the open forever.  Writes block. */
	SysRes sr = VG_(open)(path, VKI_O_WRONLY | VKI_O_NONBLOCK, 0);

	if (sr_isError(sr)) {
		VG_(umsg)("hwtrec: cannot open the recorder's pipe %s (error "
			  "%lu%s); the program runs untraced\n", path, sr_Err(sr),
			  sr_Err(sr) == VKI_ENXIO ? ": the recorder is gone" : "");
		return False;
	}
	VG_(fcntl)((Int)sr_Res(sr), VKI_F_SETFL, 0);
	log_fd = VG_(safe_fd)((Int)sr_Res(sr));
	log_failed = False;
	hwtrec_threads_init();
	return log_fd >= 0;
}

void hwtrec_threads_init(void)
{
	if (!threads)
		threads = VG_(calloc)("hwtrec.threads", VG_N_THREADS + 1,
				      sizeof(*threads));
}

void hwtrec_log_hello(void)
{
	const HChar *exe = VG_(args_the_exename) ? VG_(args_the_exename) : "";
	UInt n = (UInt)VG_(strlen)(exe);

	need(20);
	put8(HWTREC_EV_HELLO);
	put32(HWTREC_EVENT_LOG_VERSION);
	put32((UInt)VG_(getpid)());
	put64(tsc_now());
	put16((UShort)n);
	put_bytes(exe, n);
}

void hwtrec_log_detach(void)
{
	if (log_fd >= 0 && !log_failed)
		VG_(close)(log_fd);
	log_fd = -1;
	buf_pos = 0;
	tnt_n = 0;
	hwtrec_active = False;
	hwtrec_pge_pending = 0;
}

/* A packet other than the marks: a decoder's walk starts again here. */
static inline void walk_reset(void)
{
	cur->walk_n = 0;
	cur->walk_marks = 0;
	cur->walk_lost = False;
}

static void disable_current(void)
{
	cur->disabled = True;
	cur->ret_count = 0;
	walk_reset();
	update_switches();
}

static void put_switch(void)
{
	if (log_fd < 0)
		return;
	need(13);
	put8(HWTREC_EV_SWITCH);
	put32((UInt)cur->lwpid);
	put64(tsc_now());
}

static void put_pge(Addr ip)
{
	need(17);
	put8(HWTREC_EV_PGE);
	put64(ip);
	put64(tsc_now());
	cur->walk_n = 0;
}

/* Stop and restart the trace at IP: FUP(IP) + TIP.PGD, TIP.PGE(IP), which
 * a decoder binds to the first time it reaches IP after the last packet. */
static void put_mark(Addr ip)
{
	need(9);
	put8(HWTREC_EV_PGD_ASYNC);
	put64(ip);
	put_pge(ip);
}

/* Between two packets a decoder follows direct calls from the code alone,
 * and binds the next event to the first place it fits.  Where those calls
 * go round a cycle (an infinite recursion: no conditional branch or return
 * in it) until a fault, the fault's FUP binds to the first pass, and the
 * passes after it are lost.  So stop and restart the trace at each of them,
 * at the call and at its target: every mark then binds to the next
 * instruction reached, never the one the decoder stands at (libipt's block
 * decoder binds a mark at its IP before it moves), and each pass counts. */
static void walk_flush(void)
{
	UInt i, n = cur->walk_n;

	if (!n)
		return;
	flush_tnt();
	for (i = 0; i < n; i++) {
		put_mark(cur->walk_call[i]);
		put_mark(cur->walk_target[i]);
	}
	cur->walk_n = 0;
	cur->walk_marks += 2 * n;
	cur->walk_lost = cur->walk_marks >= HWTREC_WALK_BUDGET;
	cur->ret_count = 0;
	psb_bits += 4 * n * HWTREC_PSB_TIP_BITS;
}

static inline void sync_point(Addr next);

/* Before an event bound to IP (FUP): mark the calls since the last packet,
 * or, where the marks' budget ran out, say that passes are lost: OVF, and
 * the trace resumes at IP. */
static void walk_before_event(Addr ip)
{
	if (!cur->walk_lost) {
		walk_flush();
		return;
	}
	need(9);
	put8(HWTREC_EV_OVERFLOW);
	put64(ip);
	walk_reset();
	cur->ret_count = 0;
}

/* A direct call (or a backward direct jump) at CALL to TARGET ran: mark the
 * branches since the last packet when TARGET is among their targets (a
 * cycle) or there are too many to search, then let a PSB follow (a long
 * cycle must still be decodable from the middle, as in a ring of
 * --max-size).  A forward jump needs no mark: between two marks addresses
 * only grow, so no place is reached twice. */
static void walk_note(Addr call, Addr target)
{
	UInt i;

	if (cur->walk_lost)
		return;
	if (target == call) {
		/* `jmp .`: a mark at its target would bind before it runs, so
		 * its passes cannot be counted: mark where it was first reached
		 * (what ran up to it stays in the history), then OVF. */
		walk_flush();
		put_mark(call);
		cur->walk_lost = True;
		return;
	}
	for (i = 0; i < cur->walk_n; i++)
		if (cur->walk_target[i] == target)
			break;
	cur->walk_call[cur->walk_n] = call;
	cur->walk_target[cur->walk_n++] = target;
	if (i < cur->walk_n - 1 || cur->walk_n > HWTREC_WALK_MAX) {
		walk_flush();
		sync_point(target);
	}
}

/* Live mode: the running thread was stopped by the debugger and has run
 * since, without a helper seeing it: its trace restarts at the stop PC. */
static void resume_trace(void)
{
	if (!cur || !cur->resume_pending)
		return;
	cur->resume_pending = False;
	if (tracing_off() || !cur->disabled)
		return;
	cur->disabled = False;
	cur->ret_count = 0;
	put_pge(cur->resume_ip);
	update_switches();
}

/* Make TID the thread whose records follow. */
static void switch_to(ThreadId tid)
{
	struct hwtrec_thread *t;

	if (!threads || (cur && tid == cur_tid))
		return;
	tl_assert(tid > 0 && tid <= VG_N_THREADS);
	if (cur) {
		resume_trace();
		flush_tnt();
		if (!cur->disabled && !tracing_off()) {
			/* Descheduled like an interrupt: FUP + TIP.PGD, so
			 * that the TSC at its PGE orders it against others. */
			walk_before_event(VG_(get_IP)(cur_tid));
			need(9);
			put8(HWTREC_EV_PGD_ASYNC);
			put64(VG_(get_IP)(cur_tid));
		}
		cur->disabled = True;
		cur->ret_count = 0;
	}
	t = &threads[tid];
	if (!t->known) {
		t->known = True;
		t->disabled = True;
		/* The scheduler runs each guest thread on its own kernel
		 * thread, so this is the new thread's lwpid. */
		t->lwpid = VG_(gettid)();
	}
	cur = t;
	cur_tid = tid;
	put_switch();
	update_switches();
}

void hwtrec_thread_running(ThreadId tid)
{
	switch_to(tid);
}

void hwtrec_thread_exit(ThreadId tid)
{
	if (log_fd < 0) {
		/* Valgrind reuses the ThreadId for the next thread. */
		if (threads)
			threads[tid].known = False;
		if (cur_tid == tid) {
			cur = NULL;
			cur_tid = 0;
		}
		return;
	}
	switch_to(tid);
	resume_trace();
	/* A thread that ends while traced did not leave through the exit
	 * system call: a fatal signal stopped it (Valgrind handles those
	 * without pre_deliver_signal).  Like the hardware at a fault, end its
	 * trace with FUP at the faulting instruction + TIP.PGD, or a decoder
	 * would run on past the crash. */
	if (!cur->disabled)
		hwtrec_disable_async(tid, VG_(get_IP)(tid));
	flush_tnt();
	need(13);
	put8(HWTREC_EV_THREAD_EXIT);
	put32((UInt)cur->lwpid);
	put64(tsc_now());
	disable_current();
	/* Valgrind reuses the ThreadId for the next thread it creates. */
	cur->known = False;
	cur = NULL;
	cur_tid = 0;
	update_switches();
	hwtrec_log_flush();
}

void hwtrec_disable_syscall(ThreadId tid)
{
	if (!threads)
		return;
	switch_to(tid);
	resume_trace();
	if (cur->disabled)
		return;
	if (!tracing_off()) {
		flush_tnt();
		need(1);
		put8(HWTREC_EV_PGD_SYSCALL);
	}
	disable_current();
}

void hwtrec_disable_async(ThreadId tid, Addr ip)
{
	if (!threads)
		return;
	switch_to(tid);
	resume_trace();
	if (cur->disabled)
		return;
	if (!tracing_off()) {
		flush_tnt();
		walk_before_event(ip);
		need(9);
		put8(HWTREC_EV_PGD_ASYNC);
		put64(ip);
	}
	disable_current();
}

void hwtrec_log_mmap(Addr a, SizeT len, ULong offset, UInt prot,
		  const HChar *path)
{
	UInt n = path ? (UInt)VG_(strlen)(path) : 0;

	if (log_fd < 0)
		return;
	flush_tnt();
	need(40);
	put8(HWTREC_EV_MMAP);
	put64(a);
	put64(len);
	put64(offset);
	put64(tsc_now());
	put32(prot);
	put16((UShort)n);
	put_bytes(path, n);
}

void hwtrec_log_munmap(Addr a, SizeT len)
{
	if (log_fd < 0)
		return;
	flush_tnt();
	need(25);
	put8(HWTREC_EV_MUNMAP);
	put64(a);
	put64(len);
	put64(tsc_now());
}

void hwtrec_log_auxv(const UWord *auxv)
{
	UInt n = 0, i;

	if (log_fd < 0 || !auxv)
		return;
	while (auxv[2 * n] != 0 /* AT_NULL */ && n < 256)
		n++;
	flush_tnt();
	need(3);
	put8(HWTREC_EV_AUXV);
	put16((UShort)(n + 1));
	for (i = 0; i <= n; i++) {
		need(16);
		put64(auxv[2 * i]);
		put64(auxv[2 * i + 1]);
	}
}

void hwtrec_log_object(Addr a, UInt size)
{
	if (log_fd < 0)
		return;
	flush_tnt();
	need(13);
	put8(HWTREC_EV_OBJECT);
	put64(a);
	put32(size);
	put_bytes((const void *)a, size);
}

void hwtrec_log_exit(Int code)
{
	if (log_fd < 0)
		return;
	flush_tnt();
	need(5);
	put8(HWTREC_EV_EXIT);
	put32((UInt)code);
	hwtrec_log_flush();
}

void hwtrec_log_child(Int pid)
{
	if (log_fd < 0)
		return;
	flush_tnt();
	need(13);
	put8(HWTREC_EV_CHILD);
	put32((UInt)pid);
	put64(tsc_now());
}

/* ------------------------------------------------ helpers in guest code */

/* A helper runs in a thread that is not traced: if it is a thread the
 * debugger stopped in the middle of a block (live mode), its trace restarts
 * at the stop PC first. */
static Bool resume_in_helper(void)
{
	if (LIKELY(!cur || !cur->resume_pending))
		return False;
	resume_trace();
	return hwtrec_active;
}

/* The same from the data log's helper, which runs at every instruction:
 * the trace restarts at the first one after the stop. */
void hwtrec_resume_stopped_thread(void)
{
	resume_in_helper();
}

/* Ask for PSB+ here when a period's worth of trace has gone by: NEXT is the
 * next instruction and no TNT bit is pending after flush_tnt.  Emptying the
 * return-compression stack makes every PSB chunk decodable on its own. */
static void psb_here(Addr next)
{
	flush_tnt();
	need(17);
	put8(HWTREC_EV_PSB);
	put64(next);
	put64(tsc_now());
	psb_bits = 0;
	cur->ret_count = 0;
}

static inline void sync_point(Addr next)
{
	if (UNLIKELY(psb_bits >= hwtrec_psb_period_bits))
		psb_here(next);
}

static inline void push_bit(UWord taken)
{
	walk_reset();
	tnt_bits = (tnt_bits << 1) | (taken & 1);
	psb_bits++;
	if (UNLIKELY(++tnt_n == 64))
		flush_tnt();
}

static inline void push_return(Addr ret)
{
	cur->retstack[cur->ret_top] = ret;
	cur->ret_top = (cur->ret_top + 1) % HWTREC_RETSTACK_DEPTH;
	if (cur->ret_count < HWTREC_RETSTACK_DEPTH)
		cur->ret_count++;
}

static void tip(Addr target)
{
	walk_reset();
	flush_tnt();
	need(9);
	put8(HWTREC_EV_TIP);
	put64(target);
	psb_bits += HWTREC_PSB_TIP_BITS;
	sync_point(target);
}

void hwtrec_on_cond(UWord guard, Addr target, Addr fall, UWord inverted)
{
	UWord taken = (guard & 1) ^ inverted;

	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	push_bit(taken);
	sync_point(taken ? target : fall);
}

void hwtrec_on_cond_end(Addr next, Addr target, Addr fall)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	push_bit(next != fall);
	sync_point(next);
}

void hwtrec_on_call(Addr call, Addr ret, Addr target)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	push_return(ret);
	walk_note(call, target);
}

void hwtrec_on_jump_back(Addr jump, Addr target)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	walk_note(jump, target);
}

void hwtrec_on_call_indirect(Addr next, Addr ret)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	push_return(ret);
	tip(next);
}

void hwtrec_on_jump_indirect(Addr next)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	tip(next);
}

void hwtrec_on_return(Addr next)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	if (hwtrec_clo_ret_compression && cur->ret_count) {
		UInt top = (cur->ret_top + HWTREC_RETSTACK_DEPTH - 1) %
			   HWTREC_RETSTACK_DEPTH;

		if (cur->retstack[top] == next) {
			/* The decoder pops its own copy: a taken TNT bit. */
			cur->ret_top = top;
			cur->ret_count--;
			push_bit(1);
			sync_point(next);
			return;
		}
	}
	tip(next);
}

/* Guarded by hwtrec_pge_pending in the IR: the thread comes back to user mode
 * (or starts) at IP. */
void hwtrec_on_block_entry(Addr ip)
{
	if (!hwtrec_pge_pending || !cur)
		return;
	if (cur->resume_pending) {
		/* The stopped block ran to its end (a direct jump): the trace
		 * restarts where the debugger stopped it. */
		resume_trace();
		return;
	}
	cur->disabled = False;
	cur->ret_count = 0;
	put_pge(ip);
	update_switches();
}

/* Valgrind runs its own replacement at TO where the program asked for FROM;
 * no branch instruction explains that, so it looks like an interrupt. */
void hwtrec_on_redirect(Addr from, Addr to)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	flush_tnt();
	walk_before_event(from);
	need(9);
	put8(HWTREC_EV_PGD_ASYNC);
	put64(from);
	disable_current();
	hwtrec_on_block_entry(to);
}

void hwtrec_on_from_entry(Addr ip)
{
	if (!hwtrec_from_pending || !cur)
		return;
	hwtrec_from_pending = False;
	flush_tnt();
	need(17);
	put8(HWTREC_EV_FROM_REACHED);
	put64(ip);
	put64(tsc_now());
	cur->disabled = True;
	update_switches();
	hwtrec_on_block_entry(ip);
}

/* A block ended in int3: a trap, so the instruction ran and the thread
 * left user mode as at a system call (TIP.PGD, IP suppressed, bound to the
 * int3, which a decoder treats as a far branch).  What follows is the
 * signal's: a handler's TIP.PGE, or the end of the thread. */
void hwtrec_on_trap(void)
{
	if (UNLIKELY(!hwtrec_active) && !resume_in_helper())
		return;
	flush_tnt();
	need(1);
	put8(HWTREC_EV_PGD_SYSCALL);
	disable_current();
}

/* Valgrind is about to raise SIGILL at IP, an instruction it cannot decode
 * (the program may run it natively): stop the trace there and tell the
 * recorder which instruction it was. */
void hwtrec_on_undecodable(Addr ip)
{
	UInt n = hwtrec_readable_bytes(ip, 16);

	/* Told even before --from's function: the run ends here all the same. */
	if (log_fd < 0 || !cur)
		return;
	resume_trace();
	hwtrec_disable_async(cur_tid, ip);
	need(10 + n);
	put8(HWTREC_EV_UNDECODABLE);
	put64(ip);
	put8((UChar)n);
	put_bytes((const void *)ip, n);
	hwtrec_log_flush();
}

/* ------------------------------------------------------------ live mode */

/* "hwtrec start": a new recording session on the FIFO the recorder opened. */
Bool hwtrec_live_start(const HChar *fifo)
{
	UInt i;

	if (log_fd >= 0)
		return True;
	if (!hwtrec_log_open(fifo))
		return False;
	hwtrec_paused = False;
	tnt_n = 0;
	tnt_bits = 0;
	buf_pos = 0;
	psb_bits = hwtrec_psb_period_bits;	/* PSB+ at the first PGE */
	for (i = 0; i <= VG_N_THREADS; i++) {
		threads[i].disabled = True;
		threads[i].resume_pending = False;
		threads[i].ret_count = 0;
	}
	hwtrec_log_hello();
	hwtrec_forget_all_mappings();
	hwtrec_send_initial_state();
	if (cur) {
		/* The thread the debugger stopped: its trace starts at its PC. */
		put_switch();
		cur->resume_pending = True;
		cur->resume_ip = VG_(get_IP)(cur_tid);
	}
	update_switches();
	hwtrec_log_flush();
	return log_fd >= 0;
}

/* "hwtrec flush": the debugger stopped the program; end the running
 * thread's trace at its PC and send everything, so that the recording
 * covers what ran up to here. */
void hwtrec_live_flush(void)
{
	if (log_fd < 0)
		return;
	if (cur && !tracing_off()) {
		Addr ip = VG_(get_IP)(cur_tid);

		if (cur->resume_pending && cur->resume_ip == ip) {
			/* nothing ran since the last stop */
		} else {
			resume_trace();
			if (!cur->disabled) {
				flush_tnt();
				need(9);
				put8(HWTREC_EV_PGD_ASYNC);
				put64(ip);
				disable_current();
			}
			cur->resume_pending = True;
			cur->resume_ip = ip;
		}
	}
	flush_tnt();
	hwtrec_log_flush();
}

/* "hwtrec stop": end the session; the program runs on untraced. */
void hwtrec_live_stop(void)
{
	if (log_fd < 0)
		return;
	hwtrec_live_flush();
	need(9);
	put8(HWTREC_EV_STOPPED);
	put64(tsc_now());
	hwtrec_log_flush();
	if (log_fd >= 0 && !log_failed)
		VG_(close)(log_fd);
	log_fd = -1;
	if (cur)
		cur->resume_pending = False;
	update_switches();
}

Bool hwtrec_live_tracing(void)
{
	return log_fd >= 0;
}
