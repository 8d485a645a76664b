/* test-recover-x86.c: the instruction semantics of value recovery
 * (recover-x86.c) against the CPU itself.  Each instruction runs natively
 * (recover_fstub below) from random registers: every register it changed must be
 * in the operation's writes; what recover_x86_forward computes from the
 * registers before must be the CPU's after; what recover_x86_backward
 * proves from the registers after must be the CPU's before.  Unmodelled
 * instructions (mul, cmov, setcc, adc, ...) check the writes only.  Instructions on rsp and memory, which cannot run here, are checked
 * by hand: push, pop, call, ret, leave and their addresses.
 */
#include "recover-x86.h"
#include "recover-flags.h"

#include "check-main.h"
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* void recover_fstub(uint64_t regs[18]): run one instruction natively with
 * all general registers but rsp set from REGS (enum hwtr_amd64_regno order)
 * and the flags from REGS[16] (popfq), and write them back, the flags after
 * it in REGS[17] (pushfq, the way kernel/valgrind's test-flag-thunk reads
 * the CPU's flags).  The test copies the stub into a page of its own and
 * writes the instruction over the 16 nops at recover_fstub_slot. */
__asm__(
	".text\n"
	"\t.globl\trecover_fstub, recover_fstub_slot, recover_fstub_end\n"
	"recover_fstub:\n"
	"\tpush\t%rbx\n"
	"\tpush\t%rbp\n"
	"\tpush\t%r12\n"
	"\tpush\t%r13\n"
	"\tpush\t%r14\n"
	"\tpush\t%r15\n"
	"\tpush\t%rdi\n"
	"\tpush\t128(%rdi)\n"
	"\tpopfq\n"
	"\tmov\t0(%rdi), %rax\n"
	"\tmov\t8(%rdi), %rbx\n"
	"\tmov\t16(%rdi), %rcx\n"
	"\tmov\t24(%rdi), %rdx\n"
	"\tmov\t32(%rdi), %rsi\n"
	"\tmov\t48(%rdi), %rbp\n"
	"\tmov\t64(%rdi), %r8\n"
	"\tmov\t72(%rdi), %r9\n"
	"\tmov\t80(%rdi), %r10\n"
	"\tmov\t88(%rdi), %r11\n"
	"\tmov\t96(%rdi), %r12\n"
	"\tmov\t104(%rdi), %r13\n"
	"\tmov\t112(%rdi), %r14\n"
	"\tmov\t120(%rdi), %r15\n"
	"\tmov\t40(%rdi), %rdi\n"
	"recover_fstub_slot:\n"
	"\t.fill\t16, 1, 0x90\n"
	"\tpushfq\n"
	"\tpush\t%rdi\n"
	"\tmov\t16(%rsp), %rdi\n"
	"\tmov\t%rax, 0(%rdi)\n"
	"\tmov\t%rbx, 8(%rdi)\n"
	"\tmov\t%rcx, 16(%rdi)\n"
	"\tmov\t%rdx, 24(%rdi)\n"
	"\tmov\t%rsi, 32(%rdi)\n"
	"\tmov\t%rbp, 48(%rdi)\n"
	"\tmov\t%r8, 64(%rdi)\n"
	"\tmov\t%r9, 72(%rdi)\n"
	"\tmov\t%r10, 80(%rdi)\n"
	"\tmov\t%r11, 88(%rdi)\n"
	"\tmov\t%r12, 96(%rdi)\n"
	"\tmov\t%r13, 104(%rdi)\n"
	"\tmov\t%r14, 112(%rdi)\n"
	"\tmov\t%r15, 120(%rdi)\n"
	"\tpop\t%rax\n"
	"\tmov\t%rax, 40(%rdi)\n"
	"\tpop\t%rax\n"
	"\tmov\t%rax, 136(%rdi)\n"
	"\tcld\n"
	"\tpop\t%rdi\n"
	"\tpop\t%r15\n"
	"\tpop\t%r14\n"
	"\tpop\t%r13\n"
	"\tpop\t%r12\n"
	"\tpop\t%rbp\n"
	"\tpop\t%rbx\n"
	"\tret\n"
	"recover_fstub_end:\n"
);
extern const uint8_t recover_fstub[], recover_fstub_slot[], recover_fstub_end[];

static struct recover_x86 *x86;
static uint8_t *page;

static void setup(void)
{
	ck_assert_int_eq(recover_x86_open(&x86), 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(page, MAP_FAILED);
}

static void teardown(void)
{
	recover_x86_close(x86);
	munmap(page, 4096);
}

/* Run CODE on REGS (18: the flags before in REGS[16], after in REGS[17]). */
static void run_flags(const uint8_t *code, size_t size, uint64_t regs[18])
{
	size_t stub = (size_t)(recover_fstub_end - recover_fstub);
	size_t slot = (size_t)(recover_fstub_slot - recover_fstub);

	ck_assert_uint_le(size, 16);
	ck_assert_uint_le(stub, 4096);
	memcpy(page, recover_fstub, stub);
	memset(page + slot, 0x90, 16);
	memcpy(page + slot, code, size);
	__builtin___clear_cache((char *)page, (char *)page + stub);
	((void (*)(uint64_t *))page)(regs);
}

/* The CPU's flags as they are here, the arithmetic ones cleared. */
static uint64_t system_flags(void)
{
	uint64_t f;

	__asm__ volatile("pushfq; pop %0" : "=r"(f));
	return f & ~(uint64_t)RECOVER_FLAGS_ARITH;
}

/* Run CODE (SIZE bytes) on REGS in place, with the flags as they are. */
static void run(const uint8_t *code, size_t size, uint64_t regs[16])
{
	uint64_t all[18];

	memcpy(all, regs, 16 * sizeof(*regs));
	all[16] = system_flags();
	run_flags(code, size, all);
	memcpy(regs, all, 16 * sizeof(*regs));
}

static uint64_t random64(void)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v << 16 ^ (uint64_t)(random() & 0xffff);
	/* Small values too: carries, zero and sign edges. */
	switch (random() % 4) {
	case 0: return v & 0xff;
	case 1: return (uint64_t)-(int64_t)(v & 0xff);
	default: return v;
	}
}

struct case_ {
	const char *name;
	uint8_t code[16];
	size_t size;
	bool modelled;
};

static const struct case_ cases[] = {
	{ "mov rax, 0x12345678", { 0x48, 0xc7, 0xc0, 0x78, 0x56, 0x34, 0x12 }, 7, true },
	{ "movabs r9, imm64", { 0x49, 0xb9, 1, 2, 3, 4, 5, 6, 7, 0x88 }, 10, true },
	{ "mov ecx, -1", { 0xb9, 0xff, 0xff, 0xff, 0xff }, 5, true },
	{ "mov rbx, rdx", { 0x48, 0x89, 0xd3 }, 3, true },
	{ "mov esi, r10d", { 0x44, 0x89, 0xd6 }, 3, true },
	{ "lea rdi, [rsi + rcx*4 + 0x10]", { 0x48, 0x8d, 0x7c, 0x8e, 0x10 }, 5, true },
	{ "lea rax, [rax - 8]", { 0x48, 0x8d, 0x40, 0xf8 }, 4, true },
	{ "lea r8, [rbx + 0x40]", { 0x4c, 0x8d, 0x43, 0x40 }, 4, true },
	{ "lea eax, [rdx + rdx*2]", { 0x8d, 0x04, 0x52 }, 3, true },
	{ "add rax, 0x10", { 0x48, 0x83, 0xc0, 0x10 }, 4, true },
	{ "sub r11, -5", { 0x49, 0x83, 0xeb, 0xfb }, 4, true },
	{ "xor rdx, 0x7f", { 0x48, 0x83, 0xf2, 0x7f }, 4, true },
	{ "and ecx, 0xff00", { 0x81, 0xe1, 0x00, 0xff, 0, 0 }, 6, true },
	{ "or r12, 3", { 0x49, 0x83, 0xcc, 0x03 }, 4, true },
	{ "add eax, 1", { 0x83, 0xc0, 0x01 }, 3, true },
	{ "add rbx, rcx", { 0x48, 0x01, 0xcb }, 3, true },
	{ "sub rdx, rsi", { 0x48, 0x29, 0xf2 }, 3, true },
	{ "xor r8, r9", { 0x4d, 0x31, 0xc8 }, 3, true },
	{ "xor eax, eax", { 0x31, 0xc0 }, 2, true },
	{ "sub rcx, rcx", { 0x48, 0x29, 0xc9 }, 3, true },
	{ "and rsi, rdi", { 0x48, 0x21, 0xfe }, 3, true },
	{ "add rax, rax", { 0x48, 0x01, 0xc0 }, 3, true },
	{ "add edx, ecx", { 0x01, 0xca }, 2, true },
	{ "inc rbx", { 0x48, 0xff, 0xc3 }, 3, true },
	{ "dec r13d", { 0x41, 0xff, 0xcd }, 3, true },
	{ "neg r14", { 0x49, 0xf7, 0xde }, 3, true },
	{ "not rbp", { 0x48, 0xf7, 0xd5 }, 3, true },
	{ "shl rax, 3", { 0x48, 0xc1, 0xe0, 0x03 }, 4, true },
	{ "shr edx, 5", { 0xc1, 0xea, 0x05 }, 3, true },
	{ "sar r15, 63", { 0x49, 0xc1, 0xff, 0x3f }, 4, true },
	{ "sar ecx, 1", { 0xd1, 0xf9 }, 2, true },
	{ "imul rax, rbx", { 0x48, 0x0f, 0xaf, 0xc3 }, 4, true },
	{ "imul r9d, r10d", { 0x45, 0x0f, 0xaf, 0xca }, 4, true },
	{ "imul eax, ecx, 7", { 0x6b, 0xc1, 0x07 }, 3, true },
	{ "imul rdx, rsi, -0x1234", { 0x48, 0x69, 0xd6, 0xcc, 0xed, 0xff, 0xff }, 7, true },
	{ "cqo", { 0x48, 0x99 }, 2, true },
	{ "cdq", { 0x99 }, 1, true },
	{ "cdqe", { 0x48, 0x98 }, 2, true },
	{ "xchg rsi, rdi", { 0x48, 0x87, 0xf7 }, 3, true },
	{ "xchg eax, r9d", { 0x44, 0x87, 0xc8 }, 3, true },
	{ "shl rax, cl", { 0x48, 0xd3, 0xe0 }, 3, true },
	{ "shr edx, cl", { 0xd3, 0xea }, 2, true },
	{ "sar r11, cl", { 0x49, 0xd3, 0xfb }, 3, true },
	{ "rol rax, cl", { 0x48, 0xd3, 0xc0 }, 3, true },
	{ "ror edx, 3", { 0xc1, 0xca, 0x03 }, 3, true },
	{ "rol r8, 17", { 0x49, 0xc1, 0xc0, 0x11 }, 4, true },
	{ "bswap r8", { 0x49, 0x0f, 0xc8 }, 3, true },
	{ "bswap ecx", { 0x0f, 0xc9 }, 2, true },
	/* rdx:rax = rax * src; bit scans and counts (forwards only) */
	{ "mul rcx", { 0x48, 0xf7, 0xe1 }, 3, true },
	{ "imul rcx", { 0x48, 0xf7, 0xe9 }, 3, true },
	{ "mul ecx", { 0xf7, 0xe1 }, 2, true },
	{ "imul r9d", { 0x41, 0xf7, 0xe9 }, 3, true },
	{ "mul rax", { 0x48, 0xf7, 0xe0 }, 3, true },
	{ "bsf rax, rbx", { 0x48, 0x0f, 0xbc, 0xc3 }, 4, true },
	{ "tzcnt rdx, r8", { 0xf3, 0x49, 0x0f, 0xbc, 0xd0 }, 5, true },
	{ "tzcnt eax, ebx", { 0xf3, 0x0f, 0xbc, 0xc3 }, 4, true },
	{ "bsr ecx, esi", { 0x0f, 0xbd, 0xce }, 3, true },
	{ "bsr r10, r11", { 0x4d, 0x0f, 0xbd, 0xd3 }, 4, true },
	{ "popcnt r9, rdi", { 0xf3, 0x4c, 0x0f, 0xb8, 0xcf }, 5, true },
	{ "popcnt esi, edx", { 0xf3, 0x0f, 0xb8, 0xf2 }, 4, true },
	/* Unmodelled: only their writes are checked. */
	{ "lzcnt rax, rbx", { 0xf3, 0x48, 0x0f, 0xbd, 0xc3 }, 5, false },
	{ "xchg rbx, rbx", { 0x48, 0x87, 0xdb }, 3, false },
	{ "cmovne rax, rdx", { 0x48, 0x0f, 0x45, 0xc2 }, 4, false },
	{ "movzx eax, bl", { 0x0f, 0xb6, 0xc3 }, 3, true },
	{ "movsx rax, cx", { 0x48, 0x0f, 0xbf, 0xc1 }, 4, true },
	{ "movsxd rdx, esi", { 0x48, 0x63, 0xd6 }, 3, true },
	{ "movsx r9d, r10b", { 0x45, 0x0f, 0xbe, 0xca }, 4, true },
	{ "movzx ecx, ah", { 0x0f, 0xb6, 0xcc }, 3, false },
	{ "mov al, 5", { 0xb0, 0x05 }, 2, true },
	{ "mov cl, dl", { 0x88, 0xd1 }, 2, true },
	{ "add bl, 7", { 0x80, 0xc3, 0x07 }, 3, true },
	{ "xor ax, cx", { 0x66, 0x31, 0xc8 }, 3, true },
	{ "xor al, al", { 0x30, 0xc0 }, 2, true },
	{ "and r10w, 0x8001", { 0x66, 0x41, 0x81, 0xe2, 0x01, 0x80 }, 6, true },
	{ "inc r9b", { 0x41, 0xfe, 0xc1 }, 3, true },
	{ "not si", { 0x66, 0xf7, 0xd6 }, 3, true },
	{ "shr dil, 2", { 0x40, 0xc0, 0xef, 0x02 }, 4, true },
	{ "sar dx, 3", { 0x66, 0xc1, 0xfa, 0x03 }, 4, true },
	{ "shl r8b, 9", { 0x41, 0xc0, 0xe0, 0x09 }, 4, true },
	{ "mov al, ah", { 0x88, 0xe0 }, 2, false },
	{ "mov ah, 5", { 0xb4, 0x05 }, 2, false },
	{ "rol al, 1", { 0xd0, 0xc0 }, 2, false },
	{ "shl al, cl", { 0xd2, 0xe0 }, 2, false },
	{ "adc rax, rbx", { 0x48, 0x11, 0xd8 }, 3, false },
	{ "sete al", { 0x0f, 0x94, 0xc0 }, 3, false },
	{ "rdtsc", { 0x0f, 0x31 }, 2, false },
	{ "cpuid", { 0x0f, 0xa2 }, 2, false },
	{ "xadd rax, rbx", { 0x48, 0x0f, 0xc1, 0xd8 }, 4, false },
	/* rax changes when it differs from rcx: Capstone 4 does not say. */
	{ "cmpxchg rcx, rdx", { 0x48, 0x0f, 0xb1, 0xd1 }, 4, false },
	{ "cmp rax, rbx", { 0x48, 0x39, 0xd8 }, 3, false },
	{ "test edx, edx", { 0x85, 0xd2 }, 2, false },
	{ "test al, 0x10", { 0xa8, 0x10 }, 2, false },
	{ "bt rax, 3", { 0x48, 0x0f, 0xba, 0xe0, 0x03 }, 5, false },
};

START_TEST(instructions_agree_with_the_cpu)
{
	const struct case_ *c = &cases[_i];
	struct recover_op op;
	uint64_t target;
	bool modelled;
	int trial;

	srandom(1 + (unsigned)_i);
	recover_x86_decode(x86, 0x401000, c->code, c->size, &op, &target);
	/* (A comparison is described for recover-branch.c and for the flags,
	 * but computes no register; adc and sbb compute one only with the carry given:
	 * flags_agree_with_the_cpu.) */
	modelled = op.kind != recover_unmodelled && op.kind != recover_compare &&
		   op.kind != recover_compare_any &&
		   op.alu != recover_adc && op.alu != recover_sbb;
	ck_assert_msg(modelled == c->modelled, "%s: modelled %d", c->name,
		      modelled);
	for (trial = 0; trial < check_trials(200); trial++) {
		uint64_t before[16], after[16], out[16];
		uint16_t mask;
		unsigned r;

		for (r = 0; r < 16; r++)
			before[r] = random64();
		before[7] = 0;	/* rsp is not set by the stub */
		if (!strcmp(c->name, "cpuid"))
			before[0] = 0, before[2] = 0;
		memcpy(after, before, sizeof(after));
		run(c->code, c->size, after);
		after[7] = 0;
		for (r = 0; r < 16; r++)
			if (r != 7 && after[r] != before[r])
				ck_assert_msg(op.writes >> r & 1, "%s: writes "
					      "register %u, not in 0x%x", c->name,
					      r, op.writes);
		mask = recover_x86_forward(&op, before, 0xff7f, out);
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == after[r], "%s: forward "
					      "r%u 0x%lx, cpu 0x%lx", c->name, r,
					      (unsigned long)out[r],
					      (unsigned long)after[r]);
		/* (A 32-bit shift by cl = 0 and a bit scan of 0 are left
		 * unknown on purpose.) */
		if (c->modelled && op.kind != recover_mov_imm &&
		    !(op.kind == recover_shift_cl && op.width == 4 &&
		      !(before[2] & 31)) &&
		    !(op.kind == recover_bit_scan &&
		      !(op.width == 4 ? (uint32_t)before[op.src] : before[op.src])))
			ck_assert_msg(mask, "%s: nothing forwards", c->name);
		mask = recover_x86_backward(&op, after, 0xff7f, out);
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == before[r], "%s: backward "
					      "r%u 0x%lx, cpu 0x%lx", c->name, r,
					      (unsigned long)out[r],
					      (unsigned long)before[r]);
	}
}
END_TEST

