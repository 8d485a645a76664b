/* data-log.c: the data log, what rebuilds every register and memory byte
 * at every past position (libhwtrecord/values-format.h is its format,
 * doc/recording-valgrind.md says why it is made this way).
 *
 * Positions: the instrumentation calls hwtrec_data_insn at each
 * instruction (after the block-entry helper that may turn the trace on);
 * it counts the instruction when the thread is traced, as the decoder
 * will.  A REP string instruction counts once: VEX runs one iteration per
 * pass and jumps back to it, so a pass that comes straight back to the
 * same REP instruction is not a new one.  An instruction that faults did
 * not run (the trace leaves it out): hwtrec_data_uncount_fault takes it
 * back when the signal is delivered at it.
 *
 * Registers: a redo log.  At each counted instruction the registers that
 * may have changed since the last one (those the previous instruction's IR
 * writes; at a block's first instruction, those of the previous block's
 * leaving instruction, which that block stores in
 * hwtrec_data_narrow_pending, or all where a system call, a signal or
 * another thread ran in between) are compared with the thread's copy and
 * the changed ones logged; the wide ones, costly to compare (the 16 ymm
 * and the FPU state: x87 and SSE rounding, HWTR_VREG_FPU), at a
 * block's first instruction only when hwtrec_data_ymm_pending (and
 * hwtrec_data_fpu_pending) says they may have changed: set by the IR of a
 * block whose last instruction (or
 * one leaving by a side exit) writes one, and whenever the scheduler runs
 * (thread switch, system call, signal, client request) or the thread was
 * not traced; every HWTR_VALUES_SNAPSHOT_PERIOD instructions
 * all of them (a full snapshot), and again at the same position when the
 * instruction that had one faulted and was taken back.  rflags comes from
 * VEX's flag thunk (flag-thunk.h for the usual operations, VEX for the
 * rest).
 *
 * Memory: an undo log.  Before each store (and before the kernel writes
 * into the program's memory: system call buffers, signal frames) the old
 * bytes are logged; memory that appears or goes away (mmap, munmap, brk,
 * mremap, madvise) is logged as unknown.  The end state is the core.
 *
 * The FPU state is logged as VEX keeps it, which is less than the
 * hardware has: x87 values as doubles, not 80 bits; no exception flags in
 * the x87 status word or mxcsr, no x87 instruction pointers (values-x87.c
 * in the library says what GDB is shown).
 *
 * Restart points (values-format.h, "Seeking"): each full snapshot is
 * preceded by a THREAD record, which gives the position, the global count
 * and the address base whole, so a reader can start decoding there without
 * the records before it.  Their offsets, with a CRC-32 of the log from each
 * to the next, go into a seek table that ends the log after its END sync;
 * the reader of a tail reads that table and the log's last part only.  A
 * log cut off (the recorder killed) has no table and is read from its
 * start, as before.
 *
 * What it does not do: memory written by another process (shared
 * mappings), the programs before an exec (only the last image is logged:
 * each image's tool starts the log again).
 *
 * Live mode (--hwtrec-live-data=yes): each recording session ("hwtrec start
 * PATH") writes a log of its own from position 0, a SYNC marked stopped at
 * every stop of the debugger ("hwtrec flush": the live process is then the
 * end state) and one marked end at "hwtrec stop".  Blocks carry the data
 * helpers from the program's start, so that a session begun at any stop
 * logs every instruction it traces.
 */
#include "hwtrec-tool.h"
#include "flag-thunk.h"
#include "log-crc32.h"
#include "../../libhwtrecord/values-format.h"

#include "libvex_guest_amd64.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"

/* Kernel writes larger than this are logged as unknown rather than copied
 * (a read() into a large buffer may fill only a little of it). */
extern Int VG_(safe_fd)(Int oldfd);

#define LARGE_KERNEL_WRITE (2u << 20)

struct data_thread {
	Bool known;
	Int lwpid;
	ULong count;		/* traced instructions run (the position) */
	ULong last_snapshot;
	/* The next instruction gets a full snapshot when count + 1 reaches
	 * this: last_snapshot + hwtrec_data_snapshot_every, or 0 (at once)
	 * for the thread's first and for one that restates a snapshot. */
	ULong full_due_at;
	/* The instruction that had the last full snapshot faulted and was
	 * taken back: the next one, at the same position, restates it. */
	Bool restate_snapshot;
	Addr last_ip;		/* of the last counted instruction */
	Bool last_was_syscall;
	ULong gpr[16], rflags, fs_base, gs_base;
	U256 ymm[16];
	UChar fpu[HWTR_VREG_FPU_SIZE];	/* HWTR_VREG_FPU, values-format.h */
};

