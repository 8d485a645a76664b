/* open-history.c: see open-history.h. */
#include "open-history.h"

#include <stdio.h>
#include <unistd.h>

int open_history(const char *cmd, const char *path, struct opened_history *o)
{
	struct hwtr_history_options options = { 0 };
	const struct hwtr_recording_info *info;
	int err;

	o->recording = NULL;
	o->history = NULL;
	err = hwtr_recording_open(path, &o->recording);
	if (err) {
		fprintf(stderr, "hwtrec %s: %s\n", cmd, hwtr_last_error());
		return 1;
	}
	info = hwtr_recording_info(o->recording);
	if (info->cut_off)
		fprintf(stderr, "hwtrec %s: warning: %s\n", cmd,
			info->cut_off_reason);
	options.progress = isatty(2) ? stderr : NULL;
	err = hwtr_history_build(o->recording, &options, &o->history);
	if (err) {
		fprintf(stderr, "hwtrec %s: %s\n", cmd, hwtr_last_error());
		hwtr_recording_close(o->recording);
		o->recording = NULL;
		return 1;
	}
	return 0;
}

void close_history(struct opened_history *o)
{
	hwtr_history_free(o->history);
	hwtr_recording_close(o->recording);
}
