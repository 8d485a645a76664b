/* odd-symbol: a function whose symbol name is not UTF-8 (a 0xff byte, then
 * a valid "é"): ELF names are any bytes but NUL, and a JSON writer must
 * turn the bad byte into U+FFFD rather than drop the name or the file. */
#include <stdio.h>

__attribute__((noinline)) int odd(int x) __asm__("odd\xff\xc3\xa9name");

int odd(int x)
{
	return x * 3;
}

int main(void)
{
	printf("%d\n", odd(14));
	return 0;
}