Bool hwtrec_data_on;
Bool hwtrec_data_live;
/* Instructions between full snapshots: HWTR_VALUES_SNAPSHOT_PERIOD, or
 * --hwtrec-snapshot-every (a testing knob: small, a fault is sure to land
 * on a snapshot). */
ULong hwtrec_data_snapshot_every = HWTR_VALUES_SNAPSHOT_PERIOD;
UChar hwtrec_data_ymm_pending = 1, hwtrec_data_fpu_pending = 1;
ULong hwtrec_data_narrow_pending = HWTREC_DATA_NARROW_BITS;

/* The wide registers may have changed: the scheduler ran, a signal, an
 * untraced stretch. */
static inline void wide_pending(void)
{
	hwtrec_data_ymm_pending = 1;
	hwtrec_data_fpu_pending = 1;
	hwtrec_data_narrow_pending = HWTREC_DATA_NARROW_BITS;
}

static Int data_fd = -1;
static struct data_thread *dthreads;
static struct data_thread *dcur;
static ThreadId dcur_tid;
static struct data_thread *logged;	/* whose THREAD record is current */
static ULong last_stamp;	/* the position the last record gave */
static Addr last_addr;		/* the address the last memory record gave */
static ULong global_count;
/* The last segment found readable, so that most stores skip the lookup. */
static Addr readable_lo = 1, readable_hi;

/* Small enough that the kernel's copy into the page cache (and the CRC)
 * read it from the CPU's cache: with 4 MiB that copy was a fifth of gzip's
 * recording CPU. */
#define DBUF_SIZE (256u << 10)
static UChar *dbuf;
static UInt dbuf_pos;

/* The seek table (values-format.h): one entry per restart point. */
struct seek_entry {
	ULong offset, pos;
	UInt lwpid, crc;	/* crc: of the log from OFFSET to the next */
};
static struct seek_entry *seek;
static UInt nseek, cap_seek;
static ULong written;		/* bytes of the log before dbuf */
static UInt crc_of_segment;	/* CRC-32 of the segment so far ... */
static UInt crc_mark;		/* ... up to this byte of dbuf */

/* The current segment's CRC brought up to the end of dbuf. */
static void crc_catch_up(void)
{
	crc_of_segment = log_crc32_update(crc_of_segment, dbuf + crc_mark,
					  dbuf_pos - crc_mark);
	crc_mark = dbuf_pos;
}

/* A new segment starts at the end of dbuf: the last one's CRC is done. */
static UInt crc_segment_end(void)
{
	UInt crc;

	crc_catch_up();
	crc = crc_of_segment;
	crc_of_segment = 0;
	return crc;
}

static void data_write_out(void)
{
	UInt done = 0;

	crc_catch_up();
	written += dbuf_pos;
	crc_mark = 0;

	while (data_fd >= 0 && done < dbuf_pos) {
		Int n = VG_(write)(data_fd, dbuf + done, dbuf_pos - done);

		if (n <= 0) {
			VG_(umsg)("hwtrec: cannot write the data log; the "
				  "recording keeps control flow only\n");
			VG_(close)(data_fd);
			data_fd = -1;
			hwtrec_data_on = False;
			break;
		}
		done += (UInt)n;
	}
	dbuf_pos = 0;
}

static inline void dneed(UInt n)
{
	if (UNLIKELY(dbuf_pos + n > DBUF_SIZE))
		data_write_out();
}

static inline void d8(UChar v) { dbuf[dbuf_pos++] = v; }
/* __builtin_memcpy of a constant size is a plain move (the tool is built
 * with -fno-builtin, so memcpy would be a call per field). */
static inline void d32(UInt v) { __builtin_memcpy(dbuf + dbuf_pos, &v, 4); dbuf_pos += 4; }
static inline void d64(ULong v) { __builtin_memcpy(dbuf + dbuf_pos, &v, 8); dbuf_pos += 8; }
static inline void dbytes(const void *p, UInt n)
{
	switch (n) {	/* the sizes of most stores, inline */
	case 1: dbuf[dbuf_pos] = *(const UChar *)p; break;
	case 2: __builtin_memcpy(dbuf + dbuf_pos, p, 2); break;
	case 4: __builtin_memcpy(dbuf + dbuf_pos, p, 4); break;
	case 8: __builtin_memcpy(dbuf + dbuf_pos, p, 8); break;
	case 16: __builtin_memcpy(dbuf + dbuf_pos, p, 16); break;
	case 32: __builtin_memcpy(dbuf + dbuf_pos, p, 32); break;
	default: VG_(memcpy)(dbuf + dbuf_pos, p, n); break;
	}
	dbuf_pos += n;
}

