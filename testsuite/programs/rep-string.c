/* rep-string: REP MOVSB and REP STOSB with counts 0, 1 and 100.  Each
 * execution is one instruction (as Intel PT and retirement counters see it),
 * however many iterations it makes; single-stepping sees every iteration. */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static void copy(char *dst, const char *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

__attribute__((noinline)) static void fill(char *dst, char c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
}

int main(void)
{
	static const size_t counts[] = { 0, 1, 100 };
	char src[128], dst[128];

	memset(src, 'x', sizeof(src));
	memset(dst, '.', sizeof(dst));
	for (int i = 0; i < 3; i++) {
		copy(dst, src, counts[i]);
		fill(dst + 100, (char)('a' + i), counts[i] % 20);
	}
	printf("rep-string: %.3s %c %c\n", dst, dst[99], dst[100]);
	return 0;
}
