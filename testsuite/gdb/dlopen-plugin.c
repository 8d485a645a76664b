/* dlopen-plugin: a plugin the host dlopen()s; its filter walks a table that
 * the host passes too short. */
#include <stddef.h>

struct rule { const char *name; int weight; };

int plug_calls;

static int
score(const struct rule *r)
{
	int s = 0;
	const char *p;

	for (p = r->name; *p != '\0'; p++)
		s += *p;
	return s * r->weight;
}

int
plug_filter(const struct rule *rules, int n)
{
	int total = 0;
	int i;

	plug_calls++;
	for (i = 0; i < n; i++)
		total += score(&rules[i]);
	return total;
}
