/* manifest.h: manifest.json <-> struct hwtr_recording_info. */
#ifndef HWTR_MANIFEST_H
#define HWTR_MANIFEST_H

#include "hwtrecord.h"
#include "json-util.h"

json_t *manifest_encode(const struct hwtr_recording_info *info);

/* Strings in INFO point into ROOT, which the caller keeps alive; the thread
 * and argv arrays are malloc'ed and freed with manifest_release(). */
int manifest_decode(json_t *root, const char *file,
		    struct hwtr_recording_info *info);
void manifest_release(struct hwtr_recording_info *info);

const char *end_state_name(enum hwtr_end_state state);

/* Whether the finished recording's "files" give NAME's size and CRC-32
 * (which the recording's open checked). */
bool manifest_lists_file(const struct hwtr_recording_info *info,
			 const char *name);

#endif
