/* record-source.c: choosing the trace source of `hwtrec record`. */
#include "record-source.h"

#include <stdio.h>
#include <string.h>

/* Hardware sources first: where they work they cost almost nothing.  The
 * hwt source works on FreeBSD only; elsewhere it comes last, so that auto
 * does not mention it every time. */
const struct record_source *const record_sources[] = {
#ifdef __FreeBSD__
	&record_source_hwt,
#endif
	&record_source_perf,
	&record_source_valgrind,
#ifndef __FreeBSD__
	&record_source_hwt,
#endif
	NULL,
};

const struct record_source *record_source_find(const char *name)
{
	size_t i;

	for (i = 0; record_sources[i]; i++)
		if (!strcmp(record_sources[i]->name, name))
			return record_sources[i];
	return NULL;
}

/* The first usable source; when that is not the first in the table, one
 * line says which it is and why the ones before it were passed over. */
static const struct record_source *choose_auto(bool attach, bool quiet)
{
	char why[512], skipped[2048] = "";
	size_t i, len = 0;

	for (i = 0; record_sources[i]; i++) {
		const struct record_source *s = record_sources[i];

		if (attach && !s->can_attach)
			snprintf(why, sizeof(why), "cannot attach to a running "
				 "process");
		else if (s->available(why, sizeof(why))) {
			if (!quiet && len)
				fprintf(stderr, "hwtrec record: using the %s "
					"source (%s)\n", s->name, skipped);
			return s;
		}
		if (len < sizeof(skipped))
			len += (size_t)snprintf(skipped + len,
						sizeof(skipped) - len, "%s%s: %s",
						len ? "; " : "", s->name, why);
	}
	fprintf(stderr, "hwtrec record: no trace source is usable here: %s\n",
		skipped);
	return NULL;
}

const struct record_source *record_source_choose(const char *name,
						 bool attach, bool quiet)
{
	const struct record_source *s;
	size_t i;

	if (!strcmp(name, "auto"))
		return choose_auto(attach, quiet);
	s = record_source_find(name);
	if (!s) {
		fprintf(stderr, "hwtrec record: --source=%s: unknown source; "
			"one of: auto", name);
		for (i = 0; record_sources[i]; i++)
			fprintf(stderr, ", %s", record_sources[i]->name);
		fprintf(stderr, "\n");
	}
	return s;
}
