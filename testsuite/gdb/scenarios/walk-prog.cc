// walk-prog.cc: where navigation goes in a C++ tree walk (walk*.scn): a
// recursive visitor over a tree of nodes, an RAII Depth guard whose
// destructor runs in each frame an exception unwinds, a limit exception
// thrown four calls down, caught two frames up and rethrown as another
// type (throw_with_nested-free: a new throw inside the catch), caught in
// main's loop; a std::function callback per leaf, std::sort with a lambda
// comparator, then a call through a null pointer to a member function
// that reads a member (SIGSEGV).  Lines the scenarios name carry "L:name".
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

static volatile int counter;

struct Node {
	int value;
	std::vector<Node *> kids;
	explicit Node(int v) : value(v) {}
	int weight() const
	{
		return value * 2 + (int)kids.size(); /* L:weight */
	}
};

static Node *first_node;	// the first block allocated: walk*.scn's heap anchor

struct TooDeep {
	int depth;
};

struct Depth {
	int &level;
	explicit Depth(int &l) : level(l)
	{
		++level; /* L:depth_enter */
	}
	~Depth()
	{
		--level; /* L:depth_leave */
		counter++;
	}
};

class Walker {
public:
	Walker(int limit, std::function<void(int)> on_leaf)
	    : limit_(limit), on_leaf_(std::move(on_leaf)) {}

	int walk(const Node *n)
	{
		Depth guard(level_); /* L:walk_guard */
		if (level_ > limit_)
			throw TooDeep{level_}; /* L:walk_throw */
		if (n->kids.empty()) {
			on_leaf_(n->value); /* L:walk_leaf */
			return n->value;
		}
		return n->value + sum_kids(n); /* L:walk_sum */
	}

	int sum_kids(const Node *n)
	{
		int s = 0;

		for (const Node *k : n->kids)
			s += walk(k); /* L:sum_kids */
		return s; /* L:sum_ret */
	}

	int level_ = 0;

private:
	int limit_;
	std::function<void(int)> on_leaf_;
};

static int guarded_walk(Walker &w, const Node *root)
{
	try {
		return w.walk(root); /* L:guarded_call */
	} catch (const TooDeep &e) {
		counter += e.depth; /* L:guarded_catch */
		throw std::runtime_error("tree too deep"); /* L:guarded_rethrow */
	}
}

static Node *chain(int n, int base)
{
	Node *top = new Node(base);
	Node *cur = top;

	if (first_node == nullptr)
		first_node = top;

	for (int i = 1; i < n; i++) {
		Node *k = new Node(base + i);
		cur->kids.push_back(k);
		cur->kids.push_back(new Node(-i)); /* L:chain_leaf */
		cur = k;
	}
	return top;
}

int main()
{
	std::vector<int> leaves;
	Walker w(4, [&leaves](int v) { leaves.push_back(v); /* L:lambda */ });
	std::vector<Node *> roots = { chain(3, 10), chain(6, 20), chain(2, 30) };
	int total = 0, failures = 0;

	for (Node *r : roots) {
		try {
			total += guarded_walk(w, r); /* L:main_walk */
		} catch (const std::runtime_error &) {
			failures++; /* L:main_catch */
			w.level_ = 0;
		}
	}
	std::sort(roots.begin(), roots.end(), [](const Node *a, const Node *b) {
		return a->weight() < b->weight(); /* L:sort_cmp */
	});
	Node *missing = roots.size() > 8 ? roots[8] : nullptr;
	counter += total + failures + (int)leaves.size();
	return missing->weight(); /* L:main_crash */
}
