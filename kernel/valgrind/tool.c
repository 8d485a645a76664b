/* tool.c: the hwtrec Valgrind tool: registration, options and callbacks.
 *
 * `hwtrec record` starts `valgrind --tool=hwtrec --hwtrec-fifo=PATH
 * --hwtrec-pid=PID ...`.  The tool sends what a user-mode-only Intel PT
 * trace of the program would contain (event-log.h) through the FIFO, and the
 * recorder encodes the packets.  Only the process whose pid is PID is traced:
 * a forked child keeps running under Valgrind but untraced (the recorder is
 * told its pid and says so), and after an exec (Valgrind follows it with
 * --trace-children=yes) the new image is traced if it is still PID.  When
 * the traced program exits, the tool has Valgrind write the core it writes
 * at a fatal signal (--hwtrec-exit-core), so every recording has its end
 * state.
 *
 * Live mode (--hwtrec-live=yes, started by hwtrec-server with --vgdb=yes):
 * nothing is traced until the debugger sends the monitor command
 * "hwtrec start"; "hwtrec flush" makes the recording cover everything up to
 * the stop, "hwtrec stop" ends the session (event-writer.c).  While it
 * traces, the program is stopped before it ends by itself (exit_group),
 * which "hwtrec status" then says, so that its history is not lost with
 * it.  With
 * --hwtrec-live-data=yes, "hwtrec start PATH" also writes the session's
 * data log to PATH, an empty file (data-log.c).
 *
 * What it does not do: 32-bit guests, code generated at run time in
 * anonymous memory is reported as a mapping without a file (its bytes are
 * not saved), and transactional memory (TSX) packets.
 */
#include "hwtrec-tool.h"
#include "../../libhwtrecord/values-format.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_gdbserver.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "valgrind.h"
#include "libvex_guest_amd64.h"

extern UWord *VG_(client_auxv);
/* Valgrind core functions outside the tool API: the core dumper it runs at
 * a fatal signal, and the number of threads still alive. */
extern void VG_(make_coredump)(ThreadId tid, const vki_siginfo_t *si,
			       ULong max_size);
extern Int VG_(count_living_threads)(void);
/* The first file descriptor above the program's own (Valgrind keeps its
 * files from there up). */
extern Int VG_(fd_soft_limit);

Bool hwtrec_clo_ret_compression = True;
const HChar *hwtrec_clo_from;
static const HChar *clo_fifo;
static const HChar *clo_data;
static const HChar *clo_log_file;
static Long clo_pid;
static Long clo_psb_period = 4096;
static Long clo_snapshot_every = HWTR_VALUES_SNAPSHOT_PERIOD;
static Bool clo_live;
static Bool clo_exit_core = True;
static Bool started;

static Bool hwtrec_process_cmd_line_option(const HChar *arg)
{
	if VG_STR_CLO(arg, "--hwtrec-fifo", clo_fifo) {}
	else if VG_STR_CLO(arg, "--hwtrec-data", clo_data) {}
	else if VG_STR_CLO(arg, "--hwtrec-log-file", clo_log_file) {}
	else if VG_INT_CLO(arg, "--hwtrec-pid", clo_pid) {}
	else if VG_BOOL_CLO(arg, "--ret-compression", hwtrec_clo_ret_compression) {}
	else if VG_BOOL_CLO(arg, "--hwtrec-live", clo_live) {}
	else if VG_BOOL_CLO(arg, "--hwtrec-live-data", hwtrec_data_live) {}
	else if VG_BOOL_CLO(arg, "--hwtrec-exit-core", clo_exit_core) {}
	else if VG_STR_CLO(arg, "--from", hwtrec_clo_from) {}
	else if VG_BINT_CLO(arg, "--psb-period", clo_psb_period, 256, 1 << 24) {}
	else if VG_BINT_CLO(arg, "--hwtrec-snapshot-every",
			    clo_snapshot_every, 1, 1ll << 40) {}
	else
		return False;
	return True;
}