/* An unsigned LEB128 number: at most 10 bytes (VARINT_MAX).  (A
 * loop-free form, spreading the 7-bit groups into one 8-byte store, was
 * slower on gzip: 1.25 -> 1.4 s of CPU; most numbers here take one byte.) */
#define VARINT_MAX 10
static inline void dvar(ULong v)
{
	while (v >= 0x80) {
		dbuf[dbuf_pos++] = (UChar)(v | 0x80);
		v >>= 7;
	}
	dbuf[dbuf_pos++] = (UChar)v;
}

/* Whether two 32-byte registers differ, without a call to memcmp. */
static inline Bool ymm_differs(const U256 *a, const U256 *b)
{
	ULong x[4], y[4];

	__builtin_memcpy(x, a, 32);
	__builtin_memcpy(y, b, 32);
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		(x[3] ^ y[3])) != 0;
}

Bool hwtrec_data_open(const HChar *path)
{
	struct vg_stat st;
	SysRes sr = VG_(open)(path, VKI_O_WRONLY | VKI_O_APPEND, 0);

	if (sr_isError(sr)) {
		VG_(umsg)("hwtrec: cannot open the data log %s (error %lu); "
			  "the recording keeps control flow only\n", path,
			  sr_Err(sr));
		return False;
	}
	if (VG_(fstat)((Int)sr_Res(sr), &st) < 0) {
		VG_(close)((Int)sr_Res(sr));
		return False;
	}
	/* Not empty: this image came from an exec of the traced process, and
	 * the log is the old image's.  The last image is the one the end
	 * state (the core) is of, and usually the one that matters (a shell
	 * or a wrapper that execs the program): it is logged, afresh; the
	 * reader places the log at the end of the history (values.c). */
	if (st.size != 0) {
		VG_(close)((Int)sr_Res(sr));
		sr = VG_(open)(path, VKI_O_WRONLY | VKI_O_APPEND | VKI_O_TRUNC,
			       0);
		if (sr_isError(sr)) {
			VG_(umsg)("hwtrec: cannot start the data log %s again "
				  "after the exec (error %lu); the recording "
				  "keeps control flow only\n", path,
				  sr_Err(sr));
			return False;
		}
	}
	data_fd = VG_(safe_fd)((Int)sr_Res(sr));
	if (data_fd < 0)
		return False;
	/* Live mode opens one log per session: each starts afresh. */
	if (!dbuf)
		dbuf = VG_(malloc)("hwtrec.data.buf", DBUF_SIZE);
	if (!dthreads)
		dthreads = VG_(calloc)("hwtrec.data.threads", VG_N_THREADS + 1,
				       sizeof(*dthreads));
	else
		VG_(memset)(dthreads, 0, (VG_N_THREADS + 1) * sizeof(*dthreads));
	dbuf_pos = 0;
	written = 0;
	crc_mark = 0;
	crc_of_segment = 0;
	nseek = 0;
	log_crc32_init();
	dcur = NULL;
	dcur_tid = 0;
	logged = NULL;
	global_count = 0;
	hwtrec_data_forget_readable();
	wide_pending();
	dbytes(HWTR_VALUES_MAGIC, 8);
	d32(HWTR_VALUES_VERSION);
	d32(HWTR_VALUES_HEADER_SIZE);
	hwtrec_data_on = True;
	return True;
}

/* Every record so far is complete: say how far each thread got, and
 * what follows (HWTR_VALUES_SYNC_*).  Returns the record's offset. */
static ULong put_sync(UChar end)
{
	UInt n = 0, i;
	ULong at;

	for (i = 1; i <= VG_N_THREADS; i++)
		n += dthreads[i].known;
	dneed(6);
	at = written + dbuf_pos;
	d8(HWTR_VREC_SYNC);
	d8(end);
	d32(n);
	/* An entry at a time: with --max-threads in the thousands the whole
	 * record may not fit DBUF_SIZE. */
	for (i = 1; i <= VG_N_THREADS; i++)
		if (dthreads[i].known) {
			dneed(12);
			d32((UInt)dthreads[i].lwpid);
			d64(dthreads[i].count);
		}
	return at;
}

