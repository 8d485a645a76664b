// nav-cxx-prog.cc: where navigation commands go in C++ (nav-cxx.scn): an
// exception thrown three calls down and caught (the unwinder's
// _Unwind_RaiseException, landing pads, destructors run on the way), a
// class with a constructor and destructor, a function template, an inline
// member function, a lambda called through std::function, then a crash.
// Lines the scenario names carry an "L:name" marker comment.
#include <functional>
#include <stdexcept>

static volatile int counter;

struct Guard {
	int id;
	explicit Guard(int i) : id(i) { counter += id; /* L:guard_ctor */ }
	~Guard() { counter -= id; /* L:guard_dtor */ }
	int twice() const { return id * 2; /* L:twice */ }
};

template <typename T> static T add_up(T a, T b)
{
	T sum = a + b; /* L:add_up */
	return sum;
}

static void thrower(int n)
{
	Guard g(n); /* L:thrower */
	if (n > 2)
		throw std::runtime_error("deep"); /* L:throw */
	thrower(n + 1); /* L:thrower_rec */
}

static int catcher(int start)
{
	try {
		thrower(start); /* L:try */
	} catch (const std::exception &e) {
		counter += 100; /* L:catch */
		return 1;
	}
	return 0;
}

static int call_with(const std::function<int(int)> &f, int v)
{
	return f(v); /* L:call_with */
}

static void crash(int *where)
{
	*where = counter; /* L:crash */
}

static int run()
{
	int r = 0;
	r += catcher(1); /* L:run_catch */
	Guard outer(5); /* L:run_guard */
	r += outer.twice();
	r += add_up(r, 3); /* L:run_template */
	r += (int)add_up(1.5, 2.5);
	int base = 7;
	std::function<int(int)> f = [base](int x) {
		return x + base; /* L:lambda */
	};
	r += call_with(f, r); /* L:run_apply */
	counter += r;
	crash(nullptr); /* L:run_crash */
	return r;
}

int main()
{
	// The first throw sets up the unwinder (dl_iterate_phdr, FDE sorting):
	// record full takes minutes over it, so the scenario records from
	// run, after it.
	catcher(3);
	return run();
}
