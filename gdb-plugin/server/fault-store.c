/* fault-store.c: does an instruction store where there is no memory?
 * (fault-store.h).  Capstone gives the memory operands and whether each is
 * written; pushes and calls write below the stack pointer without an
 * operand saying so. */
#include "fault-store.h"
#include "x86-gpr.h"

#include <capstone/capstone.h>

/* The address a memory operand names; false if it cannot be known. */
static bool operand_address(const cs_insn *insn, const x86_op_mem *mem,
			    const struct fault_store_regs *regs, uint64_t *addr)
{
	uint64_t a = (uint64_t)mem->disp;
	int i;

	if (mem->base == X86_REG_RIP)
		a += insn->address + insn->size;
	else if (mem->base != X86_REG_INVALID) {
		if ((i = x86_gpr_index(mem->base)) < 0)
			return false;	/* a 32-bit address, say */
		a += regs->gpr[i];
	}
	if (mem->index != X86_REG_INVALID) {
		if ((i = x86_gpr_index(mem->index)) < 0)
			return false;	/* a vector index (gathers) */
		a += regs->gpr[i] * (uint64_t)mem->scale;
	}
	if (mem->segment == X86_REG_FS) {
		if (!regs->fs_base_known)
			return false;
		a += regs->fs_base;
	} else if (mem->segment == X86_REG_GS) {
		if (!regs->gs_base_known)
			return false;
		a += regs->gs_base;
	}
	*addr = a;
	return true;
}

static bool missing(uint64_t addr, size_t size, fault_store_readable readable,
		    void *ctx)
{
	return addr != 0 && size > 0 && !readable(ctx, addr, size);
}

bool fault_store_to_missing(const uint8_t *code, size_t len, uint64_t pc,
			    const struct fault_store_regs *regs,
			    fault_store_readable readable, void *ctx)
{
	csh handle;
	cs_insn *insn = NULL;
	bool found = false;
	size_t i;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return false;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	if (cs_disasm(handle, code, len, pc, 1, &insn) != 1)
		goto out;
	switch (insn->id) {
	case X86_INS_PUSH:
	case X86_INS_PUSHFQ:
	case X86_INS_CALL:
		/* The return address or the value, below the stack pointer. */
		found = missing(regs->gpr[7] - 8, 8, readable, ctx);
		goto out;
	default:
		break;
	}
	for (i = 0; i < insn->detail->x86.op_count; i++) {
		const cs_x86_op *op = &insn->detail->x86.operands[i];
		uint64_t addr;

		if (op->type != X86_OP_MEM || !(op->access & CS_AC_WRITE))
			continue;
		if (!operand_address(insn, &op->mem, regs, &addr))
			continue;
		if (missing(addr, op->size, readable, ctx)) {
			found = true;
			break;
		}
	}
out:
	if (insn)
		cs_free(insn, 1);
	cs_close(&handle);
	return found;
}
