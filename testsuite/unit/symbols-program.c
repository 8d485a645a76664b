/* symbols-program.c: a program for test-symbolizer.c, built as a PIE with
 * debug information: global, static and noinline functions over several
 * lines, and calls through the PLT (puts, strlen), so that the test asks
 * the symbolizer about functions, PLT stubs and lines at a load address
 * other than the link address; a variable-length array, whose frame's CFA
 * the CFI gives from rbp where the others give it from rsp.  It is never
 * run. */
#include <stdio.h>
#include <string.h>

static int __attribute__((noinline)) square(int x)
{
	int y = x * x;

	return y + 1;
}

static int __attribute__((noinline)) fill_squares(int n)
{
	int v[n];

	for (int i = 0; i < n; i++)
		v[i] = square(i);
	return v[n - 1];
}

int __attribute__((noinline)) sum_to(int n)
{
	int total = 0;

	for (int i = 0; i < n; i++)
		total += square(i);
	return total + fill_squares(n + 1);
}

static void __attribute__((noinline)) say(const char *text)
{
	if (strlen(text) > 3)
		puts(text);
	else
		puts("short");
}

int main(int argc, char **argv)
{
	say(argv[0]);
	return sum_to(argc) & 0x7f;
}
