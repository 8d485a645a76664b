/* spin-prog.c: runs until killed (test-live.py kills GDB while it records
 * this program), calling a function in a loop. */
static volatile unsigned long counter;

__attribute__((noinline)) static void tick(unsigned long i)
{
	counter += i & 7;
}

int main(void)
{
	for (unsigned long i = 0;; i++)
		tick(i);
}
