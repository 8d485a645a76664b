/* mapping-rss.h: the kernel's count of a mapping's resident pages, for the
 * tests of blocks kept in files (test-spill-buffer.c, test-spill-append.c).
 */
#ifndef HWTR_TEST_MAPPING_RSS_H
#define HWTR_TEST_MAPPING_RSS_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The resident KB of the mapping that holds ADDR (the Rss of its entry in
 * /proc/self/smaps), or -1. */
static inline long resident_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	long kb = -1;

	ck_assert(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') &&
		    line[0] != ' ') {
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

#endif
