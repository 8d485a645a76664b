// uncaught-prog.cc: an exception no handler catches (uncaught*.scn):
// __cxa_throw finds no catch block, std::terminate prints what() and
// calls abort(), which raises SIGABRT five frames below the throw.
#include <cstdio>
#include <stdexcept>

static int g_parsed;

// The process's first throw sets the unwinder up (dl_iterate_phdr, the
// FDE search), which record full would take minutes over: done before
// run_parse, where the recording starts.
static void warm_up()
{
	try {
		throw 1;
	} catch (int) {
	}
}

static int parse(int v)
{
	if (v > 3)
		throw std::runtime_error("too big");
	g_parsed++;
	return v * 2;
}

static int run_parse()
{
	int sum = 0;

	for (int i = 0; i < 6; i++)
		sum += parse(i);
	return sum;
}

int main()
{
	warm_up();
	std::printf("%d\n", run_parse());
	return 0;
}
