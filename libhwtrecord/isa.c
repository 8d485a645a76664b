/* isa.c: instruction lengths and classes per instruction set (see isa.h).
 * Not done yet: classifying A64/A32/T32 instructions from their bytes
 * (OpenCSD classifies every range's last instruction, so nothing needs it). */
#include "isa.h"

#include "error.h"
#include "x86-class.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

struct isa {
	csh x86;
	cs_insn *insn;		/* scratch for cs_disasm_iter */
};

int isa_open(struct isa **out)
{
	struct isa *isa = calloc(1, sizeof(*isa));

	if (!isa)
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &isa->x86) != CS_ERR_OK) {
		free(isa);
		return hwtr_fail(hwtr_err_nomem, "capstone: cannot open x86-64");
	}
	isa->insn = cs_malloc(isa->x86);
	if (!isa->insn) {
		cs_close(&isa->x86);
		free(isa);
		return hwtr_fail(hwtr_err_nomem, "out of memory");
	}
	*out = isa;
	return 0;
}

void isa_close(struct isa *isa)
{
	if (!isa)
		return;
	cs_free(isa->insn, 1);
	cs_close(&isa->x86);
	free(isa);
}

size_t isa_fixed_length(enum hwtr_isa set)
{
	return set == hwtr_isa_a64 || set == hwtr_isa_a32 ? 4 : 0;
}

size_t isa_max_length(enum hwtr_isa set)
{
	return set == hwtr_isa_x86_64 ? 15 : 4;
}

/* A T32 instruction is 32 bits when its first halfword's top five bits are
 * 0b11101, 0b11110 or 0b11111 (Arm ARM, T32 instruction set encoding). */
static size_t t32_length(const uint8_t *code, size_t avail)
{
	unsigned hw, top;

	if (avail < 2)
		return 0;
	hw = (unsigned)code[0] | (unsigned)code[1] << 8;
	top = hw >> 11;
	if (top == 0x1d || top == 0x1e || top == 0x1f)
		return avail >= 4 ? 4 : 0;
	return 2;
}

static size_t x86_length(struct isa *isa, const uint8_t *code, size_t avail,
			 uint64_t ip)
{
	uint64_t addr = ip;

	if (!cs_disasm_iter(isa->x86, &code, &avail, &addr, isa->insn))
		return 0;
	return isa->insn->size;
}

size_t isa_length(struct isa *isa, enum hwtr_isa set, const uint8_t *code,
		  size_t avail, uint64_t ip)
{
	switch (set) {
	case hwtr_isa_x86_64:
		return x86_length(isa, code, avail, ip);
	case hwtr_isa_t32:
		return t32_length(code, avail);
	case hwtr_isa_a64:
	case hwtr_isa_a32:
		return avail >= 4 ? 4 : 0;
	}
	return 0;
}

/* Capstone does not know every instruction (CET's rdsspq, newer
 * extensions).  The block tells how many instructions lie between its first
 * IP and its last: the unknown instruction's length is the one after which
 * the rest of the block decodes to exactly that. */
size_t isa_guess_length(struct isa *isa, const uint8_t *buf, size_t have,
			uint64_t base, uint64_t ip, size_t left_insns,
			uint64_t end_ip)
{
	size_t len;

	for (len = 1; len <= 15; len++) {
		uint64_t pos = ip + len;
		size_t k = 1;

		while (k < left_insns && pos < end_ip && pos + 1 <= base + have) {
			size_t n = x86_length(isa, buf + (pos - base),
					      have - (size_t)(pos - base), pos);

			if (!n)
				break;
			pos += n;
			k++;
		}
		if (k == left_insns && pos == end_ip)
			return len;
	}
	return 0;
}

/* Only the opcode decides the class: read without Capstone, which would
 * format the instruction's text (x86-class.c). */
enum hwtr_insn_class isa_classify(struct isa *isa, enum hwtr_isa set,
				  const uint8_t *code, size_t avail, uint64_t ip)
{
	if (set != hwtr_isa_x86_64)
		return hwtr_ic_unknown;
	return x86_class(code, avail);
}

bool isa_is_pic_call(enum hwtr_isa set, const uint8_t *code, size_t avail)
{
	return set == hwtr_isa_x86_64 && avail >= 1 && code[0] == 0xe8;
}

bool isa_sigreturn_code(enum hwtr_isa set, const uint8_t **code, size_t *len,
			size_t *lead)
{
	/* mov $15, %rax; syscall (GDB's amd64_linux_sigtramp_code) */
	static const uint8_t x86_64[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00,
					  0x00, 0x0f, 0x05 };
	/* mov x8, #139; svc #0 (GDB's aarch64_linux_rt_sigframe) */
	static const uint8_t aarch64[] = { 0x68, 0x11, 0x80, 0xd2,
					   0x01, 0x00, 0x00, 0xd4 };

	if (set == hwtr_isa_x86_64) {
		*code = x86_64;
		*len = sizeof(x86_64);
		*lead = 7;
		return true;
	}
	if (set == hwtr_isa_a64) {
		*code = aarch64;
		*len = sizeof(aarch64);
		*lead = 4;
		return true;
	}
	return false;
}
