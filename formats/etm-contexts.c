/* etm-contexts.c: the context IDs each ETM source traces (see .h). */
#define _XOPEN_SOURCE 700	/* nftw */
#include "etm-contexts.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRCCONFIGR_CID 0x40u

static int compare_offsets(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The context IDs of SRC's trace, 0 included (*IDS malloc'ed). */
static int source_context_ids(const struct etm_source_trace *src,
			      uint32_t **ids, size_t *count)
{
	uint64_t *sorted = NULL;
	int err;

	if (src->nlosses) {
		/* The reader sorts the sideband's losses; so do we. */
		sorted = malloc(src->nlosses * sizeof(*sorted));
		if (!sorted)
			return hwtr_fail(hwtr_err_nomem, "out of memory");
		memcpy(sorted, src->losses, src->nlosses * sizeof(*sorted));
		qsort(sorted, src->nlosses, sizeof(*sorted), compare_offsets);
	}
	err = hwtr_etm_context_ids(src->etm, src->stream, src->size, 0, sorted,
				   src->nlosses, ids, count);
	free(sorted);
	return err;
}

int etm_context_ids(const struct etm_source_trace *sources, size_t n,
		    struct etm_context_ids *out)
{
	size_t i, k;
	int err = 0;

	memset(out, 0, n * sizeof(*out));
	for (i = 0; i < n && !err; i++) {
		uint32_t *ids = NULL;
		size_t count = 0;

		if (!(sources[i].etm->trcconfigr & TRCCONFIGR_CID))
			continue;
		if ((err = source_context_ids(&sources[i], &ids, &count)))
			break;
		if (count >= 2) {
			out[i].ids = ids;
			for (k = 0; k < count; k++)
				if (ids[k])	/* not the idle context */
					ids[out[i].n++] = ids[k];
		} else {
			free(ids);
		}
	}
	if (err)
		etm_context_ids_release(out, n);
	return err;
}

void etm_context_ids_release(struct etm_context_ids *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ids[i].ids);
		ids[i].ids = NULL;
		ids[i].n = 0;
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	return remove(path);
}

void etm_remove_recording(const char *path)
{
	nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}
