/* instrument.c: add the branch observers to each superblock.
 *
 * Valgrind runs with --vex-guest-chase=no, so a superblock ends at the first
 * branch and its last instruction decides what PT would emit for the block
 * end: nothing for direct jumps and calls (calls push the return-compression
 * stack), a TIP for indirect jumps and calls, TNT-or-TIP for returns.  A
 * conditional branch becomes a side exit (Ist_Exit); we call hwtrec_on_cond with
 * its guard just before the exit, so the helper runs whichever way it goes.
 * If the optimiser removed the exit (a constant condition) the block end
 * tells the direction instead.  System calls and signals are seen through
 * Valgrind's callbacks (tool.c), not here.
 *
 * Every block also loads one byte (hwtrec_pge_pending) and, when a thread comes
 * back from a disable, calls hwtrec_on_block_entry to emit TIP.PGE.
 *
 * Blocks that end in a signal Valgrind raises itself: int3 (Ijk_SigTRAP) is
 * a trap, it ran, so its thread's trace stops there as at a system call
 * (hwtrec_on_trap); every other such exit is a fault at `next`, which did not
 * run (the FUP at the fault comes from the signal callbacks).  Where VEX
 * could not decode an instruction (Ijk_NoDecode), Valgrind raises SIGILL:
 * right for ud2; for a privileged instruction the tool raises SIGSEGV
 * instead, as the CPU and Linux do; for any other the recorder is told
 * (hwtrec_on_undecodable), since the program may run it natively
 * (insn-fault.c).
 */
#include "hwtrec-tool.h"
#include "branch-class.h"
#include "insn-fault.h"
#include "../../libhwtrecord/values-format.h"

#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"

#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"

static IRExpr *hword(Addr a)
{
	return mkIRExpr_HWord((HWord)a);
}

static void add_call(IRSB *sb, const HChar *name, void *fn, IRExpr **args,
		     IRExpr *guard)
{
	IRDirty *d = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn),
				       args);

	if (guard)
		d->guard = guard;
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

static void add_block_entry(IRSB *sb, Addr addr)
{
	IRTemp flag = newIRTemp(sb->tyenv, Ity_I8);
	IRTemp go = newIRTemp(sb->tyenv, Ity_I1);

	addStmtToIRSB(sb, IRStmt_WrTmp(flag, IRExpr_Load(Iend_LE, Ity_I8,
			hword((Addr)&hwtrec_pge_pending))));
	addStmtToIRSB(sb, IRStmt_WrTmp(go, IRExpr_Binop(Iop_CmpNE8,
			IRExpr_RdTmp(flag), IRExpr_Const(IRConst_U8(0)))));
	add_call(sb, "hwtrec_on_block_entry", hwtrec_on_block_entry,
		 mkIRExprVec_1(hword(addr)), IRExpr_RdTmp(go));
}

static Bool is_from_function(Addr addr)
{
	const HChar *name;

	return hwtrec_clo_from &&
	       VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), addr, &name) &&
	       VG_(strcmp)(name, hwtrec_clo_from) == 0;
}

/* Bytes readable from ADDR, at most MAX (the instruction may end its page). */
UInt hwtrec_readable_bytes(Addr addr, UInt max)
{
	Addr page_end = (addr | (VKI_PAGE_SIZE - 1)) + 1;

	if (VG_(am_is_valid_for_client)(addr, max, VKI_PROT_READ))
		return max;
	if (page_end - addr < max &&
	    VG_(am_is_valid_for_client)(addr, page_end - addr, VKI_PROT_READ))
		return (UInt)(page_end - addr);
	return 0;
}

static void end_undecodable(IRSB *sb)
{
	Addr addr;
	UInt n;

	if (sb->jumpkind != Ijk_NoDecode || sb->next->tag != Iex_Const ||
	    sb->next->Iex.Const.con->tag != Ico_U64)
		return;
	addr = (Addr)sb->next->Iex.Const.con->Ico.U64;
	n = hwtrec_readable_bytes(addr, 16);
	switch (n ? insn_native_fault((const UChar *)addr, n)
		  : insn_fault_unknown) {
	case insn_fault_sigill:
		return;
	case insn_fault_sigsegv:
		sb->jumpkind = Ijk_SigSEGV;
		return;
	case insn_fault_unknown:
		break;
	}
	add_call(sb, "hwtrec_on_undecodable", hwtrec_on_undecodable,
		 mkIRExprVec_1(hword(addr)), NULL);
}


