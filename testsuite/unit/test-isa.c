/* test-isa.c: instruction lengths and classes per instruction set (isa.c).
 *
 * Oracles: the x86-64 bytes and lengths are objdump -d's for fixture-code
 * (fixture-code.S), and for every instruction of three compiled binaries
 * (symbols-program, a PIE; the library itself) each length and class is
 * objdump -d's (its mnemonic names the class); T32 lengths follow the Arm ARM's rule (a halfword whose
 * top five bits are 0b11101, 0b11110 or 0b11111 starts a 32-bit
 * instruction); A64 and A32 instructions are 4 bytes.
 */
#include "isa.h"
#include "check-main.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct isa *isa;

static void open_isa(void)
{
	ck_assert_int_eq(isa_open(&isa), 0);
}

static void close_isa(void)
{
	isa_close(isa);
	isa = NULL;
}

static size_t x86_length(const uint8_t *code, size_t n)
{
	return isa_length(isa, hwtr_isa_x86_64, code, n, 0x401000);
}

static enum hwtr_insn_class x86_class(const uint8_t *code, size_t n)
{
	return isa_classify(isa, hwtr_isa_x86_64, code, n, 0x401000);
}

START_TEST(x86_64_lengths_are_objdumps)
{
	static const uint8_t xor_ecx[] = { 0x31, 0xc9 };
	static const uint8_t call[] = { 0xe8, 0x1c, 0x00, 0x00, 0x00 };
	static const uint8_t cmp[] = { 0x83, 0xf9, 0x03 };
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05, 0x02, 0x00, 0x00, 0x00 };
	static const uint8_t syscall[] = { 0x0f, 0x05 };
	static const uint8_t ret[] = { 0xc3 };

	ck_assert_uint_eq(x86_length(xor_ecx, sizeof(xor_ecx)), 2);
	ck_assert_uint_eq(x86_length(call, sizeof(call)), 5);
	ck_assert_uint_eq(x86_length(cmp, sizeof(cmp)), 3);
	ck_assert_uint_eq(x86_length(lea, sizeof(lea)), 7);
	ck_assert_uint_eq(x86_length(syscall, sizeof(syscall)), 2);
	ck_assert_uint_eq(x86_length(ret, sizeof(ret)), 1);
	/* Cut short: not known. */
	ck_assert_uint_eq(x86_length(call, 2), 0);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_x86_64), 0);
	ck_assert_uint_eq(isa_max_length(hwtr_isa_x86_64), 15);
}
END_TEST

START_TEST(x86_64_classes)
{
	static const uint8_t call[] = { 0xe8, 0x1c, 0x00, 0x00, 0x00 };
	static const uint8_t ret[] = { 0xc3 };
	static const uint8_t jne[] = { 0x75, 0xf4 };
	static const uint8_t jmp_rax[] = { 0xff, 0xe0 };
	static const uint8_t jmp_short[] = { 0xeb, 0x00 };
	static const uint8_t inc_ecx[] = { 0xff, 0xc1 };
	static const uint8_t pic_call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00 };

	ck_assert_int_eq(x86_class(call, sizeof(call)), hwtr_ic_call);
	ck_assert_int_eq(x86_class(ret, sizeof(ret)), hwtr_ic_return);
	ck_assert_int_eq(x86_class(jne, sizeof(jne)), hwtr_ic_cond_jump);
	ck_assert_int_eq(x86_class(jmp_rax, sizeof(jmp_rax)), hwtr_ic_jump);
	ck_assert_int_eq(x86_class(jmp_short, sizeof(jmp_short)), hwtr_ic_jump);
	ck_assert_int_eq(x86_class(inc_ecx, sizeof(inc_ecx)), hwtr_ic_other);
	ck_assert(isa_is_pic_call(hwtr_isa_x86_64, pic_call, sizeof(pic_call)));
	ck_assert(!isa_is_pic_call(hwtr_isa_x86_64, ret, sizeof(ret)));
	ck_assert(!isa_is_pic_call(hwtr_isa_a64, pic_call, sizeof(pic_call)));
}
END_TEST