/* rsp and memory, by hand: what the instruction does by the manual. */
START_TEST(stack_instructions)
{
	static const uint8_t push_rbx[] = { 0x53 }, pop_r12[] = { 0x41, 0x5c },
		call[] = { 0xe8, 0x10, 0, 0, 0 }, ret[] = { 0xc3 },
		ret8[] = { 0xc2, 0x08, 0x00 }, leave[] = { 0xc9 },
		add_mem[] = { 0x48, 0x03, 0x45, 0xf8 },	/* add rax, [rbp-8] */
		store[] = { 0x48, 0x89, 0x45, 0xf8 },	/* mov [rbp-8], rax */
		rep_stosb[] = { 0xf3, 0xaa }, syscall[] = { 0x0f, 0x05 },
		pop_fs[] = { 0x0f, 0xa1 }, pop_mem[] = { 0x8f, 0x00 },
		test_mem[] = { 0xf7, 0x07, 0x00, 0x10, 0x00, 0x00 },	/* test dword [rdi], 0x1000 */
		testb_mem[] = { 0xf6, 0x07, 0x02 },	/* test byte [rdi], 2 */
		cmp_mem[] = { 0x48, 0x39, 0x07 },	/* cmp [rdi], rax */
		bt_mem[] = { 0x0f, 0xa3, 0x07 };	/* bt [rdi], eax */
	struct recover_op op;
	uint64_t target, val[16] = { 0 }, out[16];

	val[7] = 0x7fff1000;
	val[6] = 0x7fff1040;
	recover_x86_decode(x86, 0x401000, push_rbx, 1, &op, &target);
	ck_assert_int_eq(op.writes, 1u << 7);
	ck_assert_int_eq(op.mkind, recover_mem_store);
	ck_assert_int_eq(op.vkind, recover_value_reg);
	ck_assert_int_eq(op.vreg, 1);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0x80, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff0ff8);
	ck_assert_int_eq(recover_x86_backward(&op, val, 0x80, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff1008);

	recover_x86_decode(x86, 0x401000, pop_r12, 2, &op, &target);
	ck_assert_int_eq(op.writes, 1u << 7 | 1u << 12);
	ck_assert_int_eq(op.mkind, recover_mem_load);
	ck_assert_int_eq(op.mbase, 7);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0x80, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff1008);

	recover_x86_decode(x86, 0x401000, call, 5, &op, &target);
	ck_assert_uint_eq(target, 0x401015);
	ck_assert_int_eq(op.vkind, recover_value_imm);
	ck_assert_uint_eq((uint64_t)op.vimm, 0x401005);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0x80, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff0ff8);

	recover_x86_decode(x86, 0x401000, ret, 1, &op, &target);
	ck_assert_int_eq(recover_x86_backward(&op, val, 0x80, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff0ff8);
	recover_x86_decode(x86, 0x401000, ret8, 3, &op, &target);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0x80, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff1010);

	recover_x86_decode(x86, 0x401000, leave, 1, &op, &target);
	ck_assert_int_eq(op.writes, 1u << 7 | 1u << 6);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0xc0, out), 0x80);
	ck_assert_uint_eq(out[7], 0x7fff1048);
	ck_assert_int_eq(recover_x86_backward(&op, val, 0x80, out), 0x40);
	ck_assert_uint_eq(out[6], 0x7fff0ff8);

	/* An ALU operation on a memory operand: recover.c supplies its
	 * bytes; on an immediate it is recover_alu_imm, checked above. */
	recover_x86_decode(x86, 0x401000, add_mem, 4, &op, &target);
	ck_assert_int_eq(op.kind, recover_alu_mem);
	ck_assert_int_eq(op.alu, recover_add);
	ck_assert_int_eq(op.mkind, recover_mem_load);
	ck_assert_int_eq(op.msize, 8);
	ck_assert_int_eq(op.mbase, 6);
	ck_assert_int_eq(op.mdisp, -8);
	ck_assert_int_eq(op.writes, 1u << 0);

	recover_x86_decode(x86, 0x401000, store, 4, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_store);
	ck_assert_int_eq(op.msize, 8);
	ck_assert_int_eq(op.mbase, 6);
	ck_assert_int_eq(op.mdisp, -8);
	ck_assert_int_eq(op.vreg, 0);
	ck_assert_int_eq(op.writes, 0);

	/* pop fs moves rsp (Capstone does not say); pop [rax] stores where
	 * rsp has already moved: anywhere, for recovery. */
	recover_x86_decode(x86, 0x401000, pop_fs, 2, &op, &target);
	ck_assert(op.writes & 1u << 7);
	recover_x86_decode(x86, 0x401000, pop_mem, 2, &op, &target);
	ck_assert(op.writes & 1u << 7);
	ck_assert_int_eq(op.mkind, recover_mem_any);

	/* Comparisons with memory read it (Capstone 4 says test writes). */
	recover_x86_decode(x86, 0x401000, test_mem, 6, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_load);
	ck_assert_int_eq(op.writes, 0);
	recover_x86_decode(x86, 0x401000, testb_mem, 3, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_load);
	recover_x86_decode(x86, 0x401000, cmp_mem, 3, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_load);
	recover_x86_decode(x86, 0x401000, bt_mem, 3, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_load);

	recover_x86_decode(x86, 0x401000, rep_stosb, 2, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_any);
	recover_x86_decode(x86, 0x401000, syscall, 2, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_syscall);
	ck_assert(recover_x86_syscall_keeps_registers(1));
	ck_assert(!recover_x86_syscall_keeps_registers(15));
	ck_assert(recover_x86_syscall_keeps_memory(1));
	ck_assert(!recover_x86_syscall_keeps_memory(0));	/* read */
}
END_TEST

