// cxx-catch: exceptions thrown through a recursion and caught by type, then
// a crash; test-btrace-compare.sh lists its function-call history with GDB's
// btrace decoder and ours.  Ending a catch runs _Unwind_DeleteException,
// which jumps to libstdc++'s cleanup, a function without a symbol.
#include <cstdio>
#include <stdexcept>

static int depth(int n)
{
	if (n == 0)
		throw std::runtime_error("bottom");
	return depth(n - 1) + 1;
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 3; i++) {
		try {
			depth(4 + i);
		} catch (const std::exception &e) {
			caught += e.what()[0] == 'b';
		}
	}
	std::printf("caught %d\n", caught);
	volatile int *nowhere = nullptr;
	return *nowhere + caught;
}
