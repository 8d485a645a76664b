/* dlopen-host: loads ./dlopen-plugin.so with dlopen (a name relative to
 * the working directory, which ld.so keeps as the library's l_name) and
 * calls its filter twice; the second table ends with a rule whose name is
 * NULL. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct rule { const char *name; int weight; };

typedef int (*filter_fn)(const struct rule *, int);

static struct rule g_good[] = { { "alpha", 2 }, { "beta", 3 } };
static struct rule g_bad[] = { { "gamma", 1 }, { NULL, 4 } };
static int g_results[2];

static int
apply(filter_fn f, const struct rule *rules, int n, int slot)
{
	int r = f(rules, n);

	g_results[slot] = r;
	return r;
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "./dlopen-plugin.so";
	void *h = dlopen(path, RTLD_NOW);
	filter_fn f;

	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	f = (filter_fn)dlsym(h, "plug_filter");
	printf("first %d\n", apply(f, g_good, 2, 0));
	printf("second %d\n", apply(f, g_bad, 2, 1));
	dlclose(h);
	return 0;
}
