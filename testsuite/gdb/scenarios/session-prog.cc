// session-prog.cc: a value scenario's program (values-session*.scn), C++
// dynamically linked: event handlers owned through std::unique_ptr in a
// std::map<std::string, std::unique_ptr<Handler>>, virtual calls through
// the base class, an exception class of its own with members thrown two
// calls down and caught by type, std::out_of_range from map::at for an
// unknown key, an RAII guard whose destructor counts the frames an
// exception unwinds, then the classic bug: a handler moved out of the map
// (std::move of the unique_ptr leaves a null one behind) and the map walked
// afterwards, which reads through the null pointer.  Not PIE, like
// stl-prog.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

struct Event {
	int id;
	std::string name;
	double amount;
};

struct LimitError : std::runtime_error {
	LimitError(int id, double over)
		: std::runtime_error("over limit"), id(id), over(over) {}
	int id;
	double over;
};

class Handler {
public:
	explicit Handler(std::string tag) : tag_(std::move(tag)) {}
	virtual ~Handler() = default;
	virtual double handle(const Event &e) = 0;
	int handled = 0;

protected:
	std::string tag_;
};

class Ledger : public Handler {
public:
	using Handler::Handler;
	double handle(const Event &e) override
	{
		handled++;
		total_ += e.amount;
		return total_; // L:ledger_total
	}

private:
	double total_ = 0;
};

class Limit : public Handler {
public:
	Limit(std::string tag, double cap) : Handler(std::move(tag)), cap_(cap) {}
	double handle(const Event &e) override
	{
		handled++;
		if (e.amount > cap_)
			throw LimitError(e.id, e.amount - cap_); // L:throw
		return cap_ - e.amount;
	}

private:
	double cap_;
};

static int g_depth;	 // guards alive
static int g_unwound;	 // guards destroyed by an exception's unwinding
static int g_dispatched; // events a handler was found for
static double g_last;	 // the last handler's result

struct Guard {
	explicit Guard(const char *where) : where(where) { ++g_depth; }
	~Guard()
	{
		--g_depth;
		if (std::uncaught_exceptions())
			++g_unwound; // L:unwound
	}
	const char *where;
};

using Registry = std::map<std::string, std::unique_ptr<Handler>>;

static double dispatch(Registry &reg, const std::string &key, const Event &e)
{
	Guard guard("dispatch");
	Handler *handler = reg.at(key).get();

	g_dispatched++;
	g_last = handler->handle(e); // L:dispatch_call
	return g_last;
}

static int run_events(Registry &reg, const std::vector<Event> &events)
{
	int failures = 0;

	for (const Event &e : events) {
		Guard guard("run_events");

		try {
			dispatch(reg, e.name, e);
		} catch (const LimitError &err) {
			failures++;
			g_last = -err.over; // L:caught_limit
		} catch (const std::out_of_range &) {
			failures += 10; // L:caught_range
		}
	}
	return failures;
}

static std::unique_ptr<Handler> retire(Registry &reg, const std::string &key)
{
	auto it = reg.find(key);
	std::unique_ptr<Handler> gone = std::move(it->second);

	return gone; // L:retired
}

static int audit(const Registry &reg)
{
	int total = 0;

	for (const auto &[key, handler] : reg)
		total += handler->handled; // L:crash
	return total;
}

// The process's first throw sets up the unwinder (dl_iterate_phdr over
// every object): not recorded (#record-from run_session), as record full
// would take minutes over it.
static void warm_up()
{
	try {
		throw std::runtime_error("warm-up");
	} catch (const std::exception &) {
	}
}

static int run_session()
{
	Registry reg;

	reg.emplace("ledger", std::make_unique<Ledger>("ledger"));
	reg.emplace("limit", std::make_unique<Limit>("limit", 50.0));
	reg["audit"] = std::make_unique<Ledger>("audit");
	std::vector<Event> events{
		{ 1, "ledger", 20.5 }, { 2, "limit", 30 },  { 3, "limit", 75.25 },
		{ 4, "nobody", 1 },    { 5, "audit", 12 },  { 6, "ledger", 4.5 },
	};
	int failures = run_events(reg, events); // L:session_events
	std::unique_ptr<Handler> old = retire(reg, "limit");
	int handled = old->handled + audit(reg); // L:session_audit

	return failures + handled;
}

int main()
{
	warm_up();
	return run_session();
}
