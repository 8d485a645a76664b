// throw-prog.cc: where navigation goes around C++ exceptions (throw-*.scn):
// a call that throws caught one frame up and one caught two frames up
// (a destructor runs while the exception unwinds the frame between), a
// virtual call through a base reference, then a crash.  Built at -O0 and
// -O2 (throw-prog-o2).  Lines the scenarios name carry an "L:name" marker.
#include <stdexcept>

static volatile int counter;
static int *volatile nowhere;

struct Shape {
	virtual ~Shape() {}
	virtual int area(int k) const = 0;
};

struct Square : Shape {
	int side;
	explicit Square(int s) : side(s) {}
	int area(int k) const override
	{
		return side * side * k; /* L:square_area */
	}
};

struct Strip : Shape {
	int len;
	explicit Strip(int l) : len(l) {}
	int area(int k) const override
	{
		return len * k; /* L:strip_area */
	}
};

struct Noisy {
	int id;
	explicit Noisy(int i) : id(i) { counter += i; }
	~Noisy()
	{
		counter -= id; /* L:noisy_dtor */
	}
};

__attribute__((noinline)) static int check(int v)
{
	if (v > 3)
		throw std::range_error("too big"); /* L:throw */
	return v * 2; /* L:check_ok */
}

// Its Noisy's destructor runs in the landing pad when check throws.
__attribute__((noinline)) static int guarded(int v)
{
	Noisy n(v); /* L:guarded */
	int r = check(v); /* L:guarded_call */
	counter += r;
	return r + 1; /* L:guarded_ret */
}

// check throws, one_up catches: one frame up.
__attribute__((noinline)) static int one_up(int v)
{
	int r = 0;
	try {
		r = check(v); /* L:one_up_call */
		r += 10; /* L:one_up_after */
	} catch (const std::range_error &) {
		r = -1; /* L:one_up_catch */
	}
	return r; /* L:one_up_ret */
}

// check throws below guarded, two_up catches: two frames up.
__attribute__((noinline)) static int two_up(int v)
{
	int r = 0;
	try {
		r = guarded(v); /* L:two_up_call */
		r += 10; /* L:two_up_after */
	} catch (const std::exception &) {
		r = -2; /* L:two_up_catch */
	}
	return r; /* L:two_up_ret */
}

__attribute__((noinline)) static int measure(const Shape &s, int k)
{
	int a = s.area(k); /* L:measure */
	return a + 1; /* L:measure_ret */
}

__attribute__((noinline)) static void crash(int *where)
{
	*where = counter; /* L:crash */
}

__attribute__((noinline)) int run(int seed)
{
	int total = 0;
	total += one_up(seed); /* L:run_one_ok */
	total += one_up(seed + 5); /* L:run_one_throw */
	total += two_up(seed); /* L:run_two_ok */
	total += two_up(seed + 5); /* L:run_two_throw */
	Square sq(seed);
	Strip st(seed);
	const Shape &s = seed > 10 ? static_cast<const Shape &>(st) : sq;
	total += measure(s, 3); /* L:run_measure */
	return total; /* L:run_ret */
}

// A first throw before main, where the recording starts: the unwinder's
// set-up would take record full minutes.
static struct WarmUp {
	WarmUp()
	{
		try {
			check(9);
		} catch (const std::exception &) {
			counter++;
		}
	}
} warm_up;

int main(int argc, char **argv)
{
	(void)argv;
	int total = run(argc + 1);
	counter += total;
	crash(nowhere); /* L:main_crash */
	return 0;
}