/* After the END sync at END_SYNC: the seek table and the footer that
 * finds it (values-format.h, "Seeking"). */
static void put_seek_table(ULong end_sync)
{
	ULong table;
	UInt i, crc;

	dneed(1 + 8 + 4);
	crc = crc_segment_end();
	if (nseek)
		seek[nseek - 1].crc = crc;
	table = written + dbuf_pos;
	d8(HWTR_VREC_SEEK);
	d64(end_sync);
	d32(nseek);
	for (i = 0; i < nseek; i++) {
		dneed(HWTR_VALUES_SEEK_ENTRY_SIZE);
		d64(seek[i].offset);
		d64(seek[i].pos);
		d32(seek[i].lwpid);
		d32(seek[i].crc);
	}
	crc = crc_segment_end();
	dneed(HWTR_VALUES_FOOTER_SIZE);
	d64(table);
	d32(crc);
	d32(0);
	dbytes(HWTR_VALUES_SEEK_MAGIC, 8);
}

void hwtrec_data_flush(Bool end)
{
	if (!hwtrec_data_on)
		return;
	if (end)
		put_seek_table(put_sync(HWTR_VALUES_SYNC_END));
	else
		put_sync(HWTR_VALUES_SYNC_MORE);
	data_write_out();
	if (end) {
		VG_(close)(data_fd);
		data_fd = -1;
		hwtrec_data_on = False;
	}
}

/* Live mode: the debugger stopped the program; everything up to here goes
 * into the log, which says that the live state is its end for now. */
void hwtrec_data_flush_stopped(void)
{
	if (!hwtrec_data_on)
		return;
	put_sync(HWTR_VALUES_SYNC_STOPPED);
	data_write_out();
}

void hwtrec_data_detach(void)
{
	if (data_fd >= 0)
		VG_(close)(data_fd);
	data_fd = -1;
	dbuf_pos = 0;
	hwtrec_data_on = False;
}

void hwtrec_data_thread_running(ThreadId tid)
{
	struct data_thread *t;

	if (!hwtrec_data_on)
		return;
	t = &dthreads[tid];
	if (!t->known) {
		VG_(memset)(t, 0, sizeof(*t));
		t->known = True;
		t->lwpid = VG_(gettid)();
	}
	dcur = t;
	dcur_tid = tid;
	wide_pending();	/* the scheduler ran */
}

void hwtrec_data_thread_exit(ThreadId tid)
{
	if (!hwtrec_data_on)
		return;
	/* A fatal signal at a faulting instruction reaches no handler (no
	 * pre_deliver_signal): that instruction did not run either. */
	hwtrec_data_uncount_fault(tid, VG_(get_IP)(tid));
	/* Its count goes into a sync before the ThreadId is reused. */
	hwtrec_data_flush(False);
	dthreads[tid].known = False;
	if (dcur == &dthreads[tid]) {
		dcur = NULL;
		dcur_tid = 0;
	}
	if (logged == &dthreads[tid])
		logged = NULL;
}

static void put_thread(void)
{
	dneed(21);
	d8(HWTR_VREC_THREAD);
	d32((UInt)dcur->lwpid);
	d64(dcur->count);
	d64(global_count);
	logged = dcur;
	last_stamp = dcur->count;
	last_addr = 0;
}

/* A restart point before the running thread's next instruction, a full
 * snapshot: a THREAD record there, and its entry in the seek table (the
 * segment before it ends). */
static void put_restart(void)
{
	UInt crc;

	dneed(21);
	if (nseek == cap_seek) {
		cap_seek = cap_seek ? 2 * cap_seek : 1024;
		seek = VG_(realloc)("hwtrec.data.seek", seek,
				    cap_seek * sizeof(*seek));
	}
	crc = crc_segment_end();
	if (nseek)
		seek[nseek - 1].crc = crc;
	seek[nseek++] = (struct seek_entry){ .offset = written + dbuf_pos,
		.pos = dcur->count, .lwpid = (UInt)dcur->lwpid };
	put_thread();
}

/* The running thread's position, as a record gives it: the difference
 * from the last record's (values-format.h).  Positions only grow within a
 * thread's slice; should one not, a THREAD record restates it. */
static inline ULong pos_delta(void)
{
	ULong pos, delta;

	if (UNLIKELY(logged != dcur))
		put_thread();
	pos = dcur->count;
	if (UNLIKELY(pos < last_stamp))
		put_thread();
	delta = pos - last_stamp;
	last_stamp = pos;
	return delta;
}

