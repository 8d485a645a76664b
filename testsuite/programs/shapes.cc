// shapes.cc: C++ without exceptions, for value recovery against an oracle
// (../record/recover-vs-vgdb.test): classes with virtual calls through a
// base pointer, a std::vector filled by push_back (operator new, copies on
// growth), std::sort with a lambda comparator (a callback from library
// code), a member changed through a reference, then a crash through a null
// object pointer two calls below main.  Short (a few thousand instructions
// from main) so GDB can single-step all of it under Valgrind.
#include <algorithm>
#include <vector>

struct Shape {
	explicit Shape(int size) : size_(size), scaled_(0) {}
	virtual ~Shape() {}
	virtual long area() const = 0;
	void scale(int &by) { size_ *= by; by++; scaled_++; }
	int size_;
	int scaled_;
};

struct Square : Shape {
	explicit Square(int side) : Shape(side) {}
	long area() const override { return (long)size_ * size_; }
};

struct Strip : Shape {
	Strip(int length, int width) : Shape(length), width_(width) {}
	long area() const override { return (long)size_ * width_; }
	int width_;
};

static long total_area(const std::vector<Shape *> &shapes)
{
	long sum = 0;

	for (const Shape *s : shapes)
		sum += s->area();
	return sum;
}

static int largest_size(std::vector<Shape *> &shapes, const Shape *missing)
{
	std::sort(shapes.begin(), shapes.end(),
		  [](const Shape *a, const Shape *b) { return a->area() > b->area(); });
	// (missing is null: the crash, reading its size)
	return shapes.front()->size_ + missing->size_;
}

int main()
{
	Square a(3), b(5);
	Strip c(4, 2), d(7, 1);
	std::vector<Shape *> shapes;
	int factor = 2;

	shapes.push_back(&a);
	shapes.push_back(&b);
	shapes.push_back(&c);
	shapes.push_back(&d);
	a.scale(factor);
	c.scale(factor);
	long sum = total_area(shapes);
	Shape *missing = sum > 0 ? nullptr : &a;
	return largest_size(shapes, missing) + (int)sum;
}
