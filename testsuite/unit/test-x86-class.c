/* test-x86-class.c: an x86-64 instruction's class from its opcode
 * (x86-class.c).
 *
 * Oracle: Capstone, a full x86-64 decoder, which the history used before to
 * classify blocks' last instructions.  Every one- and two-byte opcode with
 * every mod and reg field of its ModRM byte, bare and behind the prefixes compilers emit (operand
 * size, REX.W, bnd, notrack, segment, REX not next to the opcode), must get
 * Capstone's class wherever Capstone decodes the bytes; where Capstone does
 * not, the class must not be a branch (libipt decoded the instruction, so
 * its length and class come from elsewhere).  Then real code: every
 * instruction of libc's .text, as Capstone sweeps it, gets Capstone's class.
 */
#include "x86-class.h"
#include "check-main.h"

#include <capstone/capstone.h>
#include <check.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static csh cs;
static cs_insn *insn;

static void open_capstone(void)
{
	ck_assert_int_eq(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	insn = cs_malloc(cs);
	ck_assert_ptr_nonnull(insn);
}

static void close_capstone(void)
{
	cs_free(insn, 1);
	cs_close(&cs);
}

/* Capstone's instruction ids as classes (the mapping isa.c used). */
static enum hwtr_insn_class capstone_class(unsigned id)
{
	switch (id) {
	case X86_INS_CALL: return hwtr_ic_call;
	case X86_INS_RET: return hwtr_ic_return;
	case X86_INS_JMP: return hwtr_ic_jump;
	case X86_INS_LCALL: case X86_INS_SYSCALL: case X86_INS_SYSENTER:
	case X86_INS_INT: case X86_INS_INT3: case X86_INS_INTO:
		return hwtr_ic_far_call;
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
	case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return hwtr_ic_far_return;
	case X86_INS_LJMP: return hwtr_ic_far_jump;
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JE: case X86_INS_JGE:
	case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL: case X86_INS_JNE:
	case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO:
	case X86_INS_JP: case X86_INS_JRCXZ: case X86_INS_JS: case X86_INS_LOOP:
	case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return hwtr_ic_cond_jump;
	default: return hwtr_ic_other;
	}
}

static bool is_branch(enum hwtr_insn_class c)
{
	return c != hwtr_ic_other && c != hwtr_ic_unknown;
}

/* Compare the class of PREFIX + OPCODE (1 or 2 bytes) + MODRM + operand
 * bytes with Capstone's; the number of bytes Capstone decoded counts. */
static unsigned check_one(const uint8_t *prefix, size_t np, const uint8_t *op,
			  size_t nop, uint8_t modrm, unsigned *decoded)
{
	uint8_t bytes[32];
	const uint8_t *p = bytes;
	size_t n = 0, avail;
	uint64_t addr = 0x401000;
	enum hwtr_insn_class ours, theirs;

	memcpy(bytes, prefix, np);
	n = np;
	memcpy(bytes + n, op, nop);
	n += nop;
	bytes[n++] = modrm;
	memset(bytes + n, 0x11, sizeof(bytes) - n);	/* displacements, immediates */
	avail = 16;
	ours = x86_class(bytes, avail);
	if (!cs_disasm_iter(cs, &p, &avail, &addr, insn)) {
		if (is_branch(ours)) {
			fprintf(stderr, "not decoded by capstone, ours %d:", ours);
			for (size_t k = 0; k < n; k++)
				fprintf(stderr, " %02x", bytes[k]);
			fprintf(stderr, "\n");
			return 1;
		}
		return 0;
	}
	(*decoded)++;
	theirs = capstone_class(insn->id);
	if (ours != theirs) {
		fprintf(stderr, "%s %s: ours %d, capstone %d:", insn->mnemonic,
			insn->op_str, ours, theirs);
		for (size_t k = 0; k < n; k++)
			fprintf(stderr, " %02x", bytes[k]);
		fprintf(stderr, "\n");
		return 1;
	}
	return 0;
}

static const struct {
	uint8_t bytes[3];
	size_t n;
} prefixes[] = {
	{ { 0 }, 0 },
	{ { 0x66 }, 1 },		/* operand size */
	{ { 0x48 }, 1 },		/* REX.W */
	{ { 0x41 }, 1 },		/* REX.B */
	{ { 0xf2 }, 1 },		/* bnd */
	{ { 0x3e }, 1 },		/* notrack, ds */
	{ { 0x64 }, 1 },		/* fs */
	{ { 0xf3, 0x48 }, 2 },
	{ { 0x48, 0x66 }, 2 },		/* REX not right before the opcode */
	{ { 0x2e, 0x66, 0x41 }, 3 },
};

START_TEST(every_opcode_gets_capstones_class)
{
	unsigned bad = 0, decoded = 0;
	size_t k;

	for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
		for (unsigned op = 0; op < 256; op++)
			for (unsigned modrm = 1; modrm < 256; modrm += 8) {
				/* Every mod and reg field (rm does not decide). */
				uint8_t one[1] = { (uint8_t)op };
				uint8_t two[2] = { 0x0f, (uint8_t)op };

				bad += check_one(prefixes[k].bytes, prefixes[k].n,
						 one, 1, (uint8_t)modrm, &decoded);
				bad += check_one(prefixes[k].bytes, prefixes[k].n,
						 two, 2, (uint8_t)modrm, &decoded);
			}
	ck_assert_uint_eq(bad, 0);
	/* Most of the space decodes: the comparison compared something. */
	ck_assert_uint_gt(decoded, 100000);
}
END_TEST

START_TEST(known_branches)
{
	static const uint8_t call[] = { 0xe8, 0x1c, 0x00, 0x00, 0x00 };
	static const uint8_t call_rax[] = { 0xff, 0xd0 };
	static const uint8_t notrack_jmp_rax[] = { 0x3e, 0xff, 0xe0 };
	static const uint8_t bnd_ret[] = { 0xf2, 0xc3 };
	static const uint8_t jne32[] = { 0x0f, 0x85, 0, 0, 0, 0 };
	static const uint8_t syscall[] = { 0x0f, 0x05 };
	static const uint8_t lret[] = { 0x48, 0xcb };
	static const uint8_t ljmp_mem[] = { 0xff, 0x28 };
	static const uint8_t inc_ecx[] = { 0xff, 0xc1 };

	ck_assert_int_eq(x86_class(call, sizeof(call)), hwtr_ic_call);
	ck_assert_int_eq(x86_class(call_rax, sizeof(call_rax)), hwtr_ic_call);
	ck_assert_int_eq(x86_class(notrack_jmp_rax, sizeof(notrack_jmp_rax)),
			 hwtr_ic_jump);
	ck_assert_int_eq(x86_class(bnd_ret, sizeof(bnd_ret)), hwtr_ic_return);
	ck_assert_int_eq(x86_class(jne32, sizeof(jne32)), hwtr_ic_cond_jump);
	ck_assert_int_eq(x86_class(syscall, sizeof(syscall)), hwtr_ic_far_call);
	ck_assert_int_eq(x86_class(lret, sizeof(lret)), hwtr_ic_far_return);
	ck_assert_int_eq(x86_class(ljmp_mem, sizeof(ljmp_mem)), hwtr_ic_far_jump);
	ck_assert_int_eq(x86_class(inc_ecx, sizeof(inc_ecx)), hwtr_ic_other);
	/* Cut before the opcode or the ModRM byte that decides. */
	ck_assert_int_eq(x86_class(notrack_jmp_rax, 2), hwtr_ic_unknown);
	ck_assert_int_eq(x86_class(syscall, 1), hwtr_ic_unknown);
	ck_assert_int_eq(x86_class(call, 0), hwtr_ic_unknown);
}
END_TEST

/* The C library the tests run with; its .text holds every kind of branch
 * compilers and hand-written assembly emit (bnd/notrack prefixes, syscall,
 * jump tables, jrcxz in string functions). */
#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"

START_TEST(every_instruction_of_libc_text_gets_capstones_class)
{
	unsigned bad = 0, decoded = 0, branches = 0;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	GElf_Shdr shdr;
	size_t shstrndx;
	Elf *elf;
	int fd;

	ck_assert_int_ne(elf_version(EV_CURRENT), EV_NONE);
	fd = open(LIBC_PATH, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		gelf_getshdr(scn, &shdr);
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && strcmp(name, ".text") == 0) {
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	ck_assert_ptr_nonnull(data);
	{
		const uint8_t *p = data->d_buf;
		size_t avail = data->d_size;
		uint64_t addr = shdr.sh_addr;

		while (avail > 0) {
			const uint8_t *at = p;
			size_t left = avail;
			enum hwtr_insn_class ours, theirs;

			if (!cs_disasm_iter(cs, &p, &avail, &addr, insn)) {
				/* Padding or data: go on at the next byte. */
				p = at + 1;
				avail = left - 1;
				addr++;
				continue;
			}
			decoded++;
			ours = x86_class(at, insn->size);
			theirs = capstone_class(insn->id);
			branches += theirs != hwtr_ic_other;
			if (ours != theirs && bad++ < 10)
				fprintf(stderr, "%#llx %s %s: ours %d, capstone %d\n",
					(unsigned long long)insn->address,
					insn->mnemonic, insn->op_str, ours, theirs);
		}
	}
	elf_end(elf);
	close(fd);
	ck_assert_uint_eq(bad, 0);
	/* The sweep read real code: libc has hundreds of thousands of
	 * instructions, tens of thousands of them branches. */
	ck_assert_uint_gt(decoded, 100000);
	ck_assert_uint_gt(branches, 10000);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("classes");

	tcase_add_checked_fixture(tc, open_capstone, close_capstone);
	tcase_add_test(tc, every_opcode_gets_capstones_class);
	tcase_add_test(tc, known_branches);
	tcase_add_test(tc, every_instruction_of_libc_text_gets_capstones_class);
	tcase_set_timeout(tc, 120);
	return check_run_tcase("x86-class", tc);
}
