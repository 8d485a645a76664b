/* tailcall: built with -O2, so calls in tail position become jumps (GCC's
 * sibling calls): a function is left without a return of its own. */
#include <stdio.h>

__attribute__((noinline)) int tail_leaf(int x)
{
	__asm__ volatile("" : "+r"(x));	/* keep it a real function */
	return x * 3 + 1;
}

__attribute__((noinline)) int tail_middle(int x)
{
	__asm__ volatile("" : "+r"(x));
	return tail_leaf(x + 2);	/* a jmp, not a call */
}

__attribute__((noinline)) int tail_even(int n);
__attribute__((noinline)) int tail_odd(int n)
{
	__asm__ volatile("" : "+r"(n));
	return n == 0 ? 0 : tail_even(n - 1);
}

__attribute__((noinline)) int tail_even(int n)
{
	__asm__ volatile("" : "+r"(n));
	return n == 0 ? 1 : tail_odd(n - 1);
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 10; i++)
		sum += tail_middle(i);
	printf("tailcall: %d even(17)=%d\n", sum, tail_even(17));
	return 0;
}
