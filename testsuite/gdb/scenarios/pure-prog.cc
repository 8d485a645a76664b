// pure-prog.cc: C++ with multiple inheritance (a class with two bases,
// one with a virtual method called through each base pointer),
// dynamic_cast, std::shared_ptr owners counted, std::function callbacks
// kept in a std::vector, a class template with a static member, an
// exception of a derived type caught as its base two frames up, and at
// the end a pure virtual call: a base destructor calls a virtual method
// through a helper, while the object is already only a Base, so
// __cxa_pure_virtual runs std::terminate and abort() raises SIGABRT
// (values-pure*.scn).
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

long g_events;
int g_caught;
// The first block run_pure allocates: the scenarios' heap anchor.
void *g_first;

struct Named {
	std::string name;
	explicit Named(const std::string &n) : name(n) {}
	virtual ~Named() {}
	virtual const char *kind() const { return "named"; }
};

struct Sized {
	long size;
	explicit Sized(long s) : size(s) {}
	virtual ~Sized() {}
	virtual long weight() const { return size; }
};

struct Crate : Named, Sized {
	int slots;
	Crate(const std::string &n, long s, int k) : Named(n), Sized(s), slots(k) {}
	const char *kind() const override { return "crate"; }
	long weight() const override { return size * slots + 1; } // L:crate_weight
};

template <typename T> struct Counter {
	static int made;
	T total;
	Counter() : total() { made++; }
	void add(const T &v) { total += v; } // L:counter_add
};
template <typename T> int Counter<T>::made;

struct BadWeight : std::runtime_error {
	long weight;
	explicit BadWeight(long w) : std::runtime_error("bad weight"), weight(w) {}
};

static long checked(const Sized *s)
{
	long w = s->weight();
	if (w > 100)
		throw BadWeight(w); // L:throw
	return w;
}

static long sum_weights(const std::vector<std::shared_ptr<Sized>> &all)
{
	long sum = 0;
	for (const auto &s : all)
		sum += checked(s.get()); // L:sum_each
	return sum;
}

static long try_sum(const std::vector<std::shared_ptr<Sized>> &all)
{
	try {
		return sum_weights(all);
	} catch (const std::runtime_error &e) {
		g_caught++; // L:caught
		return -1;
	}
}

struct Job;
static void report(Job *j);

struct Job {
	int id;
	explicit Job(int i) : id(i) {}
	virtual long work() = 0;
	virtual ~Job() { report(this); } // L:job_dtor
};

struct Copy : Job {
	long bytes;
	Copy(int i, long b) : Job(i), bytes(b) {}
	long work() override { return bytes / 2; }
};

static void report(Job *j)
{
	g_events += j->work(); // L:crash
}

long run_pure(void)
{
	std::vector<std::shared_ptr<Sized>> all;
	auto crate = std::make_shared<Crate>("blue", 4, 3);
	g_first = crate.get();
	all.push_back(crate);
	all.push_back(std::make_shared<Sized>(20));
	all.push_back(crate);
	long use = crate.use_count(); // L:use
	Named *named = crate.get();
	Crate *back = dynamic_cast<Crate *>(named);
	Counter<long> longs;
	Counter<double> doubles;
	std::vector<std::function<void(long)>> hooks;
	hooks.push_back([&](long v) { longs.add(v); });
	hooks.push_back([&](long v) { doubles.add(v * 0.5); });
	long first = try_sum(all); // L:first_sum
	for (auto &h : hooks)
		h(first + use);
	all.push_back(std::make_shared<Crate>("red", 40, 3));
	long second = try_sum(all); // L:second_sum
	g_events = first * 1000 + second + (back == crate.get());
	{
		Copy c(7, 4096);
		g_events += c.work(); // L:copy_work
	}
	return g_events;
}

// The first throw sets the unwinder up (dl_iterate_phdr, the FDE
// tables): record full would take minutes over it, so the scenarios
// record from run_pure, after this one.
static void warm_up(void)
{
	try {
		throw BadWeight(0);
	} catch (const BadWeight &) {
	}
}

int main()
{
	warm_up();
	return (int) run_pure();
}
