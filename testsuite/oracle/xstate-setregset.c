/*
 * xstate-setregset.c: preloaded into the record-full oracle's GDB, hands the
 * kernel the whole XSAVE area when GDB writes the x86 extended registers.
 *
 * Why: on hosts with AMX the kernel takes PTRACE_SETREGSET(NT_X86_XSTATE)
 * only with an iovec of the whole XSAVE area (about 11 KB, CPUID leaf 0xD),
 * and refuses GDB 13's shorter one with EFAULT ("Couldn't write extended
 * state status: Bad address"), so native `record full` cannot step back
 * over SSE code or a system call (platform-facts F.1).  gdbserver sizes the
 * area from CPUID and works, but every step is then a round trip between two
 * processes: a scenario's oracle run took 5.8 s through it and 0.16 s
 * natively.  This library does what gdbserver does: it reads the whole area,
 * lays GDB's shorter image over its start (the legacy area, the header with
 * its component bitmap and the components GDB knows) and writes the whole.
 * The components past GDB's image (AMX tiles) keep their current values,
 * which GDB did not mean to change.  Every other request goes to the kernel
 * unchanged.  record_full.py keeps the library out of the program's own
 * environment; testsuite/gdb/test-record-full-paths.sh checks that native
 * runs with it and runs through gdbserver stop at the same places.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long
kernel_ptrace(long request, pid_t pid, void *addr, void *data)
{
	return syscall(SYS_ptrace, request, pid, addr, data);
}

/* The size of the XSAVE area for every feature XCR0 enables: what the
 * kernel's regset holds and wants written whole. */
static size_t
xsave_area_size(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid_count(0xd, 0, &eax, &ebx, &ecx, &edx))
		return 0;
	return ecx;
}

static long
set_xstate(pid_t pid, void *addr, const struct iovec *gdb_image)
{
	size_t whole = xsave_area_size();
	struct iovec area;
	long status;
	int saved;

	if (gdb_image->iov_len >= whole)
		return kernel_ptrace(PTRACE_SETREGSET, pid, addr,
		    (void *)gdb_image);
	area.iov_base = calloc(1, whole);
	area.iov_len = whole;
	if (area.iov_base == NULL) {
		errno = ENOMEM;
		return -1;
	}
	status = kernel_ptrace(PTRACE_GETREGSET, pid, addr, &area);
	if (status == 0 && area.iov_len >= gdb_image->iov_len) {
		memcpy(area.iov_base, gdb_image->iov_base, gdb_image->iov_len);
		status = kernel_ptrace(PTRACE_SETREGSET, pid, addr, &area);
	} else if (status == 0) {
		/* The kernel's area is no larger than GDB's: GDB's own write. */
		status = kernel_ptrace(PTRACE_SETREGSET, pid, addr,
		    (void *)gdb_image);
	}
	saved = errno;
	free(area.iov_base);
	errno = saved;
	return status;
}

/* glibc's ptrace(2) wrapper, whose interface GDB calls. */
long
ptrace(enum __ptrace_request request, ...)
{
	va_list ap;
	pid_t pid;
	void *addr, *data;
	long word, status;

	va_start(ap, request);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);

	switch (request) {
	case PTRACE_SETREGSET:
		if ((unsigned long)addr == NT_X86_XSTATE && data != NULL)
			return set_xstate(pid, addr, data);
		break;
	case PTRACE_PEEKTEXT:
	case PTRACE_PEEKDATA:
	case PTRACE_PEEKUSER:
		/* The wrapper returns the word; the system call stores it. */
		status = kernel_ptrace(request, pid, addr, &word);
		if (status < 0)
			return -1;
		errno = 0;
		return word;
	default:
		break;
	}
	return kernel_ptrace(request, pid, addr, data);
}
