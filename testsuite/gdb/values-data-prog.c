/* values-data-prog: values that change over the run, for test-values-data.sh:
 * a global summed in a loop, a local and an argument in frames that return,
 * a buffer a system call fills, a recursion's arguments, then a crash. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int counter;
char buffer[16];

__attribute__((noinline)) static int square(int x)
{
	int sq = x * x;

	counter += sq;
	return sq;
}

__attribute__((noinline)) static int depth(int n, int acc)
{
	if (n == 0)
		return acc;
	return depth(n - 1, acc + n);
}

__attribute__((noinline)) static void crash(int *p)
{
	*p = counter;
}

int main(void)
{
	int fds[2], total = 0;

	for (int i = 1; i <= 6; i++)
		total += square(i);
	if (pipe(fds) == 0 && write(fds[1], "past!", 5) == 5)
		(void)read(fds[0], buffer, sizeof(buffer));
	strcpy(buffer, "end");
	total += depth(4, 100);
	printf("%d %s\n", total, buffer);
	crash(NULL);
	return 0;
}
