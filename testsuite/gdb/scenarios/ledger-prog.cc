// ledger-prog.cc: a value scenario's program (values-ledger.scn) in C++:
// a class with methods (`this`, members changed by them), a
// std::vector<int> and a std::string as locals, a reference parameter that
// a method writes through, an exception thrown three calls down and caught
// in run_ledger, a virtual call, and a crash through a null object pointer in a
// method.  Static, not PIE, like values-prog.
#include <stdexcept>
#include <string>
#include <vector>

struct Entry {
	int amount;
	char kind;
};

class Account {
public:
	explicit Account(int opening) : balance_(opening), moves_(0) {}
	virtual ~Account() {}

	virtual int fee(int amount) const
	{
		return amount / 10; // L:fee
	}

	void post(const Entry &e, int &applied)
	{
		int charged = e.amount - fee(e.amount); // L:post

		balance_ += e.kind == 'c' ? charged : -charged; // L:post_add
		moves_++;
		applied += charged;
	}

	int check(int limit) const
	{
		if (balance_ > limit)
			throw std::runtime_error("over limit"); // L:throw
		return limit - balance_;
	}

	int balance_;
	int moves_;
};

class Savings : public Account {
public:
	explicit Savings(int opening) : Account(opening) {}
	int fee(int amount) const override
	{
		return amount / 20; // L:savings_fee
	}
};

static int audit(const Account &a, int limit)
{
	return a.check(limit) + 1; // L:audit
}

static int review(const Account &a, int limit)
{
	return audit(a, limit) * 2;
}

int g_caught;
Account *g_last;
int *g_amounts;

// The first throw of a static program registers and sorts every frame
// description of the unwinder: millions of instructions that record full
// (the oracle) would take minutes over.  Thrown once before recording.
static void warm_up()
{
	try {
		throw std::runtime_error("warm-up");
	} catch (const std::exception &) {
	}
}

static int run_ledger()
{
	std::vector<int> amounts = { 120, 45, 300, 80 };
	std::string label = "acct-";
	Savings savings(1000);
	Account *current = &savings;
	int applied = 0;

	g_amounts = amounts.data();

	for (size_t i = 0; i < amounts.size(); i++) {
		Entry e = { amounts[i], i % 2 ? 'd' : 'c' };
		current->post(e, applied); // L:main_post
		label += char('a' + i);
	}
	try {
		review(*current, 1200);
	} catch (const std::runtime_error &err) {
		g_caught = current->moves_; // L:caught
	}
	g_last = current;
	amounts[2] = 0;
	current = nullptr;
	current->post(Entry{ 1, 'c' }, applied); // L:crash
	return label.size();
}

int main()
{
	warm_up();
	return run_ledger();
}
