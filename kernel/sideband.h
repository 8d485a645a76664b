/* sideband.h: a recording's mappings as the sources learn them, with
 * build-ids, and objects that exist only in memory (the vDSO) saved into
 * the recording; kept so that a core writer can name the mapped files. */
#ifndef HWTREC_SIDEBAND_H
#define HWTREC_SIDEBAND_H

#include "hwtrecord.h"

#include <stddef.h>
#include <stdint.h>

struct sideband;

struct sideband *sideband_new(struct hwtr_writer *writer);
void sideband_free(struct sideband *sb);
int sideband_mmap(struct sideband *sb, uint64_t addr, uint64_t len,
		  uint64_t pgoff, int prot, const char *path, uint64_t tsc);
int sideband_munmap(struct sideband *sb, uint64_t addr, uint64_t len,
		    uint64_t tsc);
int sideband_object(struct sideband *sb, uint64_t addr, const void *bytes,
		    size_t size, uint64_t tsc);
void sideband_auxv(struct sideband *sb, const uint64_t *pairs, size_t n);
/* What the core writer needs: the auxv and the file mappings. */
struct mapping {
	uint64_t addr, len, pgoff;
	char *path;
};
const uint64_t *sideband_get_auxv(const struct sideband *sb, size_t *npairs);
const struct mapping *sideband_get_mappings(const struct sideband *sb,
					    size_t *n);

#endif
