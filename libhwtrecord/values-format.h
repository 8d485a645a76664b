/* values-format.h: the data log ("values" in a recording), written by the
 * Valgrind tool (kernel/valgrind/data-log.c) and read by values.c.
 *
 * Plain C, no libc types: the tool that writes it has no libc.  All numbers
 * little-endian.  doc/recording-format.md describes the same.
 *
 * A header (magic, version, header size), then records, each a type byte
 * and its payload.  "var" is an unsigned LEB128 number (7 bits a byte, the
 * lowest first, the top bit set on every byte but the last): positions and
 * addresses take 4-6 bytes instead of 8.  Positions count a thread's traced instructions from
 * 1, as the history does with its gaps left out; "global" counts all
 * threads' instructions, so that records of different threads are ordered
 * (Valgrind runs one thread at a time, and records come in that order).
 * A record stamped POS happened after the thread's instruction POS began
 * and before POS+1 began.
 *
 * "dpos" is how REGS, STORE and UNKNOWN give their POS: the difference
 * from the position the record before gave (a THREAD record's pos, or the
 * previous REGS, STORE or UNKNOWN record's; SYNC records give none; 0 at
 * the start).  Positions only grow between THREAD records, so it is
 * never negative, and mostly 0 or 1: one byte where the position itself
 * took four.  A reader that starts anywhere but at a THREAD record needs
 * the position before it (values-index.c keeps it for each place a read
 * starts).
 *
 * "daddr" is how STORE and UNKNOWN give their ADDR: the difference from
 * the address the memory record before gave (0 at the start and after a
 * THREAD record), zigzag-coded (0, -1, 1, -2 ... as 0, 1, 2, 3 ...) and
 * modulo 2^64: stores near the last one take one or two bytes instead of
 * five or six.
 *
 * Seeking (version 5).  Because of dpos and daddr the log reads forward
 * from a THREAD record only, which gives its numbers whole.  So that a
 * reader needing only the log's end (the answer-first tail: registers from
 * the last snapshot before a position, memory as the end state undone back
 * to it) does not pass over all of it, every full register snapshot
 * follows a THREAD record of its thread, a restart point, and a whole log
 * ends, after its END sync, with a seek table (HWTR_VREC_SEEK) listing
 * every restart point with a CRC-32 of the log from it to the next (the
 * last: to the table), then a footer of HWTR_VALUES_FOOTER_SIZE bytes:
 * u64 offset of the SEEK record, u32 CRC-32 of the bytes from there to the
 * footer, u32 0, HWTR_VALUES_SEEK_MAGIC.  A reader that starts at a restart
 * point checks the CRCs of the segments it reads: the manifest's CRC of the
 * whole file would cost the pass it saves.  A log without the footer (cut
 * off, or version 4) is read from its start; so is one whose table or
 * footer does not check out, with a message saying why.
 */
#ifndef HWTR_VALUES_FORMAT_H
#define HWTR_VALUES_FORMAT_H

#define HWTR_VALUES_MAGIC "HWTRVALS"	/* 8 bytes */
/* 2: REGS, STORE and UNKNOWN give their numbers, and REGS its 8-byte
 * registers, as LEB128 (version 1 had fixed u64/u32 fields).  3: their
 * positions as dpos and their addresses as daddr (version 2 gave them whole:
 * 7.0 bytes an instruction on gzip, 4.x now).  4: the x87 and SSE
 * control state (HWTR_VREG_FPU).  Older logs are refused, naming the
 * version. */
#define HWTR_VALUES_VERSION 5
/* 5: restart points and the seek table (above).  Version 4 is read too,
 * from its start only (it has neither). */
#define HWTR_VALUES_OLDEST_VERSION 4
#define HWTR_VALUES_HEADER_SIZE 16	/* magic, u32 version, u32 size */

enum hwtr_values_record {
	/* u32 lwpid, u64 pos, u64 global: the records that follow are this
	 * thread's; it has run POS instructions and all threads GLOBAL. */
	HWTR_VREC_THREAD = 1,
	/* var dpos, var mask, then for each bit of mask from the lowest its
	 * value (HWTR_VREG_*: 8-byte registers as a var, ymm 32 bytes, the
	 * FPU state HWTR_VREG_FPU_SIZE bytes): the registers just before instruction POS,
	 * those that differ from before.  Later records of the same POS
	 * replace earlier ones (an instruction that faulted did not run):
	 * a full snapshot too, restated after a THREAD record of POS-1 when
	 * the instruction that had it faulted (in the same restart point's
	 * segment; one at the position after a thread's last SYNC count is
	 * a fatal fault's, never used). */
	HWTR_VREC_REGS = 2,
	/* var dpos, var daddr, var size, SIZE bytes: memory at ADDR held these
	 * bytes before instruction POS (or the kernel, during it) changed
	 * them. */
	HWTR_VREC_STORE = 3,
	/* var dpos, var daddr, var len: what the range held before this point
	 * is not known (it was mapped, unmapped, or written by the kernel in
	 * a way that was not logged). */
	HWTR_VREC_UNKNOWN = 4,
	/* u8 end, u32 n, n x (u32 lwpid, u64 count): every record up to here
	 * is in the log and thread LWPID has run COUNT instructions; END
	 * (HWTR_VALUES_SYNC_*) says what follows. */
	HWTR_VREC_SYNC = 5,
	/* After the END sync only (version 5, "Seeking" above): u64 offset
	 * of that sync, u32 n, n x (u64 offset of a restart point's THREAD
	 * record, u64 its pos, u32 its lwpid, u32 CRC-32 of the log from it
	 * to the next restart point, the last one's to this record), in the
	 * log's order. */
	HWTR_VREC_SEEK = 6,
};

