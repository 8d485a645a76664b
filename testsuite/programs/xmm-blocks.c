/* xmm-blocks.c: straight-line SSE code longer than a Valgrind superblock
 * (VEX ends one after 50 instructions when nothing branches), so that a
 * block's last instruction writes xmm0 and the next block starts with the
 * new value: the data log must see the change at the block boundary
 * (testsuite/record/values-xmm-blocks.test). */
#include <stdint.h>

volatile uint64_t g_low;

static uint64_t count_up(void)
{
	uint64_t r;

	__asm__ volatile("pcmpeqd %%xmm1, %%xmm1\n\t"
			 "psrlq $63, %%xmm1\n\t"	/* 1 in each half */
			 "pxor %%xmm0, %%xmm0\n\t"
			 ".rept 130\n\t"
			 "paddq %%xmm1, %%xmm0\n\t"
			 ".endr\n\t"
			 "movq %%xmm0, %0"
			 : "=r"(r) : : "xmm0", "xmm1");
	return r;
}

int main(void)
{
	g_low = count_up();
	g_low += count_up();
	return g_low == 260 ? 0 : 1;
}
