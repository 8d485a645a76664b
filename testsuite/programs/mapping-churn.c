/* mapping-churn: maps fresh code while it runs, for recorders killed early.
 *
 *     mapping-churn DIR N [MARKER [HOLD]]
 *
 * N rounds, 100 ms apart: dlopen DIR/churn-K.so (K = 0..N-1, each a separate
 * file, so each round is a new mapping at an address the earlier ones may
 * have used), run its churn() over 20000 callbacks into tick() here (an
 * indirect call and a return each: a dense trace, a few hundred KB of Intel
 * PT per round), dlclose it.  At the end it prints the total and, given
 * MARKER, writes "done N TOTAL" there: a test can tell that the program ran
 * to its end even when nobody waits for it.  Given HOLD (a FIFO), it then
 * waits for a line there before it exits: a test that kills it, or its
 * recorder, once so much trace is on the disk cannot find it gone however
 * slowly the test polls.  Deterministic: the own code takes the same path
 * in every run. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#define CALLBACKS 20000

static unsigned long total;

__attribute__((noinline)) static void tick(unsigned i)
{
	total += i & 3;
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	unsigned n, k;

	if (argc < 3 || sscanf(argv[2], "%u", &n) != 1) {
		fprintf(stderr, "usage: mapping-churn DIR N [MARKER]\n");
		return 2;
	}
	for (k = 0; k < n; k++) {
		char path[4096];
		unsigned long (*churn)(void (*)(unsigned), unsigned);
		void *h;

		snprintf(path, sizeof(path), "%s/churn-%u.so", argv[1], k);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "mapping-churn: %s\n", dlerror());
			return 1;
		}
		*(void **)&churn = dlsym(h, "churn");
		if (!churn) {
			fprintf(stderr, "mapping-churn: %s\n", dlerror());
			return 1;
		}
		total += churn(tick, CALLBACKS);
		dlclose(h);
		nanosleep(&pause, NULL);
	}
	printf("mapping-churn: %u rounds, total %lu\n", n, total);
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");

		if (!f || fprintf(f, "done %u %lu\n", n, total) < 0 || fclose(f))
			return 1;
	}
	if (argc > 4) {
		FILE *hold = fopen(argv[4], "r");
		char line[16];

		if (!hold || !fgets(line, sizeof(line), hold))
			return 1;
		fclose(hold);
	}
	return 0;
}