/* Run the string instruction BYTES (.byte list) natively with rdi at
 * DST, rsi at SRC and rax RAX, the direction flag clear as the ABI has
 * it. */
#define RUN_STRING(bytes, dst, src, rax)				\
	do {								\
		void *d_ = (dst), *s_ = (src);				\
		uint64_t a_ = (rax);					\
		__asm__ volatile("cld\n\t.byte " bytes			\
				 : "+D"(d_), "+S"(s_), "+a"(a_)		\
				 : : "memory", "cc");			\
	} while (0)

/* A movs or stos without rep: one store of its size at rdi, as the CPU
 * writes it (the bytes around are left); stos stores rax's low bytes.
 * With rep, an address-size prefix (edi) or a segment prefix: a write of
 * unknown extent, as before; SSE's movsd, which Capstone names like the
 * string one, too. */
START_TEST(string_stores_where_the_cpu_does)
{
	static const struct {
		uint8_t code[3];
		size_t size;
		unsigned msize;
		bool stos;
	} cases[] = {
		{ { 0xa4 }, 1, 1, false }, { { 0x66, 0xa5 }, 2, 2, false },
		{ { 0xa5 }, 1, 4, false }, { { 0x48, 0xa5 }, 2, 8, false },
		{ { 0xaa }, 1, 1, true }, { { 0x66, 0xab }, 2, 2, true },
		{ { 0xab }, 1, 4, true }, { { 0x48, 0xab }, 2, 8, true },
	};
	/* rep movsq, addr32 stosb, fs movsb, SSE's movsd [rdi], xmm0 */
	static const struct {
		uint8_t code[4];
		size_t size;
	} unknown_extent[] = {
		{ { 0xf3, 0x48, 0xa5 }, 3 }, { { 0x67, 0xaa }, 2 },
		{ { 0x64, 0xa4 }, 2 }, { { 0xf2, 0x0f, 0x11, 0x07 }, 4 },
	};
	const uint64_t rax = 0x1122334455667788ull;
	uint8_t dst[32], src[16];
	struct recover_op op;
	uint64_t target;
	size_t i, j;

	for (i = 0; i < 16; i++)
		src[i] = (uint8_t)(0xa0 + i);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned lo = 32, hi = 0;

		recover_x86_decode(x86, 0x401000, cases[i].code, cases[i].size,
				   &op, &target);
		ck_assert_int_eq(op.mkind, recover_mem_store);
		ck_assert_int_eq(op.mbase, 5);
		ck_assert_int_eq(op.mindex, RECOVER_NOREG);
		ck_assert_int_eq(op.mdisp, 0);
		ck_assert_int_eq(op.mseg, recover_seg_none);
		ck_assert_uint_eq(op.msize, cases[i].msize);
		ck_assert_int_eq(op.vkind, cases[i].stos ? recover_value_reg
							 : recover_value_unknown);
		if (cases[i].stos)
			ck_assert_int_eq(op.vreg, 0);
		/* (rsi and rdi move: not modelled) */
		ck_assert(op.writes & 1u << 5);
		memset(dst, 0xcc, sizeof(dst));
		switch (i) {
		case 0: RUN_STRING("0xa4", dst + 8, src, rax); break;
		case 1: RUN_STRING("0x66, 0xa5", dst + 8, src, rax); break;
		case 2: RUN_STRING("0xa5", dst + 8, src, rax); break;
		case 3: RUN_STRING("0x48, 0xa5", dst + 8, src, rax); break;
		case 4: RUN_STRING("0xaa", dst + 8, src, rax); break;
		case 5: RUN_STRING("0x66, 0xab", dst + 8, src, rax); break;
		case 6: RUN_STRING("0xab", dst + 8, src, rax); break;
		default: RUN_STRING("0x48, 0xab", dst + 8, src, rax); break;
		}
		for (j = 0; j < sizeof(dst); j++)
			if (dst[j] != 0xcc) {
				lo = j < lo ? (unsigned)j : lo;
				hi = (unsigned)j + 1;
			}
		ck_assert_uint_eq(lo, 8);
		ck_assert_uint_eq(hi, 8 + cases[i].msize);
		for (j = 0; j < cases[i].msize; j++)
			ck_assert_uint_eq(dst[8 + j], cases[i].stos
					  ? (uint8_t)(rax >> 8 * j) : src[j]);
	}
	for (i = 0; i < sizeof(unknown_extent) / sizeof(unknown_extent[0]);
	     i++) {
		recover_x86_decode(x86, 0x401000, unknown_extent[i].code,
				   unknown_extent[i].size, &op, &target);
		ck_assert_int_eq(op.mkind, recover_mem_any);
	}
}
END_TEST