static void hwtrec_print_usage(void)
{
	VG_(printf)(
"    --hwtrec-fifo=PATH        FIFO to the recorder (set by hwtrec record)\n"
"    --hwtrec-pid=PID          trace only the process with this pid\n"
"    --hwtrec-data=PATH        write the data log (registers, stores) to\n"
"                              PATH, an empty file (set by hwtrec record)\n"
"    --ret-compression=yes|no  compress returns as TNT bits [yes]\n"
"    --from=FUNCTION           start tracing at the first entry of FUNCTION\n"
"    --psb-period=BYTES        trace bytes between PSB packets [4096]\n"
"    --hwtrec-live=yes|no      trace only between the monitor commands\n"
"                              hwtrec start and hwtrec stop [no]\n"
"    --hwtrec-live-data=yes|no live mode: write the data log where\n"
"                              hwtrec start PATH says [no]\n"
"    --hwtrec-exit-core=yes|no write a core when the traced program exits,\n"
"                              as at a fatal signal [yes]\n"
"    --hwtrec-log-file=PATH    Valgrind's --log-file: its first open, left\n"
"                              among the program's files, is closed\n"
"    --hwtrec-snapshot-every=N for tests: a full register snapshot in the\n"
"                              data log every N >= 1 instructions [32768]\n");
}

static void hwtrec_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* Valgrind 3.19 opens its --log-file at the program's lowest free file
 * descriptor, keeps a copy above the program's range and leaves the first
 * open: the program would find fd 3 taken (one more after each exec), so
 * that its own files got other numbers than in a run without us.  Close
 * the descriptors in the program's range that are that file. */
static void close_leaked_log(void)
{
	struct vg_stat log, open_file;
	HChar *path;
	Int fd;

	if (!clo_log_file)
		return;
	path = VG_(expand_file_name)("--hwtrec-log-file", clo_log_file);
	if (sr_isError(VG_(stat)(path, &log))) {
		VG_(free)(path);
		return;
	}
	VG_(free)(path);
	/* Valgrind opened it at the lowest free descriptor, so every one
	 * below it is open: it lies before the first that is not. */
	for (fd = 3; fd < VG_(fd_soft_limit); fd++) {
		if (VG_(fstat)(fd, &open_file) != 0)
			break;
		if (open_file.dev == log.dev && open_file.ino == log.ino)
			VG_(close)(fd);
	}
}

static void hwtrec_post_clo_init(void)
{
	close_leaked_log();
	/* One branch per block: see instrument.c. */
	VG_(clo_vex_control).guest_chase = False;
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
	/* Every register, the PC included, up to date at each instruction:
	 * by default only at memory accesses, so a fault in an instruction
	 * that does not access memory (idiv %ecx) would report the PC of the
	 * last one that did, and stale registers, to the trace's end and to
	 * the core.  Costs about 10% in the tool (doc/recording-valgrind.md). */
	VG_(clo_vex_control).iropt_register_updates_default =
		VexRegUpdAllregsAtEachInsn;
	VG_(clo_px_file_backed) = VexRegUpdAllregsAtEachInsn;
	hwtrec_psb_period_bits = (UInt)clo_psb_period * 8;
	hwtrec_data_snapshot_every = (ULong)clo_snapshot_every;
	if (clo_live) {
		/* The FIFO is opened by "hwtrec start". */
		hwtrec_paused = True;
		hwtrec_threads_init();
		return;
	}
	if (!clo_fifo || clo_pid != VG_(getpid)())
		return;		/* a forked child that exec'd: untraced */
	if (!hwtrec_log_open(clo_fifo))
		return;
	hwtrec_from_pending = hwtrec_clo_from != NULL;
	if (clo_data)
		hwtrec_data_open(clo_data);
	hwtrec_log_hello();
	hwtrec_log_flush();
}

/* The first time client code runs, everything Valgrind set up for the
 * program exists: send the auxv, the vDSO and the mappings made so far. */
void hwtrec_send_initial_state(void)
{
	static Addr starts[4096];
	Int n, i;
	const UWord *av = VG_(client_auxv);

	hwtrec_log_auxv(av);
	for (i = 0; av && av[2 * i] != 0; i++)
		if (av[2 * i] == 33 /* AT_SYSINFO_EHDR */) {
			NSegment const *seg = VG_(am_find_nsegment)(av[2 * i + 1]);

			if (seg)
				hwtrec_log_object(seg->start,
					       (UInt)(seg->end + 1 - seg->start));
		}
	n = VG_(am_get_segment_starts)(SkFileC | SkAnonC | SkFileV, starts,
				       sizeof(starts) / sizeof(starts[0]));
	for (i = 0; i < n; i++) {
		NSegment const *seg = VG_(am_find_nsegment)(starts[i]);

		if (seg && seg->hasX)
			hwtrec_report_range(seg->start, seg->end + 1 - seg->start);
	}
}

/* Threads a signal was just delivered to, whose handler has not started
 * yet (handler_starts). */
static Bool *handler_pending;	/* VG_N_THREADS + 1, at the first delivery */

