/* instrument.c: add the branch observers to each superblock.
 *
 * Valgrind runs with --vex-guest-chase=no, so a superblock ends at the first
 * branch and its last instruction decides what PT would emit for the block
 * end: nothing for direct jumps and calls (calls push the return-compression
 * stack), a TIP for indirect jumps and calls, TNT-or-TIP for returns.  A
 * conditional branch becomes a side exit (Ist_Exit); we call hwt_on_cond with
 * its guard just before the exit, so the helper runs whichever way it goes.
 * If the optimiser removed the exit (a constant condition) the block end
 * tells the direction instead.  System calls and signals are seen through
 * Valgrind's callbacks (tool.c), not here.
 *
 * Every block also loads one byte (hwt_pge_pending) and, when a thread comes
 * back from a disable, calls hwt_on_block_entry to emit TIP.PGE.
 */
#include "hwtrec-tool.h"
#include "branch-class.h"

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
			hword((Addr)&hwt_pge_pending))));
	addStmtToIRSB(sb, IRStmt_WrTmp(go, IRExpr_Binop(Iop_CmpNE8,
			IRExpr_RdTmp(flag), IRExpr_Const(IRConst_U8(0)))));
	add_call(sb, "hwt_on_block_entry", hwt_on_block_entry,
		 mkIRExprVec_1(hword(addr)), IRExpr_RdTmp(go));
}

static Bool is_from_function(Addr addr)
{
	const HChar *name;

	return hwt_clo_from &&
	       VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), addr, &name) &&
	       VG_(strcmp)(name, hwt_clo_from) == 0;
}

IRSB *hwt_instrument(VgCallbackClosure *closure, IRSB *in,
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
	if (last_imark < 0)
		return in;
	last_addr = (Addr)in->stmts[last_imark]->Ist.IMark.addr;
	last_len = in->stmts[last_imark]->Ist.IMark.len;
	last_class = branch_classify((const UChar *)last_addr, last_len,
				     last_addr, &target);
	hwt_note_code_address(first_addr);

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
				add_call(out, "hwt_on_redirect", hwt_on_redirect,
					 mkIRExprVec_2(hword(closure->nraddr),
						       hword(closure->readdr)),
					 NULL);
			if (hwt_from_pending && is_from_function(cur_addr))
				add_call(out, "hwt_on_from_entry",
					 hwt_on_from_entry,
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
			add_call(out, "hwt_on_cond", hwt_on_cond,
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
			add_call(out, "hwt_on_cond_end", hwt_on_cond_end,
				 mkIRExprVec_3(out->next, hword(target),
					       hword(last_addr + last_len)), NULL);
		break;
	case bc_call:
		add_call(out, "hwt_on_call", hwt_on_call,
			 mkIRExprVec_1(hword(last_addr + last_len)), NULL);
		break;
	case bc_call_indirect:
		add_call(out, "hwt_on_call_indirect", hwt_on_call_indirect,
			 mkIRExprVec_2(out->next, hword(last_addr + last_len)),
			 NULL);
		break;
	case bc_jump_indirect:
		add_call(out, "hwt_on_jump_indirect", hwt_on_jump_indirect,
			 mkIRExprVec_1(out->next), NULL);
		break;
	case bc_return:
		add_call(out, "hwt_on_return", hwt_on_return,
			 mkIRExprVec_1(out->next), NULL);
		break;
	default:
		break;
	}
	return out;
}
