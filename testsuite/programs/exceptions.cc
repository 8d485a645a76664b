// exceptions: C++ throw and catch across frames (the unwinder in libgcc
// returns into landing pads: control transfers without a matching call).
#include <cstdio>
#include <stdexcept>

__attribute__((noinline)) static int check(int n)
{
	if (n % 3 == 0)
		throw std::runtime_error("multiple of three");
	return n * 2;
}

struct Guard {
	int *count;
	~Guard() { ++*count; }	// runs during unwinding too
};

__attribute__((noinline)) static int middle(int n, int *destroyed)
{
	Guard g{destroyed};
	return check(n) + 1;
}

int main()
{
	int caught = 0, sum = 0, destroyed = 0;

	for (int i = 0; i < 5; i++) {
		try {
			sum += middle(i, &destroyed);
		} catch (const std::exception &e) {
			caught++;
		}
	}
	std::printf("exceptions: caught %d sum %d destroyed %d\n", caught, sum,
		    destroyed);
	return 0;
}