/* ------------------------------------------------------------ registers */

/* VEX keeps rax rcx rdx rbx rsp rbp rsi rdi; GDB numbers rax rbx rcx rdx
 * rsi rdi rbp rsp. */
static const UChar vex_gpr_of_gdb[16] = { 0, 3, 1, 2, 6, 7, 5, 4,
					  8, 9, 10, 11, 12, 13, 14, 15 };

static inline ULong gpr_value(const VexGuestAMD64State *gs, UInt gdb)
{
	return (&gs->guest_RAX)[vex_gpr_of_gdb[gdb]];
}

static inline const U256 *ymm_value(const VexGuestAMD64State *gs, UInt i)
{
	return &(&gs->guest_YMM0)[i];
}

/* The mask bits (HWTR_VREG_*) a write to guest state [OFFSET,
 * OFFSET+SIZE) may change. */
ULong hwtrec_data_regs_written(Int offset, Int size)
{
	ULong mask = 0;
	Int end = offset + size;
	UInt i;

#define OVERLAPS(field, len) \
	(offset < (Int)offsetof(VexGuestAMD64State, field) + (Int)(len) && \
	 end > (Int)offsetof(VexGuestAMD64State, field))
	for (i = 0; i < 16; i++) {
		Int o = (Int)(offsetof(VexGuestAMD64State, guest_RAX) +
			      8 * vex_gpr_of_gdb[i]);

		if (offset < o + 8 && end > o)
			mask |= 1ull << (HWTR_VREG_GPR0 + i);
	}
	if (OVERLAPS(guest_CC_OP, 32) || OVERLAPS(guest_DFLAG, 8) ||
	    OVERLAPS(guest_IDFLAG, 8) || OVERLAPS(guest_ACFLAG, 8))
		mask |= 1ull << HWTR_VREG_RFLAGS;
	if (OVERLAPS(guest_FS_CONST, 8))
		mask |= 1ull << HWTR_VREG_FS_BASE;
	if (OVERLAPS(guest_GS_CONST, 8))
		mask |= 1ull << HWTR_VREG_GS_BASE;
	for (i = 0; i < 16; i++) {
		Int o = (Int)(offsetof(VexGuestAMD64State, guest_YMM0) + 32 * i);

		if (offset < o + 32 && end > o)
			mask |= 1ull << (HWTR_VREG_YMM0 + i);
	}
	if (OVERLAPS(guest_FTOP, 4) || OVERLAPS(guest_FPREG, 64) ||
	    OVERLAPS(guest_FPTAG, 8) || OVERLAPS(guest_FPROUND, 8) ||
	    OVERLAPS(guest_FC3210, 8) || OVERLAPS(guest_SSEROUND, 8))
		mask |= 1ull << HWTR_VREG_FPU;
#undef OVERLAPS
	return mask;
}

/* rflags bits VEX keeps outside the flag thunk: DF, ID, AC. */
static inline ULong flags_outside_thunk(const VexGuestAMD64State *gs)
{
	return (gs->guest_DFLAG == (ULong)-1 ? 1ull << 10 : 0) |
	       (gs->guest_IDFLAG == 1 ? 1ull << 21 : 0) |
	       (gs->guest_ACFLAG == 1 ? 1ull << 18 : 0);
}

/* rflags from VEX's flag thunk, the usual operations here
 * (flag-thunk.h), the others by VEX. */
static inline ULong thunk_rflags(const VexGuestAMD64State *gs)
{
	ULong flags;

	if (flag_thunk_flags(gs->guest_CC_OP, gs->guest_CC_DEP1,
			     gs->guest_CC_DEP2, &flags))
		return flags | flags_outside_thunk(gs);
	return LibVEX_GuestAMD64_get_rflags(gs);
}