/* The kernel starts an x86-64 handler with rax 0 ("in case the signal
 * handler was declared without prototypes": x64_setup_rt_frame); Valgrind's
 * frame leaves the interrupted rax there.  Set it as the kernel does, so
 * that the program runs, and the data log records, what it would natively
 * (record full shows 0 there). */
static void handler_starts(ThreadId tid)
{
	ULong zero = 0;

	if (!handler_pending || tid > VG_N_THREADS || !handler_pending[tid])
		return;
	handler_pending[tid] = False;
	VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RAX),
				  sizeof(zero), (const UChar *)&zero);
}

static void hwtrec_start_client_code(ThreadId tid, ULong blocks)
{
	handler_starts(tid);
	if (!started) {
		started = True;
		hwtrec_send_initial_state();
	}
	hwtrec_thread_running(tid);
	hwtrec_data_thread_running(tid);
}

/* Whether system call SYSNO ends the program: exit_group, or its last
 * thread's exit. */
static Bool ends_program(UInt sysno)
{
	return sysno == __NR_exit_group ||
	       (sysno == __NR_exit && VG_(count_living_threads)() == 1);
}

/* The traced program is ending by itself (exit_group, or its last thread's
 * exit): keep its end state, registers and memory, the way Valgrind keeps
 * it at a fatal signal (vgcore, limited by RLIMIT_CORE), so that the
 * debugger has a stack and variables at the end of any run.  Not in live
 * mode, whose debugger has the live process. */
static void core_at_exit(ThreadId tid, UInt sysno)
{
	struct vki_rlimit rl;
	vki_siginfo_t si;

	if (!clo_exit_core || clo_live || !hwtrec_live_tracing() ||
	    !ends_program(sysno))
		return;
	if (VG_(getrlimit)(VKI_RLIMIT_CORE, &rl) < 0 || rl.rlim_cur == 0)
		return;
	VG_(memset)(&si, 0, sizeof(si));	/* no signal */
	VG_(make_coredump)(tid, &si, rl.rlim_cur);
}

/* What a system call does to memory that Valgrind does not report as a
 * write: MADV_DONTNEED and the like drop pages (they read back as zeros
 * or the file); after execve the log is the old image's. */
static void data_before_syscall(ThreadId tid, UInt sysno, const UWord *args)
{
	if (!hwtrec_data_on)
		return;
	if (sysno == __NR_madvise && (args[2] == 4 /* MADV_DONTNEED */ ||
				      args[2] == 8 /* MADV_FREE */ ||
				      args[2] == 9 /* MADV_REMOVE */))
		hwtrec_data_memory_unknown(args[0], args[1]);
	else if (sysno == __NR_execve || sysno == __NR_execveat)
		hwtrec_data_flush(False);
}

/* Live mode, recording: the program is about to end by itself.  Its
 * history goes with the process, so stop it first and let the debugger
 * have it, as GDB's record full stops before exit_group ("The next
 * instruction is syscall exit_group"); the debugger's next resume runs the
 * system call.  The stop is at the system call's entry, after its
 * instruction, where the history ends. */
static Bool stopped_before_exit;	/* "hwtrec status" says so meanwhile */

static void stop_before_exit(ThreadId tid, UInt sysno)
{
	if (!clo_live || !hwtrec_live_tracing() || !ends_program(sysno))
		return;
	stopped_before_exit = True;
	VG_(gdbserver)(tid);
	stopped_before_exit = False;
}

static void hwtrec_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	core_at_exit(tid, sysno);
	hwtrec_disable_syscall(tid);
	data_before_syscall(tid, sysno, args);
	/* Send what is buffered at every system call: execve replaces this
	 * image and fork copies it (the buffer would be lost or sent twice),
	 * and a program killed by SIGKILL, or one that blocks, loses or
	 * delays at most what it ran since its last system call. */
	hwtrec_log_flush();
	stop_before_exit(tid, sysno);
}

/* Did system call SYSNO with ARGS, which returned a pid, make a process
 * (not a thread)?  clone3's flags are the first field of its argument. */
static Bool makes_process(UInt sysno, const UWord *args)
{
	switch (sysno) {
	case __NR_fork:
	case __NR_vfork:
		return True;
	case __NR_clone:
		return !(args[0] & VKI_CLONE_THREAD);
	case __NR_clone3:
		return VG_(am_is_valid_for_client)(args[0], sizeof(ULong),
						   VKI_PROT_READ) &&
		       !(*(const ULong *)args[0] & VKI_CLONE_THREAD);
	default:
		return False;
	}
}

