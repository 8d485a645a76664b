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
			first = False;
			continue;
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

	switch (last_class) {
	case bc_cond:
		if (!last_cond_seen)
			add_call(out, "hwtrec_on_cond_end", hwtrec_on_cond_end,
				 mkIRExprVec_3(out->next, hword(target),
					       hword(last_addr + last_len)), NULL);
		break;
	case bc_call:
		add_call(out, "hwtrec_on_call", hwtrec_on_call,
			 mkIRExprVec_1(hword(last_addr + last_len)), NULL);
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