/* The FPU state as the log gives it (HWTR_VREG_FPU, values-format.h). */
static void fpu_state(const VexGuestAMD64State *gs,
		      UChar fpu[HWTR_VREG_FPU_SIZE])
{
	UShort c3210 = (UShort)(gs->guest_FC3210 & 0x4700);

	__builtin_memcpy(fpu + HWTR_VFPU_FPREG, gs->guest_FPREG, 64);
	__builtin_memcpy(fpu + HWTR_VFPU_FPTAG, gs->guest_FPTAG, 8);
	fpu[HWTR_VFPU_FTOP] = (UChar)(gs->guest_FTOP & 7);
	fpu[HWTR_VFPU_FPROUND] = (UChar)(gs->guest_FPROUND & 3);
	__builtin_memcpy(fpu + HWTR_VFPU_FC3210, &c3210, 2);
	fpu[HWTR_VFPU_SSEROUND] = (UChar)(gs->guest_SSEROUND & 3);
	fpu[HWTR_VFPU_SSEROUND + 1] = 0;	/* the 3 bytes after it */
	fpu[HWTR_VFPU_SSEROUND + 2] = 0;
	fpu[HWTR_VFPU_SSEROUND + 3] = 0;
}

/* Whether two FPU states differ, without a call to memcmp. */
static inline Bool fpu_differs(const UChar *a, const UChar *b)
{
	ULong x[HWTR_VREG_FPU_SIZE / 8], y[HWTR_VREG_FPU_SIZE / 8], d = 0;
	UInt i;

	__builtin_memcpy(x, a, HWTR_VREG_FPU_SIZE);
	__builtin_memcpy(y, b, HWTR_VREG_FPU_SIZE);
	for (i = 0; i < HWTR_VREG_FPU_SIZE / 8; i++)
		d |= x[i] ^ y[i];
	return d != 0;
}

/* The wide registers (the ymm, the FPU state) among CHECK that differ from
 * the thread's copy, or all of them for a full snapshot: the copy takes
 * them.  Apart from the narrow ones and not inline: most instructions
 * have none to compare, and the helper at each stays small. */
static __attribute__((noinline)) ULong wide_changes(
	const VexGuestAMD64State *gs, struct data_thread *t, ULong check,
	Bool full)
{
	ULong changed = 0, bits;
	UInt i;

	for (bits = (check >> HWTR_VREG_YMM0) & 0xffff; bits;
	     bits &= bits - 1) {
		i = (UInt)__builtin_ctzll(bits);
		if (full || ymm_differs(ymm_value(gs, i), &t->ymm[i])) {
			__builtin_memcpy(&t->ymm[i], ymm_value(gs, i), 32);
			changed |= 1ull << (HWTR_VREG_YMM0 + i);
		}
	}
	if ((check >> HWTR_VREG_FPU) & 1) {
		UChar fpu[HWTR_VREG_FPU_SIZE];

		fpu_state(gs, fpu);
		if (full || fpu_differs(fpu, t->fpu)) {
			__builtin_memcpy(t->fpu, fpu, HWTR_VREG_FPU_SIZE);
			changed |= 1ull << HWTR_VREG_FPU;
		}
	}
	return changed;
}

/* The values of the CHANGED registers past the narrow ones, in the order
 * of their bits (values-format.h): the ymm, rip (IP), the FPU state. */
static __attribute__((noinline)) void put_wide(const struct data_thread *t,
					       ULong changed, Addr ip)
{
	ULong bits;

	for (bits = (changed >> HWTR_VREG_YMM0) & 0xffff; bits;
	     bits &= bits - 1)
		dbytes(&t->ymm[__builtin_ctzll(bits)], 32);
	if ((changed >> HWTR_VREG_RIP) & 1)
		dvar(ip);
	if ((changed >> HWTR_VREG_FPU) & 1)
		dbytes(t->fpu, HWTR_VREG_FPU_SIZE);
}

