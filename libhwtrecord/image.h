/* image.h: which file is mapped where, when (DESIGN.md section 3).
 *
 * Built from the sideband's executable mmap events.  Each mapping lives from
 * its mmap event to the munmap (or overlapping mmap) that ends it; a decode
 * chunk gets the view of the mappings alive during its time window.  Files
 * are found in the recording (saved objects, objects/BUILDID), at their path,
 * or by build-id in the debug directories, and their build-id must match the
 * sideband's.  A mapping whose file is missing or different stays in the
 * list with a reason, so that the decoder can name it in the gap it causes.
 *
 * The image knows no trace format: decoders read code through a view (an
 * "epoch": one set of live mappings, resolved into non-overlapping address
 * ranges), and a decoder that keeps its own image (libipt's) builds it from
 * the view's mappings in layering order.  Files are mapped read-only on first
 * use.
 */
#ifndef HWTR_IMAGE_H
#define HWTR_IMAGE_H

#include "hwtrecord.h"

struct image_mapping {
	uint64_t addr, len, pgoff;
	uint64_t tsc_begin, tsc_end;	/* alive in [tsc_begin, tsc_end) */
	const char *path;		/* as the program saw it */
	const char *build_id;		/* from the sideband, or NULL */
	char *file;			/* the file we read, or NULL */
	char *problem;			/* why there is no file, or NULL */
	uint64_t code_size;		/* bytes from addr the file holds; 0:
					 * no code (missing, or past its end) */
	/* Private: the file's bytes from pgoff, mapped on first read. */
	const uint8_t *bytes;
	void *map;
	size_t map_size;
	bool map_tried;
};

struct image_set;

int image_set_build(struct hwtr_recording *recording,
		    const char *const *debug_dirs, struct image_set **set);
void image_set_free(struct image_set *set);
/* Read the sideband events added since (hwtr_recording_refresh): new
 * mappings come after the old ones, whose indexes stay; views (epochs) made
 * before keep their numbers and roles, the new mappings having none in
 * them.  DEBUG_DIRS of the build must still be valid. */
int image_set_extend(struct image_set *set, struct hwtr_recording *recording);
/* The directory of the recording the set was built from (its objects/). */
const char *image_set_recording_dir(const struct image_set *set);
/* Sideband events read so far. */
size_t image_set_nevents(const struct image_set *set);

size_t image_set_count(const struct image_set *set);
const struct image_mapping *image_set_mapping(const struct image_set *set,
					      size_t index);

/* The view (epoch) of a time window: a small number, the same for every
 * window that sees the same mappings in the same roles. */
int image_set_for_window(struct image_set *set, uint64_t tsc_begin,
			 uint64_t tsc_end, unsigned *epoch);

/* The mappings of EPOCH that hold code, in layering order: where two
 * overlap, the later one wins (as libipt's pt_image_add does).  Indexes into
 * the set's mappings. */
size_t image_epoch_layers(const struct image_set *set, unsigned epoch,
			  const uint32_t **mappings);

/* Up to SIZE bytes of code at IP in EPOCH, contiguous from IP (across
 * adjacent mappings); returns the count, 0 if nothing is mapped at IP. */
size_t image_epoch_read(struct image_set *set, unsigned epoch, uint64_t ip,
			uint8_t *buf, size_t size);
/* The code at IP in EPOCH in place: a pointer and how many bytes follow in
 * the same mapping; NULL if nothing is mapped at IP. */
const uint8_t *image_epoch_code(struct image_set *set, unsigned epoch,
				uint64_t ip, size_t *avail);

/* The index of the mapping EPOCH reads the code at IP from, or -1 if
 * nothing is mapped there: whose file names that code (symbols.c). */
long image_epoch_mapping(struct image_set *set, unsigned epoch, uint64_t ip);

/* The view of the mappings alive at the end of the sideband read so far:
 * the program that runs last, for questions asked without a time. */
int image_set_at_end(struct image_set *set, unsigned *epoch);

/* The mapping alive at TSC that contains IP (the latest one), or NULL. */
const struct image_mapping *image_set_lookup(const struct image_set *set,
					     uint64_t ip, uint64_t tsc);

#endif