/* %fs: operands: an address relative to the thread's fs base, as the CPU
 * reads it (the stack protector's canary at fs:0x28, read here both
 * ways); what may change the base; gs: stays an unknown address. */
START_TEST(fs_operands)
{
	static const uint8_t
		load_canary[] = { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 },
		xor_guard[] = { 0x64, 0x4c, 0x33, 0x04, 0x25, 0x30, 0, 0, 0 },
		store_fs[] = { 0x64, 0x48, 0x89, 0x0c, 0x25, 0x10, 0, 0, 0 },
		push_fs_mem[] = { 0x64, 0xff, 0x34, 0x25, 0x10, 0, 0, 0 },
		store_gs[] = { 0x65, 0x48, 0x89, 0x04, 0x25, 0, 0, 0, 0 },
		wrfsbase[] = { 0xf3, 0x48, 0x0f, 0xae, 0xd0 },
		mov_fs_eax[] = { 0x8e, 0xe0 }, pop_fs[] = { 0x0f, 0xa1 };
	struct recover_op op;
	uint64_t target, base = 0, canary, by_cpu;

	recover_x86_decode(x86, 0x401000, load_canary, 9, &op, &target);
	ck_assert_int_eq(op.kind, recover_load);
	ck_assert_int_eq(op.mkind, recover_mem_load);
	ck_assert_int_eq(op.mseg, recover_seg_fs);
	ck_assert_int_eq(op.mbase, RECOVER_NOREG);
	ck_assert_int_eq(op.mindex, RECOVER_NOREG);
	ck_assert_int_eq(op.msize, 8);
	ck_assert_int_eq(op.mdisp, 0x28);
	ck_assert(!op.sets_fs);
	/* The CPU agrees: fs:0x28 is the 8 bytes at fs base + 0x28. */
	ck_assert_int_eq(syscall(SYS_arch_prctl, ARCH_GET_FS, &base), 0);
	__asm__ volatile("mov %%fs:0x28, %0" : "=r"(by_cpu));
	memcpy(&canary, (const void *)(uintptr_t)(base + (uint64_t)op.mdisp), 8);
	ck_assert_uint_eq(canary, by_cpu);

	/* longjmp's pointer demangling */
	recover_x86_decode(x86, 0x401000, xor_guard, 9, &op, &target);
	ck_assert_int_eq(op.kind, recover_alu_mem);
	ck_assert_int_eq(op.alu, recover_xor);
	ck_assert_int_eq(op.dst, 8);
	ck_assert_int_eq(op.mseg, recover_seg_fs);
	ck_assert_int_eq(op.mdisp, 0x30);

	recover_x86_decode(x86, 0x401000, store_fs, 9, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_store);
	ck_assert_int_eq(op.mseg, recover_seg_fs);
	ck_assert_int_eq(op.vreg, 2);
	/* push fs:[m] reads through fs but stores at rsp - 8, flat. */
	recover_x86_decode(x86, 0x401000, push_fs_mem, 8, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_store);
	ck_assert_int_eq(op.mbase, 7);
	ck_assert_int_eq(op.mseg, recover_seg_none);
	recover_x86_decode(x86, 0x401000, store_gs, 9, &op, &target);
	ck_assert_int_eq(op.mkind, recover_mem_any);

	recover_x86_decode(x86, 0x401000, wrfsbase, 5, &op, &target);
	ck_assert(op.sets_fs);
	recover_x86_decode(x86, 0x401000, mov_fs_eax, 2, &op, &target);
	ck_assert(op.sets_fs);
	recover_x86_decode(x86, 0x401000, pop_fs, 2, &op, &target);
	ck_assert(op.sets_fs);
	ck_assert(!recover_x86_syscall_keeps_fs(SYS_arch_prctl));
	ck_assert(!recover_x86_syscall_keeps_fs(SYS_clone));
	ck_assert(!recover_x86_syscall_keeps_fs(SYS_rt_sigreturn));
	ck_assert(recover_x86_syscall_keeps_fs(SYS_write));
}
END_TEST

/* bsf, bsr and tzcnt of zero: bsf and bsr leave the destination as the
 * manual does not say, tzcnt is bsf without BMI1: unknown. popcnt of zero
 * is 0. */
START_TEST(bit_scans_of_zero_stay_unknown)
{
	static const uint8_t bsf[] = { 0x48, 0x0f, 0xbc, 0xc3 },
		tzcnt[] = { 0xf3, 0x49, 0x0f, 0xbc, 0xd0 },
		bsr[] = { 0x0f, 0xbd, 0xce },
		popcnt[] = { 0xf3, 0x4c, 0x0f, 0xb8, 0xcf },
		mul_mem[] = { 0x48, 0xf7, 0x27 };	/* mul qword [rdi] */
	uint64_t target, val[16] = { 0 }, out[16];
	struct recover_op op;

	val[4] = 0xffffffff00000000ull;	/* esi 0, rsi not */
	recover_x86_decode(x86, 0x401000, bsf, sizeof(bsf), &op, &target);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0xffff, out), 0);
	recover_x86_decode(x86, 0x401000, tzcnt, sizeof(tzcnt), &op, &target);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0xffff, out), 0);
	recover_x86_decode(x86, 0x401000, bsr, sizeof(bsr), &op, &target);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0xffff, out), 0);
	recover_x86_decode(x86, 0x401000, popcnt, sizeof(popcnt), &op, &target);
	ck_assert_int_eq(recover_x86_forward(&op, val, 0xffff, out), 1u << 9);
	ck_assert_uint_eq(out[9], 0);
	/* (mul of memory: not modelled; it cannot run in the stub.) */
	recover_x86_decode(x86, 0x401000, mul_mem, sizeof(mul_mem), &op, &target);
	ck_assert_int_eq(op.kind, recover_unmodelled);
	ck_assert_int_eq(op.writes & 0x9, 0x9);
}
END_TEST

/* setcc and cmovcc after cmp or test (recover-flags.c), against the CPU
 * running the pair: every condition, both widths, with operands made
 * equal, zero, or at the sign edge often enough to take every branch of
 * the flags. */
static const struct case_ compares[] = {
	{ "cmp rax, rbx", { 0x48, 0x39, 0xd8 }, 3, true },
	{ "cmp eax, ebx", { 0x39, 0xd8 }, 2, true },
	{ "test rcx, rcx", { 0x48, 0x85, 0xc9 }, 3, true },
	{ "test edx, esi", { 0x85, 0xf2 }, 2, true },
	{ "cmp rax, 5", { 0x48, 0x83, 0xf8, 0x05 }, 4, true },
	{ "cmp rdi, -1", { 0x48, 0x83, 0xff, 0xff }, 4, true },
	{ "cmp r8d, 0x80000000", { 0x41, 0x81, 0xf8, 0, 0, 0, 0x80 }, 7, true },
	/* Flags from a result. */
	{ "sub rax, rbx", { 0x48, 0x29, 0xd8 }, 3, true },
	{ "add ecx, 7", { 0x83, 0xc1, 0x07 }, 3, true },
	{ "and rdx, rsi", { 0x48, 0x21, 0xf2 }, 3, true },
	{ "xor eax, ebx", { 0x31, 0xd8 }, 2, true },
	{ "or r9d, r10d", { 0x45, 0x09, 0xd1 }, 3, true },
	{ "dec rdi", { 0x48, 0xff, 0xcf }, 3, true },
	{ "neg r8", { 0x49, 0xf7, 0xd8 }, 3, true },
};
static const struct case_ readers[] = {
	{ "sete al", { 0x0f, 0x94, 0xc0 }, 3, true },
	{ "setb cl", { 0x0f, 0x92, 0xc1 }, 3, true },
	{ "setl dl", { 0x0f, 0x9c, 0xc2 }, 3, true },
	{ "setg r9b", { 0x41, 0x0f, 0x9f, 0xc1 }, 4, true },
	{ "seto bl", { 0x0f, 0x90, 0xc3 }, 3, true },
	{ "setp sil", { 0x40, 0x0f, 0x9a, 0xc6 }, 4, true },
	{ "setbe r10b", { 0x41, 0x0f, 0x96, 0xc2 }, 4, true },
	{ "setns r11b", { 0x41, 0x0f, 0x99, 0xc3 }, 4, true },
	{ "cmovb rdx, rsi", { 0x48, 0x0f, 0x42, 0xd6 }, 4, true },
	{ "cmovle r11, r12", { 0x4d, 0x0f, 0x4e, 0xdc }, 4, true },
	{ "cmovne eax, ecx", { 0x0f, 0x45, 0xc1 }, 3, true },
	{ "cmova rbx, rdi", { 0x48, 0x0f, 0x47, 0xdf }, 4, true },
	{ "cmovs r9d, r10d", { 0x45, 0x0f, 0x48, 0xca }, 4, true },
	{ "cmovge rax, rdx", { 0x48, 0x0f, 0x4d, 0xc2 }, 4, true },
	{ "cmovno rcx, rbx", { 0x48, 0x0f, 0x41, 0xcb }, 4, true },
	{ "cmovnp rsi, rdi", { 0x48, 0x0f, 0x4b, 0xf7 }, 4, true },
	{ "cmovae r13, r14", { 0x4d, 0x0f, 0x43, 0xee }, 4, true },
	{ "cmove r15, r8", { 0x4d, 0x0f, 0x44, 0xf8 }, 4, true },
	{ "cmovg esi, edi", { 0x0f, 0x4f, 0xf7 }, 3, true },
};