/* FULL: a full snapshot (when due: data_thread.full_due_at). */
static inline void log_registers(const VexGuestAMD64State *gs, ULong check,
				 Addr ip, Bool full)
{
	struct data_thread *t = dcur;
	ULong changed = 0, rflags = 0, pos, bits, others;
	UInt i;

	if (UNLIKELY(full)) {
		check = HWTR_VREG_ALL;
		t->last_snapshot = t->count;
		t->full_due_at = t->count + hwtrec_data_snapshot_every;
	}
	/* Only the bits set are visited: most instructions write one
	 * register and the flags. */
	for (bits = check & 0xffff; bits; bits &= bits - 1) {
		ULong v;

		i = (UInt)__builtin_ctzll(bits);
		v = gpr_value(gs, i);
		/* No branch: whether it changed is a coin toss. */
		changed |= (ULong)(full | (v != t->gpr[i])) << i;
		t->gpr[i] = v;
	}
	if ((check >> HWTR_VREG_RFLAGS) & 1) {
		/* The thunk was written: it is almost never the one that gave
		 * the last value (1% on gzip), so no compare of it first. */
		rflags = thunk_rflags(gs);
		changed |= (ULong)(full | (rflags != t->rflags)) <<
			   HWTR_VREG_RFLAGS;
		t->rflags = rflags;
	}
	if (UNLIKELY(check & (3ull << HWTR_VREG_FS_BASE))) {
		if (((check >> HWTR_VREG_FS_BASE) & 1) &&
		    (full || gs->guest_FS_CONST != t->fs_base)) {
			t->fs_base = gs->guest_FS_CONST;
			changed |= 1ull << HWTR_VREG_FS_BASE;
		}
		if (((check >> HWTR_VREG_GS_BASE) & 1) &&
		    (full || gs->guest_GS_CONST != t->gs_base)) {
			t->gs_base = gs->guest_GS_CONST;
			changed |= 1ull << HWTR_VREG_GS_BASE;
		}
	}
	if (UNLIKELY(check & (HWTREC_DATA_YMM_BITS | HWTREC_DATA_FPU_BIT)))
		changed |= wide_changes(gs, t, check, full);
	if (full)
		changed |= 1ull << HWTR_VREG_RIP;
	if (!changed)
		return;
	pos = pos_delta();
	/* At most: every 8-byte register a full varint, every ymm, the FPU
	 * state. */
	dneed(1 + 2 * VARINT_MAX + 20 * VARINT_MAX + 16 * 32 +
	      HWTR_VREG_FPU_SIZE);
	others = changed & ~(1ull << HWTR_VREG_RFLAGS);
	if (!(others & (others - 1))) {	/* one register, with flags or not */
		UInt bit = others ? (UInt)__builtin_ctzll(others)
				  : HWTR_VREG_RFLAGS;

		d8(HWTR_VREC_REGS_ONE | bit |
		   (others && changed != others ? HWTR_VREC_REGS_AND_FLAGS : 0));
		dvar(pos);
	} else {
		d8(HWTR_VREC_REGS);
		dvar(pos);
		dvar(changed);
	}
	for (bits = changed & 0xffff; bits; bits &= bits - 1)
		dvar(t->gpr[__builtin_ctzll(bits)]);
	if ((changed >> HWTR_VREG_RFLAGS) & 1)
		dvar(t->rflags);
	if (UNLIKELY(changed & ~((1ull << HWTR_VREG_YMM0) - 1 -
				 (1ull << HWTR_VREG_FS_BASE) -
				 (1ull << HWTR_VREG_GS_BASE)))) {
		if ((changed >> HWTR_VREG_FS_BASE) & 1)
			dvar(t->fs_base);
		if ((changed >> HWTR_VREG_GS_BASE) & 1)
			dvar(t->gs_base);
		put_wide(t, changed, ip);
	}
}

/* Called at each instruction: IP, CHECK the registers that may have
 * changed since the last one, FLAGS HWTREC_DATA_INSN_*. */
void hwtrec_data_insn(VexGuestAMD64State *gs, ULong check, Addr ip,
		      UWord flags)
{
	struct data_thread *t = dcur;
	Bool full;

	/* Live mode: a thread the debugger stopped in the middle of a block
	 * resumes its trace here, at its first instruction after the stop,
	 * as the decoder counts it. */
	if (UNLIKELY(!hwtrec_active) && hwtrec_data_on)
		hwtrec_resume_stopped_thread();
	if (!hwtrec_data_on || !t || !hwtrec_active) {
		wide_pending();	/* not compared here */
		return;
	}
	if ((flags & HWTREC_DATA_INSN_REP) && t->last_ip == ip &&
	    t->count != 0)
		return;		/* the next pass of the same REP */
	if (flags & HWTREC_DATA_INSN_FIRST) {
		check = (check & ~HWTREC_DATA_NARROW_BITS) |
			hwtrec_data_narrow_pending;
		if (!hwtrec_data_ymm_pending)
			check &= ~HWTREC_DATA_YMM_BITS;
		if (!hwtrec_data_fpu_pending)
			check &= ~HWTREC_DATA_FPU_BIT;
		hwtrec_data_ymm_pending = 0;
		hwtrec_data_fpu_pending = 0;
	}
	/* The thread's slice starts before its first instruction, so that
	 * every instruction of the slice maps to the global count; a full
	 * snapshot starts one too, a restart point. */
	full = t->count + 1 >= t->full_due_at;
	if (UNLIKELY(full)) {
		/* A restated snapshot stays in the segment of the restart
		 * point before the one it replaces: that THREAD record gives
		 * the same position, and a reader from it reads both. */
		if (!t->restate_snapshot)
			put_restart();
		else if (logged != t)
			put_thread();
		t->restate_snapshot = False;
	} else if (UNLIKELY(logged != t))
		put_thread();
	t->count++;
	global_count++;
	t->last_ip = ip;
	t->last_was_syscall = (flags & HWTREC_DATA_INSN_SYSCALL) != 0;
	log_registers(gs, check, ip, full);
}