/* objdump -d -w's instructions of a file: address, bytes and mnemonic
 * (without prefixes such as bnd, notrack, rep, lock), in runs of
 * consecutive addresses. */
struct listed {
	uint64_t addr;
	size_t offset, len;	/* in the bytes array */
	size_t run_end;		/* offset past the last byte of its run */
	char mnemonic[16];
};

struct listing {
	struct listed *insns;
	size_t n, cap;
	uint8_t *bytes;
	size_t nbytes, cap_bytes;
};

static const char *skip_prefixes(const char *text)
{
	static const char *const prefixes[] = {
		"bnd ", "notrack ", "rep ", "repz ", "repnz ", "repe ", "repne ",
		"lock ", "cs ", "ds ", "es ", "ss ", "fs ", "gs ", "data16 ",
		"addr32 ", "rex ", "rex.W ", "xacquire ", "xrelease ",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(text, prefixes[i], strlen(prefixes[i])))
			return skip_prefixes(text + strlen(prefixes[i]));
	return text;
}

static void list_instructions(const char *path, struct listing *l)
{
	char command[600], line[1024];
	FILE *p;
	uint64_t next = 0;
	size_t run_start = 0, i;

	memset(l, 0, sizeof(*l));
	snprintf(command, sizeof(command), "objdump -d -w '%s'", path);
	p = popen(command, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char *tab1 = strchr(line, '\t'), *tab2, *hex, *end;
		unsigned long long addr;
		struct listed *in;

		if (!tab1 || sscanf(line, " %llx:", &addr) != 1 ||
		    !(tab2 = strchr(tab1 + 1, '\t')) || strstr(tab2, "(bad)"))
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 1024;
			l->insns = realloc(l->insns, l->cap * sizeof(*l->insns));
			ck_assert_ptr_nonnull(l->insns);
		}
		if (l->nbytes + 16 > l->cap_bytes) {
			l->cap_bytes = l->cap_bytes ? 2 * l->cap_bytes : 1 << 16;
			l->bytes = realloc(l->bytes, l->cap_bytes);
			ck_assert_ptr_nonnull(l->bytes);
		}
		if (!l->n || addr != next) {
			for (i = run_start; i < l->n; i++)
				l->insns[i].run_end = l->nbytes;
			run_start = l->n;
		}
		in = &l->insns[l->n++];
		in->addr = addr;
		in->offset = l->nbytes;
		*tab2 = 0;
		for (hex = tab1 + 1; ; hex = end) {
			unsigned long b = strtoul(hex, &end, 16);

			if (end == hex)
				break;
			ck_assert_uint_lt(l->nbytes - in->offset, 15);
			l->bytes[l->nbytes++] = (uint8_t)b;
		}
		in->len = l->nbytes - in->offset;
		sscanf(skip_prefixes(tab2 + 1), "%15s", in->mnemonic);
		next = addr + in->len;
	}
	for (i = run_start; i < l->n; i++)
		l->insns[i].run_end = l->nbytes;
	ck_assert_int_eq(pclose(p), 0);
}

/* The class objdump's mnemonic names. */
static enum hwtr_insn_class objdump_class(const char *m)
{
	static const char *const far_calls[] = { "lcall", "syscall", "sysenter",
						 "int", "int3", "into" };
	static const char *const far_returns[] = { "lret", "lretq", "lretl", "iret",
						   "iretq", "iretl", "sysret",
						   "sysretq", "sysretl", "sysexit" };
	size_t i;

	if (!strcmp(m, "call") || !strcmp(m, "callq"))
		return hwtr_ic_call;
	if (!strcmp(m, "ret") || !strcmp(m, "retq"))
		return hwtr_ic_return;
	if (!strcmp(m, "jmp") || !strcmp(m, "jmpq"))
		return hwtr_ic_jump;
	if (!strcmp(m, "ljmp") || !strcmp(m, "ljmpq"))
		return hwtr_ic_far_jump;
	for (i = 0; i < sizeof(far_calls) / sizeof(far_calls[0]); i++)
		if (!strcmp(m, far_calls[i]))
			return hwtr_ic_far_call;
	for (i = 0; i < sizeof(far_returns) / sizeof(far_returns[0]); i++)
		if (!strcmp(m, far_returns[i]))
			return hwtr_ic_far_return;
	if (m[0] == 'j' || !strncmp(m, "loop", 4))
		return hwtr_ic_cond_jump;
	return hwtr_ic_other;
}