static void hwtrec_post_syscall(ThreadId tid, UInt sysno, UWord *args,
			     UInt nargs, SysRes res)
{
	/* In the parent: children are not traced; the recorder says so. */
	if (!sr_isError(res) && (Word)sr_Res(res) > 0 &&
	    makes_process(sysno, args))
		hwtrec_log_child((Int)sr_Res(res));
}

static void hwtrec_pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack)
{
	hwtrec_data_uncount_fault(tid, VG_(get_IP)(tid));
	hwtrec_disable_async(tid, VG_(get_IP)(tid));
	if (!handler_pending)
		handler_pending = VG_(calloc)("hwtrec.handler_pending",
					      VG_N_THREADS + 1, sizeof(Bool));
	if (tid <= VG_N_THREADS)
		handler_pending[tid] = True;
}

static void hwtrec_thread_ll_exit(ThreadId tid)
{
	hwtrec_thread_exit(tid);
	hwtrec_data_thread_exit(tid);
}

static void hwtrec_new_mem(Addr a, SizeT len, Bool rr, Bool ww, Bool xx,
			   ULong di_handle);

static void hwtrec_pre_mem_write(CorePart part, ThreadId tid, const HChar *s,
				 Addr a, SizeT size)
{
	hwtrec_data_kernel_write(tid, a, size);
}

/* The stack a signal frame is about to take.  Valgrind announces to
 * pre_mem_write only the frame's front (return address, siginfo,
 * ucontext) and writes the rest, its own copy of the guest state,
 * unannounced (m_sigframe: offsetof(struct rt_sigframe, vg)), so the old
 * bytes of the whole frame are logged here; else the frames the handler's
 * stack overlaid read back as that copy's bytes at earlier positions (a
 * zero return address: GDB's unwinder ended the stack there).  [A,
 * A+LEN) starts a red zone below the frame and, as Valgrind 3.19 counts
 * it, stops a red zone short of the frame's top: one more red zone is
 * logged (bytes logged that do not change are restored as they are). */
static void hwtrec_new_mem_stack_signal(Addr a, SizeT len, ThreadId tid)
{
	hwtrec_data_kernel_write(tid, a, len + VG_STACK_REDZONE_SZB);
}

static void hwtrec_new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx,
				ULong di_handle)
{
	hwtrec_data_memory_unknown(a, len);
	hwtrec_new_mem(a, len, rr, ww, xx, di_handle);
}

static void hwtrec_new_mem_brk(Addr a, SizeT len, ThreadId tid)
{
	hwtrec_data_memory_unknown(a, len);
}

static void hwtrec_die_mem_brk(Addr a, SizeT len)
{
	hwtrec_data_memory_unknown(a, len);
}

static void hwtrec_copy_mem_remap(Addr from, Addr to, SizeT len)
{
	hwtrec_data_memory_unknown(from, len);
	hwtrec_data_memory_unknown(to, len);
}

static void hwtrec_new_mem(Addr a, SizeT len, Bool rr, Bool ww, Bool xx,
			ULong di_handle)
{
	if (xx)
		hwtrec_report_range(a, len);
}

static void hwtrec_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	hwtrec_data_forget_readable();
	if (xx)
		hwtrec_report_range(a, len);
}

static void hwtrec_munmap(Addr a, SizeT len)
{
	hwtrec_forget_mappings(a, len);
	hwtrec_log_munmap(a, len);
	hwtrec_data_memory_unknown(a, len);
}

static void hwtrec_fork_child(ThreadId tid)
{
	hwtrec_log_detach();
	hwtrec_data_detach();
}

static void hwtrec_fini(Int exitcode)
{
	hwtrec_data_flush(True);
	hwtrec_log_exit(exitcode);
}

/* "hwtrec start [DATA]": a recording session, with its data log written to
 * DATA (an empty file) when live mode logs data.  Only the session's first
 * start opens the log: a second start of a running session changes
 * nothing. */
static void live_start(const HChar *data)
{
	Bool running = hwtrec_live_tracing();

	if (!hwtrec_live_start(clo_fifo)) {
		VG_(gdb_printf)("hwtrec: error: cannot open %s\n", clo_fifo);
		return;
	}
	if (running || !data || !*data) {
		VG_(gdb_printf)("hwtrec: tracing\n");
		return;
	}
	if (!hwtrec_data_live) {
		VG_(gdb_printf)("hwtrec: tracing, without a data log "
				"(--hwtrec-live-data=no)\n");
		return;
	}
	if (!hwtrec_data_open(data)) {
		VG_(gdb_printf)("hwtrec: tracing, without a data log (cannot "
				"open %s)\n", data);
		return;
	}
	/* The thread the debugger stopped runs next, without the scheduler
	 * saying so (hwtrec_start_client_code). */
	if (VG_(get_running_tid)() != VG_INVALID_THREADID)
		hwtrec_data_thread_running(VG_(get_running_tid)());
	VG_(gdb_printf)("hwtrec: tracing\n");
}