START_TEST(setcc_and_cmov_agree_with_the_cpu)
{
	size_t nr = sizeof(readers) / sizeof(readers[0]);
	const struct case_ *c = &compares[(size_t)_i / nr];
	const struct case_ *rd = &readers[(size_t)_i % nr];
	struct recover_op compare, op;
	uint8_t code[16];
	uint64_t target;
	int trial;

	srandom(7 + (unsigned)_i);
	recover_x86_decode(x86, 0x401000, c->code, c->size, &compare, &target);
	recover_x86_decode(x86, 0x401000 + c->size, rd->code, rd->size, &op,
			   &target);
	if (compare.kind != recover_compare) {
		struct recover_op first = compare;

		ck_assert_msg(recover_flags_from_result(&first, &compare),
			      "%s", c->name);
	}
	ck_assert_msg(recover_flags_wants(&op), "%s", rd->name);
	recover_flags_attach(&op, &compare);
	memcpy(code, c->code, c->size);
	memcpy(code + c->size, rd->code, rd->size);
	for (trial = 0; trial < check_trials(300); trial++) {
		/* The registers before the pair, between, after. */
		uint64_t start[16], before[16], after[16], out[16];
		uint16_t mask;
		unsigned r;
		bool carry_or_overflow;

		for (r = 0; r < 16; r++)
			start[r] = random64();
		start[7] = 0;
		if (random() % 3 == 0) {	/* equal operands */
			start[1] = start[0];
			start[6] = start[3];
		}
		if (random() % 4 == 0) {	/* the immediates, zero, edges */
			start[0] = 5;
			start[1] = random() % 2 ? 5 : 0;
			start[2] = random() % 2 ? 0 : -7ull;
			start[3] = start[6] = 0;
			start[5] = random() % 2 ? UINT64_MAX : 1;
			start[8] = random() % 2 ? 0x80000000u : 1ull << 63;
			start[9] = start[10] = 0x80000000u;
		}
		memcpy(before, start, sizeof(before));
		run(c->code, c->size, before);
		before[7] = 0;
		memcpy(after, start, sizeof(after));
		run(code, c->size + rd->size, after);
		after[7] = 0;
		mask = recover_x86_forward(&op, before, 0xff7f, out);
		carry_or_overflow = op.cond != recover_cond_e &&
			op.cond != recover_cond_ne && op.cond != recover_cond_s &&
			op.cond != recover_cond_ns && op.cond != recover_cond_p &&
			op.cond != recover_cond_np;
		if (compare.alu == recover_result && carry_or_overflow) {
			ck_assert_msg(!mask, "%s; %s: CF/OF claimed", c->name,
				      rd->name);
			continue;
		}
		ck_assert_msg(mask == op.writes && mask == 1u << op.dst,
			      "%s; %s: mask 0x%x", c->name, rd->name, mask);
		ck_assert_msg(out[op.dst] == after[op.dst], "%s; %s: forward "
			      "0x%lx, cpu 0x%lx", c->name, rd->name,
			      (unsigned long)out[op.dst],
			      (unsigned long)after[op.dst]);
		mask = recover_x86_backward(&op, after, 0xff7f, out);
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == before[r], "%s; %s: "
					      "backward r%u 0x%lx, cpu 0x%lx",
					      c->name, rd->name, r,
					      (unsigned long)out[r],
					      (unsigned long)before[r]);
	}
}
END_TEST

/* The flags each instruction writes (recover_flags_writes, and decoding
 * for unmodelled ones) and computes (recover_flags_after), against the
 * CPU's pushfq around it from random registers and random arithmetic
 * flags: a bit the CPU changed is in fwrites; a bit computed is the
 * CPU's; and the bits each case names are computed (inputs known), so
 * that leaving them unknown fails too. */
struct flags_case {
	const char *name;
	uint8_t code[16];
	size_t size;
	uint32_t defined;	/* computed from known inputs */
};

#define ARITH RECOVER_FLAGS_ARITH
#define LOGIC (RECOVER_FLAGS_ARITH & ~RECOVER_AF)
#define SHIFT (RECOVER_CF | RECOVER_ZF | RECOVER_SF | RECOVER_PF)
#define CO (RECOVER_CF | RECOVER_OF)

static const struct flags_case flag_cases[] = {
	{ "cmp rax, rbx", { 0x48, 0x39, 0xd8 }, 3, ARITH },
	{ "cmp eax, ebx", { 0x39, 0xd8 }, 2, ARITH },
	{ "cmp rdi, -1", { 0x48, 0x83, 0xff, 0xff }, 4, ARITH },
	{ "cmp r8d, 0x80000000", { 0x41, 0x81, 0xf8, 0, 0, 0, 0x80 }, 7, ARITH },
	{ "test rcx, rcx", { 0x48, 0x85, 0xc9 }, 3, LOGIC },
	{ "test edx, esi", { 0x85, 0xf2 }, 2, LOGIC },
	{ "add rax, 0x10", { 0x48, 0x83, 0xc0, 0x10 }, 4, ARITH },
	{ "add rbx, rcx", { 0x48, 0x01, 0xcb }, 3, ARITH },
	{ "add edx, ecx", { 0x01, 0xca }, 2, ARITH },
	{ "add rax, rax", { 0x48, 0x01, 0xc0 }, 3, ARITH },
	{ "sub rdx, rsi", { 0x48, 0x29, 0xf2 }, 3, ARITH },
	{ "sub r11, -5", { 0x49, 0x83, 0xeb, 0xfb }, 4, ARITH },
	{ "sub rcx, rcx", { 0x48, 0x29, 0xc9 }, 3, ARITH },
	{ "xor eax, eax", { 0x31, 0xc0 }, 2, LOGIC },
	{ "xor r8, r9", { 0x4d, 0x31, 0xc8 }, 3, LOGIC },
	{ "and ecx, 0xff00", { 0x81, 0xe1, 0x00, 0xff, 0, 0 }, 6, LOGIC },
	{ "or r12, 3", { 0x49, 0x83, 0xcc, 0x03 }, 4, LOGIC },
	{ "inc rbx", { 0x48, 0xff, 0xc3 }, 3, ARITH },	/* (CF kept) */
	{ "dec r13d", { 0x41, 0xff, 0xcd }, 3, ARITH },
	{ "neg r14", { 0x49, 0xf7, 0xde }, 3, ARITH },
	{ "neg eax", { 0xf7, 0xd8 }, 2, ARITH },
	{ "not rbp", { 0x48, 0xf7, 0xd5 }, 3, ARITH },	/* (all kept) */
	{ "shl rax, 3", { 0x48, 0xc1, 0xe0, 0x03 }, 4, SHIFT },
	{ "shl eax, 1", { 0xd1, 0xe0 }, 2, SHIFT | RECOVER_OF },
	{ "shr edx, 5", { 0xc1, 0xea, 0x05 }, 3, SHIFT },
	{ "shr rdx, 1", { 0x48, 0xd1, 0xea }, 3, SHIFT | RECOVER_OF },
	{ "sar r15, 63", { 0x49, 0xc1, 0xff, 0x3f }, 4, SHIFT },
	{ "sar ecx, 1", { 0xd1, 0xf9 }, 2, SHIFT | RECOVER_OF },
	{ "shl rax, cl", { 0x48, 0xd3, 0xe0 }, 3, SHIFT },
	{ "sar r11, cl", { 0x49, 0xd3, 0xfb }, 3, SHIFT },
	{ "rol rax, cl", { 0x48, 0xd3, 0xc0 }, 3, RECOVER_CF },
	{ "ror edx, 3", { 0xc1, 0xca, 0x03 }, 3, RECOVER_CF },
	{ "rol r8, 1", { 0x49, 0xd1, 0xc0 }, 3, CO },
	{ "ror ecx, 1", { 0xd1, 0xc9 }, 2, CO },
	{ "imul rax, rbx", { 0x48, 0x0f, 0xaf, 0xc3 }, 3 + 1, CO },
	{ "imul r9d, r10d", { 0x45, 0x0f, 0xaf, 0xca }, 4, CO },
	{ "imul eax, ecx, 7", { 0x6b, 0xc1, 0x07 }, 3, CO },
	{ "imul rdx, rsi, -0x1234", { 0x48, 0x69, 0xd6, 0xcc, 0xed, 0xff, 0xff }, 7, CO },
	{ "mul rcx", { 0x48, 0xf7, 0xe1 }, 3, CO },
	{ "imul rcx", { 0x48, 0xf7, 0xe9 }, 3, CO },
	{ "mul ecx", { 0xf7, 0xe1 }, 2, CO },
	{ "imul r9d", { 0x41, 0xf7, 0xe9 }, 3, CO },
	{ "popcnt r9, rdi", { 0xf3, 0x4c, 0x0f, 0xb8, 0xcf }, 5, ARITH },
	{ "adc rax, rbx", { 0x48, 0x11, 0xd8 }, 3, ARITH },
	{ "adc ecx, 5", { 0x83, 0xd1, 0x05 }, 3, ARITH },
	{ "sbb rdx, rsi", { 0x48, 0x19, 0xf2 }, 3, ARITH },
	{ "sbb eax, eax", { 0x19, 0xc0 }, 2, ARITH },
	{ "adc al, bl", { 0x10, 0xd8 }, 2, ARITH },
	{ "add bl, 7", { 0x80, 0xc3, 0x07 }, 3, ARITH },
	{ "xor ax, cx", { 0x66, 0x31, 0xc8 }, 3, LOGIC },
	{ "xor al, al", { 0x30, 0xc0 }, 2, LOGIC },
	{ "and r10w, 0x8001", { 0x66, 0x41, 0x81, 0xe2, 0x01, 0x80 }, 6, LOGIC },
	{ "inc r9b", { 0x41, 0xfe, 0xc1 }, 3, ARITH },
	{ "shr dil, 2", { 0x40, 0xc0, 0xef, 0x02 }, 4, SHIFT },
	{ "sar dx, 1", { 0x66, 0xd1, 0xfa }, 3, SHIFT | RECOVER_OF },
	{ "shl r8b, 9", { 0x41, 0xc0, 0xe0, 0x09 }, 4, 0 },	/* CF undefined */
	/* Writing none, or none computed: only fwrites is checked. */
	{ "mov rbx, rdx", { 0x48, 0x89, 0xd3 }, 3, 0 },
	{ "lea rdi, [rsi + rcx*4 + 0x10]", { 0x48, 0x8d, 0x7c, 0x8e, 0x10 }, 5, 0 },
	{ "cmovne rax, rdx", { 0x48, 0x0f, 0x45, 0xc2 }, 4, 0 },
	{ "sete al", { 0x0f, 0x94, 0xc0 }, 3, 0 },
	{ "bswap r8", { 0x49, 0x0f, 0xc8 }, 3, 0 },
	{ "xchg rsi, rdi", { 0x48, 0x87, 0xf7 }, 3, 0 },
	{ "cqo", { 0x48, 0x99 }, 2, 0 },
	{ "movzx eax, bl", { 0x0f, 0xb6, 0xc3 }, 3, 0 },
	{ "bsf rax, rbx", { 0x48, 0x0f, 0xbc, 0xc3 }, 4, 0 },
	{ "tzcnt rdx, r8", { 0xf3, 0x49, 0x0f, 0xbc, 0xd0 }, 5, 0 },
	{ "lzcnt rax, rbx", { 0xf3, 0x48, 0x0f, 0xbd, 0xc3 }, 5, 0 },
	{ "bt rax, 3", { 0x48, 0x0f, 0xba, 0xe0, 0x03 }, 5, 0 },
	{ "bts rax, rcx", { 0x48, 0x0f, 0xab, 0xc8 }, 4, 0 },
	{ "xadd rax, rbx", { 0x48, 0x0f, 0xc1, 0xd8 }, 4, 0 },
	{ "cmpxchg rcx, rdx", { 0x48, 0x0f, 0xb1, 0xd1 }, 4, 0 },
	{ "test al, 0x10", { 0xa8, 0x10 }, 2, LOGIC },
	{ "test al, al", { 0x84, 0xc0 }, 2, LOGIC },
	{ "cmp cl, dl", { 0x38, 0xd1 }, 2, ARITH },
	{ "cmp si, 0x7fff", { 0x66, 0x81, 0xfe, 0xff, 0x7f }, 5, ARITH },
	{ "cmp r9w, r10w", { 0x66, 0x45, 0x39, 0xd1 }, 4, ARITH },
	{ "shld rax, rbx, 3", { 0x48, 0x0f, 0xa4, 0xd8, 0x03 }, 5, 0 },
	{ "rcl rax, 1", { 0x48, 0xd1, 0xd0 }, 3, 0 },
	{ "andn rax, rbx, rcx", { 0xc4, 0xe2, 0xe0, 0xf2, 0xc1 }, 5, 0 },
	{ "pcmpeqb xmm0, xmm1", { 0x66, 0x0f, 0x74, 0xc1 }, 4, 0 },
	{ "pmovmskb eax, xmm0", { 0x66, 0x0f, 0xd7, 0xc0 }, 4, 0 },
	{ "ptest xmm0, xmm1", { 0x66, 0x0f, 0x38, 0x17, 0xc1 }, 5, 0 },
	{ "ucomisd xmm0, xmm1", { 0x66, 0x0f, 0x2e, 0xc1 }, 4, 0 },
	{ "sahf", { 0x9e }, 1, 0 },
	{ "cld", { 0xfc }, 1, 0 },
	{ "cpuid", { 0x0f, 0xa2 }, 2, 0 },
	{ "rdtsc", { 0x0f, 0x31 }, 2, 0 },
};