/* ---------------------------------------------------------- the data log */

/* A REP-prefixed string instruction (VEX runs one iteration per pass). */
static Bool rep_string(const UChar *b, UInt len)
{
	Bool rep = False;
	UInt i;

	for (i = 0; i < len; i++) {
		if (b[i] == 0xf2 || b[i] == 0xf3)
			rep = True;
		else if (!(b[i] == 0xf0 || b[i] == 0x2e || b[i] == 0x36 ||
			   b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x64 ||
			   b[i] == 0x65 || b[i] == 0x66 || b[i] == 0x67))
			break;
	}
	if (i < len && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (!rep || i >= len)
		return False;
	return (b[i] >= 0x6c && b[i] <= 0x6f) || (b[i] >= 0xa4 && b[i] <= 0xa7) ||
	       (b[i] >= 0xaa && b[i] <= 0xaf);
}

static Bool syscall_insn(const UChar *b, UInt len)
{
	return len == 2 && b[0] == 0x0f && b[1] == 0x05;
}

/* At the start of each instruction: count it and log the registers that
 * CHECK says may have changed (data-log.c).  The helper reads the guest
 * state, which every instruction leaves up to date
 * (VexRegUpdAllregsAtEachInsn, tool.c). */
static void add_data_insn(IRSB *sb, Addr addr, UInt len, ULong check,
			  Bool first)
{
	UWord flags = first ? HWTREC_DATA_INSN_FIRST : 0;
	IRDirty *d;

	if (len <= 16 && hwtrec_readable_bytes(addr, len) == len) {
		if (rep_string((const UChar *)addr, len))
			flags |= HWTREC_DATA_INSN_REP;
		if (syscall_insn((const UChar *)addr, len))
			flags |= HWTREC_DATA_INSN_SYSCALL;
	}
	d = unsafeIRDirty_0_N(0, "hwtrec_data_insn",
			      VG_(fnptr_to_fnentry)(hwtrec_data_insn),
			      mkIRExprVec_4(IRExpr_GSPTR(),
					    mkIRExpr_HWord((HWord)check),
					    hword(addr),
					    mkIRExpr_HWord(flags)));
	d->nFxState = 1;
	d->fxState[0].fx = Ifx_Read;
	d->fxState[0].offset = 0;
	d->fxState[0].size = sizeof(VexGuestAMD64State);
	d->fxState[0].nRepeats = 0;
	d->fxState[0].repeatLen = 0;
	addStmtToIRSB(sb, IRStmt_Dirty(d));
}

static void add_data_store(IRSB *sb, IRExpr *addr, UInt size, IRExpr *guard)
{
	add_call(sb, "hwtrec_data_store", hwtrec_data_store,
		 mkIRExprVec_2(addr, mkIRExpr_HWord(size)), guard);
}

/* Before ST: log the old bytes of what it stores. */
static void add_data_before(IRSB *sb, const IRStmt *st)
{
	IRTypeEnv *env = sb->tyenv;

	switch (st->tag) {
	case Ist_Store:
		add_data_store(sb, st->Ist.Store.addr, sizeofIRType(
			typeOfIRExpr(env, st->Ist.Store.data)), NULL);
		break;
	case Ist_StoreG: {
		const IRStoreG *g = st->Ist.StoreG.details;

		add_data_store(sb, g->addr, sizeofIRType(typeOfIRExpr(env,
			g->data)), g->guard);
		break;
	}
	case Ist_CAS: {
		const IRCAS *c = st->Ist.CAS.details;
		UInt n = sizeofIRType(typeOfIRExpr(env, c->expdLo));

		add_data_store(sb, c->addr, c->expdHi ? 2 * n : n, NULL);
		break;
	}
	case Ist_LLSC:
		if (st->Ist.LLSC.storedata)
			add_data_store(sb, st->Ist.LLSC.addr, sizeofIRType(
				typeOfIRExpr(env, st->Ist.LLSC.storedata)),
				NULL);
		break;
	case Ist_Dirty: {
		const IRDirty *d = st->Ist.Dirty.details;

		if ((d->mFx == Ifx_Write || d->mFx == Ifx_Modify) && d->mAddr)
			add_data_store(sb, d->mAddr, (UInt)d->mSize, d->guard);
		break;
	}
	default:
		break;
	}
}

static void add_set_flag(IRSB *sb, UChar *flag)
{
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, hword((Addr)flag),
				       IRExpr_Const(IRConst_U8(1))));
}

