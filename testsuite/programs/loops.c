/* loops: counted and data-dependent loops and conditional branches (taken and
 * not taken, both directions), the bread and butter of TNT packets. */
#include <stdio.h>

static int collatz_steps(unsigned n)
{
	int steps = 0;

	while (n != 1) {
		if (n % 2 == 0)
			n /= 2;
		else
			n = 3 * n + 1;
		steps++;
	}
	return steps;
}

int main(void)
{
	int total = 0, odd = 0;

	for (unsigned i = 1; i <= 30; i++) {
		total += collatz_steps(i);
		if (i & 1)
			odd++;
		else if (i % 3 == 0)
			total--;
	}
	printf("loops: total %d odd %d\n", total, odd);
	return 0;
}
