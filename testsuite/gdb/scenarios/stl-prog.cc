// stl-prog.cc: the C++ standard library (values-stl*.scn), built as users
// build theirs (dynamically linked, so GDB loads libstdc++'s pretty
// printers): a std::vector, a std::string and a std::map changed step by
// step, a function template, an exception thrown two calls down and caught,
// virtual calls through base pointers, then a store through a null pointer.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
	explicit Shape(const char *name) : label(name) {}
	virtual ~Shape() = default;
	virtual long area() const = 0;
	std::string label;
};

struct Rect : Shape {
	Rect(long w, long h) : Shape("rect"), w(w), h(h) {}
	long area() const override { return w * h; } // L:rect_area
	long w, h;
};

struct Square : Rect {
	explicit Square(long side) : Rect(side, side) { label = "square"; }
	long area() const override { return Rect::area() + 1; } // L:square_area
};

static std::map<std::string, int> g_stock;
static long g_areas;
static int g_failures;

template <typename T>
static T sum_of(const std::vector<T> &items)
{
	T total{};

	for (const T &item : items)
		total += item; // L:sum_loop
	return total;
}

static int take(const std::string &item, int n)
{
	auto it = g_stock.find(item);

	if (it == g_stock.end())
		throw std::out_of_range("no " + item);
	if (it->second < n)
		throw std::runtime_error("short of " + item); // L:throw
	it->second -= n; // L:taken
	return it->second;
}

static int order(const std::string &item, int n)
{
	int left = take(item, n); // L:order

	return left;
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

static int run_stl()
{
	int left = -1, total = -1;
	double weight = -1;
	int *slot = nullptr;
	std::vector<int> counts = {4, 8, 15};
	std::string name = "widget";

	counts.push_back(16); // L:push
	g_stock["widget"] = 30;
	g_stock["gear"] = 2;
	g_stock["bolt"] = 11; // L:stock
	left = order(name, counts[0]);
	try {
		order("gear", counts[1]);
	} catch (const std::exception &err) {
		g_failures++; // L:caught
		name += "-retry";
	}
	Rect rect(3, 5);
	Square square(4);
	const Shape *shapes[2] = {&rect, &square};
	for (const Shape *shape : shapes)
		g_areas += shape->area(); // L:areas
	std::vector<double> weights = {0.5, 1.25, 2.0};
	weight = sum_of(weights);
	total = sum_of(counts); // L:sum_counts
	if (total + weight + left > 0) // L:before_crash
		*slot = total + left; // L:crash
	return total;
}

int main()
{
	warm_up();
	return run_stl();
}