/* A signal is delivered to TID at IP: if that is the instruction it last
 * counted, that instruction faulted and did not run (a system call that
 * is restarted after a handler did run).  If it had a full snapshot, that
 * snapshot's rip is the faulting instruction's and the handler's first
 * instruction (or the next one, after a fatal signal none) comes at the
 * same position: it restates the snapshot, which replaces the first
 * (values-format.h, HWTR_VREC_REGS). */
void hwtrec_data_uncount_fault(ThreadId tid, Addr ip)
{
	struct data_thread *t;

	wide_pending();	/* a signal frame or handler next */
	if (!hwtrec_data_on || !dthreads[tid].known)
		return;
	t = &dthreads[tid];
	if (t->count == 0 || t->last_ip != ip || t->last_was_syscall)
		return;
	if (t->last_snapshot == t->count) {
		t->restate_snapshot = True;
		t->full_due_at = 0;
	}
	t->count--;
	global_count--;
	t->last_ip = 0;
	/* The thread's next record restates where it stands. */
	if (logged == t)
		logged = NULL;
}

/* --------------------------------------------------------------- memory */

static Bool readable(Addr a, SizeT size)
{
	NSegment const *seg;

	if (a >= readable_lo && a + size <= readable_hi && a + size >= a)
		return True;
	if (!VG_(am_is_valid_for_client)(a, size, VKI_PROT_READ))
		return False;
	seg = VG_(am_find_nsegment)(a);
	if (seg && a + size <= seg->end + 1) {
		readable_lo = seg->start;
		readable_hi = seg->end + 1;
	}
	return True;
}

/* Address A as a memory record gives it: the difference from the last
 * one's, zigzag (values-format.h, daddr). */
static inline ULong addr_delta(Addr a)
{
	Long d = (Long)(a - last_addr);

	last_addr = a;
	return ((ULong)d << 1) ^ (ULong)(d >> 63);
}

static void put_unknown(Addr a, SizeT len)
{
	ULong pos;

	if (!dcur)
		return;		/* before the first instruction */
	pos = pos_delta();

	dneed(1 + 3 * VARINT_MAX);
	d8(HWTR_VREC_UNKNOWN);
	dvar(pos);
	dvar(addr_delta(a));
	dvar(len);
}

static void put_store(Addr a, SizeT size)
{
	ULong pos;

	if (!readable(a, size))
		return;		/* it faults: nothing is written */
	pos = pos_delta();
	dneed(1 + 3 * VARINT_MAX + (UInt)size);
	d8(HWTR_VREC_STORE);
	dvar(pos);
	dvar(addr_delta(a));
	dvar(size);
	dbytes((const void *)a, (UInt)size);
}

/* Before a store of SIZE bytes at A by the running thread. */
void hwtrec_data_store(Addr a, UWord size)
{
	if (!hwtrec_data_on || !dcur)
		return;
	put_store(a, size);
}

/* Before the kernel (or Valgrind for it: a signal frame) writes [A, A+SIZE)
 * for thread TID. */
void hwtrec_data_kernel_write(ThreadId tid, Addr a, SizeT size)
{
	if (!hwtrec_data_on || size == 0)
		return;
	if (tid != dcur_tid)
		hwtrec_data_thread_running(tid);
	if (size > LARGE_KERNEL_WRITE) {
		put_unknown(a, size);
		return;
	}
	while (size) {
		SizeT n = size > 4096 - (a & 4095) ? 4096 - (a & 4095) : size;

		put_store(a, n);
		a += n;
		size -= n;
	}
}

/* [A, A+LEN) appeared or went away: what it held before is not known. */
void hwtrec_data_memory_unknown(Addr a, SizeT len)
{
	if (!hwtrec_data_on || len == 0)
		return;
	readable_lo = 1;
	readable_hi = 0;
	put_unknown(a, len);
}

/* Protection changed: forget the cached readable range. */
void hwtrec_data_forget_readable(void)
{
	readable_lo = 1;
	readable_hi = 0;
}
