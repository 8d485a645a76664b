// algo-prog.cc: optimised C++ (values-algo*.scn), built with -O2 and
// dynamically linked (so GDB loads libstdc++'s pretty printers): lambdas
// passed to std::sort, std::transform and std::accumulate (inlined into
// their callers), a function template for two types, std::string and
// std::vector locals, virtual calls the compiler cannot resolve, an
// exception thrown in a noinline function and caught two frames up, then
// a store through a null pointer (the L:main_* lines are run_algo's).
#include <algorithm>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

struct Meter {
	virtual ~Meter() = default;
	virtual long read(long x) const = 0;
};

struct Linear : Meter {
	explicit Linear(long k) : k(k) {}
	long read(long x) const override { return k * x + 1; } // L:linear
	long k;
};

struct Square : Meter {
	long read(long x) const override { return x * x; } // L:square
};

long g_total;
int g_caught;
volatile long g_sink;
long *g_null;

template <typename T>
__attribute__((noinline)) T clamp_sum(const std::vector<T> &items, T limit)
{
	T total{};

	for (const T &item : items)
		total += std::min(item, limit); // L:clamp_sum
	return total;
}

__attribute__((noinline)) long check(long v)
{
	if (v > 40)
		throw std::out_of_range("too big: " + std::to_string(v)); // L:throw
	g_sink = v; // L:checked
	return v * 2;
}

__attribute__((noinline)) void note(const std::exception &err)
{
	g_caught++; // L:note
	g_sink = err.what()[0];
}

__attribute__((noinline)) long guarded(long v)
{
	long r = check(v) + 1; // L:guarded

	return r;
}

__attribute__((noinline)) long measure(const std::vector<std::unique_ptr<Meter>> &meters,
				       long x)
{
	long sum = 0;

	for (const auto &m : meters)
		sum += m->read(x); // L:measure
	return sum;
}

__attribute__((noinline)) std::string label(const std::string &base, int n)
{
	std::string out = base; // L:label

	out += '#';
	out += std::to_string(n);
	return out;
}

static void warm_up()
{
	// The first throw sets up the unwinder: not recorded (see the
	// scenarios' #record-from).
	try {
		throw std::runtime_error("warm");
	} catch (const std::exception &) {
	}
}

__attribute__((noinline)) int run_algo(int argc)
{
	std::vector<int> nums = {31, 7, 19, 3, 42, 11, 25};
	std::vector<double> scaled(nums.size());
	std::vector<std::unique_ptr<Meter>> meters;
	std::string name = label("batch", argc + 6); // L:main_label
	long seen = 0;

	std::sort(nums.begin(), nums.end(),
		  [](int a, int b) { return a % 10 < b % 10; }); // L:sort
	std::transform(nums.begin(), nums.end(), scaled.begin(),
		       [argc](int v) { return v * 0.5 + argc; }); // L:transform
	long odd = std::accumulate(nums.begin(), nums.end(), 0L,
				   [](long acc, int v) {
					   return v & 1 ? acc + v : acc; // L:odd_lambda
				   });
	meters.push_back(std::make_unique<Linear>(3));
	meters.push_back(std::make_unique<Square>());
	g_total = measure(meters, odd); // L:main_measure
	for (int v : nums) {
		try {
			seen += guarded(v); // L:main_guarded
		} catch (const std::out_of_range &err) {
			note(err); // L:main_catch
			name += "!";
		}
	}
	g_total += clamp_sum(nums, 20) + (long)clamp_sum(scaled, 9.5); // L:main_clamp
	g_sink = seen + (long)name.size();
	*g_null = g_total; // L:main_crash
	return 0;
}

int main(int argc, char **)
{
	warm_up();
	int status = run_algo(argc);

	// Not a tail call: main stays on the stack (the scenarios anchor stack
	// addresses at its frame).
	g_sink = status;
	return status;
}