START_TEST(flags_agree_with_the_cpu)
{
	const struct flags_case *c = &flag_cases[_i];
	struct recover_op op;
	uint64_t target, base = system_flags();
	int trial;

	srandom(11 + (unsigned)_i);
	recover_x86_decode(x86, 0x401000, c->code, c->size, &op, &target);
	for (trial = 0; trial < check_trials(400); trial++) {
		uint64_t regs[18], before[16];
		uint32_t flags_in, out, known, cpu;
		struct recover_op run = op;
		unsigned r;

		for (r = 0; r < 16; r++)
			regs[r] = random64();
		regs[7] = 0;
		if (!strcmp(c->name, "cpuid"))
			regs[0] = 0, regs[2] = 0;
		if (random() % 4 == 0)	/* equal operands, counts of 0, 1 */
			regs[1] = regs[0], regs[2] = random() % 3;
		flags_in = (uint32_t)(base | ((uint64_t)random() &
					      RECOVER_FLAGS_ARITH));
		regs[16] = flags_in;
		memcpy(before, regs, sizeof(before));
		run_flags(c->code, c->size, regs);
		cpu = (uint32_t)regs[17];
		ck_assert_msg(!((cpu ^ flags_in) & ~op.fwrites), "%s: the CPU "
			      "changed 0x%x, fwrites 0x%x", c->name,
			      (cpu ^ flags_in), op.fwrites);
		recover_flags_carry_in(&run, flags_in, RECOVER_FLAGS_ALL);
		known = recover_flags_after(&run, before, 0xff7f, flags_in,
					    RECOVER_FLAGS_ALL, &out);
		ck_assert_msg(!((out ^ cpu) & known), "%s: flags 0x%x known "
			      "0x%x, cpu 0x%x (before 0x%x)", c->name, out,
			      known, cpu, flags_in);
		/* (a shift or rotate by 0 keeps them; known anyway) */
		ck_assert_msg((known & c->defined) == c->defined, "%s: known "
			      "0x%x, not 0x%x", c->name, known, c->defined);
		/* What is not written stays known. */
		ck_assert_msg((known | op.fwrites) == RECOVER_FLAGS_ALL,
			      "%s: known 0x%x", c->name, known);
		/* adc, sbb: the registers too, with the carry given. */
		if (op.alu == recover_adc || op.alu == recover_sbb) {
			uint64_t fwd[16];
			uint16_t mask = recover_x86_forward(&op, before, 0xff7f,
							    fwd);

			ck_assert_msg(!mask, "%s: forward without the carry",
				      c->name);
			mask = recover_x86_forward(&run, before, 0xff7f, fwd);
			ck_assert_msg(mask == 1u << op.dst, "%s", c->name);
			ck_assert_msg(fwd[op.dst] == regs[op.dst], "%s: 0x%lx, "
				      "cpu 0x%lx", c->name,
				      (unsigned long)fwd[op.dst],
				      (unsigned long)regs[op.dst]);
		}
	}
}
END_TEST

/* Flags not known before stay unknown where the instruction keeps them,
 * and a flag the manual leaves undefined is never claimed. */
