/* etm-contexts.c: the context IDs each ETM source traces (see .h). */
#define _XOPEN_SOURCE 700	/* nftw */
#include "etm-contexts.h"

#include <hwtrecord.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRCCONFIGR_CID 0x40u

int etm_context_ids(const char *path, const uint32_t *tids, size_t n,
		    struct etm_context_ids *out)
{
	const struct hwtr_recording_info *info;
	struct hwtr_recording *rec = NULL;
	struct hwtr_history *h = NULL;
	size_t i, k, t;
	int rc = -1;

	memset(out, 0, n * sizeof(*out));
	if (hwtr_recording_open(path, &rec) < 0 ||
	    hwtr_history_build(rec, NULL, &h) < 0)
		goto out;
	info = hwtr_recording_info(rec);
	for (i = 0; i < n; i++) {
		struct hwtr_thread *th = hwtr_history_find_thread(h, tids[i]);
		const uint32_t *ids;
		size_t count;

		for (t = 0; t < info->nthreads && info->threads[t].tid != tids[i]; t++)
			;
		if (t == info->nthreads || !info->threads[t].etm ||
		    !(info->threads[t].etm->trcconfigr & TRCCONFIGR_CID) || !th ||
		    hwtr_thread_context_ids(th, &ids, &count) < 0 || count < 2)
			continue;
		out[i].ids = calloc(count, sizeof(*ids));
		if (!out[i].ids) {
			hwtr_fail(hwtr_err_nomem, "out of memory");
			goto out;
		}
		for (k = 0; k < count; k++)
			if (ids[k])	/* not the idle context */
				out[i].ids[out[i].n++] = ids[k];
	}
	rc = 0;
out:
	if (rc)
		etm_context_ids_release(out, n);
	hwtr_history_free(h);
	hwtr_recording_close(rec);
	return rc;
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