/* "hwtrec flush": the data log up to the stop of thread TID.  Stopped at
 * a signal of its own (a fault, reported to the debugger before it is
 * delivered), its last counted instruction did not run, and the trace ends
 * before it (hwtrec_live_flush): it is taken back, as at delivery. */
static void data_flush_at_stop(ThreadId tid)
{
	if (tid != VG_INVALID_THREADID)
		hwtrec_data_uncount_fault(tid, VG_(get_IP)(tid));
	hwtrec_data_flush_stopped();
}

/* Monitor commands from the debugger ("monitor hwtrec start" in GDB, or
 * vgdb --pid=N hwtrec start): the live mode's control. */
static Bool hwtrec_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
	const HChar *cmd;

	if (arg[0] != VG_USERREQ__GDB_MONITOR_COMMAND)
		return False;
	cmd = (const HChar *)arg[1];
	if (VG_(strncmp)(cmd, "hwtrec", 6) != 0 || (cmd[6] && cmd[6] != ' '))
		return False;
	cmd += 6;
	while (*cmd == ' ')
		cmd++;
	*ret = 1;
	if (!clo_live || !clo_fifo) {
		VG_(gdb_printf)("hwtrec: error: not in live mode "
				"(--hwtrec-live=yes --hwtrec-fifo=PATH)\n");
	} else if (!VG_(strcmp)(cmd, "start") ||
		   !VG_(strncmp)(cmd, "start ", 6)) {
		live_start(cmd[5] ? cmd + 6 : NULL);
	} else if (!VG_(strcmp)(cmd, "flush")) {
		hwtrec_live_flush();
		if (hwtrec_live_tracing())
			data_flush_at_stop(tid);
		VG_(gdb_printf)("hwtrec: %s\n", hwtrec_live_tracing()
				? "flushed" : "not tracing");
	} else if (!VG_(strcmp)(cmd, "stop")) {
		hwtrec_live_stop();
		hwtrec_data_flush(True);	/* the session's log ends */
		VG_(gdb_printf)("hwtrec: stopped\n");
	} else if (!VG_(strcmp)(cmd, "status")) {
		VG_(gdb_printf)("hwtrec: %s%s\n", hwtrec_live_tracing()
				? "tracing" : "not tracing",
				stopped_before_exit ? ", stopped before the "
				"program's exit" : "");
	} else {
		VG_(gdb_printf)("hwtrec: error: unknown command '%s' (start, "
				"flush, stop, status)\n", cmd);
	}
	return True;
}

static void hwtrec_pre_clo_init(void)
{
	VG_(details_name)("hwtrec");
	VG_(details_version)("0.1");
	VG_(details_description)("software Intel PT for hwtrecord");
	VG_(details_copyright_author)("hwtrecord authors");
	VG_(details_bug_reports_to)("https://example.invalid/hwtrecord/issues");
	VG_(basic_tool_funcs)(hwtrec_post_clo_init, hwtrec_instrument, hwtrec_fini);
	VG_(needs_command_line_options)(hwtrec_process_cmd_line_option,
					hwtrec_print_usage, hwtrec_print_debug_usage);
	VG_(needs_syscall_wrapper)(hwtrec_pre_syscall, hwtrec_post_syscall);
	VG_(needs_client_requests)(hwtrec_client_request);
	VG_(track_start_client_code)(hwtrec_start_client_code);
	VG_(track_pre_deliver_signal)(hwtrec_pre_deliver_signal);
	VG_(track_pre_thread_ll_exit)(hwtrec_thread_ll_exit);
	VG_(track_new_mem_startup)(hwtrec_new_mem);
	VG_(track_new_mem_mmap)(hwtrec_new_mem_mmap);
	VG_(track_new_mem_brk)(hwtrec_new_mem_brk);
	VG_(track_die_mem_brk)(hwtrec_die_mem_brk);
	VG_(track_copy_mem_remap)(hwtrec_copy_mem_remap);
	VG_(track_pre_mem_write)(hwtrec_pre_mem_write);
	VG_(track_new_mem_stack_signal)(hwtrec_new_mem_stack_signal);
	VG_(track_change_mem_mprotect)(hwtrec_mprotect);
	VG_(track_die_mem_munmap)(hwtrec_munmap);
	VG_(atfork)(NULL, NULL, hwtrec_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(hwtrec_pre_clo_init)
