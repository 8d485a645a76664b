/* test-core-siginfo: the siginfo the recorder adds to Valgrind's core
 * (kernel/valgrind/host/core-siginfo.c), given what Valgrind's core says:
 * every byte as the kernel fills it (include/uapi/asm-generic/siginfo.h,
 * glibc's siginfo_t as the oracle for offsets), and none when the sender
 * or the address is not known.  test-siginfo.sh checks whole crashes
 * against GDB on the program run natively. */
#include "../../kernel/valgrind/host/core-siginfo.h"

#include <check.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/user.h>

static struct elf_prstatus st;
static struct user_regs_struct regs;
static struct core_end end;
static uint8_t out[CORE_SIGINFO_SIZE];

static void thread(int signo, int code, int tid)
{
	memset(&st, 0, sizeof(st));
	st.pr_info.si_signo = signo;
	st.pr_info.si_code = code;
	st.pr_pid = tid;
	memcpy(&st.pr_reg, &regs, sizeof(regs));
}

static void setup(void)
{
	memset(&regs, 0, sizeof(regs));
	regs.rip = 0x401000;
	memset(&end, 0, sizeof(end));
	memset(out, 0xaa, sizeof(out));
}

/* Only the named bytes of OUT are non-zero: the kernel clears the rest. */
static void rest_is_zero(size_t from)
{
	size_t i;

	for (i = from; i < sizeof(out); i++)
		ck_assert_uint_eq(out[i], 0);
}

START_TEST(fault_at_a_data_address)
{
	siginfo_t si;

	thread(SIGSEGV, SEGV_ACCERR, 77);
	end = (struct core_end){ .signal = SIGSEGV, .has_fault_address = true,
				 .fault_address = 0x402025 };
	ck_assert(core_siginfo(&st, &end, out));
	ck_assert_uint_eq(sizeof(si), sizeof(out));
	memcpy(&si, out, sizeof(si));
	ck_assert_int_eq(si.si_signo, SIGSEGV);
	ck_assert_int_eq(si.si_errno, 0);
	ck_assert_int_eq(si.si_code, SEGV_ACCERR);
	ck_assert_ptr_eq(si.si_addr, (void *)0x402025);
	rest_is_zero(offsetof(siginfo_t, si_addr) + 8);
}
END_TEST

START_TEST(fault_not_known)
{
	thread(SIGSEGV, SEGV_MAPERR, 77);
	end = (struct core_end){ .signal = SIGSEGV };
	ck_assert(!core_siginfo(&st, &end, out));	/* no address */
	end.has_fault_address = true;
	end.fault_address = regs.rip;		/* a jump: Valgrind's code */
	ck_assert(!core_siginfo(&st, &end, out));
	end.fault_address = 8;
	end.signal = SIGBUS;			/* not the core's signal */
	ck_assert(!core_siginfo(&st, &end, out));
}
END_TEST

START_TEST(sent_by_the_thread_itself)
{
	siginfo_t si;

	regs.rdi = 1000;	/* tgkill(process, thread, signal) */
	regs.rsi = 1002;
	regs.rdx = SIGABRT;
	thread(SIGABRT, SI_TKILL, 1002);
	end = (struct core_end){ .signal = SIGABRT, .has_process = true,
				 .pid = 1000, .uid = 1234,
				 .has_bytes_before_pc = true,
				 .bytes_before_pc = { 0x0f, 0x05 } };
	ck_assert(core_siginfo(&st, &end, out));
	memcpy(&si, out, sizeof(si));
	ck_assert_int_eq(si.si_signo, SIGABRT);
	ck_assert_int_eq(si.si_code, SI_TKILL);
	ck_assert_int_eq(si.si_pid, 1000);
	ck_assert_uint_eq(si.si_uid, 1234);
	rest_is_zero(offsetof(siginfo_t, si_uid) + 4);
}
END_TEST

START_TEST(sent_by_someone_else)
{
	end = (struct core_end){ .signal = SIGABRT, .has_process = true,
				 .pid = 1000, .has_bytes_before_pc = true,
				 .bytes_before_pc = { 0x0f, 0x05 } };
	regs.rdi = 1000;
	regs.rsi = 1002;
	regs.rdx = SIGABRT;
	thread(SIGABRT, SI_USER, 1002);		/* kill(): not tgkill */
	ck_assert(!core_siginfo(&st, &end, out));
	regs.rsi = 1003;			/* another thread's tgkill */
	thread(SIGABRT, SI_TKILL, 1002);
	ck_assert(!core_siginfo(&st, &end, out));
	regs.rsi = 1002;
	regs.rdx = SIGSEGV;			/* another signal */
	thread(SIGABRT, SI_TKILL, 1002);
	ck_assert(!core_siginfo(&st, &end, out));
	regs.rdx = SIGABRT;
	regs.rdi = 999;				/* another process */
	thread(SIGABRT, SI_TKILL, 1002);
	ck_assert(!core_siginfo(&st, &end, out));
	regs.rdi = 1000;
	end.bytes_before_pc[1] = 0x04;		/* not after a syscall */
	thread(SIGABRT, SI_TKILL, 1002);
	ck_assert(!core_siginfo(&st, &end, out));
	end.bytes_before_pc[1] = 0x05;
	end.has_bytes_before_pc = false;	/* code not in the core */
	ck_assert(!core_siginfo(&st, &end, out));
	end.has_bytes_before_pc = true;
	ck_assert(core_siginfo(&st, &end, out));	/* all of it holds */
}
END_TEST

START_TEST(divide_error_at_a_division)
{
	siginfo_t si;

	thread(SIGFPE, FPE_INTDIV, 77);
	end = (struct core_end){ .signal = SIGFPE, .pc_divides = true,
				 /* Valgrind's report: its translation's */
				 .has_fault_address = true,
				 .fault_address = 0x10031b1a4d };
	ck_assert(core_siginfo(&st, &end, out));
	memcpy(&si, out, sizeof(si));
	ck_assert_int_eq(si.si_signo, SIGFPE);
	ck_assert_int_eq(si.si_errno, 0);
	ck_assert_int_eq(si.si_code, FPE_INTDIV);
	ck_assert_ptr_eq(si.si_addr, (void *)0x401000);	/* the PC */
	rest_is_zero(offsetof(siginfo_t, si_addr) + 8);
}
END_TEST

START_TEST(floating_point_error_not_known)
{
	end = (struct core_end){ .signal = SIGFPE };
	thread(SIGFPE, FPE_INTDIV, 77);		/* not at a div or idiv */
	ck_assert(!core_siginfo(&st, &end, out));
	end.pc_divides = true;
	thread(SIGFPE, FPE_FLTDIV, 77);		/* an SSE or x87 exception */
	ck_assert(!core_siginfo(&st, &end, out));
	thread(SIGFPE, SI_USER, 77);		/* kill() */
	ck_assert(!core_siginfo(&st, &end, out));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("core-siginfo");
	TCase *tc = tcase_create("core-siginfo");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, fault_at_a_data_address);
	tcase_add_test(tc, fault_not_known);
	tcase_add_test(tc, sent_by_the_thread_itself);
	tcase_add_test(tc, sent_by_someone_else);
	tcase_add_test(tc, divide_error_at_a_division);
	tcase_add_test(tc, floating_point_error_not_known);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
