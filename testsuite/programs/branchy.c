/* branchy: ROUNDS (argv[1], default 4000) rounds of data-dependent indirect
 * calls through a table of eight functions and a switch dispatched through
 * a jump table (built -O1): a dense trace of TIP packets, about 10 bytes a
 * round, for tests that need much trace from few instructions (buffer
 * pressure).  Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned (*op_fn)(unsigned);

#define OP(name, expr) \
	__attribute__((noinline)) static unsigned name(unsigned v) { return expr; }
OP(op0, v + 1)
OP(op1, v ^ 0x5a5a)
OP(op2, v * 3)
OP(op3, v >> 1)
OP(op4, v + 0x101)
OP(op5, v - 7)
OP(op6, v << 2)
OP(op7, ~v)

static op_fn const ops[] = { op0, op1, op2, op3, op4, op5, op6, op7 };

__attribute__((noinline)) static unsigned pick(unsigned x, unsigned acc)
{
	switch (x & 7) {
	case 0: return acc + 3;
	case 1: return acc ^ 0x33;
	case 2: return acc * 5;
	case 3: return acc - 11;
	case 4: return acc + (acc >> 3);
	case 5: return acc ^ (acc << 1);
	case 6: return acc + 0x77;
	default: return acc - 1;
	}
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4000;
	unsigned x = 2463534242u, acc = 1;

	for (unsigned i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		acc = ops[x & 7](acc);
		acc = ops[(x >> 3) & 7](acc);
		acc = pick(x >> 6, acc);
	}
	printf("branchy: %u rounds, checksum %08x\n", rounds, acc);
	return 0;
}
