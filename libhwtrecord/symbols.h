/* symbols.h: functions and source lines of the recording's binaries (libdw).
 *
 * Building the history asks "which function holds this IP" at every call and
 * return, so functions live in one flat sorted table with a small
 * direct-mapped cache in front; names and lines come from libdw.
 */
#ifndef HWTR_SYMBOLS_H
#define HWTR_SYMBOLS_H

#include "hwtrecord.h"
#include "image.h"

/* Function ids: 0 is "no symbol". */
int symbolizer_build(struct image_set *images, const char *const *debug_dirs,
		     struct hwtr_symbolizer **symbolizer);
void symbolizer_free(struct hwtr_symbolizer *symbolizer);
/* Read the files of the image's mappings added since (image_set_extend):
 * function ids given before keep their meaning. */
int symbolizer_extend(struct hwtr_symbolizer *symbolizer,
		      struct image_set *images);

uint32_t symbolizer_function(struct hwtr_symbolizer *symbolizer, uint64_t ip);
const char *symbolizer_function_name(const struct hwtr_symbolizer *symbolizer,
				     uint32_t id);
uint64_t symbolizer_function_start(const struct hwtr_symbolizer *symbolizer,
				   uint32_t id);
/* [start, end) of function ID, for a fast "still in the same function". */
void symbolizer_function_range(const struct hwtr_symbolizer *symbolizer,
			       uint32_t id, uint64_t *start, uint64_t *end);

#endif