START_TEST(undefined_flags_stay_unknown)
{
	static const uint8_t and_[] = { 0x48, 0x21, 0xfe },	/* and rsi, rdi */
		imul[] = { 0x48, 0x0f, 0xaf, 0xc3 },	/* imul rax, rbx */
		shl3[] = { 0x48, 0xc1, 0xe0, 0x03 },	/* shl rax, 3 */
		inc[] = { 0x48, 0xff, 0xc3 },		/* inc rbx */
		shl_cl[] = { 0x48, 0xd3, 0xe0 },	/* shl rax, cl */
		bsf[] = { 0x48, 0x0f, 0xbc, 0xc3 };	/* bsf rax, rbx */
	uint64_t target, val[16] = { 0 };
	struct recover_op op;
	uint32_t out, known;

	val[0] = 5;
	val[1] = 9;
	val[2] = 0;	/* cl */
	recover_x86_decode(x86, 0x401000, and_, sizeof(and_), &op, &target);
	known = recover_flags_after(&op, val, 0xffff, 0, RECOVER_FLAGS_ALL, &out);
	ck_assert(!(known & RECOVER_AF));
	recover_x86_decode(x86, 0x401000, imul, sizeof(imul), &op, &target);
	known = recover_flags_after(&op, val, 0xffff, 0, RECOVER_FLAGS_ALL, &out);
	ck_assert_uint_eq(known & RECOVER_FLAGS_ARITH, RECOVER_CF | RECOVER_OF);
	recover_x86_decode(x86, 0x401000, shl3, sizeof(shl3), &op, &target);
	known = recover_flags_after(&op, val, 0xffff, 0, RECOVER_FLAGS_ALL, &out);
	ck_assert(!(known & (RECOVER_AF | RECOVER_OF)));
	/* inc keeps CF: unknown before, unknown after */
	recover_x86_decode(x86, 0x401000, inc, sizeof(inc), &op, &target);
	known = recover_flags_after(&op, val, 0xffff, 0,
				    RECOVER_FLAGS_ALL & ~RECOVER_CF, &out);
	ck_assert(!(known & RECOVER_CF));
	ck_assert(known & RECOVER_ZF);
	/* a shift by cl = 0 keeps the flags: those not known stay so */
	recover_x86_decode(x86, 0x401000, shl_cl, sizeof(shl_cl), &op, &target);
	known = recover_flags_after(&op, val, 0xffff, RECOVER_ZF,
				    RECOVER_FLAGS_ALL & ~RECOVER_SF, &out);
	ck_assert(!(known & RECOVER_SF));
	ck_assert(known & RECOVER_ZF);
	ck_assert(out & RECOVER_ZF);
	/* ... and a count not known makes them all unknown */
	known = recover_flags_after(&op, val, 0xfffb, 0, RECOVER_FLAGS_ALL, &out);
	ck_assert(!(known & RECOVER_FLAGS_ARITH));
	recover_x86_decode(x86, 0x401000, bsf, sizeof(bsf), &op, &target);
	known = recover_flags_after(&op, val, 0xffff, 0, RECOVER_FLAGS_ALL, &out);
	ck_assert(!(known & RECOVER_FLAGS_ARITH));
	/* and a register not known, nothing */
	recover_x86_decode(x86, 0x401000, and_, sizeof(and_), &op, &target);
	known = recover_flags_after(&op, val, 0xffef, 0, RECOVER_FLAGS_ALL, &out);
	ck_assert(!(known & RECOVER_FLAGS_ARITH));
	ck_assert_uint_eq(known, RECOVER_FLAGS_ALL & ~RECOVER_FLAGS_ARITH);
}
END_TEST

/* setcc and cmovcc reading flags known as such (recover_flags_given_to),
 * against the CPU running them after popfq of random flags. */
START_TEST(setcc_and_cmov_from_known_flags)
{
	const struct case_ *rd = &readers[_i];
	struct recover_op op;
	uint64_t target, base = system_flags();
	int trial;

	srandom(13 + (unsigned)_i);
	recover_x86_decode(x86, 0x401000, rd->code, rd->size, &op, &target);
	ck_assert_msg(recover_flags_wants(&op), "%s", rd->name);
	ck_assert_int_eq(op.fwrites, 0);
	for (trial = 0; trial < check_trials(200); trial++) {
		uint64_t regs[18], before[16], out[16];
		struct recover_op given = op;
		uint32_t flags_in = (uint32_t)(base | ((uint64_t)random() &
						       RECOVER_FLAGS_ARITH));
		uint16_t mask;
		unsigned r;

		for (r = 0; r < 16; r++)
			regs[r] = random64();
		regs[7] = 0;
		regs[16] = flags_in;
		memcpy(before, regs, sizeof(before));
		run_flags(rd->code, rd->size, regs);
		recover_flags_given_to(&given, flags_in);
		mask = recover_x86_forward(&given, before, 0xff7f, out);
		ck_assert_msg(mask == 1u << op.dst, "%s", rd->name);
		ck_assert_msg(out[op.dst] == regs[op.dst], "%s: flags 0x%x: "
			      "0x%lx, cpu 0x%lx", rd->name, flags_in,
			      (unsigned long)out[op.dst],
			      (unsigned long)regs[op.dst]);
		mask = recover_x86_backward(&given, regs, 0xff7f, out);
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == before[r], "%s: backward "
					      "r%u", rd->name, r);
	}
}
END_TEST

/* A cmov whose flags are not known, backwards from its destination after
 * it (recover_x86_cmov_outcome), against the CPU running it after popfq of
 * random flags: a destination other than the old one proves the source,
 * one other than the source proves the old destination; equal values prove
 * nothing, and a 32-bit cmov (which zeroes the upper half either way)
 * nothing at all. */
START_TEST(cmov_outcome_agrees_with_the_cpu)
{
	const struct case_ *rd = &readers[_i];
	struct recover_op op;
	uint64_t target, base = system_flags();
	unsigned moved = 0, stayed = 0;
	int trial;

	srandom(17 + (unsigned)_i);
	recover_x86_decode(x86, 0x401000, rd->code, rd->size, &op, &target);
	if (op.width == 1)
		return;		/* (setcc) */
	ck_assert_msg(recover_flags_wants(&op), "%s", rd->name);
	for (trial = 0; trial < check_trials(300); trial++) {
		uint64_t regs[18], before[16], out[16];
		uint16_t mask;
		unsigned r;

		for (r = 0; r < 16; r++)
			regs[r] = random64();
		regs[7] = 0;
		if (trial % 3 == 0)
			regs[op.src] = regs[op.dst];
		regs[16] = (uint32_t)(base | ((uint64_t)random() &
					      RECOVER_FLAGS_ARITH));
		memcpy(before, regs, sizeof(before));
		run_flags(rd->code, rd->size, regs);
		/* (the source and the other registers are as before) */
		mask = recover_x86_cmov_outcome(&op, regs, 0xff7f,
						before[op.dst], true, out);
		if (op.width == 4) {
			ck_assert_msg(mask == 0, "%s", rd->name);
			continue;
		}
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == before[r], "%s: r%u "
					      "0x%lx, cpu 0x%lx", rd->name, r,
					      (unsigned long)out[r],
					      (unsigned long)before[r]);
		moved += mask == 1u << op.src;
		stayed += mask == 1u << op.dst;
		/* The old value alone, or the source alone. */
		mask = recover_x86_cmov_outcome(&op, regs,
						0xff7f & ~(1u << op.src),
						before[op.dst], true, out);
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == before[r], "%s", rd->name);
		mask = recover_x86_cmov_outcome(&op, regs, 0xff7f, 0, false, out);
		for (r = 0; r < 16; r++)
			if (mask >> r & 1)
				ck_assert_msg(out[r] == before[r], "%s", rd->name);
	}
	if (op.width == 8)
		ck_assert_msg(moved && stayed, "%s: moved %u, stayed %u",
			      rd->name, moved, stayed);
}
END_TEST

/* cmp and test with a memory operand: the flags once recover.c knows the
 * operand (vimm), those of the same comparison of registers on the CPU. */
START_TEST(compares_with_memory)
{
	static const struct {
		const char *name;
		uint8_t mem[8], reg[8];
		size_t mem_size, reg_size;
		unsigned value_reg;	/* what the memory holds in REG's form */
	} pairs[] = {
		/* cmp dword [rbp-0x14], 5 / cmp eax, 5 */
		{ "cmp [m32], imm", { 0x83, 0x7d, 0xec, 0x05 },
		  { 0x83, 0xf8, 0x05 }, 4, 3, 0 },
		/* cmp rdx, [rbp-8] / cmp rdx, rax */
		{ "cmp r64, [m64]", { 0x48, 0x3b, 0x55, 0xf8 },
		  { 0x48, 0x39, 0xc2 }, 4, 3, 0 },
		/* test byte [rdi], 0x80 / test al, 0x80 */
		{ "test [m8], imm", { 0xf6, 0x07, 0x80 }, { 0xa8, 0x80 }, 3, 2, 0 },
		/* cmp [rbx+8], ecx / cmp eax, ecx */
		{ "cmp [m32], r32", { 0x39, 0x4b, 0x08 }, { 0x39, 0xc8 }, 3, 2, 0 },
		/* cmp word [rsi], 7 / cmp ax, 7 */
		{ "cmp [m16], imm", { 0x66, 0x83, 0x3e, 0x07 },
		  { 0x66, 0x83, 0xf8, 0x07 }, 4, 4, 0 },
	};
	uint64_t target, base = system_flags();
	size_t i;
	int trial;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct recover_op op;

		recover_x86_decode(x86, 0x401000, pairs[i].mem,
				   pairs[i].mem_size, &op, &target);
		ck_assert_msg(op.kind == recover_compare_any, "%s",
			      pairs[i].name);
		ck_assert_int_eq(op.mkind, recover_mem_load);
		ck_assert_int_eq(op.writes, 0);
		for (trial = 0; trial < check_trials(200); trial++) {
			uint64_t regs[18], before[16];
			uint32_t out, known, in = (uint32_t)(base |
				((uint64_t)random() & RECOVER_FLAGS_ARITH));
			struct recover_op given = op;
			unsigned r;

			for (r = 0; r < 16; r++)
				regs[r] = random64();
			regs[7] = 0;
			regs[16] = in;
			memcpy(before, regs, sizeof(before));
			run_flags(pairs[i].reg, pairs[i].reg_size, regs);
			/* without the operand: nothing */
			known = recover_flags_after(&op, before, 0xff7f, in,
						    RECOVER_FLAGS_ALL, &out);
			ck_assert(!(known & RECOVER_FLAGS_ARITH));
			given.vkind = recover_value_imm;
			given.vimm = (int64_t)before[pairs[i].value_reg];
			known = recover_flags_after(&given, before, 0xff7f, in,
						    RECOVER_FLAGS_ALL, &out);
			ck_assert_msg((known & (RECOVER_FLAGS_ARITH &
						~RECOVER_AF)) ==
				      (RECOVER_FLAGS_ARITH & ~RECOVER_AF),
				      "%s: known 0x%x", pairs[i].name, known);
			ck_assert_msg(!((out ^ regs[17]) & known), "%s: 0x%x "
				      "known 0x%x, cpu 0x%x", pairs[i].name,
				      out, known, (unsigned)regs[17]);
		}
	}
}
END_TEST