/* Each instruction objdump lists in PATH: its length and class, decoded
 * from the bytes of its run (the code after it too, as in a trace). */
static size_t check_file(const char *path, size_t *branches)
{
	struct listing l;
	size_t i;

	list_instructions(path, &l);
	for (i = 0; i < l.n; i++) {
		const struct listed *in = &l.insns[i];
		const uint8_t *code = l.bytes + in->offset;
		size_t avail = in->run_end - in->offset;
		enum hwtr_insn_class want = objdump_class(in->mnemonic);

		ck_assert_msg(isa_length(isa, hwtr_isa_x86_64, code, avail, in->addr) ==
			      in->len, "%s: 0x%llx (%s): length %zu, objdump says %zu",
			      path, (unsigned long long)in->addr, in->mnemonic,
			      isa_length(isa, hwtr_isa_x86_64, code, avail, in->addr),
			      in->len);
		ck_assert_msg(isa_classify(isa, hwtr_isa_x86_64, code, avail,
					   in->addr) == want,
			      "%s: 0x%llx (%s): class %d, objdump's mnemonic says %d",
			      path, (unsigned long long)in->addr, in->mnemonic,
			      isa_classify(isa, hwtr_isa_x86_64, code, avail, in->addr),
			      want);
		*branches += want != hwtr_ic_other;
	}
	free(l.insns);
	free(l.bytes);
	return i;
}

START_TEST(x86_64_every_instruction_of_compiled_code_is_objdumps)
{
	size_t n = 0, branches = 0;

	n += check_file(FIXTURE_CODE, &branches);
	n += check_file(SYMBOLS_PROGRAM, &branches);
	if (access(LIBHWTRECORD_SO, R_OK) == 0)
		n += check_file(LIBHWTRECORD_SO, &branches);
	ck_assert_uint_ge(n, 150);
	ck_assert_uint_ge(branches, 40);
}
END_TEST

START_TEST(arm_lengths)
{
	/* nop (0xbf00), then bl (0xf000 0xf800), little-endian halfwords. */
	static const uint8_t t32_nop[] = { 0x00, 0xbf };
	static const uint8_t t32_bl[] = { 0x00, 0xf0, 0x00, 0xf8 };
	static const uint8_t t32_ldrd[] = { 0xd0, 0xe9, 0x00, 0x01 };	/* 0xe9d0: 0b11101 */
	static const uint8_t a64_nop[] = { 0x1f, 0x20, 0x03, 0xd5 };

	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_nop, 2, 0), 2);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_bl, 4, 0), 4);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_ldrd, 4, 0), 4);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_t32, t32_bl, 2, 0), 0);	/* cut */
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_a64, a64_nop, 4, 0), 4);
	ck_assert_uint_eq(isa_length(isa, hwtr_isa_a64, a64_nop, 3, 0), 0);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_a64), 4);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_a32), 4);
	ck_assert_uint_eq(isa_fixed_length(hwtr_isa_t32), 0);
	ck_assert_uint_eq(isa_max_length(hwtr_isa_a64), 4);
	ck_assert_uint_eq(isa_max_length(hwtr_isa_t32), 4);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("lengths and classes");

	tcase_add_checked_fixture(tc, open_isa, close_isa);
	tcase_add_test(tc, x86_64_lengths_are_objdumps);
	tcase_add_test(tc, x86_64_classes);
	tcase_add_test(tc, x86_64_every_instruction_of_compiled_code_is_objdumps);
	tcase_add_test(tc, arm_lengths);
	return check_run_tcase("isa", tc);
}