/* Where the block may leave, after an instruction whose IR so far WRITTEN
 * writes a wide register (a ymm, the FPU state): the next block's first
 * instruction compares them (data-log.c; the next instruction here would,
 * but it is in another block). */
static void add_wide_pending(IRSB *sb, ULong written)
{
	/* The narrow ones always: every block leaves a mask, so that the
	 * next block's first instruction compares those only, not all 19. */
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE,
		hword((Addr)&hwtrec_data_narrow_pending),
		IRExpr_Const(IRConst_U64(written & HWTREC_DATA_NARROW_BITS))));
	if (written & HWTREC_DATA_YMM_BITS)
		add_set_flag(sb, &hwtrec_data_ymm_pending);
	if (written & HWTREC_DATA_FPU_BIT)
		add_set_flag(sb, &hwtrec_data_fpu_pending);
}

/* The registers (HWTR_VREG_* bits) statement ST may write. */
static ULong data_regs_written(const IRSB *sb, const IRStmt *st)
{
	ULong mask = 0;
	Int i, r;

	switch (st->tag) {
	case Ist_Put:
		return hwtrec_data_regs_written(st->Ist.Put.offset, sizeofIRType(
			typeOfIRExpr(sb->tyenv, st->Ist.Put.data)));
	case Ist_Dirty: {
		const IRDirty *d = st->Ist.Dirty.details;

		for (i = 0; i < d->nFxState; i++) {
			if (d->fxState[i].fx == Ifx_Read ||
			    d->fxState[i].fx == Ifx_None)
				continue;
			for (r = 0; r <= d->fxState[i].nRepeats; r++)
				mask |= hwtrec_data_regs_written(
					d->fxState[i].offset +
					r * d->fxState[i].repeatLen,
					d->fxState[i].size);
		}
		return mask;
	}
	case Ist_PutI: {
		/* An indexed write into an array of registers: the x87
		 * stack (guest_FPREG, guest_FPTAG) by FTOP.  `fdivs` writes
		 * st0 so, with no Put of FTOP: any element may change. */
		const IRRegArray *a = st->Ist.PutI.details->descr;

		return hwtrec_data_regs_written(a->base,
			a->nElems * sizeofIRType(a->elemTy));
	}
	default:
		return 0;
	}
}