/* The kernel's system call puts rflags into r11 (and gives the flags
 * back): what recover.c takes for a recording not made under Valgrind.
 * Under Valgrind (make check runs this under memcheck) VEX's leaves r11
 * as it was, which recover.c takes for the software source's
 * recordings (hwtr_recovery_end.under_valgrind; recover-vs-vgdb.test). */
START_TEST(syscall_puts_the_flags_in_r11)
{
	static const uint8_t syscall_[] = { 0x0f, 0x05 };
	uint64_t base = system_flags();
	int trial;

	for (trial = 0; trial < 20; trial++) {
		uint64_t regs[18] = { 0 };
		uint32_t flags_in = (uint32_t)(base | ((uint64_t)random() &
						       RECOVER_FLAGS_ARITH));

		regs[0] = SYS_getpid;
		regs[11] = 0x55;
		regs[16] = flags_in;
		run_flags(syscall_, sizeof(syscall_), regs);
		ck_assert_uint_eq(regs[11], RUNNING_ON_VALGRIND ? 0x55 : flags_in);
		ck_assert_uint_eq(regs[17], flags_in);
	}
}
END_TEST

/* After a system call that returns where it left (not rt_sigreturn or
 * an exec), rcx is the address after the syscall instruction (the
 * instruction saves it there and the kernel's return gives it back),
 * r11 the flags (not known) and rax the result (not known); the rest as
 * they were. */
START_TEST(syscall_registers)
{
	static const uint8_t code[] = { 0x0f, 0x05 };
	uint64_t val[16], out[16];
	struct recover_op op;
	uint64_t target;
	uint16_t mask;
	unsigned r;

	recover_x86_decode(x86, 0x401000, code, sizeof(code), &op, &target);
	for (r = 0; r < 16; r++)
		val[r] = 0x1000 + r;
	val[0] = SYS_getpid;
	mask = recover_x86_forward(&op, val, 0xffff, out);
	ck_assert_uint_eq(mask, 0xffff & ~(1u << 0 | 1u << 11));
	ck_assert_uint_eq(out[2], 0x401002);
	ck_assert_uint_eq(out[5], 0x1005);
	val[0] = SYS_rt_sigreturn;
	ck_assert_uint_eq(recover_x86_forward(&op, val, 0xffff, out), 0);
	ck_assert_uint_eq(recover_x86_forward(&op, val, 0xfffe, out), 0);
}
END_TEST

/* The system calls whose only memory write is one buffer: numbers and
 * sizes against the C library's headers (sys/syscall.h, struct stat, ...),
 * registers by the x86-64 syscall convention (rdi, rsi, rdx). */
START_TEST(syscall_buffers)
{
	static const struct {
		long nr;
		unsigned addr, len_reg;
		uint64_t len;
	} calls[] = {
		{ SYS_read, 4, 3, 0 },
		{ SYS_pread64, 4, 3, 0 },
		{ SYS_readlink, 4, 3, 0 },
		{ SYS_getrandom, 5, 4, 0 },
		{ SYS_getcwd, 5, 4, 0 },
		{ SYS_stat, 4, RECOVER_NOREG, sizeof(struct stat) },
		{ SYS_fstat, 4, RECOVER_NOREG, sizeof(struct stat) },
		{ SYS_lstat, 4, RECOVER_NOREG, sizeof(struct stat) },
		{ SYS_newfstatat, 3, RECOVER_NOREG, sizeof(struct stat) },
		{ SYS_clock_gettime, 4, RECOVER_NOREG, sizeof(struct timespec) },
		{ SYS_uname, 5, RECOVER_NOREG, sizeof(struct utsname) },
		{ SYS_pipe, 5, RECOVER_NOREG, 2 * sizeof(int) },
		{ SYS_pipe2, 5, RECOVER_NOREG, 2 * sizeof(int) },
	};
	unsigned addr, len_reg;
	uint64_t len;
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		ck_assert_msg(recover_x86_syscall_buffer((uint64_t)calls[i].nr,
							 &addr, &len_reg, &len),
			      "syscall %ld", calls[i].nr);
		ck_assert_uint_eq(addr, calls[i].addr);
		ck_assert_uint_eq(len_reg, calls[i].len_reg);
		if (len_reg == RECOVER_NOREG)
			ck_assert_uint_eq(len, calls[i].len);
		ck_assert(!recover_x86_syscall_keeps_memory((uint64_t)calls[i].nr));
	}
	/* Calls that write more, or memory anywhere: barriers. */
	ck_assert(!recover_x86_syscall_buffer(SYS_mmap, &addr, &len_reg, &len));
	ck_assert(!recover_x86_syscall_buffer(SYS_brk, &addr, &len_reg, &len));
	ck_assert(!recover_x86_syscall_buffer(SYS_ioctl, &addr, &len_reg, &len));
	ck_assert(!recover_x86_syscall_buffer(SYS_readv, &addr, &len_reg, &len));
	ck_assert(!recover_x86_syscall_keeps_memory(SYS_brk));
	ck_assert(!recover_x86_syscall_keeps_memory(SYS_madvise));
	ck_assert(recover_x86_syscall_keeps_memory(SYS_openat));
}
END_TEST

/* The system calls after which a read-only page of the end state may not
 * hold what it held before: any that maps, unmaps, protects or drops
 * pages (numbers from sys/syscall.h), and one whose number is not known
 * here; not those that only write a buffer or nothing. */
START_TEST(syscall_mappings)
{
	static const long changes[] = {
		SYS_mmap, SYS_mprotect, SYS_mremap, SYS_madvise,
		SYS_execve, SYS_execveat, SYS_shmat, SYS_shmdt,
		SYS_remap_file_pages, SYS_pkey_mprotect, SYS_rt_sigreturn,
		SYS_clone, SYS_ioctl, 1000,
	};
	static const long keeps[] = {
		SYS_write, SYS_read, SYS_close, SYS_fstat, SYS_newfstatat,
		SYS_clock_gettime, SYS_getpid, SYS_exit_group, SYS_brk,
		SYS_munmap,
	};
	size_t i;

	for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
		ck_assert_msg(!recover_x86_syscall_keeps_mappings(
				      (uint64_t)changes[i]),
			      "syscall %ld", changes[i]);
	for (i = 0; i < sizeof(keeps) / sizeof(keeps[0]); i++)
		ck_assert_msg(recover_x86_syscall_keeps_mappings(
				      (uint64_t)keeps[i]),
			      "syscall %ld", keeps[i]);
	/* mmap only adds a mapping where the kernel chooses; never over
	 * one (MAP_FIXED), nor at a place asked for (MAP_FIXED_NOREPLACE,
	 * which older kernels take as MAP_FIXED's hint). */
	ck_assert(recover_x86_syscall_only_adds_mappings(SYS_mmap,
			MAP_PRIVATE | MAP_ANONYMOUS));
	ck_assert(recover_x86_syscall_only_adds_mappings(SYS_mmap,
			MAP_SHARED | MAP_POPULATE));
	ck_assert(!recover_x86_syscall_only_adds_mappings(SYS_mmap,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED));
	ck_assert(!recover_x86_syscall_only_adds_mappings(SYS_mmap,
			MAP_PRIVATE | MAP_FIXED_NOREPLACE));
	ck_assert(!recover_x86_syscall_only_adds_mappings(SYS_mremap, 0));
	ck_assert(!recover_x86_syscall_only_adds_mappings(SYS_mprotect, 0));
	/* What may take pages away (which a later mmap may give back with
	 * other bytes). */
	ck_assert(recover_x86_syscall_removes_mappings(SYS_munmap));
	ck_assert(recover_x86_syscall_removes_mappings(SYS_brk));
	ck_assert(!recover_x86_syscall_removes_mappings(SYS_write));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("semantics");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, instructions_agree_with_the_cpu, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, stack_instructions);
	tcase_add_test(tc, string_stores_where_the_cpu_does);
	tcase_add_test(tc, fs_operands);
	tcase_add_test(tc, bit_scans_of_zero_stay_unknown);
	tcase_add_test(tc, syscall_buffers);
	tcase_add_test(tc, syscall_mappings);
	tcase_add_test(tc, syscall_registers);
	tcase_add_loop_test(tc, flags_agree_with_the_cpu, 0,
			    (int)(sizeof(flag_cases) / sizeof(flag_cases[0])));
	tcase_add_test(tc, undefined_flags_stay_unknown);
	tcase_add_test(tc, compares_with_memory);
	tcase_add_loop_test(tc, setcc_and_cmov_from_known_flags, 0,
			    (int)(sizeof(readers) / sizeof(readers[0])));
	tcase_add_test(tc, syscall_puts_the_flags_in_r11);
	tcase_add_loop_test(tc, cmov_outcome_agrees_with_the_cpu, 0,
			    sizeof(readers) / sizeof(readers[0]));
	tcase_add_loop_test(tc, setcc_and_cmov_agree_with_the_cpu, 0,
			    (int)(sizeof(compares) / sizeof(compares[0]) *
				  sizeof(readers) / sizeof(readers[0])));
	return check_run_tcase("recover-x86", tc);
}