#define HWTR_VALUES_SEEK_ENTRY_SIZE 24
#define HWTR_VALUES_FOOTER_SIZE 24
#define HWTR_VALUES_SEEK_MAGIC "HWTRSEEK"	/* 8 bytes, the log's last */

/* A SYNC record's END byte. */
#define HWTR_VALUES_SYNC_MORE 0		/* records follow */
#define HWTR_VALUES_SYNC_END 1		/* the log ends here: the program ended
					 * (or the live session did) */
/* Live mode: the program is stopped for a debugger right after this
 * record, and its state there is the live process's; records follow when
 * it runs on.  A log whose last record is one is whole up to that state. */
#define HWTR_VALUES_SYNC_STOPPED 2

/* A REGS record in short form, for the usual instruction that changes one
 * register and perhaps the flags: type HWTR_VREC_REGS_ONE | bit (any
 * HWTR_VREG_* but rflags), plus HWTR_VREC_REGS_AND_FLAGS if rflags
 * changed too, or HWTR_VREC_REGS_ONE | HWTR_VREG_RFLAGS alone; then var
 * dpos and the values as in HWTR_VREC_REGS (no mask: the type says it). */
#define HWTR_VREC_REGS_ONE 0x80
#define HWTR_VREC_REGS_AND_FLAGS 0x40

/* Bits of a HWTR_VREC_REGS mask, in the order their values follow. */
#define HWTR_VREG_GPR0 0	/* 0..15: rax rbx rcx rdx rsi rdi rbp rsp
				 * r8..r15 (GDB's order), 8 bytes */
#define HWTR_VREG_RFLAGS 16	/* 8 bytes */
#define HWTR_VREG_FS_BASE 17	/* 8 bytes */
#define HWTR_VREG_GS_BASE 18	/* 8 bytes */
#define HWTR_VREG_YMM0 19	/* 19..34: ymm0..ymm15, 32 bytes */
#define HWTR_VREG_RIP 35	/* 8 bytes, in full snapshots only */
#define HWTR_VREG_FPU 36	/* HWTR_VREG_FPU_SIZE bytes, below */
#define HWTR_VREG_COUNT 37
#define HWTR_VREG_ALL ((1ull << HWTR_VREG_COUNT) - 1)

/* The x87 registers and the SSE rounding mode as Valgrind's VEX keeps them
 * (libvex_guest_amd64.h), which is all it knows of them: x87 values are
 * doubles, not the hardware's 80 bits; no exception flags, precision
 * control or last-instruction pointers.  Offsets in the value:
 *   0  8 x f64   FPREG, by physical register (st(i) is FPREG[(FTOP+i)&7]),
 *                also those that are empty (they keep their last value)
 *  64  8 x u8    FPTAG, by physical register: 0 empty, else full
 *  72  u8        FTOP, the stack top (0..7)
 *  73  u8        FPROUND, the x87 rounding mode (0..3, as fctrl bits 10-11)
 *  74  u16       FC3210, the status word's condition bits (8-10, 14)
 *  76  u8        SSEROUND, the SSE rounding mode (0..3, as mxcsr bits 13-14;
 *                not enough for GDB's mxcsr, values-x87.h)
 *  77  3 x u8    0
 * values-x87.c turns it into GDB's registers. */
#define HWTR_VREG_FPU_SIZE 80
#define HWTR_VFPU_FPREG 0
#define HWTR_VFPU_FPTAG 64
#define HWTR_VFPU_FTOP 72
#define HWTR_VFPU_FPROUND 73
#define HWTR_VFPU_FC3210 74
#define HWTR_VFPU_SSEROUND 76

/* A full snapshot (every register, rip included) at least every this many
 * instructions of a thread: where a register lookup starts. */
#define HWTR_VALUES_SNAPSHOT_PERIOD 32768

#endif
