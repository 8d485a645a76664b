/* mapping-reuse.c: a read-only page is read, unmapped, and mapped again
 * by an mmap without MAP_FIXED, which takes the hole it left (the same
 * address under the kernel and under Valgrind), with other bytes (zeros).
 * Then a crash, for a core.  System calls are made directly, with the
 * page's address in r12 throughout, so that recovery knows where the load
 * read from.
 *
 * For value recovery (recover-vs-vgdb.test): the end state's read-only
 * bytes hold back to an mmap that only adds a mapping, but not back past
 * a munmap before it: the rbx loaded from the first page is 0x5a5a...,
 * never the zeros the core holds there. */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

int main(void)
{
	uint64_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 2;
	p[0] = 0x5a5a5a5a5a5a5a5aull;
	mprotect(p, 4096, PROT_READ);
	__asm__ volatile(
		"mov %0, %%r12\n\t"
		/* rbx from the page, then lost: only the page says what it
		 * was */
		"mov (%%r12), %%rbx\n\t"
		"xor %%ebx, %%ebx\n\t"
		/* munmap(p, 4096) */
		"mov $11, %%eax\n\t"
		"mov %%r12, %%rdi\n\t"
		"mov $4096, %%esi\n\t"
		"syscall\n\t"
		/* mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		 * -1, 0): zeros, at p again */
		"mov $9, %%eax\n\t"
		"xor %%edi, %%edi\n\t"
		"mov $4096, %%esi\n\t"
		"mov $1, %%edx\n\t"
		"mov $0x22, %%r10d\n\t"
		"mov $-1, %%r8\n\t"
		"xor %%r9d, %%r9d\n\t"
		"syscall\n\t"
		"mov %%rax, %%r13\n\t"
		/* the crash */
		"movl $0, 0\n\t"
		: : "r"(p)
		: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
		  "r11", "r12", "r13", "memory", "cc");
	return 0;
}
