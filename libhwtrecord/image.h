/* image.h: which file is mapped where, when (DESIGN.md section 3).
 *
 * Built from the sideband's executable mmap events.  Each mapping lives from
 * its mmap event to the munmap (or overlapping mmap) that ends it; a decode
 * chunk gets the libipt image of the mappings alive during its time window.
 * Files are found in the recording (saved objects, objects/BUILDID), at their
 * path, or by build-id in the debug directories, and their build-id must match
 * the sideband's.  A mapping whose file is missing or different stays in the
 * list with a reason, so that the decoder can name it in the gap it causes.
 */
#ifndef HWTR_IMAGE_H
#define HWTR_IMAGE_H

#include "hwtrecord.h"

#include <intel-pt.h>

struct image_mapping {
	uint64_t addr, len, pgoff;
	uint64_t tsc_begin, tsc_end;	/* alive in [tsc_begin, tsc_end) */
	const char *path;		/* as the program saw it */
	const char *build_id;		/* from the sideband, or NULL */
	char *file;			/* the file we read, or NULL */
	char *problem;			/* why there is no file, or NULL */
	int isid;			/* libipt section id, > 0 when loaded */
};

struct image_set;

int image_set_build(struct hwtr_recording *recording,
		    const char *const *debug_dirs, struct image_set **set);
void image_set_free(struct image_set *set);

size_t image_set_count(const struct image_set *set);
const struct image_mapping *image_set_mapping(const struct image_set *set,
					      size_t index);
struct pt_image_section_cache *image_set_iscache(struct image_set *set);

/* The libipt image for a time window (owned by the set, cached), and a
 * small number identifying it so decoders can tell when to switch. */
int image_set_for_window(struct image_set *set, uint64_t tsc_begin,
			 uint64_t tsc_end, struct pt_image **image,
			 unsigned *epoch);

/* The mapping alive at TSC that contains IP (the latest one), or NULL. */
const struct image_mapping *image_set_lookup(const struct image_set *set,
					     uint64_t ip, uint64_t tsc);

/* Read bytes of code from a loaded mapping at IP; returns bytes read. */
int image_set_read(struct image_set *set, const struct image_mapping *m,
		   uint64_t ip, uint8_t *buf, size_t size);


#endif
