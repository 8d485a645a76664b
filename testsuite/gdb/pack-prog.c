/* pack-prog: a program with a shared library of its own (pack-lib.c) that
 * dies of SIGSEGV, for test-pack.py: recorded, packed, moved, and replayed
 * after the program, its library and their debug files are gone. */
int pack_scale(int x);

static int add(int a, int b)
{
	return a + b;
}

static void crash(int v)
{
	volatile int *p = (volatile int *)(long)(v - v);

	*p = v;
}

int main(void)
{
	int v = add(2, 3);

	v = pack_scale(v);
	v = add(v, 1);
	crash(v);
	return 0;
}