IRSB *hwtrec_instrument(VgCallbackClosure *closure, IRSB *in,
		     const VexGuestLayout *layout, const VexGuestExtents *vge,
		     const VexArchInfo *archinfo_host, IRType gWordTy,
		     IRType hWordTy)
{
	IRSB *out;
	Int i, last_imark = -1;
	Addr first_addr = 0, last_addr = 0, target = 0, cur_addr = 0;
	UInt last_len = 0, cur_len = 0;
	enum branch_class last_class = bc_other, cur_class = bc_other;
	Addr cur_target = 0;
	Bool last_cond_seen = False, first = True;
	Bool data = hwtrec_data_on || hwtrec_data_live;
	ULong written = 0;	/* registers the instruction so far may write */

	if (gWordTy != Ity_I64)
		VG_(tool_panic)("hwtrec: only x86-64 guests are supported");

	for (i = 0; i < in->stmts_used; i++)
		if (in->stmts[i]->tag == Ist_IMark) {
			if (last_imark < 0)
				first_addr = (Addr)in->stmts[i]->Ist.IMark.addr;
			last_imark = i;
		}
	if (last_imark < 0) {
		end_undecodable(in);
		return in;
	}
	last_addr = (Addr)in->stmts[last_imark]->Ist.IMark.addr;
	last_len = in->stmts[last_imark]->Ist.IMark.len;
	last_class = branch_classify((const UChar *)last_addr, last_len,
				     last_addr, &target);
	hwtrec_note_code_address(first_addr);

	out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(out, in->stmts[i]);

	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark) {
			cur_addr = (Addr)st->Ist.IMark.addr;
			cur_len = st->Ist.IMark.len;
			cur_class = branch_classify((const UChar *)cur_addr,
						    cur_len, cur_addr,
						    &cur_target);
			addStmtToIRSB(out, st);
			if (first && closure->nraddr != closure->readdr)
				add_call(out, "hwtrec_on_redirect", hwtrec_on_redirect,
					 mkIRExprVec_2(hword(closure->nraddr),
						       hword(closure->readdr)),
					 NULL);
			if (hwtrec_from_pending && is_from_function(cur_addr))
				add_call(out, "hwtrec_on_from_entry",
					 hwtrec_on_from_entry,
					 mkIRExprVec_1(hword(cur_addr)), NULL);
			if (first)
				add_block_entry(out, first_addr);
			if (data)
				add_data_insn(out, cur_addr, cur_len,
					      first ? ~0ull : written, first);
			written = 0;
			first = False;
			continue;
		}
		if (data) {
			written |= data_regs_written(in, st);
			add_data_before(out, st);
			if (st->tag == Ist_Exit)
				add_wide_pending(out, written);
		}
		if (st->tag == Ist_Exit && cur_class == bc_cond &&
		    st->Ist.Exit.jk == Ijk_Boring &&
		    st->Ist.Exit.dst->tag == Ico_U64) {
			Addr dst = (Addr)st->Ist.Exit.dst->Ico.U64;
			Addr fall = cur_addr + cur_len;
			UWord inverted = dst == fall && dst != cur_target;
			IRTemp g = newIRTemp(out->tyenv, Ity_I64);

			addStmtToIRSB(out, IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64,
					st->Ist.Exit.guard)));
			add_call(out, "hwtrec_on_cond", hwtrec_on_cond,
				 mkIRExprVec_4(IRExpr_RdTmp(g), hword(cur_target),
					       hword(fall), mkIRExpr_HWord(inverted)),
				 NULL);
			if (cur_addr == last_addr)
				last_cond_seen = True;
		}
		addStmtToIRSB(out, st);
	}

	if (data)
		add_wide_pending(out, written);
	switch (last_class) {
	case bc_cond:
		if (!last_cond_seen)
			add_call(out, "hwtrec_on_cond_end", hwtrec_on_cond_end,
				 mkIRExprVec_3(out->next, hword(target),
					       hword(last_addr + last_len)), NULL);
		break;
	case bc_call:
		add_call(out, "hwtrec_on_call", hwtrec_on_call,
			 mkIRExprVec_3(hword(last_addr),
				       hword(last_addr + last_len),
				       hword(target)), NULL);
		break;
	case bc_jump:
		/* A forward jump cannot close a cycle (walk_note). */
		if (target <= last_addr)
			add_call(out, "hwtrec_on_jump_back", hwtrec_on_jump_back,
				 mkIRExprVec_2(hword(last_addr), hword(target)),
				 NULL);
		break;
	case bc_call_indirect:
		add_call(out, "hwtrec_on_call_indirect", hwtrec_on_call_indirect,
			 mkIRExprVec_2(out->next, hword(last_addr + last_len)),
			 NULL);
		break;
	case bc_jump_indirect:
		add_call(out, "hwtrec_on_jump_indirect", hwtrec_on_jump_indirect,
			 mkIRExprVec_1(out->next), NULL);
		break;
	case bc_return:
		add_call(out, "hwtrec_on_return", hwtrec_on_return,
			 mkIRExprVec_1(out->next), NULL);
		break;
	default:
		break;
	}
	if (out->jumpkind == Ijk_SigTRAP)
		add_call(out, "hwtrec_on_trap", hwtrec_on_trap, mkIRExprVec_0(), NULL);
	end_undecodable(out);
	return out;
}
