/* event-log.h: the byte stream the Valgrind tool sends to `hwtrec record`.
 *
 * The tool cannot link libipt (a Valgrind tool has no libc), so it sends the
 * facts a user-mode-only Intel PT trace is made of, and the recorder turns them
 * into real PT packets with libipt's encoder (host/pt-encoder.c).  The
 * tool has already done the work that needs guest knowledge: it classified the
 * branches, kept the return-compression stack, and decided compressed returns
 * (a taken TNT bit) versus TIPs.  The recorder adds IP compression, PSB+,
 * TNT packing and the file format.
 *
 * Each record is one type byte and a fixed little-endian payload (MMAP, HELLO,
 * EXEC and OBJECT carry a length-prefixed tail).  Records between two SWITCH
 * records belong to the thread the first one names.  Only plain integer types
 * here: this header is compiled both inside the tool and in the host.
 */
#ifndef HWTREC_EVENT_LOG_H
#define HWTREC_EVENT_LOG_H

#define HWTREC_EVENT_LOG_VERSION 2

enum hwtrec_event_type {
	/* u32 version, u32 pid, u64 tsc, u16 n, n bytes: executable path.
	 * First record of each tool instance (again after an exec). */
	HWTREC_EV_HELLO = 1,
	/* u32 lwpid, u64 tsc: the records that follow are this thread's. */
	HWTREC_EV_SWITCH = 2,
	/* u8 n (1..64), u64 bits: n conditional branches (or compressed
	 * returns), the oldest in bit n-1; 1 = taken. */
	HWTREC_EV_TNT = 3,
	/* u64 target: an indirect branch or an uncompressed return went here. */
	HWTREC_EV_TIP = 4,
	/* u64 ip, u64 tsc: place PSB+ here; the next instruction to run is ip.
	 * The tool has emptied its return-compression stack at this point, so
	 * the trace from this PSB on decodes on its own. */
	HWTREC_EV_PSB = 5,
	/* (none): a system call left user mode (TIP.PGD, IP suppressed). */
	HWTREC_EV_PGD_SYSCALL = 6,
	/* u64 ip: tracing stops before ip runs: a signal, the thread being
	 * descheduled, or a Valgrind redirection (FUP ip, TIP.PGD). */
	HWTREC_EV_PGD_ASYNC = 7,
	/* u64 ip, u64 tsc: tracing (re)starts at ip (TSC, MODE.Exec, TIP.PGE). */
	HWTREC_EV_PGE = 8,
	/* u64 addr, u64 len, u64 file offset, u64 tsc, u32 prot (HWTR_PROT_*),
	 * u16 n, n bytes: path ("" if anonymous). */
	HWTREC_EV_MMAP = 9,
	/* u64 addr, u64 len, u64 tsc. */
	HWTREC_EV_MUNMAP = 10,
	/* u32 lwpid, u64 tsc: the thread ran its last instruction. */
	HWTREC_EV_THREAD_EXIT = 11,
	/* u16 n, then n pairs of u64 (type, value): the client's auxv. */
	HWTREC_EV_AUXV = 12,
	/* u64 addr, u32 n, n bytes: memory image of an object that exists only
	 * in memory (the vDSO). */
	HWTREC_EV_OBJECT = 13,
	/* i32 code: the tool's fini ran (exit code of the program). */
	HWTREC_EV_EXIT = 14,
	/* u64 ip, u64 tsc: the function named by --from was entered: the first
	 * PGE of the recording follows. */
	HWTREC_EV_FROM_REACHED = 15,
	/* u64 tsc: live mode: the debugger stopped the recording session
	 * ("hwtrec stop"); the program runs on untraced. */
	HWTREC_EV_STOPPED = 16,
	/* u64 ip, u8 n (0..16), n bytes: Valgrind cannot decode the
	 * instruction at ip (these are its first bytes) and raises SIGILL
	 * there; the running thread's trace has stopped before it. */
	HWTREC_EV_UNDECODABLE = 17,
	/* u32 pid, u64 tsc: the traced process created child process pid
	 * (fork, vfork, clone without CLONE_THREAD), which is not traced. */
	HWTREC_EV_CHILD = 18,
	/* u64 ip: the running thread went round a cycle of direct branches,
	 * with no packet, more times than the tool marks (event-writer.c's
	 * walk_note): the passes since the last mark are lost, the trace
	 * resumes at ip (OVF, FUP ip: a gap). */
	HWTREC_EV_OVERFLOW = 19,
};

/* The tool places PSB+ about every --psb-period bytes of trace; it counts a
 * TNT bit as 1 and a TIP as 32 bits (a TIP is 3 to 9 bytes). */
#define HWTREC_PSB_TIP_BITS 32

/* Depth of the return-compression stack; libipt's decoder keeps 64
 * (pt_retstack) and drops the oldest entry when it overflows, and so do we. */
#define HWTREC_RETSTACK_DEPTH 64

#endif
