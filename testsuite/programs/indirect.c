/* indirect: indirect calls through a function-pointer table and an indirect
 * jump through a switch's jump table (dense cases; built with -O1 so GCC
 * emits the table), i.e. TIP packets. */
#include <stdio.h>

typedef int (*op_fn)(int, int);

__attribute__((noinline)) static int add(int a, int b) { return a + b; }
__attribute__((noinline)) static int sub(int a, int b) { return a - b; }
__attribute__((noinline)) static int mul(int a, int b) { return a * b; }
__attribute__((noinline)) static int maxi(int a, int b) { return a > b ? a : b; }

static op_fn const ops[] = { add, sub, mul, maxi };

__attribute__((noinline)) static int classify(int c)
{
	switch (c) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 53;
	case 5: return 67;
	case 6: return 79;
	case 7: return 83;
	default: return -1;
	}
}

int main(void)
{
	volatile unsigned seed = 7;	/* volatile: keep the calls indirect */
	int acc = 1;

	for (unsigned i = 0; i < 24; i++) {
		op_fn f = ops[(i * seed) % 4];

		acc = f(acc, (int)i) % 1000;
		acc += classify((int)((i * 5 + seed) % 9));
	}
	printf("indirect: %d\n", acc);
	return 0;
}
