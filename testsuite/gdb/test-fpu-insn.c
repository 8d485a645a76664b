/* test-fpu-insn.c: fpu_insn_may_change (gdb-plugin/server/fpu-insn.c)
 * never says no for an instruction that changes the x87 state or mxcsr.
 *
 * The oracle is Capstone: an instruction it puts in its FPU or MMX group,
 * that names an x87 or MMX register or the x87 status word, or that is
 * one of the few that load the state (fxrstor, xrstor, ldmxcsr, emms) or
 * enter the kernel, must be answered yes.  Over every encoding of the x87
 * and two-byte opcodes with each SSE prefix and a spread of ModRM bytes,
 * and over the code of libc and libm.  And some that cannot change it are
 * answered no (the answer is not always yes).
 */
#include "fpu-insn.h"
#include "check-main.h"

#include <capstone/capstone.h>
#include <check.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

/* Debian's multiarch paths, as test-x86-class.c. */
#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBM_PATH "/lib/x86_64-linux-gnu/libm.so.6"

static csh cs;

static void open_capstone(void)
{
	ck_assert_int_eq(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
}

static void close_capstone(void)
{
	cs_close(&cs);
}

static bool names_fpu_register(unsigned reg)
{
	return (reg >= X86_REG_ST0 && reg <= X86_REG_ST7) ||
	       (reg >= X86_REG_MM0 && reg <= X86_REG_MM7) ||
	       reg == X86_REG_FPSW;
}

/* Capstone's word: whether INSN changes the x87 state or mxcsr. */
static bool changes_fpu(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;
	unsigned i;

	switch (insn->id) {
	case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
	case X86_INS_XRSTOR: case X86_INS_XRSTOR64:
	case X86_INS_XRSTORS: case X86_INS_XRSTORS64:
	case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
	case X86_INS_EMMS: case X86_INS_FEMMS:
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT:
		return true;
	default:
		break;
	}
	for (i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == X86_GRP_FPU ||
		    insn->detail->groups[i] == X86_GRP_MMX ||
		    insn->detail->groups[i] == X86_GRP_3DNOW)
			return true;
	for (i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_REG &&
		    names_fpu_register(x86->operands[i].reg))
			return true;
	for (i = 0; i < insn->detail->regs_write_count; i++)
		if (names_fpu_register(insn->detail->regs_write[i]))
			return true;
	return false;
}

/* Every instruction Capstone decodes from CODE (SIZE bytes); how many. */
static unsigned check_code(const uint8_t *code, size_t size, uint64_t addr)
{
	cs_insn *insn = cs_malloc(cs);
	const uint8_t *p = code;
	unsigned n = 0;

	while (size) {
		if (!cs_disasm_iter(cs, &p, &size, &addr, insn)) {
			p++, size--, addr++;
			continue;
		}
		n++;
		if (changes_fpu(insn))
			ck_assert_msg(fpu_insn_may_change(insn->bytes,
							  insn->size),
				      "%s %s at 0x%llx: no", insn->mnemonic,
				      insn->op_str,
				      (unsigned long long)insn->address);
	}
	cs_free(insn, 1);
	return n;
}

START_TEST(every_opcode_that_changes_the_fpu_is_answered_yes)
{
	static const uint8_t prefixes[][2] = { { 0 }, { 1, 0x66 },
					       { 1, 0xf2 }, { 1, 0xf3 } };
	static const uint8_t modrms[] = { 0x00, 0x08, 0x10, 0x18, 0x28,
					  0x38, 0xc0, 0xc9, 0xd2, 0xe8,
					  0xf0, 0xf8, 0xff };
	unsigned op, m, p, decoded = 0;

	for (p = 0; p < 4; p++)
		for (op = 0; op < 0x300; op++)
			for (m = 0; m < sizeof(modrms); m++) {
				uint8_t code[16] = { 0 };
				size_t n = 0;

				if (prefixes[p][0])
					code[n++] = prefixes[p][1];
				if (op < 0x100) {
					code[n++] = (uint8_t)op;	/* one-byte */
				} else {
					code[n++] = 0x0f;
					if (op >= 0x200)	/* 0f 38 xx */
						code[n++] = 0x38;
					code[n++] = (uint8_t)op;
				}
				code[n++] = modrms[m];
				n += 6;	/* displacement, immediate: 0 */
				cs_insn *insn;

				if (cs_disasm(cs, code, n, 0x1000, 1, &insn) == 1) {
					decoded++;
					if (changes_fpu(insn))
						ck_assert_msg(fpu_insn_may_change(
							insn->bytes, insn->size),
							"%s %s (%02x %02x %02x "
							"%02x): no", insn->mnemonic,
							insn->op_str, code[0],
							code[1], code[2], code[3]);
					cs_free(insn, 1);
				}
			}
	ck_assert_uint_gt(decoded, 10000);
}
END_TEST

/* The executable sections of the ELF file at PATH: how many instructions. */
static unsigned check_elf(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	unsigned n = 0;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			n += check_code(data->d_buf, data->d_size, sh.sh_addr);
	}
	elf_end(elf);
	close(fd);
	return n;
}

START_TEST(every_instruction_of_libc_and_libm)
{
	ck_assert_uint_gt(check_elf(LIBC_PATH), 100000);
	ck_assert_uint_gt(check_elf(LIBM_PATH), 10000);
}
END_TEST

START_TEST(instructions_that_cannot_change_it_are_answered_no)
{
	static const struct { uint8_t n, b[8]; } cases[] = {
		{ 3, { 0x48, 0x89, 0xc3 } },		/* mov %rax,%rbx */
		{ 4, { 0xf2, 0x0f, 0x58, 0xc1 } },	/* addsd %xmm1,%xmm0 */
		{ 4, { 0x66, 0x0f, 0xef, 0xc0 } },	/* pxor %xmm0,%xmm0 */
		{ 5, { 0xf2, 0x0f, 0x2c, 0x45, 0xf8 } },	/* cvttsd2si */
		{ 1, { 0xc3 } },			/* ret */
		{ 3, { 0x0f, 0x1f, 0x00 } },		/* nopl */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(!fpu_insn_may_change(cases[i].b, cases[i].n),
			      "case %zu: yes", i);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("fpu-insn");

	tcase_add_checked_fixture(tc, open_capstone, close_capstone);
	tcase_add_test(tc, every_opcode_that_changes_the_fpu_is_answered_yes);
	tcase_add_test(tc, every_instruction_of_libc_and_libm);
	tcase_add_test(tc, instructions_that_cannot_change_it_are_answered_no);
	tcase_set_timeout(tc, 120);
	return check_run_tcase("fpu-insn", tc);
}
